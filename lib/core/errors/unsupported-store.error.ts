import { ThreadmillError } from './threadmill.error';

/**
 * The store answers, but is set up so that Threadmill cannot keep its
 * promises with it (a Redis older than 7.0, or one that evicts keys when
 * memory is full); the message names the setting and how to fix it.
 * Checked once when the backend first reaches the store, so a worker pool or
 * an enqueue fails at start, not by losing tasks later.
 *
 * @publicApi
 */
export class UnsupportedStoreError extends ThreadmillError {
  readonly code = 'UNSUPPORTED_STORE';
}
