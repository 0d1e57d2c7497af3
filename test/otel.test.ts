import assert from "node:assert/strict";
import http from "node:http";
import { after, before, beforeEach, describe, test } from "node:test";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import express from "express";
import * as z from "zod";
import { classifyEra, type Telemetry } from "wymcp";
import { gateFetch, wymcpFetch } from "wymcp/fetch";
import { gateNode, serveFetch, wymcpNode, type McpFetchHandler } from "wymcp/node";
import { mcpTelemetry } from "wymcp/otel";
import type { JudgedExchange } from "wymcp";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { MAX_UNDECLARED_VALUES } from "../src/otel/attribute-values.js";
import { listening, rawPost } from "./support/gate-fixtures.js";
import { MODERN_META } from "./support/messages.js";
import {
  attributesOf,
  enableContext,
  HTTP_NODE,
  only,
  rejects,
  stable,
  withClient,
  eventually,
  HEADER_SPAN_ID,
  HEADER_TRACE_ID,
  HEADER_TRACEPARENT,
  histogramPoints,
  observed,
  PARENT_SPAN_ID,
  TRACE_ID,
  TRACEPARENT,
  type Observed,
  SERVER,
  UNSET,
  ERROR,
  OPERATION_BUCKETS,
  modernEchoCall,
} from "./support/otel.js";

const MODERN = "2026-07-28";

/** A server whose tool records a span of its own in the active context, as an instrumented tool would. */
function handlerFor(o: Observed) {
  const tracer = o.tracerProvider.getTracer("server-code");
  return createMcpHandler(() => {
    const server = new McpServer({ name: "otel-test", version: "1.0.0" });
    server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => {
      tracer.startSpan("tool work").end();
      return { content: [{ type: "text", text }] };
    });
    server.registerTool("boom", { inputSchema: z.object({}) }, async () => {
      throw new Error("kaboom");
    });
    server.registerPrompt("greet", { argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }],
    }));
    server.registerResource("readme", "file:///readme.txt", { mimeType: "text/plain" }, async (uri) => ({
      contents: [{ uri: uri.href, text: "read me" }],
    }));
    server.registerResource("broken", "file:///broken.txt", {}, async () => {
      throw new Error("the disk is on fire");
    });
    return server;
  });
}

before(() => enableContext());

