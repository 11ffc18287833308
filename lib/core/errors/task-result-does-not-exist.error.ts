import { ThreadmillError } from './threadmill.error';

/**
 * No task with this id is stored: it never existed or its result expired after `resultTtl`.
 *
 * @publicApi
 */
export class TaskResultDoesNotExist extends ThreadmillError {
  readonly code = 'TASK_RESULT_DOES_NOT_EXIST';
}
