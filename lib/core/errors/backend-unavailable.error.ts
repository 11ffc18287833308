import { ThreadmillError } from './threadmill.error';

/**
 * The backend's store cannot be reached (connection refused, timed out or rejected).
 *
 * @publicApi
 */
export class BackendUnavailableError extends ThreadmillError {
  readonly code = 'BACKEND_UNAVAILABLE';
}
