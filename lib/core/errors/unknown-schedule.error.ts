import { ThreadmillError } from './threadmill.error';

/**
 * No schedule with this id is stored on the backend asked; the message names both.
 *
 * @publicApi
 */
export class UnknownScheduleError extends ThreadmillError {
  readonly code = 'UNKNOWN_SCHEDULE';
}