describe("gateNode with telemetry, the official client v2 in the modern era", () => {
  const o = observed();
  let server: Awaited<ReturnType<typeof listening>>;
  before(async () => {
    server = await listening(http.createServer(gateNode(handlerFor(o), { telemetry: o.telemetry })));
  });
  after(() => server.close());
  beforeEach(() => o.reset());
  const url = () => new URL(server.url);

  test("a passing tools/call is one SERVER span `tools/call echo` under the client's span from params._meta; the tool's own span nests under it", async () => {
    await withClient(url(), true, (client) =>
      client.callTool({ name: "echo", arguments: { text: "hi" }, _meta: { traceparent: TRACEPARENT } }),
    );
    await eventually(() => o.serverSpans().some((s) => s.name === "tools/call echo"), "the tools/call span");
    const span = only(o.spans(), "tools/call echo");
    assert.equal(span.kind, SERVER);
    assert.equal(span.spanContext().traceId, TRACE_ID);
    assert.equal(span.parentSpanContext?.spanId, PARENT_SPAN_ID);
    assert.deepEqual(span.links, []);
    assert.equal(span.status.code, UNSET);
    assert.deepEqual(stable(span), modernEchoCall(span));
    assert.match(String(span.attributes["jsonrpc.request.id"]), /^\d+$/);
    const work = only(o.spans(), "tool work");
    assert.equal(work.spanContext().traceId, TRACE_ID);
    assert.equal(work.parentSpanContext?.spanId, span.spanContext().spanId);
  });

  test("a refused tools/call gets its span too: the gate's code in rpc.response.status_code, the verdict, no error.type (a caller's error)", async () => {
    const code = await withClient(url(), true, (client) => rejects(client.callTool({ name: "echo", arguments: "hi" as never })));
    assert.equal(code, -32602);
    await eventually(() => o.serverSpans().some((s) => s.name === "tools/call echo"), "the refused span");
    const span = only(o.serverSpans(), "tools/call echo");
    assert.equal(span.status.code, UNSET);
    assert.equal(span.attributes["error.type"], undefined);
    assert.deepEqual(
      {
        status: span.attributes["rpc.response.status_code"],
        verdict: span.attributes["wymcp.verdict"],
        era: span.attributes["wymcp.era"],
        reason: span.attributes["wymcp.reason"],
        tool: span.attributes["gen_ai.tool.name"],
      },
      { status: "-32602", verdict: "refused", era: "modern", reason: "invalid-message", tool: "echo" },
    );
    assert.equal(
      o.spans().find((s) => s.name === "tool work"),
      undefined,
      "the server never ran",
    );
  });

  test("the server's own error answer (-32603) sets error.type and an ERROR status described by its message", async () => {
    const code = await withClient(url(), true, (client) => rejects(client.readResource({ uri: "file:///broken.txt" })));
    assert.equal(code, -32603);
    await eventually(() => o.serverSpans().some((s) => s.name === "resources/read"), "the resources/read span");
    const span = only(o.serverSpans(), "resources/read");
    assert.deepEqual(
      [span.attributes["rpc.response.status_code"], span.attributes["error.type"], span.attributes["mcp.resource.uri"]],
      ["-32603", "-32603", "file:///broken.txt"],
    );
    assert.equal(span.status.code, ERROR);
    assert.match(span.status.message ?? "", /the disk is on fire/);
  });

  test("a tool's own failure (isError) is error.type tool_error; an unknown tool (-32602) is recorded but is no error", async () => {
    await withClient(url(), true, async (client) => {
      assert.equal((await client.callTool({ name: "boom", arguments: {} })).isError, true);
      assert.equal(await rejects(client.callTool({ name: "nope", arguments: {} })), -32602);
    });
    await eventually(() => o.serverSpans().filter((s) => s.name.startsWith("tools/call")).length === 2, "both spans");
    const boom = only(o.serverSpans(), "tools/call boom");
    assert.deepEqual(
      [boom.attributes["error.type"], boom.status.code, boom.attributes["rpc.response.status_code"]],
      ["tool_error", ERROR, undefined],
    );
    const nope = only(o.serverSpans(), "tools/call nope");
    assert.deepEqual(
      [nope.attributes["error.type"], nope.status.code, nope.attributes["rpc.response.status_code"]],
      [undefined, UNSET, "-32602"],
    );
    assert.equal(nope.attributes["wymcp.verdict"], "admitted");
  });

  test("prompts/get is named by its prompt; resources/read carries the URI and keeps it out of the name", async () => {
    await withClient(url(), true, async (client) => {
      await client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
      await client.readResource({ uri: "file:///readme.txt" });
    });
    await eventually(() => o.serverSpans().some((s) => s.name === "resources/read"), "the spans");
    const prompt = only(o.serverSpans(), "prompts/get greet");
    assert.deepEqual([prompt.attributes["gen_ai.prompt.name"], prompt.attributes["gen_ai.operation.name"]], ["greet", undefined]);
    assert.equal(only(o.serverSpans(), "resources/read").attributes["mcp.resource.uri"], "file:///readme.txt");
  });
});

