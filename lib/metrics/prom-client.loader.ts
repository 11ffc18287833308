import type * as PromClientModule from 'prom-client';

import { requireOptional } from '../utils/require-optional.util';

/** The prom-client module. @internal */
export type PromClient = typeof PromClientModule;

/** One scrape's worth of metrics as prom-client's `getMetricsAsJSON` gives them (JSON-safe). @internal */
export type MetricsSnapshot = PromClientModule.MetricObjectWithValues<
  PromClientModule.MetricValue<string>
>[];

/**
 * Loads prom-client on first use, the one place the library requires it. It
 * is an optional peer dependency: importing the package must work without
 * it, and without it the metrics are off (null here).
 *
 * @internal
 */
export function loadPromClient(): PromClient | null {
  return requireOptional<PromClient>('prom-client');
}
