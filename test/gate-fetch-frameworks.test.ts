import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { withMcpAuth } from "mcp-handler";
import { classifyEra, validateMcpRequest, type JsonRpcErrorResponse } from "wymcp";
import { gateFetch } from "wymcp/fetch";
import { mcpHandlerServer, tmcpServer, type PlainHandler } from "./support/frameworks.js";
import { MODERN_META } from "./support/messages.js";

const MODERN = "2026-07-28";
const FRAMEWORKS = [
  ["mcp-handler", mcpHandlerServer],
  ["tmcp", tmcpServer],
] as const;
const ERAS = ["legacy", "modern"] as const;

/** What the official client v2 sees of a server: the version it settles on, the tools, one call's result. */
async function session(handler: PlainHandler, era: (typeof ERAS)[number]) {
  const client = new Client(
    { name: "wymcp-frameworks", version: "0.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), {
    fetch: (url, init) => handler(new Request(url, init)),
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const call = await client.callTool({ name: "echo", arguments: { text: "héllo" } });
    return { version: client.getNegotiatedProtocolVersion(), tools: tools.map((tool) => tool.name), call };
  } finally {
    await client.close();
  }
}

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  });

/** Malformed calls of each era, and the headers a client of that era sends with them. */
const MALFORMED: Array<{ name: string; body: string; headers: Record<string, string>; status: number; code: number; at?: string }> = [
  {
    name: "a modern tools/call whose name is a number",
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { _meta: MODERN_META, name: 5, arguments: {} } }),
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/call" },
    status: 400,
    code: -32602,
    at: "/params/name",
  },
  {
    name: "a modern tools/call with no _meta",
    body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } }),
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/call" },
    status: 400,
    code: -32602,
    at: "/params/_meta",
  },
  {
    name: "a legacy request whose method is a number",
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: 5 }),
    headers: { "mcp-protocol-version": "2025-11-25" },
    status: 400,
    code: -32600,
  },
  { name: "a body that is not JSON", body: '{"jsonrpc":"2.0",', headers: {}, status: 400, code: -32700 },
];

for (const [name, make] of FRAMEWORKS) {
  describe(`${name} behind gateFetch (a plain handler)`, () => {
    for (const era of ERAS) {
      test(`the official client v2, ${era}: the same version, tools and call result gated and ungated`, async () => {
        const ungated = make();
        const gated = make();
        const alone = await session(ungated.handler, era);
        const through = await session(gateFetch(gated.handler), era);
        assert.equal(through.version, era === "modern" ? MODERN : alone.version);
        assert.deepEqual(through, alone);
        assert.ok(through.tools.includes("echo"));
        // Every request of the session reached the server: nothing was answered in its place.
        assert.equal(gated.calls(), ungated.calls());
      });
    }

    for (const bad of MALFORMED) {
      test(`${bad.name} is refused with wymcp's answer, and the server is never called`, async () => {
        const { handler, calls } = make();
        const answer = await gateFetch(handler)(post(bad.body, bad.headers));
        assert.equal(answer.status, bad.status);
        const body = (await answer.json()) as JsonRpcErrorResponse;
        assert.equal(body.error.code, bad.code);
        if (bad.at) assert.match(body.error.data?.errors[0]?.instancePath ?? "", new RegExp(`^${bad.at}`));
        if (bad.code !== -32700) {
          // The answer gateNode gives for the same body: one admission stage, whatever the handler.
          const parsed: unknown = JSON.parse(bad.body);
          const expected = validateMcpRequest(parsed, classifyEra(bad.headers, parsed).era, {
            protocolVersion: bad.headers["mcp-protocol-version"],
          });
          assert.equal(expected.outcome, "reject");
          assert.deepEqual(body, expected.outcome === "reject" && expected.response);
        }
        assert.equal(calls(), 0);
      });
    }
  });
}

describe("gateFetch with a plain handler", () => {
  test("the handler receives the client's own Request, its bytes unread and unchanged", async () => {
    // Odd spacing, key order and an escaped character: a re-serialized body would differ from these bytes.
    const bytes = `{ "params" : {"_meta":${JSON.stringify(MODERN_META)},"name":"echo","arguments":{"text":"\\u00e9"}}, "id":1,"method":"tools/call","jsonrpc":"2.0" }`;
    const original = post(bytes, { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "echo" });
    let seen: { same: boolean; used: boolean; text: string } | undefined;
    const answer = await gateFetch(async (request: Request) => {
      seen = { same: request === original, used: request.bodyUsed, text: await request.text() };
      return new Response("ok");
    })(original);
    assert.equal(answer.status, 200);
    assert.deepEqual(seen, { same: true, used: false, text: bytes });
  });

  test("what the host passes after the request (Workers' env and ctx) reaches the handler", async () => {
    const env = { TOKEN: "t" };
    const ctx = { waitUntil: () => undefined };
    let host: unknown[] = [];
    const gated = gateFetch((_request: Request, ...rest: [typeof env, typeof ctx]) => ((host = rest), new Response("ok")));
    await gated(post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })), env, ctx);
    assert.equal(host[0], env);
    assert.equal(host[1], ctx);
  });

  test("a modern notification is answered 202 by the gate, as for the SDK's handler; GET goes straight through", async () => {
    const { handler, calls } = mcpHandlerServer();
    const gated = gateFetch(handler);
    const notification = post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: 5 }), { "mcp-protocol-version": MODERN });
    assert.equal((await gated(notification)).status, 202);
    assert.equal(calls(), 0);
    const get = await gated(new Request("http://127.0.0.1/mcp", { method: "GET", headers: { accept: "text/event-stream" } }));
    assert.equal(calls(), 1);
    await get.body?.cancel();
  });

  test("mcp-handler's withMcpAuth in front of the gate: the identity it sets on the request reaches the tool", async () => {
    const { handler, calls } = mcpHandlerServer();
    const verify = (_request: Request, token?: string) => (token ? { token, clientId: `client-${token}`, scopes: [] } : undefined);
    const authed = withMcpAuth(gateFetch(handler), verify, { required: true });
    assert.equal((await authed(post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })))).status, 401);
    assert.equal(calls(), 0);
    const client = new Client({ name: "wymcp-frameworks", version: "0.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
    const withToken = (url: string | URL, init?: RequestInit) => {
      const request = new Request(url, init);
      request.headers.set("authorization", "Bearer ada");
      return authed(request);
    };
    await client.connect(new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), { fetch: withToken }));
    try {
      const whoami = await client.callTool({ name: "whoami", arguments: {} });
      assert.deepEqual(whoami.content, [{ type: "text", text: "client-ada" }]);
    } finally {
      await client.close();
    }
  });

  test("authInfo with a plain handler is refused when the gate is built: such a handler does its own auth", () => {
    const { handler } = tmcpServer();
    assert.throws(() => gateFetch(handler, { authInfo: () => undefined } as never), {
      name: "WymcpOptionError",
      option: "authInfo",
      message: /a plain handler does its own auth/,
    });
  });
});
