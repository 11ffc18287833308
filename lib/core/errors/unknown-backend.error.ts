import { ThreadmillError } from './threadmill.error';

/**
 * A backend alias was asked for that `ThreadmillModule` does not configure; the message lists the configured ones.
 *
 * @publicApi
 */
export class UnknownBackendError extends ThreadmillError {
  readonly code = 'UNKNOWN_BACKEND';
}
