import { ThreadmillError } from './threadmill.error';

/**
 * An operation did not settle within its time limit (a health ping, a shutdown grace period).
 *
 * @publicApi
 */
export class OperationTimeoutError extends ThreadmillError {
  readonly code = 'OPERATION_TIMEOUT';
}
