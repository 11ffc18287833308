import type { RetentionOptions } from '../core/retention';

/**
 * The options every backend has, with the same meaning and defaults (times in
 * milliseconds), under `options` in its backend config beside its own.
 *
 * @publicApi
 */
export interface BackendOptions {
  /** Longest a started task may stay unacknowledged before it is failed with AcknowledgementTimeout. Default 1 h. */
  leaseTtl?: number;
  /** How long results and history are kept. Default 1 day. */
  resultTtl?: number;
  /** Period of the maintenance pass (promote deferred, reap leases, recover pools, trim). Default 1 s. */
  maintenanceInterval?: number;
  /** Most tasks promoted, reaped or recovered per maintenance pass. Default 100. */
  batchSize?: number;
  /**
   * How long and how many finished tasks are kept, by final status and per
   * queue (a count bounds the memory results take). Default: each kept
   * resultTtl, with no count limit.
   */
  retention?: RetentionOptions;
}
