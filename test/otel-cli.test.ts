import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { after, before, beforeEach, describe, test } from "node:test";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { context, defaultTextMapGetter, ROOT_CONTEXT } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import * as z from "zod";
import { createLog } from "../src/log/gate-log.js";
import { sharedFlags } from "../src/cli/gate-options.js";

import { createProxy, listen } from "../src/hosts/proxy/proxy.js";
import { runStdioGate } from "../src/hosts/stdio/gate.js";
import { listening, rawPost } from "./support/gate-fixtures.js";
import { MODERN_META } from "./support/messages.js";
import { assertNothingListens, NO_UPSTREAM, recordingUpstream } from "./support/proxy.js";
import { transportHeaders } from "./support/transport-headers.js";
import {
  enableContext,
  eventually,
  HTTP_NODE,
  only,
  rejects,
  stable,
  withClient,
  HEADER_SPAN_ID,
  HEADER_TRACE_ID,
  HEADER_TRACEPARENT,
  observed,
  PARENT_SPAN_ID,
  TRACE_ID,
  TRACEPARENT,
  type Observed,
  SERVER,
  UNSET,
  ERROR,
  modernEchoCall,
} from "./support/otel.js";

/** The shared flags none of which is given: the options both command-line faces start with. */
const gateFlags = (none: Record<string, never>) => sharedFlags(none, { hosts: false }).options;

const MODERN = "2026-07-28";
const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const ECHO = join(import.meta.dirname, "support", "stdio-echo.mjs");

before(() => enableContext());

/** The official SDK's server, its tool recording a span in the active context, as an instrumented tool would. */
function upstreamHandler(o: Observed) {
  const tracer = o.tracerProvider.getTracer("server-code");
  return createMcpHandler(() => {
    const server = new McpServer({ name: "otel-upstream", version: "1.0.0" });
    server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => {
      tracer.startSpan("tool work").end();
      return { content: [{ type: "text", text }] };
    });
    return server;
  });
}

/**
 * The upstream as a server with OpenTelemetry's HTTP instrumentation runs: the request's `traceparent` header is the
 * context its code runs in. It records the headers of every POST.
 */
async function instrumentedUpstream(o: Observed) {
  const serve = toNodeHandler(upstreamHandler(o));
  const propagator = new W3CTraceContextPropagator();
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === "POST") seen.push(req.headers);
    const parent = propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter);
    context.with(parent, () => void serve(req, res));
  });
  return { ...(await listening(server)), seen };
}