describe("gateNode with telemetry, the official client v2 in the legacy era", () => {
  const o = observed();
  let server: Awaited<ReturnType<typeof listening>>;
  let legacyOnly: Awaited<ReturnType<typeof listening>>;
  let reporting: Awaited<ReturnType<typeof listening>>;
  const reports: unknown[] = [];
  before(async () => {
    const handler = handlerFor(o);
    server = await listening(http.createServer(gateNode(handler, { telemetry: o.telemetry })));
    legacyOnly = await listening(http.createServer(gateNode(handler, { telemetry: o.telemetry, era: "legacy" })));
    const onReport = (info: unknown) => void reports.push(info);
    reporting = await listening(http.createServer(gateNode(handler, { telemetry: o.telemetry, rules: { params: "report" }, onReport })));
  });
  after(async () => {
    await server.close();
    await legacyOnly.close();
    await reporting.close();
  });
  beforeEach(() => {
    o.reset();
    reports.length = 0;
  });
  const badLegacyCall = JSON.stringify({ jsonrpc: "2.0", id: "p1", method: "tools/call", params: { name: 5, arguments: {} } });
  const legacyHeaders = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  };

  test("initialize, the notifications/initialized notification and a passing tools/call, each a span; the tool's span nests", async () => {
    await withClient(new URL(server.url), false, (client) =>
      client.callTool({ name: "echo", arguments: { text: "hi" }, _meta: { traceparent: TRACEPARENT } }),
    );
    await eventually(() => o.serverSpans().length >= 3, "three spans");
    const initialize = only(o.serverSpans(), "initialize");
    assert.deepEqual([initialize.attributes["mcp.protocol.version"], initialize.attributes["wymcp.era"]], ["2025-11-25", "legacy"]);
    const initialized = only(o.serverSpans(), "notifications/initialized");
    assert.equal(initialized.attributes["jsonrpc.request.id"], undefined, "a notification has no id");
    assert.deepEqual(stable(initialized), {
      ...HTTP_NODE,
      "mcp.method.name": "notifications/initialized",
      "mcp.protocol.version": "2025-11-25",
      "wymcp.verdict": "admitted",
      "wymcp.era": "legacy",
    });
    const call = only(o.serverSpans(), "tools/call echo");
    assert.deepEqual([call.spanContext().traceId, call.parentSpanContext?.spanId], [TRACE_ID, PARENT_SPAN_ID]);
    assert.equal(only(o.spans(), "tool work").parentSpanContext?.spanId, call.spanContext().spanId);
  });

  test("a refused legacy tools/call (a legacy-only gate, params not an object): -32600, era legacy", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: "r1", method: "tools/call", params: "echo" });
    const answer = await rawPost(
      legacyOnly.url,
      { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body,
    );
    assert.equal(answer.status, 400);
    const span = only(o.serverSpans(), "tools/call");
    assert.deepEqual(
      [
        span.attributes["rpc.response.status_code"],
        span.attributes["wymcp.era"],
        span.attributes["jsonrpc.request.id"],
        span.attributes["error.type"],
      ],
      ["-32600", "legacy", "r1", undefined],
    );
  });

  test("a legacy params failure answered 200/-32602 by the gate (the params rule enforced, the default) is a refused span: the code, the verdict, the era, the reason", async () => {
    const answer = await rawPost(server.url, legacyHeaders, badLegacyCall);
    assert.equal(answer.status, 200);
    assert.equal((JSON.parse(answer.text) as { error: { code: number } }).error.code, -32602);
    const span = only(o.serverSpans(), "tools/call");
    assert.equal(span.status.code, UNSET, "a caller's error is no error of the server's");
    assert.deepEqual(stable(span), {
      ...HTTP_NODE,
      "mcp.method.name": "tools/call",
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": "2025-06-18",
      "jsonrpc.request.id": "p1",
      "rpc.response.status_code": "-32602",
      "wymcp.verdict": "refused",
      "wymcp.era": "legacy",
      "wymcp.reason": "invalid-message",
    });
  });

  test("the params rule in report: the same call goes on to the server; its span says reported, the reason, and the server's own answer", async () => {
    const answer = await rawPost(reporting.url, legacyHeaders, badLegacyCall);
    assert.equal(reports.length, 1, "onReport was called once");
    // The SDK answers the call itself (a JSON body or an event stream): its code is the one recorded.
    const code = /"code":(-?\d+)/.exec(answer.text)?.[1];
    assert.ok(code !== undefined, `the server answered with an error: ${answer.text}`);
    await eventually(() => o.serverSpans().some((s) => s.name === "tools/call"), "the tools/call span");
    const span = only(o.serverSpans(), "tools/call");
    assert.deepEqual(
      [
        span.attributes["wymcp.verdict"],
        span.attributes["wymcp.reason"],
        span.attributes["wymcp.era"],
        span.attributes["rpc.response.status_code"],
        span.attributes["mcp.protocol.version"],
      ],
      ["reported", "invalid-message", "legacy", code, "2025-06-18"],
    );
  });

  test("mcp.session.id comes from Mcp-Session-Id in the legacy era, and is never set in the modern one", async () => {
    const legacy = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": "s-1\tx" };
    await rawPost(server.url, legacy, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    const modern = { ...legacy, "mcp-session-id": "s-2", "mcp-protocol-version": MODERN };
    await rawPost(server.url, modern, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: MODERN_META } }));
    await eventually(() => o.serverSpans().length === 2, "two spans");
    // A tab is the one control character a header value may carry: escaped, as every client text is.
    assert.equal(only(o.serverSpans(), "ping").attributes["mcp.session.id"], "s-1\\u0009x");
    assert.equal(only(o.serverSpans(), "tools/list").attributes["mcp.session.id"], undefined);
  });
});

