import type { SpanContext } from '@opentelemetry/api';

/** version-traceid-spanid-flags; a later version may append fields, which are ignored. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const INVALID_TRACE_ID = '0'.repeat(32);
const INVALID_SPAN_ID = '0'.repeat(16);

/**
 * The `traceparent` of a span context, as W3C's propagator writes it: used
 * when the app registered no propagator that writes one (a bare provider,
 * or another format only), so a stored task always carries W3C's form.
 *
 * @internal
 */
export function formatTraceparent(context: SpanContext): string {
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

/**
 * The ids and flags of a stored `traceparent`, or null when it is not a
 * valid one (then the attempt starts a trace of its own).
 *
 * @internal
 */
export function parseTraceparent(
  traceparent: string,
): Pick<SpanContext, 'traceId' | 'spanId' | 'traceFlags'> | null {
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match) return null;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (traceId === INVALID_TRACE_ID || spanId === INVALID_SPAN_ID) return null;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) };
}
