import type * as PromClientModule from 'prom-client';

/** The prom-client module. @internal */
export type PromClient = typeof PromClientModule;

/** One scrape's worth of metrics as prom-client's `getMetricsAsJSON` gives them (JSON-safe). @internal */
export type MetricsSnapshot = PromClientModule.MetricObjectWithValues<
  PromClientModule.MetricValue<string>
>[];

const isPromClientMissing = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (error as { code?: unknown }).code === 'MODULE_NOT_FOUND' &&
  String((error as { message?: unknown }).message).includes('prom-client');

/**
 * Loads prom-client on first use, the one place the library requires it. It
 * is an optional peer dependency: importing the package must work without
 * it, and without it the metrics are off (null here).
 *
 * @internal
 */
export function loadPromClient(): PromClient | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy require is what keeps the peer optional
    return require('prom-client') as PromClient;
  } catch (error) {
    if (isPromClientMissing(error)) return null;
    throw error;
  }
}