describe("notifications, refusals before judging, bounds", () => {
  const o = observed();
  let server: Awaited<ReturnType<typeof listening>>;
  before(async () => {
    server = await listening(http.createServer(gateNode(handlerFor(o), { telemetry: o.telemetry, limits: { maxBodyBytes: 2048 } })));
  });
  after(() => server.close());
  beforeEach(() => o.reset());
  const modernHeaders = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
  };

  test("a modern notification is answered 202 by the gate and traced: bypassed, ended when the 202 is written", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    assert.equal((await rawPost(server.url, modernHeaders, body)).status, 202);
    const span = only(o.serverSpans(), "notifications/cancelled");
    assert.deepEqual(
      [span.attributes["wymcp.verdict"], span.attributes["wymcp.reason"], span.attributes["jsonrpc.request.id"]],
      ["bypassed", "modern-notification", undefined],
    );
  });

  test("a body over the limit is refused before it is read: a span named _OTHER, no era, the reason", async () => {
    const answer = await rawPost(
      server.url,
      modernHeaders,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", pad: "x".repeat(4096) }),
    );
    assert.equal(answer.status, 413);
    const span = only(o.serverSpans(), "_OTHER");
    assert.deepEqual(
      [
        span.attributes["mcp.method.name"],
        span.attributes["wymcp.reason"],
        span.attributes["wymcp.era"],
        span.attributes["rpc.response.status_code"],
      ],
      ["_OTHER", "body-too-large", undefined, "-32600"],
    );
  });

  test("names from the body are bounded and escaped: a tool name with a line break and 300 characters", async () => {
    const name = `evil\nname${"x".repeat(300)}`;
    const body = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { _meta: MODERN_META, name, arguments: {} } });
    await rawPost(server.url, modernHeaders, body);
    await eventually(() => o.serverSpans().length === 1, "the span");
    const [span] = o.serverSpans();
    const tool = String(span!.attributes["gen_ai.tool.name"]);
    assert.ok(tool.startsWith("evil\\u000aname"), tool);
    assert.ok(tool.length <= 129 && tool.endsWith("…"), `${tool.length} characters`);
    assert.equal(span!.name, `tools/call ${tool}`);
    assert.doesNotMatch(span!.name, /[\n\r]/);
  });
});

describe("trace context: params._meta first, then the HTTP headers, then the ambient context", () => {
  const o = observed();
  let server: Awaited<ReturnType<typeof listening>>;
  before(async () => {
    server = await listening(http.createServer(gateNode(handlerFor(o), { telemetry: o.telemetry })));
  });
  after(() => server.close());
  beforeEach(() => o.reset());
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN };
  const list = (meta: Record<string, unknown>) =>
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { ...MODERN_META, ...meta } } });

  test("a traceparent header alone is the parent", async () => {
    await rawPost(server.url, { ...headers, traceparent: HEADER_TRACEPARENT }, list({}));
    const span = only(o.serverSpans(), "tools/list");
    assert.deepEqual([span.spanContext().traceId, span.parentSpanContext?.spanId, span.links.length], [HEADER_TRACE_ID, HEADER_SPAN_ID, 0]);
  });

  test("params._meta wins over the header, and the header's span is linked (the transport's context)", async () => {
    await rawPost(server.url, { ...headers, traceparent: HEADER_TRACEPARENT }, list({ traceparent: TRACEPARENT, tracestate: "vendor=1" }));
    const span = only(o.serverSpans(), "tools/list");
    assert.deepEqual([span.spanContext().traceId, span.parentSpanContext?.spanId], [TRACE_ID, PARENT_SPAN_ID]);
    assert.equal(span.spanContext().traceState?.get("vendor"), "1");
    assert.deepEqual(
      span.links.map((l) => [l.context.traceId, l.context.spanId]),
      [[HEADER_TRACE_ID, HEADER_SPAN_ID]],
    );
  });

  test("a malformed _meta traceparent is ignored: the header's context is the parent", async () => {
    await rawPost(server.url, { ...headers, traceparent: HEADER_TRACEPARENT }, list({ traceparent: "00-zz-zz-01" }));
    assert.equal(only(o.serverSpans(), "tools/list").parentSpanContext?.spanId, HEADER_SPAN_ID);
  });

  test("with neither, the span starts a trace of its own", async () => {
    await rawPost(server.url, headers, list({}));
    assert.equal(only(o.serverSpans(), "tools/list").parentSpanContext, undefined);
  });
});

