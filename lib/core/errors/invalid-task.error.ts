import { ThreadmillError } from './threadmill.error';

/**
 * A task definition, enqueue call or its arguments cannot be accepted; the message names the task and what to change.
 *
 * @publicApi
 */
export class InvalidTaskError extends ThreadmillError {
  readonly code = 'INVALID_TASK';
}
