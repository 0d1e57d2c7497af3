import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { Hono } from "hono";
import { createMcpHandler, requireBearerAuth, type AuthInfo } from "@modelcontextprotocol/server";
import { validateMcpResponse } from "wymcp/outbound";
import { gateFetch, type McpFetchHandler, type RejectInfo } from "wymcp/fetch";
import { callSeen, fakeVerifier, seenIn, seenServer, type EraName } from "./support/gate-fixtures.js";

const ERAS: EraName[] = ["modern", "legacy"];
const handler = createMcpHandler(seenServer);
after(() => handler.close());

const request = (headers: Record<string, string>, body: string) => new Request("http://localhost/mcp", { method: "POST", headers, body });

describe("gateFetch in front of createMcpHandler", () => {
  const gated = gateFetch(handler);

  for (const era of ERAS) {
    test(`a ${era} tools/call reaches the tool, which sees what it sees with the SDK alone`, async () => {
      const { headers, body } = callSeen(era);
      const [g, a] = await Promise.all([gated(request(headers, body)), handler.fetch(request(headers, body))]);
      assert.equal(g.status, 200);
      assert.equal(g.status, a.status);
      assert.deepEqual(seenIn(await g.text()), seenIn(await a.text()));
    });
  }

  test("the request's body is read once, by the gate: the SDK gets the parsed body and never reads the stream", async () => {
    const { headers, body } = callSeen("modern");
    let handed: unknown;
    const spy: McpFetchHandler = {
      fetch: (req, options) => {
        handed = options?.parsedBody;
        assert.equal(req.bodyUsed, true);
        return handler.fetch(req, options as Parameters<typeof handler.fetch>[1]);
      },
    };
    assert.equal((await gateFetch(spy)(request(headers, body))).status, 200);
    assert.deepEqual(handed, JSON.parse(body));
  });

  test("a modern notification is answered 202 with no body, whatever it holds", async () => {
    const headers = { ...callSeen("modern").headers, "mcp-method": "notifications/x" };
    const answer = await gated(request(headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: 5 })));
    assert.equal(answer.status, 202);
    assert.equal(answer.body, null);
    assert.equal(answer.headers.get("content-type"), null);
  });

  test("GET and DELETE go straight to the handler and get what the SDK alone answers", async () => {
    for (const method of ["GET", "DELETE"]) {
      const make = () => new Request("http://localhost/mcp", { method, headers: { accept: "application/json, text/event-stream" } });
      const [g, a] = await Promise.all([gated(make()), handler.fetch(make())]);
      assert.equal(g.status, a.status, method);
      assert.equal(await g.text(), await a.text(), method);
    }
  });

  test("two Content-Type values, combined by Fetch's Headers, are refused 415 gated and ungated alike", async () => {
    const { body } = callSeen("legacy");
    const make = () => {
      const headers = new Headers(callSeen("legacy").headers);
      headers.append("content-type", "text/plain");
      return new Request("http://localhost/mcp", { method: "POST", headers, body });
    };
    const [g, a] = await Promise.all([gated(make()), handler.fetch(make())]);
    assert.deepEqual([g.status, a.status], [415, 415]);
  });

  test("an invalid modern tools/call is answered 400/-32602 with its id; the handler is not called", async () => {
    let called = false;
    const spy: McpFetchHandler = { fetch: async () => ((called = true), new Response(null)) };
    const body = JSON.stringify({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "seen", arguments: {} } });
    const answer = await gateFetch(spy)(request(callSeen("modern").headers, body));
    assert.equal(answer.status, 400);
    assert.deepEqual(((await answer.json()) as { id: unknown }).id, "a");
    assert.equal(called, false);
  });
});

