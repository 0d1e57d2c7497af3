import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { Hono } from "hono";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { classifyEra, type JsonRpcErrorResponse, type RejectInfo } from "wymcp";
import { wymcpFetch, wymcpOf } from "wymcp/fetch";
import { MODERN_META as META } from "./support/messages.js";

const URL_ = "http://127.0.0.1/mcp";
const MODERN = "2026-07-28";
const toolsList = { jsonrpc: "2.0", id: 1, method: "tools/list" };

function request(body: string | null, headers: Record<string, string> = { "Content-Type": "application/json" }, method = "POST"): Request {
  return new Request(URL_, { method, headers, body });
}

async function answerOf(response: Response | undefined): Promise<JsonRpcErrorResponse> {
  assert.ok(response, "the middleware answered");
  assert.equal(response.headers.get("content-type"), "application/json");
  return (await response.json()) as JsonRpcErrorResponse;
}

describe("wymcpFetch on plain Request/Response", () => {
  const guard = wymcpFetch({ era: (req, body) => classifyEra(req.headers, body).era, limits: { maxBodyBytes: 1024 } });

  test("a valid POST resolves to undefined, its body still readable, its era and body from wymcpOf", async () => {
    const req = request(JSON.stringify(toolsList));
    assert.equal(await guard(req), undefined);
    assert.equal(req.bodyUsed, false);
    assert.deepEqual(await req.json(), toolsList);
    assert.deepEqual(wymcpOf(req), {
      era: "legacy",
      result: { outcome: "pass", kind: "request", definition: "ListToolsRequest", revision: "2025-03-26" },
      body: toolsList,
    });
  });

  test("the era option reads the Request: a modern tools/call is judged against CallToolRequest", async () => {
    const body = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: 5, _meta: META } };
    const res = await guard(request(JSON.stringify(body)));
    assert.equal(res?.status, 400);
    const answer = await answerOf(res);
    assert.equal(answer.id, 2);
    assert.deepEqual(answer.error.data?.errors, [{ instancePath: "/params/name", messages: ["must be string"] }]);
  });

  test("GET and DELETE resolve to undefined untouched, and wymcpOf knows nothing of them", async () => {
    for (const method of ["GET", "DELETE"]) {
      const req = request(null, {}, method);
      assert.equal(await guard(req), undefined);
      assert.equal(wymcpOf(req), undefined);
    }
  });

  test("bad JSON is 400/-32700 with id null; text/plain and a missing Content-Type are 415", async () => {
    const parse = await guard(request('{"id":1,"method":"leak-me"'));
    assert.equal(parse?.status, 400);
    const answer = await answerOf(parse);
    assert.deepEqual([answer.id, answer.error.code], [null, -32700]);
    assert.doesNotMatch(JSON.stringify(answer), /leak-me/);
    assert.equal((await guard(request("{}", { "Content-Type": "text/plain" })))?.status, 415);
    assert.equal((await guard(request("{}", {})))?.status, 415);
    const utf8 = request(JSON.stringify(toolsList), { "Content-Type": "application/json; charset=utf-8" });
    assert.equal(await guard(utf8), undefined);
  });

  test("a body over the limit is 413, by its declared length or once the stream passes the limit", async () => {
    const declared = request("{}", { "Content-Type": "application/json", "Content-Length": "1025" });
    assert.equal((await guard(declared))?.status, 413);
    const chunk = new Uint8Array(100).fill(0x20);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(chunk);
      },
    });
    const streamed = new Request(URL_, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: endless,
      duplex: "half",
    } as RequestInit);
    const res = await guard(streamed);
    assert.equal(res?.status, 413);
    assert.match((await answerOf(res)).error.message, /1024 bytes/);
    assert.ok(pulled < 100, `reading stopped near the limit (pulled ${pulled} chunks of 100 bytes)`);
  });

  test("onReject receives the answer and the reason, never the body", async () => {
    const seen: RejectInfo[] = [];
    const logged = wymcpFetch({ onReject: (info) => seen.push(info) });
    await logged(request(JSON.stringify({ jsonrpc: "2.0", id: "x", method: 5, params: { secret: "top-secret" } })));
    assert.equal(seen.length, 1);
    assert.deepEqual(Object.keys(seen[0] ?? {}).sort(), ["era", "kind", "reason", "response", "rule", "status"]);
    assert.equal(seen[0]?.reason, "invalid-message");
    assert.doesNotMatch(JSON.stringify(seen), /top-secret/);
  });
});

function buildSdk() {
  return createMcpHandler(() => {
    const server = new McpServer({ name: "hono-test", version: "1.0.0" });
    server.registerTool("upper", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
      content: [{ type: "text", text: text.toUpperCase() }],
    }));
    return server;
  });
}

describe("wymcpFetch in a Hono app in front of the official SDK", () => {
  const sdk = buildSdk();
  const guard = wymcpFetch({ era: (req, body) => classifyEra(req.headers, body).era });
  const app = new Hono();
  app.use("/mcp", async (c, next) => (await guard(c.req.raw)) ?? next());
  // No parsedBody here: the SDK reads the original request's body, which the middleware left unread.
  app.all("/mcp", (c) => sdk.fetch(c.req.raw));
  const viaApp = (input: string | URL | Request, init?: RequestInit) => Promise.resolve(app.request(input, init));

  for (const modern of [true, false]) {
    test(`a ${modern ? "modern" : "legacy"} SDK client calls a tool through the middleware`, async () => {
      const client = new Client({ name: "hono-test", version: "0.0.0" }, modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
      await client.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch: viaApp }));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), modern ? MODERN : "2025-11-25");
        const result = await client.callTool({ name: "upper", arguments: { text: "hono" } });
        assert.deepEqual(result.content, [{ type: "text", text: "HONO" }]);
      } finally {
        await client.close();
      }
    });
  }

  test("an invalid modern request is answered by the middleware, not by the SDK", async () => {
    const body = { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "upper", arguments: 7, _meta: META } };
    const res = await app.request(URL_, {
      method: "POST",
      headers: { "Content-Type": "application/json", "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "upper" },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 400);
    const answer = await answerOf(res);
    assert.equal(answer.error.code, -32602);
    assert.deepEqual(
      answer.error.data?.errors.map((e) => e.instancePath),
      ["/params/arguments"],
    );
  });
});
