import { ThreadmillError } from './threadmill.error';

/**
 * The store refused a write because it is full (Redis at `maxmemory` with
 * the `noeviction` policy, or a full disk under a SQLite file). Nothing of
 * the refused call was stored: an enqueue stored no task, an acknowledge or
 * retry changed nothing (the task stays leased, its data intact). On Redis,
 * what drains a full store (leases, outcomes, retries, heartbeats) is not
 * refused, so its waiting tasks still run. Retry the same call once memory
 * or disk space is freed.
 *
 * @publicApi
 */
export class StoreFullError extends ThreadmillError {
  readonly code = 'STORE_FULL';
  override readonly retryable = true;
}
