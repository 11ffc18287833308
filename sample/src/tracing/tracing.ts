import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

import { JsonLinesSpanExporter } from './json-lines-span.exporter';

/**
 * Opt-in tracing of the sample: with `THREADMILL_TRACE_FILE=<path>`, every
 * process (the web app, the pool and its children) registers an OpenTelemetry
 * SDK with the HTTP instrumentation and appends its spans to that file as
 * JSON lines. Imported first by each entry point, before anything loads
 * `http`, so the instrumentation can wrap it. Without the variable nothing is
 * registered, and Threadmill's tracing costs nothing.
 */
const file = process.env.THREADMILL_TRACE_FILE;
if (file) {
  const provider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new JsonLinesSpanExporter(file))],
  });
  // The AsyncLocalStorage context manager and the W3C propagator.
  provider.register();
  registerInstrumentations({ instrumentations: [new HttpInstrumentation()] });
}
