import type { TaskRecord } from '../task-record.interface';
import { ThreadmillError } from './threadmill.error';

/**
 * A task was not final within the time `waitForResult` (or `result.wait`)
 * was given. The task itself is untouched: wait again, or read it later.
 *
 * @publicApi
 */
export class TaskWaitTimeoutError extends ThreadmillError {
  readonly code = 'TASK_WAIT_TIMEOUT';
  override readonly retryable = true;

  constructor(
    message: string,
    /** The task as last read, still unfinished. */
    readonly record: TaskRecord,
  ) {
    super(message);
  }
}
