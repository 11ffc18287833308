import { ThreadmillError } from './threadmill.error';

/**
 * Two `@Task` methods share one name; the message names both.
 *
 * @publicApi
 */
export class DuplicateTaskError extends ThreadmillError {
  readonly code = 'DUPLICATE_TASK';
}
