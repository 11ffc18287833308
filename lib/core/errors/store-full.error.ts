import { ThreadmillError } from './threadmill.error';

/**
 * The store refused a write because it is full (Redis at `maxmemory` with
 * the `noeviction` policy). Nothing of the refused call was stored: an
 * enqueue stored no task. What drains a full store (leases, outcomes,
 * retries, heartbeats) is not refused, so its waiting tasks still run and
 * expire. Retry the same call once memory is freed.
 *
 * @publicApi
 */
export class StoreFullError extends ThreadmillError {
  readonly code = 'STORE_FULL';
  override readonly retryable = true;
}