describe("wymcp proxy with telemetry (the real SDK), the official client v2 against the SDK's server behind it", () => {
  const o = observed();
  let upstream: Awaited<ReturnType<typeof instrumentedUpstream>>;
  let proxy: { url: URL; close: () => Promise<void> };
  const lines: string[] = [];
  before(async () => {
    upstream = await instrumentedUpstream(o);
    const flags = gateFlags({});
    const built = createProxy(
      { ...flags, upstream: new URL(upstream.url), timeoutMs: 60_000, drainTimeoutMs: 1_000, rewriteHost: false, telemetry: o.telemetry },
      createLog("proxy", "text", (line) => void lines.push(line)),
    );
    const { server, address } = await listen(built, "127.0.0.1", 0);
    proxy = { url: new URL(`http://127.0.0.1:${address.port}/mcp`), close: () => built.drain(server).then(() => undefined) };
  });
  after(async () => {
    await proxy.close();
    await upstream.close();
  });
  beforeEach(() => {
    o.reset();
    upstream.seen.length = 0;
  });

  test("modern: a passing tools/call is `tools/call echo` under the client's span from _meta; the server's own span nests under the proxy's, through the traceparent the proxy forwards", async () => {
    await withClient(proxy.url, true, (client) =>
      client.callTool({ name: "echo", arguments: { text: "hi" }, _meta: { traceparent: TRACEPARENT } }),
    );
    await eventually(() => o.serverSpans().some((s) => s.name === "tools/call echo"), "the tools/call span");
    const span = only(o.serverSpans(), "tools/call echo");
    assert.equal(span.kind, SERVER);
    assert.deepEqual([span.spanContext().traceId, span.parentSpanContext?.spanId], [TRACE_ID, PARENT_SPAN_ID]);
    assert.equal(span.status.code, UNSET);
    assert.deepEqual(stable(span), modernEchoCall(span));
    // The upstream received the proxy span's context, not the client's: its own work is a child of the proxy's span.
    const call = upstream.seen.find((h) => String(h.traceparent).includes(TRACE_ID));
    assert.equal(call?.traceparent, `00-${TRACE_ID}-${span.spanContext().spanId}-01`);
    const work = only(o.spans(), "tool work");
    assert.deepEqual([work.spanContext().traceId, work.parentSpanContext?.spanId], [TRACE_ID, span.spanContext().spanId]);
  });

  test("modern: a refused tools/call is traced with the proxy's code and verdict, no error.type, and never reaches the upstream", async () => {
    const code = await withClient(proxy.url, true, (client) =>
      rejects(client.callTool({ name: "echo", arguments: "hi" as never, _meta: { traceparent: TRACEPARENT } })),
    );
    assert.equal(code, -32602);
    await eventually(() => o.serverSpans().some((s) => s.name === "tools/call echo"), "the refused span");
    const span = only(o.serverSpans(), "tools/call echo");
    assert.deepEqual([span.spanContext().traceId, span.parentSpanContext?.spanId], [TRACE_ID, PARENT_SPAN_ID]);
    assert.deepEqual(
      {
        status: span.attributes["rpc.response.status_code"],
        errorType: span.attributes["error.type"],
        verdict: span.attributes["wymcp.verdict"],
        era: span.attributes["wymcp.era"],
        reason: span.attributes["wymcp.reason"],
        transport: span.attributes["network.transport"],
      },
      { status: "-32602", errorType: undefined, verdict: "refused", era: "modern", reason: "invalid-message", transport: "tcp" },
    );
    assert.equal(span.status.code, UNSET);
    assert.equal(
      upstream.seen.some((h) => String(h.traceparent).includes(TRACE_ID)),
      false,
      "the refused call was not forwarded",
    );
    assert.equal(
      o.spans().find((s) => s.name === "tool work"),
      undefined,
    );
  });

  test("legacy: initialize, notifications/initialized and a passing tools/call, each a span; the session id from Mcp-Session-Id", async () => {
    await withClient(proxy.url, false, (client) =>
      client.callTool({ name: "echo", arguments: { text: "hi" }, _meta: { traceparent: TRACEPARENT } }),
    );
    await eventually(() => o.serverSpans().some((s) => s.name === "tools/call echo"), "the tools/call span");
    const initialize = only(o.serverSpans(), "initialize");
    assert.deepEqual([initialize.attributes["mcp.protocol.version"], initialize.attributes["wymcp.era"]], ["2025-11-25", "legacy"]);
    assert.equal(only(o.serverSpans(), "notifications/initialized").attributes["jsonrpc.request.id"], undefined);
    const call = only(o.serverSpans(), "tools/call echo");
    assert.deepEqual([call.spanContext().traceId, call.parentSpanContext?.spanId], [TRACE_ID, PARENT_SPAN_ID]);
    assert.deepEqual([call.attributes["wymcp.era"], call.attributes["wymcp.verdict"]], ["legacy", "admitted"]);
    assert.equal(only(o.spans(), "tool work").parentSpanContext?.spanId, call.spanContext().spanId);
  });

  test("legacy: a refused tools/call (in a batch, which 2025-06-18 no longer allows) continues the trace in the traceparent header: -32600", async () => {
    const body = JSON.stringify([{ jsonrpc: "2.0", id: "r1", method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } }]);
    const headers = { ...JSON_HEADERS, traceparent: HEADER_TRACEPARENT, "mcp-session-id": "s-9", "mcp-protocol-version": "2025-06-18" };
    const answer = await rawPost(proxy.url.href, headers, body);
    assert.equal(answer.status, 400);
    await eventually(() => o.serverSpans().length === 1, "the refused span");
    const span = only(o.serverSpans(), "tools/call echo");
    assert.deepEqual([span.spanContext().traceId, span.parentSpanContext?.spanId], [HEADER_TRACE_ID, HEADER_SPAN_ID]);
    assert.deepEqual(stable(span), {
      ...HTTP_NODE,
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "echo",
      "jsonrpc.request.id": "r1",
      "mcp.protocol.version": "2025-06-18",
      "mcp.session.id": "s-9",
      "rpc.response.status_code": "-32600",
      "wymcp.verdict": "refused",
      "wymcp.era": "legacy",
      "wymcp.reason": "invalid-message",
    });
    assert.equal(upstream.seen.length, 0);
  });

  test("a modern notification is answered 202 by the proxy and traced as bypassed; its context is never sent upstream", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    assert.equal((await rawPost(proxy.url.href, { ...JSON_HEADERS, "mcp-protocol-version": MODERN }, body)).status, 202);
    const span = only(o.serverSpans(), "notifications/cancelled");
    assert.deepEqual([span.attributes["wymcp.verdict"], span.attributes["wymcp.reason"]], ["bypassed", "modern-notification"]);
    assert.equal(upstream.seen.length, 0);
  });
});

