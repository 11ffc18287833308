import type { BackendOptions } from '../backend-options.interface';

/**
 * Options of `MemoryBackend` (times in milliseconds), under `options` in its backend config.
 *
 * @example
 * ```ts
 * { backend: MemoryBackend, queues: ['default'], options: { leaseTtl: 60_000, immediate: false } }
 * ```
 * @publicApi
 */
export interface MemoryBackendOptions extends BackendOptions {
  /**
   * Run each task inside `enqueue`, in the enqueuing process (like Django's
   * ImmediateBackend): `enqueue` returns the finished result. For unit tests of
   * code that enqueues. Disables `runAfter`. Default false.
   */
  immediate?: boolean;
}
