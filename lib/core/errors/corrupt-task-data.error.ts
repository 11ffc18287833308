import { ThreadmillError } from './threadmill.error';

/**
 * Recorded on a task whose stored data could not be read (not JSON, or missing fields).
 *
 * @publicApi
 */
export class CorruptTaskDataError extends ThreadmillError {
  readonly code = 'CORRUPT_TASK_DATA';
}
