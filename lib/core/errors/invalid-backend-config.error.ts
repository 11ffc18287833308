import { ThreadmillError } from './threadmill.error';

/**
 * A backend alias is misconfigured; the message names the alias and the option.
 *
 * @publicApi
 */
export class InvalidBackendConfigError extends ThreadmillError {
  readonly code = 'INVALID_BACKEND_CONFIG';
}
