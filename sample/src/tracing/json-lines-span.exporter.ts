import { appendFileSync } from 'node:fs';

import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** One finished span as a line of the file: what a test or `jq` reads back. */
export interface SpanLine {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly name: string;
  /** OpenTelemetry's SpanKind: 0 internal, 1 server, 2 client, 3 producer, 4 consumer. */
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  readonly status: { code: number; message?: string };
  readonly scope: string;
  /** The process that made it: the web app, the pool or one of its children. */
  readonly pid: number;
}

type ExportCallback = Parameters<SpanExporter['export']>[1];

/**
 * Appends each finished span to a file as one JSON line, at once (the
 * sample pairs it with a SimpleSpanProcessor): several processes can share
 * one file, and nothing is lost when a process is killed after a span ends.
 * For trying tracing out and for the tests; a real app exports to a collector.
 */
export class JsonLinesSpanExporter implements SpanExporter {
  constructor(private readonly file: string) {}

  export(spans: ReadableSpan[], done: ExportCallback): void {
    const text = spans.map((span) => `${JSON.stringify(toLine(span))}\n`).join('');
    try {
      appendFileSync(this.file, text);
      // ExportResultCode.SUCCESS (the enum lives in @opentelemetry/core, not a dependency of the sample).
      done({ code: 0 });
    } catch (error) {
      done({ code: 1, error: error as Error });
    }
  }

  async shutdown(): Promise<void> {}
}

function toLine(span: ReadableSpan): SpanLine {
  const { traceId, spanId } = span.spanContext();
  return {
    traceId,
    spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? null,
    name: span.name,
    kind: span.kind,
    attributes: { ...span.attributes },
    status: { ...span.status },
    scope: span.instrumentationScope.name,
    pid: process.pid,
  };
}