describe("metrics: mcp.server.operation.duration, wymcp.rejections, wymcp.validation.duration", () => {
  test("a passing and a refused tools/call, and an unknown method folded to _OTHER on metrics only", async () => {
    const o = observed();
    const server = await listening(http.createServer(gateNode(handlerFor(o), { telemetry: o.telemetry })));
    try {
      await withClient(new URL(server.url), true, async (client) => {
        await client.callTool({ name: "echo", arguments: { text: "hi" } });
        await rejects(client.callTool({ name: "echo", arguments: "hi" as never }));
      });
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "x/custom",
      };
      await rawPost(server.url, headers, JSON.stringify({ jsonrpc: "2.0", id: 9, method: "x/custom", params: { _meta: MODERN_META } }));
      await eventually(() => o.serverSpans().some((s) => s.name === "x/custom"), "the custom method's span");

      const duration = await o.metric("mcp.server.operation.duration");
      assert.equal(duration?.descriptor.unit, "s");
      const points = histogramPoints(duration);
      for (const point of points) assert.deepEqual(point.value.buckets.boundaries, OPERATION_BUCKETS);
      const common = {
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "network.protocol.version": "1.1",
        "wymcp.era": "modern",
      };
      const tools = points.filter((p) => p.attributes["mcp.method.name"] === "tools/call").map(attributesOf);
      const call = {
        ...common,
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "mcp.protocol.version": MODERN,
      };
      assert.deepEqual(
        tools.sort((a, b) => String(a["wymcp.verdict"]).localeCompare(String(b["wymcp.verdict"]))),
        [
          { ...call, "wymcp.verdict": "admitted" },
          { ...call, "wymcp.verdict": "refused", "rpc.response.status_code": "-32602" },
        ],
      );
      const custom = points.find((p) => p.attributes["mcp.method.name"] === "_OTHER");
      assert.ok(custom, "x/custom is _OTHER on the metric");
      assert.equal(only(o.serverSpans(), "x/custom").attributes["mcp.method.name"], "x/custom");

      const rejections = await o.metric("wymcp.rejections");
      assert.deepEqual(
        rejections?.dataPoints.map((p) => [attributesOf(p), p.value]),
        [[{ "wymcp.era": "modern", "wymcp.reason": "invalid-message", "mcp.method.name": "tools/call" }, 1]],
      );
      const validation = histogramPoints(await o.metric("wymcp.validation.duration"));
      const validated = validation.reduce((n, p) => n + p.value.count, 0);
      assert.equal(validated, o.serverSpans().length, "every body validated once, its time recorded");
      assert.equal((await o.metric("wymcp.validation.duration"))?.descriptor.unit, "s");
    } finally {
      await server.close();
    }
  });
});

describe("gateFetch with telemetry", () => {
  test("the official client through gateFetch: a passing call continues the client's trace and the tool's span nests; a refused one is traced", async () => {
    const o = observed();
    const gated = gateFetch(handlerFor(o), { telemetry: o.telemetry });
    const viaGate = ((input: string | URL | Request, init?: RequestInit) => gated(new Request(input, init))) as typeof fetch;
    await withClient(
      new URL("http://gate.test/mcp"),
      true,
      async (client) => {
        await client.callTool({ name: "echo", arguments: { text: "hi" }, _meta: { traceparent: TRACEPARENT } });
        assert.equal(await rejects(client.callTool({ name: "echo", arguments: 5 as never })), -32602);
      },
      viaGate,
    );
    await eventually(() => o.serverSpans().filter((s) => s.name === "tools/call echo").length === 2, "both spans");
    const [passed, refused] = o
      .serverSpans()
      .filter((s) => s.name === "tools/call echo")
      .sort((a) => (a.attributes["wymcp.verdict"] === "admitted" ? -1 : 1));
    assert.deepEqual([passed!.spanContext().traceId, passed!.parentSpanContext?.spanId], [TRACE_ID, PARENT_SPAN_ID]);
    assert.equal(only(o.spans(), "tool work").parentSpanContext?.spanId, passed!.spanContext().spanId);
    assert.deepEqual(
      [refused!.attributes["wymcp.verdict"], refused!.attributes["rpc.response.status_code"], refused!.attributes["network.protocol.name"]],
      ["refused", "-32602", "http"],
    );
    assert.equal(passed!.attributes["network.transport"], undefined, "a Fetch host does not say which transport");
  });

  test("a modern notification answered 202 by gateFetch is traced and its span ended with the 202; the handler never runs", async () => {
    const o = observed();
    let calls = 0;
    const gated = gateFetch(
      {
        async fetch() {
          calls++;
          return new Response(null, { status: 500 });
        },
      },
      { telemetry: o.telemetry },
    );
    const response = await gated(
      new Request("http://gate.test/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN },
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { _meta: MODERN_META, requestId: 1 } }),
      }),
    );
    assert.deepEqual([response.status, calls], [202, 0]);
    const span = only(o.serverSpans(), "notifications/cancelled");
    assert.deepEqual([span.attributes["wymcp.verdict"], span.attributes["wymcp.reason"]], ["bypassed", "modern-notification"]);
  });

  test("an SSE answer: the span stays open past a progress notification and ends at the result, while the stream is still open", async () => {
    const o = observed();
    let push!: (text: string) => void;
    let close!: () => void;
    const streaming: McpFetchHandler = {
      async fetch() {
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            push = (text) => controller.enqueue(new TextEncoder().encode(text));
            close = () => controller.close();
          },
        });
        return new Response(stream, { headers: { "content-type": "text/event-stream" } });
      },
    };
    const gated = gateFetch(streaming, { telemetry: o.telemetry });
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 42,
      method: "tools/call",
      params: { _meta: MODERN_META, name: "slow", arguments: {} },
    });
    const response = await gated(
      new Request("http://gate.test/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": MODERN,
          "mcp-method": "tools/call",
          "mcp-name": "slow",
        },
        body,
      }),
    );
    const reader = response.body!.getReader();
    push(`data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } })}\n\n`);
    await reader.read();
    assert.deepEqual(o.serverSpans(), [], "open after the progress notification");
    push(`data: ${JSON.stringify({ jsonrpc: "2.0", id: 42, result: { content: [] } })}\n\n`);
    await reader.read();
    const span = only(o.serverSpans(), "tools/call slow");
    assert.equal(span.status.code, UNSET);
    close();
    await reader.read();
  });

  test("a handler that throws ends the span with the error's type; the gate answers 500/-32603 after onError", async () => {
    const o = observed();
    const errors: unknown[] = [];
    const gated = gateFetch(
      {
        async fetch() {
          throw new TypeError("broken handler");
        },
      },
      { telemetry: o.telemetry, onError: (error) => errors.push(error) },
    );
    const request = new Request("http://gate.test/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    const response = await gated(request);
    assert.deepEqual([response.status, ((await response.json()) as { error: { code: number } }).error.code], [500, -32603]);
    assert.deepEqual(
      errors.map((e) => (e as Error).message),
      ["broken handler"],
    );
    const span = only(o.serverSpans(), "tools/list");
    assert.deepEqual([span.attributes["error.type"], span.status.code], ["TypeError", ERROR]);
  });
});

