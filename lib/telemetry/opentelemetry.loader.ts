import type * as OpenTelemetryModule from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as the library uses it. @internal */
export type OpenTelemetryApi = typeof OpenTelemetryModule;

/** The package; a test names one that is not installed. */
export const OPENTELEMETRY_API = '@opentelemetry/api';

const isModuleNotFound = (error: unknown, specifier: string): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (error as { code?: unknown }).code === 'MODULE_NOT_FOUND' &&
  String((error as { message?: unknown }).message).includes(specifier);

/**
 * `@opentelemetry/api`, or null when it is not installed. It is an optional
 * peer dependency: tracing is on only where the app installed it (and
 * registered an SDK), and nothing else of the library may import it. The
 * one place it is required, once per process.
 *
 * @internal
 */
export function loadOpenTelemetry(specifier: string = OPENTELEMETRY_API): OpenTelemetryApi | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a guarded require is what keeps the peer optional
    return require(specifier) as OpenTelemetryApi;
  } catch (error) {
    if (isModuleNotFound(error, specifier)) return null;
    throw error;
  }
}
