import { ThreadmillError } from './threadmill.error';

/**
 * Recorded on an attempt that ran past its task's `timeoutMs`; it is also the
 * reason of the attempt's `TaskContext.signal`, aborted at the deadline. The
 * attempt fails with it and is retried per the task's retry policy.
 *
 * @publicApi
 */
export class TaskTimeoutError extends ThreadmillError {
  readonly code = 'TASK_TIMEOUT';

  constructor(
    message: string,
    /** The attempt's time limit (ms). */
    readonly timeoutMs: number,
  ) {
    super(message);
  }
}
