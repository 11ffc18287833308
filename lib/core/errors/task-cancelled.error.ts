import { ThreadmillError } from './threadmill.error';

/**
 * The reason of a cancelled attempt's `TaskContext.signal` (`tasks.cancel`),
 * and the last error of its CANCELLED record. A cancelled task is final:
 * it is never retried.
 *
 * @publicApi
 */
export class TaskCancelledError extends ThreadmillError {
  readonly code = 'TASK_CANCELLED';
}