describe("caller identity on Fetch: the authInfo option", () => {
  const bearer = requireBearerAuth({ verifier: fakeVerifier });
  const gated = gateFetch(handler, { authInfo: bearer });
  // The SDK's own documented wiring for Fetch hosts.
  const alone = async (req: Request) => {
    const auth: AuthInfo | Response = await bearer(req);
    return auth instanceof Response ? auth : handler.fetch(req, { authInfo: auth });
  };

  for (const era of ERAS) {
    test(`${era}: the tool sees client-of-tok123 behind the gate, as without it`, async (t) => {
      const { headers, body } = callSeen(era);
      const sent = { ...headers, authorization: "Bearer tok123" };
      const [g, a] = await Promise.all([gated(request(sent, body)), alone(request(sent, body))]);
      const [gs, as] = [seenIn(await g.text())?.caller, seenIn(await a.text())?.caller];
      t.diagnostic(`${era}: gated ${gs}, ungated ${as}`);
      assert.equal(gs, "client-of-tok123");
      assert.equal(as, "client-of-tok123");
    });
  }

  test("a Response from authInfo (the 401 challenge) is sent as it is, before the body is read", async () => {
    const { headers, body } = callSeen("modern");
    const req = request(headers, body);
    const answer = await gated(req);
    assert.equal(answer.status, 401);
    assert.match(answer.headers.get("www-authenticate") ?? "", /^Bearer/);
    assert.equal(req.bodyUsed, false);
  });

  test("the runtime's extra arguments (Workers: env, ctx) reach authInfo", async () => {
    const env = { TOKEN_OWNER: "worker-client" };
    const gatedWithEnv = gateFetch(handler, {
      authInfo: (_req, hostEnv) => ({ token: "t", clientId: (hostEnv as typeof env).TOKEN_OWNER, scopes: [] }),
    });
    const { headers, body } = callSeen("modern");
    assert.equal(seenIn(await (await gatedWithEnv(request(headers, body), env)).text())?.caller, "worker-client");
  });
});

describe("gateFetch in Hono and with options", () => {
  test("app.all('/mcp', (c) => gated(c.req.raw)) serves a tool call", async () => {
    const gated = gateFetch(handler);
    const app = new Hono().all("/mcp", (c) => gated(c.req.raw));
    const { headers, body } = callSeen("modern");
    const answer = await app.request("/mcp", { method: "POST", headers, body });
    assert.equal(answer.status, 200);
    assert.equal(seenIn(await answer.text())?.caller, null);
  });

  test("maxBodyBytes, maxDepth, onReject and a fixed era work on the wrapper", async () => {
    const rejected: RejectInfo[] = [];
    const gated = gateFetch(handler, {
      limits: { maxBodyBytes: 300, maxDepth: 8 },
      era: "modern",
      onReject: (info) => rejected.push(info),
    });
    const { headers } = callSeen("modern");
    const deep = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "x", params: { a: [[[[[[[[1]]]]]]]] } });
    const legacyLooking = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const answers = await Promise.all([
      gated(request(headers, "x".repeat(301))),
      gated(request(headers, deep)),
      gated(request(headers, legacyLooking)),
    ]);
    assert.deepEqual(
      answers.map((a) => a.status),
      [413, 400, 400],
    );
    assert.deepEqual(rejected.map((r) => r.reason).sort(), ["body-too-large", "invalid-message", "nested-too-deeply"]);
  });

  test("outbound report mode checks what the handler sends back through the wrapper", async () => {
    const violations: string[] = [];
    const bad: McpFetchHandler = { fetch: async () => Response.json({ jsonrpc: "2.0", id: 7, result: { content: "not an array" } }) };
    const gated = gateFetch(bad, {
      outbound: validateMcpResponse,
      onReport: (v) => violations.push(`${v.method} ${v.errors?.[0]?.instancePath}`),
    });
    const { headers, body } = callSeen("legacy");
    const answer = await gated(request(headers, body));
    assert.equal(answer.status, 200);
    await answer.text();
    assert.deepEqual(violations, ["tools/call /result/content"]);
  });
});
