/**
 * The real OpenTelemetry SDK for the telemetry tests: spans into an in-memory exporter, metrics into an in-memory
 * reader, W3C trace context, and the AsyncLocalStorage context manager (what NodeSDK registers), so that spans made
 * by the server's own code nest under the gate's.
 */
import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
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

/**
 * Waits until `check` holds (spans end when the answer is written, a moment after the client reads it), looking again
 * every few milliseconds. `what` names the event for the reader of the test. No deadline: a loaded machine may take
 * minutes over what is a moment on an idle one, and the runner's limit is the only bound on a test's time.
 */
export async function eventually(check: () => boolean, _what: string): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** `SpanKind.SERVER`, and the span status codes UNSET and ERROR, as the SDK's spans carry them. */
export const SERVER = 1;
export const UNSET = 0;
export const ERROR = 2;
/** The bucket boundaries the conventions advise for `mcp.server.operation.duration`. */
export const OPERATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

export const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
export const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
export const PARENT_SPAN_ID = "00f067aa0ba902b7";
export const HEADER_TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
export const HEADER_TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
export const HEADER_SPAN_ID = "b7ad6b7169203331";

/** The official client v2 connected to `url` (pinned to 2026-07-28 when `modern`), closed after `use`. */
export async function withClient<T>(url: URL, modern: boolean, use: (client: Client) => Promise<T>, fetchFn?: typeof fetch): Promise<T> {
  const client = new Client(
    { name: "otel-client", version: "0.0.0" },
    modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(url, fetchFn ? { fetch: fetchFn } : {}));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

/** The one span named `name`. */
export function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  assert.equal(found.length, 1, `one span named ${name}, got ${spans.map((s) => s.name).join(", ")}`);
  return found[0]!;
}

/** The attributes worth comparing exactly: the client's port changes per connection. */
export function stable(span: ReadableSpan): Record<string, unknown> {
  const { "client.port": port, ...rest } = span.attributes;
  assert.equal(typeof port, "number");
  return rest;
}

/** The JSON-RPC code a refused call rejects with. */
export async function rejects(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    return (error as { code: number }).code;
  }
  assert.fail("the call should have been refused");
}

/** The connection attributes of a span on Node's HTTP server, over loopback. */
export const HTTP_NODE = {
  "network.transport": "tcp",
  "network.protocol.name": "http",
  "network.protocol.version": "1.1",
  "client.address": "127.0.0.1",
};

/** What a span of a passing modern `tools/call echo` over Node's HTTP carries, whichever face recorded it (`stable`'s view). */
export function modernEchoCall(span: ReadableSpan): Record<string, unknown> {
  return {
    ...HTTP_NODE,
    "mcp.method.name": "tools/call",
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "echo",
    "mcp.protocol.version": "2026-07-28",
    "jsonrpc.request.id": String(span.attributes["jsonrpc.request.id"]),
    "wymcp.verdict": "admitted",
    "wymcp.era": "modern",
  };
}
