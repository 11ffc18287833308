/**
 * Opt-in tracing of the sample: with `THREADMILL_TRACE_FILE=<path>`, every
 * process (the web app, the pool and its children) registers an OpenTelemetry
 * SDK with the HTTP instrumentation and appends its spans to that file as
 * JSON lines. Imported first by each entry point, before anything loads
 * `http`, so the instrumentation can wrap it. Without the variable nothing is
 * registered, and Threadmill's tracing costs nothing; the SDK is not even
 * loaded, which would add a few hundred ms to every start of the CLI.
 */
const file = process.env.THREADMILL_TRACE_FILE;
if (file) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when asked for (see above)
  (require('./trace-to-file') as typeof import('./trace-to-file')).traceToFile(file);
}