describe("wymcp proxy with telemetry, when the upstream fails", () => {
  test("an unreachable upstream: the proxy's 502 ends the span, recorded as the server error it is (-32603, ERROR)", async () => {
    const o = observed();
    await assertNothingListens();
    const built = createProxy(
      {
        ...gateFlags({}),
        upstream: NO_UPSTREAM,
        timeoutMs: 60_000,
        drainTimeoutMs: 1_000,
        rewriteHost: false,
        telemetry: o.telemetry,
      },
      createLog("proxy", "text", () => undefined),
    );
    const { server, address } = await listen(built, "127.0.0.1", 0);
    try {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: MODERN_META } });
      const answer = await rawPost(
        `http://127.0.0.1:${address.port}/mcp`,
        { ...JSON_HEADERS, "mcp-protocol-version": MODERN, ...transportHeaders(body) },
        body,
      );
      assert.equal(answer.status, 502);
      await eventually(() => o.serverSpans().length === 1, "the span");
      const span = only(o.serverSpans(), "tools/list");
      assert.deepEqual(
        [span.attributes["rpc.response.status_code"], span.attributes["error.type"], span.attributes["wymcp.verdict"], span.status.code],
        ["-32603", "-32603", "admitted", ERROR],
      );
      assert.match(span.status.message ?? "", /Bad Gateway/);
    } finally {
      await built.drain(server);
    }
  });
});

describe("wymcp proxy with telemetry, an answer in an event stream", () => {
  test("the span ends with the event that carries its id's result, while the stream goes on", async () => {
    const o = observed();
    const upstream = await recordingUpstream();
    let finish: (() => void) | undefined;
    upstream.handle((_req, res, body) => {
      const { id } = JSON.parse(body.toString("utf8")) as { id: number };
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } })}\n\n`,
      );
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, result: { tools: [] } })}\n\n`);
      finish = () => res.end();
    });
    const built = createProxy(
      { ...gateFlags({}), upstream: upstream.url, timeoutMs: 60_000, drainTimeoutMs: 1_000, rewriteHost: false, telemetry: o.telemetry },
      createLog("proxy", "text", () => undefined),
    );
    const { server, address } = await listen(built, "127.0.0.1", 0);
    try {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: MODERN_META } });
      const answered = rawPost(
        `http://127.0.0.1:${address.port}/mcp`,
        { ...JSON_HEADERS, "mcp-protocol-version": MODERN, ...transportHeaders(body) },
        body,
      );
      await eventually(() => o.serverSpans().length === 1, "the span, ended by the result's event");
      assert.ok(finish, "the stream is still open");
      const span = only(o.serverSpans(), "tools/list");
      assert.deepEqual([span.attributes["jsonrpc.request.id"], span.attributes["rpc.response.status_code"]], ["3", undefined]);
      finish();
      assert.equal((await answered).status, 200);
    } finally {
      await built.drain(server);
      await upstream.close();
    }
  });
});

