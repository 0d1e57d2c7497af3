import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { classifyEra, validateMcpRequest, type JsonRpcErrorResponse } from "wymcp";
import { rawPost } from "./support/gate-fixtures.js";
import { assertFreshDist } from "./support/built.js";
import { MODERN_META } from "./support/messages.js";
import { startProxy, until, type RunningProxy } from "./support/proxy.js";
import { drivePython, startMcpServerHttp, type PythonHttpServer } from "./support/python-servers.js";
import { MODERN, tsSession } from "./support/ts-sessions.js";

// The bin under test is dist/cli.js: it must be built from the current sources.
before(assertFreshDist);

// The server is the official Python SDK's MCPServer (mcp 2.3.0), which serves both eras; nobody here wrote it or its clients.
describe("a Python MCPServer behind wymcp proxy", () => {
  let server: PythonHttpServer;
  let proxy: RunningProxy;
  let proxied: URL;
  before(async () => {
    server = await startMcpServerHttp();
    // The gate's admission alone, as the server's own answers are compared: learning (on by default) answers a tool's
    // wrong arguments itself, which test/tools-at-edge-faces.test.ts holds against this server.
    proxy = await startProxy(["--upstream", server.url.href, "--no-learn-tools"]);
    proxied = new URL(server.url.pathname, proxy.url);
  });
  after(async () => {
    await proxy?.stop();
    await server?.stop();
  });

  test("the Python SDK client, legacy and 2026-07-28: the same results gated and ungated", async () => {
    const seen = await drivePython([
      { name: "legacy ungated", mode: "legacy", http: server.url.href },
      { name: "legacy gated", mode: "legacy", http: proxied.href },
      { name: "modern ungated", mode: MODERN, http: server.url.href },
      { name: "modern gated", mode: MODERN, http: proxied.href },
    ]);
    for (const era of ["legacy", "modern"]) {
      const gated = seen[`${era} gated`] as Record<string, unknown>;
      assert.equal(gated.error, undefined, String(gated.error));
      assert.deepEqual(gated, seen[`${era} ungated`], era);
      assert.equal(gated.version, era === "modern" ? MODERN : "2025-11-25");
      assert.deepEqual(gated.tools, ["add", "echo"]);
      assert.deepEqual(gated["wrong arguments"], { isError: true });
    }
    assert.doesNotMatch(proxy.stderr(), /refused|unreachable/);
  });

  test("the official TypeScript client v2, legacy and 2026-07-28: the same results gated and ungated", async () => {
    for (const mode of ["legacy", MODERN] as const) {
      const [gated, ungated] = await Promise.all([tsSession({ http: proxied }, mode), tsSession({ http: server.url }, mode)]);
      assert.deepEqual(gated, ungated, mode);
      assert.equal(gated.version, mode === MODERN ? MODERN : "2025-11-25");
      assert.deepEqual(gated.echo, { isError: false, content: [{ type: "text", text: "echo: héllo" }] });
    }
    assert.doesNotMatch(proxy.stderr(), /refused|unreachable/);
  });

  test("malformed calls are refused by the proxy with located errors, the answers gateNode gives", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    // A legacy session opened through the proxy, so that the malformed legacy call is one its server would otherwise serve.
    const init = await rawPost(
      proxied.href,
      headers,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
      }),
    );
    const session = String(init.headers["mcp-session-id"]);
    assert.equal(init.status, 200);
    const legacy = { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const modern = { ...headers, "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "echo" };
    const cases: Array<[string, Record<string, string>, unknown, number, string]> = [
      [
        "modern tools/call, name a number",
        modern,
        { jsonrpc: "2.0", id: 7, method: "tools/call", params: { _meta: MODERN_META, name: 5, arguments: {} } },
        -32602,
        "/params/name",
      ],
      [
        "modern tools/call, no client capabilities",
        modern,
        {
          jsonrpc: "2.0",
          id: 8,
          method: "tools/call",
          params: { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN }, name: "echo", arguments: { text: "x" } },
        },
        -32602,
        "/params/_meta",
      ],
      [
        "legacy tools/call, an id that is an object",
        legacy,
        { jsonrpc: "2.0", id: { n: 1 }, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } },
        -32600,
        "/id",
      ],
      ["legacy request, params an array", legacy, { jsonrpc: "2.0", id: 9, method: "tools/list", params: [1] }, -32600, "/params"],
    ];
    for (const [name, sent, body, code, at] of cases) {
      const text = JSON.stringify(body);
      const [gated, ungated] = await Promise.all([rawPost(proxied.href, sent, text), rawPost(server.url.href, sent, text)]);
      assert.equal(gated.status, 400, name);
      const answer = JSON.parse(gated.text) as JsonRpcErrorResponse;
      assert.equal(answer.error.code, code, name);
      assert.ok(
        answer.error.data?.errors.some((e) => e.instancePath.startsWith(at)),
        `${name}: ${gated.text}`,
      );
      const expected = validateMcpRequest(body, classifyEra(sent, body).era, { protocolVersion: sent["mcp-protocol-version"] });
      assert.deepEqual(answer, expected.outcome === "reject" ? expected.response : undefined, name);
      // What the server alone makes of it, for the record: its own refusal, never wymcp's located one.
      assert.notEqual(ungated.text, gated.text, name);
    }
    // One log line per refusal, written once the answer has gone out.
    await until(() => proxy.stderr().match(/refused 400/g)?.length === cases.length);
  });
});
