import { ThreadmillError } from './threadmill.error';

/**
 * `TaskContext.progress` was given a value it cannot store: not JSON (a
 * function, a Date, a cycle, a non-finite number, ...) or larger than
 * MAX_PROGRESS_BYTES once serialized. Thrown by the call itself, so the task
 * sees it where it reported; nothing is stored.
 *
 * @publicApi
 */
export class InvalidTaskProgressError extends ThreadmillError {
  readonly code = 'INVALID_TASK_PROGRESS';
}