describe("wymcp stdio with telemetry (the real SDK), a stdio server behind it", () => {
  const work = mkdtempSync(join(tmpdir(), "wymcp-otel-stdio-"));
  after(() => rmSync(work, { recursive: true, force: true }));

  test("one span per line, network.transport pipe, ended by the server's answer or wymcp's refusal; _meta's traceparent is the parent", async () => {
    const o = observed();
    const record = join(work, "received");
    writeFileSync(record, "");
    const input = new PassThrough();
    const output = new PassThrough();
    let written = "";
    output.setEncoding("utf8").on("data", (text: string) => (written += text));
    const running = runStdioGate(
      { ...gateFlags({}), command: process.execPath, args: [ECHO, record], telemetry: o.telemetry },
      { input, output },
      createLog("stdio", "text", () => undefined),
    );
    const line = (message: unknown) => input.write(`${JSON.stringify(message)}\n`);
    const meta = { ...MODERN_META, traceparent: TRACEPARENT };
    line({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: meta, name: "echo", arguments: { text: "hi" } } });
    line({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: meta, name: "echo", arguments: "hi" } });
    line({
      jsonrpc: "2.0",
      id: "i",
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    });
    line({ jsonrpc: "2.0", method: "notifications/initialized" });
    // A legacy batch the server never answers (this server answers single requests only).
    line([{ jsonrpc: "2.0", id: 10, method: "ping" }]);
    await eventually(() => written.split("\n").length > 3, "three answers");
    await eventually(() => o.serverSpans().length >= 4, "four spans ended");

    const passed = o.serverSpans().find((s) => s.attributes["wymcp.verdict"] === "admitted" && s.name === "tools/call echo");
    assert.ok(passed, "the passing call's span");
    assert.deepEqual([passed.spanContext().traceId, passed.parentSpanContext?.spanId], [TRACE_ID, PARENT_SPAN_ID]);
    assert.deepEqual(passed.attributes, {
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "echo",
      "jsonrpc.request.id": "1",
      "mcp.protocol.version": MODERN,
      "network.transport": "pipe",
      "wymcp.verdict": "admitted",
      "wymcp.era": "modern",
    });
    const refused = o.serverSpans().find((s) => s.attributes["wymcp.verdict"] === "refused");
    assert.ok(refused, "the refused call's span");
    assert.deepEqual(
      [
        refused.name,
        refused.attributes["rpc.response.status_code"],
        refused.attributes["jsonrpc.request.id"],
        refused.parentSpanContext?.spanId,
      ],
      ["tools/call echo", "-32602", "2", PARENT_SPAN_ID],
    );
    assert.doesNotMatch(readFileSync(record, "utf8"), /"id":2/, "the refused line never reached the server");
    assert.deepEqual(only(o.serverSpans(), "initialize").attributes["mcp.protocol.version"], "2025-06-18");
    assert.equal(only(o.serverSpans(), "notifications/initialized").attributes["wymcp.era"], "legacy");
    assert.equal(
      o.serverSpans().find((s) => s.name === "ping"),
      undefined,
      "the unanswered request's span is still open",
    );

    input.end();
    assert.equal(await running, 0);
    const ping = only(o.serverSpans(), "ping");
    assert.deepEqual([ping.attributes["jsonrpc.request.id"], ping.attributes["rpc.response.status_code"]], ["10", undefined]);
    // Ended after the answer went out, not when the line was judged: the server's answer is in the span's time.
    assert.ok(passed.endTime[0] * 1e9 + passed.endTime[1] >= passed.startTime[0] * 1e9 + passed.startTime[1]);
  });
});
