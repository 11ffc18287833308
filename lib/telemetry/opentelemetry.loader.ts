import type * as OpenTelemetryModule from '@opentelemetry/api';

import { requireOptional } from '../utils/require-optional.util';

/** The `@opentelemetry/api` module, as the library uses it. @internal */
export type OpenTelemetryApi = typeof OpenTelemetryModule;

/** The package; a test names one that is not installed. */
export const OPENTELEMETRY_API = '@opentelemetry/api';

/**
 * `@opentelemetry/api`, or null when it is not installed. It is an optional
 * peer dependency: tracing is on only where the app installed it (and
 * registered an SDK), and nothing else of the library may import it. The
 * one place it is required, once per process.
 *
 * @internal
 */
export function loadOpenTelemetry(specifier: string = OPENTELEMETRY_API): OpenTelemetryApi | null {
  return requireOptional<OpenTelemetryApi>(specifier);
}
