/**
 * @module examples/otel-from-env: telemetry for the example server, switched on from the environment; the HTTP flood
 * prices it. `WYMCP_OTEL=noop`: `mcpTelemetry()` with no SDK registered (the API's no-op providers: what telemetry costs
 * before anything is recorded). `WYMCP_OTEL=sdk`: the OpenTelemetry SDK as a Node service sets it up: the
 * AsyncLocalStorage context manager, W3C trace context, a batch span processor and periodic metric export, into
 * in-memory exporters emptied every second (the cost of recording, without a network in the figures).
 */
import type { Telemetry } from "wymcp/node";

export async function otelFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<{ telemetry?: Telemetry }> {
  const mode = env.WYMCP_OTEL || "off";
  if (mode === "off") return {};
  if (mode !== "noop" && mode !== "sdk") throw new Error(`WYMCP_OTEL must be "off", "noop" or "sdk", not ${JSON.stringify(mode)}`);
  // Loaded only here: the example without WYMCP_OTEL never loads OpenTelemetry.
  const { mcpTelemetry } = await import("wymcp/otel");
  if (mode === "noop") return { telemetry: mcpTelemetry() };
  const { context } = await import("@opentelemetry/api");
  const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
  const { W3CTraceContextPropagator } = await import("@opentelemetry/core");
  const { BatchSpanProcessor, InMemorySpanExporter, TracerProvider } = await import("@opentelemetry/sdk-trace");
  const { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } = await import(
    "@opentelemetry/sdk-metrics"
  );
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const spans = new InMemorySpanExporter();
  const metrics = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: spans })] });
  const meterProvider = new MeterProvider({
    readers: [new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: 1_000 })],
  });
  const empty = setInterval(() => {
    spans.reset();
    metrics.reset();
  }, 1_000);
  empty.unref();
  return { telemetry: mcpTelemetry({ tracerProvider, meterProvider, propagator: new W3CTraceContextPropagator() }) };
}
