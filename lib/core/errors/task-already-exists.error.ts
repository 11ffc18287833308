import type { TaskResult } from '../task-result';
import { ThreadmillError } from './threadmill.error';

/**
 * An enqueue named an id that is already stored (waiting, running or
 * finished within resultTtl), so nothing was enqueued. `existing` is the
 * stored task: after an EnqueueOutcomeUnknownError, a repeat with the same
 * id that gets this error learns that the first call did store it.
 *
 * @publicApi
 */
export class TaskAlreadyExistsError extends ThreadmillError {
  readonly code = 'TASK_ALREADY_EXISTS';

  constructor(
    message: string,
    readonly existing: TaskResult,
  ) {
    super(message);
  }
}
