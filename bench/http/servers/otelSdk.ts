/**
 * The OpenTelemetry setup the benchmark's traced servers share (servers/ours.ts with `--otel`,
 * servers/otel-floor.ts), so that ours and its floor pay for the same SDK: a tracer provider
 * recording every span with the SDK's in-memory exporter and an AsyncLocalStorage context
 * manager, as a service exporting spans would have them. `batch`: spans handed over in batches
 * (BatchSpanProcessor, NodeSDK's default), else one at a time as each ends (SimpleSpanProcessor).
 *
 * The exporter forgets each batch once it is handed over, as a network exporter does once it
 * has sent it (the sending is the collector's cost, left out). Kept for a second instead, as
 * this setup first did, the spans of thousands of requests outlive their young generation and
 * their promotion and marking cost more per request than making them (about 11 µs of GC per
 * `{ hello }`, against 4 with the batch forgotten, in a CPU profile).
 */
export async function registerTracerProvider(batch: boolean): Promise<void> {
  const { context, trace } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const exporter = new InMemorySpanExporter();
  const record = exporter.export.bind(exporter);
  exporter.export = (spans, done) => {
    record(spans, done);
    exporter.reset();
  };
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const processor = batch ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter);
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }));
}
