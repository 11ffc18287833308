import type { BackendConfig } from './core';
import type { ThreadmillMetricsOptions } from './metrics/metrics-options.interface';

/**
 * Options of `ThreadmillModule.forRoot` (and what `forRootAsync`'s factory returns).
 *
 * @example
 * ```ts
 * const options: ThreadmillModuleOptions = {
 *   backends: { default: { backend: MemoryBackend, queues: ['default', 'emails'] } },
 * };
 * ```
 * @publicApi
 */
export interface ThreadmillModuleOptions {
  /** One entry per backend alias; tasks use `'default'` unless they name another. */
  backends: Record<string, BackendConfig>;
  /**
   * Prometheus metrics of this process (ThreadmillMetrics): `true`, or where
   * to register them (`{ registry }`). Off by default; needs prom-client.
   */
  metrics?: boolean | ThreadmillMetricsOptions;
}
