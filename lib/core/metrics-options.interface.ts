/**
 * A prom-client `Registry`, described by what Threadmill uses of it, so the
 * package's types need no prom-client: pass prom-client's global `register`
 * (the one `@willsoto/nestjs-prometheus` serves by default) or a `new Registry()`.
 *
 * @publicApi
 */
export interface MetricsRegistry {
  readonly contentType: string;
  /** The exposition text of every metric registered. */
  metrics(): Promise<string>;
  registerMetric(metric: never): void;
  removeSingleMetric(name: string): void;
}

/**
 * The `metrics` option of ThreadmillModule: `true` for the defaults, or these.
 *
 * @example
 * ```ts
 * import { register } from 'prom-client';
 * ThreadmillModule.forRoot({ backends, metrics: { registry: register } });
 * ```
 * @publicApi
 */
export interface ThreadmillMetricsOptions {
  /**
   * The registry the metrics join, e.g. the one your `/metrics` endpoint
   * already serves; a registry of their own (read with
   * `ThreadmillMetrics.metrics()`) when absent.
   */
  registry?: MetricsRegistry;
  /**
   * How often Prometheus scrapes this process (ms, default 15 000): the store
   * gauges read the store at most that often, and their role lasts four of them.
   */
  scrapeIntervalMs?: number;
}
