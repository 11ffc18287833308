import { ThreadmillError } from './threadmill.error';

/**
 * An acquire under a worker pool whose heartbeat had lapsed by the store's
 * clock (or was never written, or was forgotten after the pool's tasks were
 * recovered): the store leased nothing, since another pool may be
 * recovering that pool's tasks as lost at this very moment. Nothing was
 * changed. The pool beats again on its next pass; try again after it.
 *
 * @publicApi
 */
export class PoolHeartbeatLapsedError extends ThreadmillError {
  readonly code = 'POOL_HEARTBEAT_LAPSED';
  override readonly retryable = true;
}
