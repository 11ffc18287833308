import { ThreadmillError } from './threadmill.error';

/**
 * Recorded on a task that was started but not acknowledged within `leaseTtl`.
 *
 * @publicApi
 */
export class AcknowledgementTimeout extends ThreadmillError {
  readonly code = 'ACKNOWLEDGEMENT_TIMEOUT';
}
