import { ThreadmillError } from './threadmill.error';

/**
 * A queue was named (to pause, resume or list) that its backend alias does not configure; the
 * message lists the configured ones.
 *
 * @publicApi
 */
export class UnknownQueueError extends ThreadmillError {
  readonly code = 'UNKNOWN_QUEUE';
}
