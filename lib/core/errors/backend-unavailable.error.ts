import { ThreadmillError } from './threadmill.error';

/**
 * The backend's store cannot be reached (connection refused, timed out or
 * rejected). A command the store answered with an error of its own is a
 * BackendCommandError (StoreFullError when it is full); an enqueue whose
 * reply was lost is an EnqueueOutcomeUnknownError.
 *
 * @publicApi
 */
export class BackendUnavailableError extends ThreadmillError {
  readonly code = 'BACKEND_UNAVAILABLE';
  override readonly retryable = true;
}
