import { ThreadmillError } from './threadmill.error';

/**
 * Thrown by `TaskResult.returnValue` while the task has not finished successfully.
 *
 * @publicApi
 */
export class TaskNotSuccessfulError extends ThreadmillError {
  readonly code = 'TASK_NOT_SUCCESSFUL';
}