describe("the lower-level guards take the same option", () => {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": "tools/call",
    "mcp-name": "echo",
  };
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { _meta: { ...MODERN_META, traceparent: TRACEPARENT }, name: "echo", arguments: { text: "hi" } },
  });

  test("wymcpNode in Express after express.json(): the span, the client's trace, the tool's span nested under it", async () => {
    const o = observed();
    const handler = handlerFor(o);
    const app = express()
      .use(express.json())
      .post(
        "/mcp",
        wymcpNode({ telemetry: o.telemetry, era: (req, parsed) => classifyEra(req.headers, parsed).era }),
        (req, res) => void serveFetch(handler, req, res),
      );
    const server = await listening(http.createServer(app));
    try {
      assert.equal((await rawPost(server.url, headers, body)).status, 200);
      await eventually(() => o.serverSpans().length === 1, "the span");
      const span = only(o.serverSpans(), "tools/call echo");
      assert.deepEqual([span.spanContext().traceId, span.parentSpanContext?.spanId], [TRACE_ID, PARENT_SPAN_ID]);
      assert.equal(only(o.spans(), "tool work").parentSpanContext?.spanId, span.spanContext().spanId);
    } finally {
      await server.close();
    }
  });

  test("wymcpFetch: run puts the handler in the span's context, report ends the span with the answer", async () => {
    const o = observed();
    const handler = handlerFor(o);
    const guard = wymcpFetch({ telemetry: o.telemetry, era: (request, parsed) => classifyEra(request.headers, parsed).era });
    const serve = async (request: Request) =>
      (await guard(request)) ?? guard.report(request, await guard.run(request, () => handler.fetch(request)));
    const response = await serve(new Request("http://gate.test/mcp", { method: "POST", headers, body }));
    assert.equal(response.status, 200);
    assert.deepEqual(o.serverSpans(), [], "open until the answer is read");
    await response.text();
    const span = only(o.serverSpans(), "tools/call echo");
    assert.equal(span.parentSpanContext?.spanId, PARENT_SPAN_ID);
    assert.equal(only(o.spans(), "tool work").parentSpanContext?.spanId, span.spanContext().spanId);
  });
});

describe("gateNode: a handler that throws, a client that goes away", () => {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const list = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" });

  test("a handler that throws is answered 500/-32603 by gateNode, and that answer is the span's: error.type -32603", async () => {
    const o = observed();
    const throwing: McpFetchHandler = {
      async fetch() {
        throw new Error("boom");
      },
    };
    const server = await listening(http.createServer(gateNode(throwing, { telemetry: o.telemetry, onError: () => undefined })));
    try {
      assert.equal((await rawPost(server.url, headers, list)).status, 500);
      await eventually(() => o.serverSpans().length === 1, "the span");
      const span = only(o.serverSpans(), "tools/list");
      assert.deepEqual(
        [span.attributes["error.type"], span.attributes["rpc.response.status_code"], span.status.code],
        ["-32603", "-32603", ERROR],
      );
    } finally {
      await server.close();
    }
  });

  test("a client gone mid-stream ends the span, with no answer recorded", async () => {
    const o = observed();
    let opened!: () => void;
    const streamOpen = new Promise<void>((resolve) => (opened = resolve));
    const endless: McpFetchHandler = {
      async fetch() {
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(": open\n\n"));
            opened();
          },
        });
        return new Response(stream, { headers: { "content-type": "text/event-stream" } });
      },
    };
    const server = await listening(http.createServer(gateNode(endless, { telemetry: o.telemetry })));
    let gone!: () => void;
    try {
      // The client holds the stream's first bytes: the answer has begun and goes on, so the span is open.
      const firstBytes = new Promise<void>((resolve) => {
        const request = http.request(server.url, { method: "POST", headers, agent: false }, (res) => res.once("data", () => resolve()));
        request.on("error", () => undefined);
        request.end(list);
        gone = () => request.destroy();
      });
      await streamOpen;
      await firstBytes;
      assert.deepEqual(o.serverSpans(), [], "open while the stream is");
      gone();
      await eventually(() => o.serverSpans().length === 1, "the span to end when the client left");
      const span = only(o.serverSpans(), "tools/list");
      assert.deepEqual([span.attributes["rpc.response.status_code"], span.attributes["error.type"]], [undefined, undefined]);
    } finally {
      await server.close();
    }
  });
});

