import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

import { JsonLinesSpanExporter } from './json-lines-span.exporter';

/**
 * Registers an OpenTelemetry SDK with the HTTP instrumentation that appends
 * every span of this process to `file` as JSON lines.
 */
export function traceToFile(file: string): void {
  const provider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new JsonLinesSpanExporter(file))],
  });
  // The AsyncLocalStorage context manager and the W3C propagator.
  provider.register();
  registerInstrumentations({ instrumentations: [new HttpInstrumentation()] });
}
