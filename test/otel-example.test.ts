import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { context, SpanKind, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import * as z from "zod";
import { gateNode } from "wymcp/node";
import { replaceSection } from "../scripts/doc-sections.js";
import { listening } from "./support/gate-fixtures.js";
import { enableContext, eventually, observed } from "./support/otel.js";
import { repoRoot } from "./support/spec.js";

const DOC = join(repoRoot, "docs", "observability.md");
const KINDS = ["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"];
const STATUS = ["UNSET", "OK", "ERROR"];

/** Spans as an indented tree, ids numbered in order of start, attributes sorted; the client's port is not shown. */
function render(spans: ReadableSpan[]): string {
  const sorted = [...spans].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  const names = new Map<string, string>();
  const traces = new Map<string, string>();
  for (const span of sorted) {
    names.set(span.spanContext().spanId, `s${names.size + 1}`);
    if (!traces.has(span.spanContext().traceId)) traces.set(span.spanContext().traceId, `t${traces.size + 1}`);
  }
  const lines: string[] = [];
  const visit = (span: ReadableSpan, depth: number) => {
    const pad = "    ".repeat(depth);
    const id = span.spanContext();
    const parent = span.parentSpanContext ? `, parent ${names.get(span.parentSpanContext.spanId) ?? "?"}` : "";
    lines.push(
      `${pad}${span.name} (${KINDS[span.kind]}, trace ${traces.get(id.traceId)}, span ${names.get(id.spanId)}${parent}, status ${STATUS[span.status.code]})`,
    );
    for (const [key, value] of Object.entries(span.attributes).sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`${pad}  ${key} = ${key === "client.port" ? "<port>" : JSON.stringify(value)}`);
    }
    for (const child of sorted.filter((s) => s.parentSpanContext?.spanId === id.spanId)) visit(child, depth + 1);
  };
  for (const root of sorted.filter((s) => !s.parentSpanContext || !names.has(s.parentSpanContext.spanId))) visit(root, 0);
  return lines.join("\n");
}

test("docs/observability.md's example trace is what the SDK records for a passing and a refused tools/call (UPDATE_GOLDEN=1 rewrites it)", async () => {
  enableContext();
  const o = observed();
  const tracer = o.tracerProvider.getTracer("example");
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "weather", version: "1.0.0" });
    server.registerTool("get_weather", { inputSchema: z.object({ city: z.string() }) }, async ({ city }) => {
      tracer.startSpan("fetch forecast").end();
      return { content: [{ type: "text", text: `Sunny in ${city}` }] };
    });
    return server;
  });
  const server = await listening(http.createServer(gateNode(handler, { telemetry: o.telemetry })));
  const client = new Client({ name: "agent", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const w3c = new W3CTraceContextPropagator();
  /** A CLIENT span of the agent's, injected into the request's `_meta` as the conventions propose. */
  const call = (args: unknown) => {
    const span = tracer.startSpan("tools/call get_weather", { kind: SpanKind.CLIENT });
    const meta: Record<string, string> = {};
    w3c.inject(trace.setSpan(context.active(), span), meta, { set: (carrier, key, value) => (carrier[key] = value) });
    return client
      .callTool({ name: "get_weather", arguments: args as Record<string, unknown>, _meta: meta })
      .catch(() => undefined)
      .finally(() => span.end());
  };
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    o.reset();
    await call({ city: "Lisbon" });
    await call("Lisbon");
    await eventually(() => o.serverSpans().length === 2, "both server spans");
  } finally {
    await client.close();
    await server.close();
  }
  const text = ["```text", render(o.spans()), "```"].join("\n");
  const doc = readFileSync(DOC, "utf8");
  const want = replaceSection(doc, "otel:example", text);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(DOC, want);
  assert.equal(doc, want, "docs/observability.md's example differs from this run: UPDATE_GOLDEN=1 rewrites it");
});