describe("a session assigned by the answer", () => {
  test("an initialize answered with an Mcp-Session-Id carries it; a modern answer's header is never recorded", async () => {
    const o = observed();
    const assigning: McpFetchHandler = {
      async fetch() {
        return new Response(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }), {
          headers: { "content-type": "application/json", "mcp-session-id": "fresh-session" },
        });
      },
    };
    const server = await listening(http.createServer(gateNode(assigning, { telemetry: o.telemetry })));
    try {
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const initialize = {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      };
      await rawPost(server.url, headers, JSON.stringify(initialize));
      const modern = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } };
      await rawPost(server.url, { ...headers, "mcp-protocol-version": MODERN }, JSON.stringify(modern));
      await eventually(() => o.serverSpans().length === 2, "both spans");
      assert.equal(only(o.serverSpans(), "initialize").attributes["mcp.session.id"], "fresh-session");
      assert.equal(only(o.serverSpans(), "tools/list").attributes["mcp.session.id"], undefined);
    } finally {
      await server.close();
    }
  });
});

describe("a legacy batch: one span per message, each ended by its own answer", () => {
  test("two requests and a notification; the error answer marks the right span", async () => {
    const o = observed();
    const answering: McpFetchHandler = {
      async fetch() {
        const answers = [
          { jsonrpc: "2.0", id: "b", error: { code: -32603, message: "internal" } },
          { jsonrpc: "2.0", id: "a", result: {} },
        ];
        return new Response(JSON.stringify(answers), { headers: { "content-type": "application/json" } });
      },
    };
    const server = await listening(http.createServer(gateNode(answering, { telemetry: o.telemetry })));
    try {
      const batch = [
        { jsonrpc: "2.0", id: "a", method: "tools/list" },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: "b", method: "prompts/list" },
      ];
      const answer = await rawPost(server.url, { "content-type": "application/json", accept: "application/json" }, JSON.stringify(batch));
      assert.equal(answer.status, 200);
      await eventually(() => o.serverSpans().length === 3, "three spans");
      assert.deepEqual(
        o
          .serverSpans()
          .map((s) => [s.name, s.attributes["jsonrpc.request.id"], s.attributes["error.type"]])
          .sort(),
        [
          ["notifications/initialized", undefined, undefined],
          ["prompts/list", "b", "-32603"],
          ["tools/list", "a", undefined],
        ],
      );
    } finally {
      await server.close();
    }
  });
});

describe("with no SDK nothing is watched", () => {
  const exchange: JudgedExchange = {
    verdict: "admitted",
    era: "modern",
    reason: undefined,
    code: undefined,
    messages: [
      {
        method: "ping",
        id: 1,
        idText: "1",
        toolName: undefined,
        promptName: undefined,
        resourceUri: undefined,
        jsonrpcVersion: undefined,
        protocolVersion: undefined,
        traceContext: undefined,
      },
    ],
    sessionId: undefined,
    transport: { network: undefined, protocol: undefined, client: undefined, header: undefined },
    startTime: 0,
    validationMs: 0.01,
  };

  test("the API's no-op providers (no SDK registered): judged returns undefined, so the face taps no answer", () => {
    assert.equal(mcpTelemetry().judged(exchange), undefined);
  });

  test("a real meter provider alone still gets the answer watched (the duration's error.type needs it)", () => {
    assert.notEqual(mcpTelemetry({ meterProvider: new MeterProvider() }).judged(exchange), undefined);
  });

  test("a real tracer provider alone does too", () => {
    const o = observed();
    assert.notEqual(mcpTelemetry({ tracerProvider: o.tracerProvider }).judged(exchange), undefined);
  });
});

