/**
 * User-facing text of the metrics (the pool's `/metrics` and ThreadmillMetrics), written once.
 */
import { shown } from '../core/shown';

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

/** The body of `/metrics` (501) when prom-client is not installed. */
export const metricsNeedPromClient = (): string =>
  'Metrics need prom-client, an optional peer dependency that is not installed; install it with `npm install prom-client` and restart the pool.';

export const metricsNotEnabled = (): string =>
  'ThreadmillMetrics is off: enable it with `metrics: true` (or `metrics: { registry }`) in the options of ThreadmillModule.forRoot.';

export const storeGaugesFailed = (alias: string, error: unknown): string =>
  `The store gauges of backend ${shown(alias)} could not be read; they are left out of this scrape: ${describe(error)}`;

export const metricsRenderFailed = (error: unknown): string =>
  `The metrics could not be rendered: ${describe(error)}`;
