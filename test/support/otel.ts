/**
 * The real OpenTelemetry SDK for the telemetry tests: spans into an in-memory exporter, metrics into an in-memory
 * reader, W3C trace context, and the AsyncLocalStorage context manager (what NodeSDK registers), so that spans made
 * by the server's own code nest under the gate's.
 */
import { context, type AttributeValue } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { MeterProvider, MetricReader, type DataPoint, type Histogram, type MetricData } from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { mcpTelemetry } from "wymcp/otel";

/** A metric reader that keeps nothing: each `collect()` reads the meter provider's current state. */
class InMemoryReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

export interface Observed {
  telemetry: ReturnType<typeof mcpTelemetry>;
  tracerProvider: TracerProvider;
  /** The spans ended so far. */
  spans(): ReadableSpan[];
  /** The spans the gate made (kind SERVER), ended so far. */
  serverSpans(): ReadableSpan[];
  /** One metric by name, as the reader collects it now. */
  metric(name: string): Promise<MetricData | undefined>;
  reset(): void;
}

let manager: AsyncLocalStorageContextManager | undefined;

/** The context manager a Node application registers (NodeSDK does it); once per test process. */
export function enableContext(): void {
  if (manager) return;
  manager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(manager);
}

export function observed(): Observed {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const reader = new InMemoryReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const telemetry = mcpTelemetry({ tracerProvider, meterProvider, propagator: new W3CTraceContextPropagator() });
  return {
    telemetry,
    tracerProvider,
    spans: () => exporter.getFinishedSpans(),
    serverSpans: () => exporter.getFinishedSpans().filter((s) => s.kind === 1),
    async metric(name) {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
    },
    reset: () => exporter.reset(),
  };
}

/** A data point's attributes, for comparing. */
export function attributesOf(point: DataPoint<unknown>): Record<string, AttributeValue | undefined> {
  return { ...point.attributes };
}

/** The histogram points of a metric. */
export function histogramPoints(metric: MetricData | undefined): DataPoint<Histogram>[] {
  return (metric?.dataPoints ?? []) as DataPoint<Histogram>[];
}

/** Waits until `check` holds (spans end when the answer is written, a moment after the client reads it). */
export async function eventually(check: () => boolean, what: string, ms = 2_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
export const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
export const PARENT_SPAN_ID = "00f067aa0ba902b7";
export const HEADER_TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
export const HEADER_TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
export const HEADER_SPAN_ID = "b7ad6b7169203331";