describe("an observer that fails never fails the request", () => {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  const broken: Record<string, Telemetry> = {
    "judged throws": {
      judged() {
        throw new Error("observer down");
      },
    },
    "every trace call throws": {
      judged: () => ({
        run() {
          throw new Error("run");
        },
        answered() {
          throw new Error("answered");
        },
        session() {
          throw new Error("session");
        },
        end() {
          throw new Error("end");
        },
      }),
    },
  };
  for (const [name, telemetry] of Object.entries(broken)) {
    test(`${name}: the ping is answered, and the handler ran once`, async () => {
      let calls = 0;
      const counting: McpFetchHandler = {
        async fetch() {
          calls++;
          return new Response(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }), { headers: { "content-type": "application/json" } });
        },
      };
      const server = await listening(http.createServer(gateNode(counting, { telemetry })));
      try {
        const answer = await rawPost(server.url, headers, ping);
        assert.deepEqual([answer.status, JSON.parse(answer.text).id, calls], [200, 1, 1]);
      } finally {
        await server.close();
      }
      const gated = gateFetch(counting, { telemetry });
      const response = await gated(new Request("http://gate.test/mcp", { method: "POST", headers, body: ping }));
      assert.deepEqual([response.status, ((await response.json()) as { id: number }).id, calls], [200, 1, 2]);
    });
  }
});

describe("metric attributes a client chooses are bounded: a client cannot add series at will", () => {
  const jsonHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  /** A plain handler behind gateFetch: tools/list lists `listed`, every other request gets an empty result. */
  function gateWith(o: Observed, listed: string[] = []) {
    return gateFetch(
      async (request: Request) => {
        const { id, method } = (await request.json()) as { id: number; method: string };
        const result =
          method === "tools/list" ? { tools: listed.map((name) => ({ name, inputSchema: { type: "object" } })) } : { content: [] };
        return new Response(JSON.stringify({ jsonrpc: "2.0", id, result }), { headers: { "content-type": "application/json" } });
      },
      { telemetry: o.telemetry },
    );
  }
  const post = async (gate: ReturnType<typeof gateWith>, body: unknown, headers: Record<string, string> = {}) =>
    (
      await gate(
        new Request("http://gate.test/mcp", { method: "POST", headers: { ...jsonHeaders, ...headers }, body: JSON.stringify(body) }),
      )
    ).text();
  const call = (id: number, name: string) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } });
  const valuesOf = async (o: Observed, attribute: string) =>
    new Set(
      histogramPoints(await o.metric("mcp.server.operation.duration"))
        .map((p) => p.attributes[attribute])
        .filter((value) => value !== undefined),
    );

  test("invented tool names: the first MAX_UNDECLARED_VALUES are recorded, every later one is _OTHER on the metric; the span keeps the name", async () => {
    const o = observed();
    const gate = gateWith(o);
    const invented = MAX_UNDECLARED_VALUES + 50;
    for (let i = 0; i < invented; i++) await post(gate, call(i, `invented-${i}`));
    const names = await valuesOf(o, "gen_ai.tool.name");
    assert.equal(names.size, MAX_UNDECLARED_VALUES + 1);
    assert.ok(names.has("_OTHER") && names.has("invented-0") && !names.has(`invented-${invented - 1}`));
    const last = o.serverSpans().find((span) => span.name === `tools/call invented-${invented - 1}`);
    assert.equal(last?.attributes["gen_ai.tool.name"], `invented-${invented - 1}`);
  });

  test("a server that listed its tools: a call to a listed tool keeps its name, any other is _OTHER from the first", async () => {
    const o = observed();
    const gate = gateWith(o, ["alpha", "beta"]);
    await post(gate, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    await post(gate, call(2, "alpha"));
    for (let i = 0; i < 10; i++) await post(gate, call(3 + i, `invented-${i}`));
    await post(gate, call(20, "beta"));
    assert.deepEqual([...(await valuesOf(o, "gen_ai.tool.name"))].sort(), ["_OTHER", "alpha", "beta"]);
  });

  test("invented protocol versions: the MCP revisions are always recorded, other date-shaped claims bounded as names are", async () => {
    const o = observed();
    const gate = gateWith(o);
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
    for (let i = 0; i < MAX_UNDECLARED_VALUES + 20; i++) {
      const day = String((i % 28) + 1).padStart(2, "0");
      const month = String(Math.floor(i / 28) + 1).padStart(2, "0");
      await post(gate, ping(i), { "mcp-protocol-version": `1999-${month}-${day}` });
    }
    await post(gate, ping(999), { "mcp-protocol-version": "2025-06-18" });
    const versions = await valuesOf(o, "mcp.protocol.version");
    assert.ok(versions.has("2025-06-18"), "a revision, after the bound was reached");
    assert.ok(versions.has("_OTHER"));
    assert.equal(versions.size, MAX_UNDECLARED_VALUES + 2);
  });
});
