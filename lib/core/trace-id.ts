import type { TaskTraceContext } from './task-record.interface';

/** `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`, the W3C traceparent (version 00 layout). */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}/;

/**
 * The trace id of a stored trace context, for log lines; undefined for a
 * task enqueued outside a trace or a traceparent that is not W3C's. Plain
 * text work, so logging it needs no tracing library.
 */
export function traceIdOf(context: TaskTraceContext | undefined): string | undefined {
  if (context === undefined) return undefined;
  return TRACEPARENT.exec(context.traceparent)?.[1];
}
