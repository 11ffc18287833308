import type { RetentionOptions } from '../../lifecycle/retention';

/**
 * Options of `MemoryBackend` (times in milliseconds), under `options` in its backend config.
 *
 * @example
 * ```ts
 * { backend: MemoryBackend, queues: ['default'], options: { leaseTtl: 60_000, immediate: false } }
 * ```
 * @publicApi
 */
export interface MemoryBackendOptions {
  /** Longest a started task may stay unacknowledged before a maintenance pass fails it. Default 1 h. */
  leaseTtl?: number;
  /** How long results and history are kept. Default 1 day. */
  resultTtl?: number;
  /** Period of the maintenance pass the worker pool runs. Default 1 s. */
  maintenanceInterval?: number;
  /** @deprecated The earlier name of `maintenanceInterval`, still read (with a warning). */
  brokerInterval?: number;
  /** Most tasks promoted or reaped per pass. Default 100. */
  batchSize?: number;
  /**
   * How long and how many finished tasks are kept, by final status and per
   * queue (a count bounds the memory results take). Default: each kept
   * resultTtl, with no count limit.
   */
  retention?: RetentionOptions;
  /**
   * Run each task inside `enqueue`, in the enqueuing process (like Django's
   * ImmediateBackend): `enqueue` returns the finished result. For unit tests of
   * code that enqueues. Disables `runAfter`. Default false.
   */
  immediate?: boolean;
}
