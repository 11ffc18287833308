import { ThreadmillError } from './threadmill.error';

/**
 * A read of a store (`listTasks`, `activity`) was asked something it cannot
 * answer: a limit or window out of range, or a cursor that is not one a
 * previous page of the same listing returned. The message says what to send.
 *
 * @publicApi
 */
export class InvalidQueryError extends ThreadmillError {
  readonly code = 'INVALID_QUERY';
}
