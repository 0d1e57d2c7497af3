import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { launchExample, type LaunchedExample } from "../examples/launch.js";
import type { JsonRpcErrorResponse } from "wymcp";
import { MODERN_META as META } from "./support/messages.js";

const MODERN = "2026-07-28";
const ACCEPT = "application/json, text/event-stream";

let server: LaunchedExample;

before(async () => {
  server = await launchExample();
});

after(async () => {
  await server?.stop();
});

/** A client of the official SDK, connected through the middleware; closed when `use` settles. */
async function withClient<T>(modern: boolean, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: "wymcp-e2e", version: "0.0.0" }, modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
  await client.connect(new StreamableHTTPClientTransport(server.url));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

function post(body: string | Uint8Array, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: ACCEPT, ...headers },
    body,
  });
}

async function answerOf(res: Response): Promise<JsonRpcErrorResponse> {
  return (await res.json()) as JsonRpcErrorResponse;
}

function textOf(result: { content?: unknown }): string {
  const [first] = result.content as { type: string; text: string }[];
  return first?.text ?? "";
}

describe("the official SDK client through the middleware", () => {
  test("a modern client discovers, lists and calls tools, gets a prompt and reads a resource", async () => {
    await withClient(true, async (client) => {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      const discovered = await client.discover();
      assert.deepEqual(discovered.supportedVersions, [MODERN]);
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ["echo"],
      );
      assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "hi" } })), "echo (modern): hi");
      const prompt = await client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
      assert.deepEqual(prompt.messages[0]?.content, { type: "text", text: "Hello, Ada!" });
      const resource = await client.readResource({ uri: "file:///readme.txt" });
      assert.match(String((resource.contents[0] as { text?: string }).text), /validates every message/);
    });
  });

  test("a legacy client initializes, lists tools and calls one", async () => {
    await withClient(false, async (client) => {
      assert.equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ["echo"],
      );
      assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "hi" } })), "echo (legacy): hi");
    });
  });
});

describe("hand-made bodies against the example server", () => {
  test("a modern tools/call with a bad name is answered 400/-32602 with the location, before the SDK sees it", async () => {
    const body = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: 5, _meta: META } };
    const res = await post(JSON.stringify(body), { "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call" });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("content-type"), "application/json");
    const answer = await answerOf(res);
    assert.equal(answer.id, 7);
    assert.equal(answer.error.code, -32602);
    assert.match(answer.error.message, /CallToolRequest/);
    assert.deepEqual(answer.error.data?.errors, [{ instancePath: "/params/name", messages: ["must be string"] }]);
  });

  test("a modern request whose _meta is missing or incomplete is answered 400/-32602, as the conformance suite requires", async () => {
    const { "io.modelcontextprotocol/protocolVersion": _v, ...noVersion } = META;
    const { "io.modelcontextprotocol/clientCapabilities": _c, ...noCapabilities } = META;
    const cases: Array<[string, Record<string, unknown>]> = [
      ["no _meta", { name: "echo", arguments: { text: "x" } }],
      ["no protocol version", { name: "echo", arguments: { text: "x" }, _meta: noVersion }],
      ["no client capabilities", { name: "echo", arguments: { text: "x" }, _meta: noCapabilities }],
    ];
    for (const [name, params] of cases) {
      const res = await post(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/call", params }), { "MCP-Protocol-Version": MODERN });
      assert.equal(res.status, 400, name);
      const answer = await answerOf(res);
      assert.deepEqual([answer.id, answer.error.code], [8, -32602], name);
      assert.match(answer.error.data?.errors[0]?.instancePath ?? "", /^\/params\/_meta/, name);
    }
  });

  test("a request with a wrong jsonrpc version is judged modern, as the SDK routes it, and answered 400/-32600 at /jsonrpc", async () => {
    const res = await post(JSON.stringify({ jsonrpc: "1.0", id: "a", method: "tools/list" }));
    assert.equal(res.status, 400);
    const answer = await answerOf(res);
    assert.equal(answer.id, "a");
    assert.equal(answer.error.code, -32600);
    // No JSON-RPC message to the SDK's router, so the modern path's: it also lacks the modern envelope.
    assert.deepEqual(
      answer.error.data?.errors.map((e) => e.instancePath),
      ["/jsonrpc", "/params"],
    );
  });

  test("a body that is not JSON is answered 400/-32700 with id null and none of the body", async () => {
    const res = await post('{"jsonrpc":"2.0","id":1,"method":"secret-token-123"');
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("content-type"), "application/json");
    const text = await res.text();
    assert.doesNotMatch(text, /secret-token-123/);
    const answer = JSON.parse(text) as JsonRpcErrorResponse;
    assert.equal(answer.id, null);
    assert.equal(answer.error.code, -32700);
  });

  test("a body one byte over the 4 MiB default is answered 413 with a JSON-RPC envelope", async () => {
    const res = await post(new Uint8Array(4 * 1024 * 1024 + 1).fill(0x20));
    assert.equal(res.status, 413);
    assert.equal(res.headers.get("content-type"), "application/json");
    const answer = await answerOf(res);
    assert.equal(answer.jsonrpc, "2.0");
    assert.match(answer.error.message, /4194304 bytes/);
  });

  test("a text/plain body is answered 415 with a JSON-RPC envelope", async () => {
    const res = await post("{}", { "Content-Type": "text/plain" });
    assert.equal(res.status, 415);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.match((await answerOf(res)).error.message, /application\/json/);
  });

  test("a modern notification with a junk body is answered 202 with no body", async () => {
    const res = await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: 5 }), {
      "MCP-Protocol-Version": MODERN,
    });
    assert.equal(res.status, 202);
    assert.equal(await res.text(), "");
  });

  test("a modern request for an unknown method reaches the SDK and is answered 404/-32601", async () => {
    const body = { jsonrpc: "2.0", id: 9, method: "foo/bar", params: { _meta: META } };
    const res = await post(JSON.stringify(body), { "MCP-Protocol-Version": MODERN, "Mcp-Method": "foo/bar" });
    assert.equal(res.status, 404);
    const answer = await answerOf(res);
    assert.equal(answer.id, 9);
    assert.equal(answer.error.code, -32601);
  });

  test("a legacy client response is handed to the SDK, which accepts it with 202", async () => {
    const res = await post(JSON.stringify({ jsonrpc: "2.0", id: 5, result: {} }));
    assert.equal(res.status, 202);
  });

  test("a client response under a modern header goes to the SDK's legacy lane, as its router sends it, and the SDK refuses it", async () => {
    const res = await post(JSON.stringify({ jsonrpc: "2.0", id: 5, result: {} }), { "MCP-Protocol-Version": MODERN });
    assert.equal(res.status, 400);
    // -32000 is the SDK's own answer: wymcp hands a legacy response on unjudged.
    assert.equal((await answerOf(res)).error.code, -32000);
  });

  test("a 2025-03-26 batch (no MCP-Protocol-Version header) passes the gate and the SDK answers each request", async () => {
    const batch = [
      { jsonrpc: "2.0", id: "b1", method: "tools/list" },
      { jsonrpc: "2.0", id: "b2", method: "ping" },
    ];
    const res = await post(JSON.stringify(batch), { Accept: "application/json, text/event-stream" });
    assert.equal(res.status, 200);
    const text = await res.text();
    // The SDK answers as JSON or as an SSE stream; either way both ids come back.
    const answers = [...text.matchAll(/"id":"(b\d)"/g)].map((m) => m[1]).sort();
    assert.deepEqual(answers, ["b1", "b2"]);
    assert.match(text, /"name":"echo"/);
  });

  test("a batch with an item that is no JSON-RPC message is judged modern, as the SDK routes it, and refused 400/-32600", async () => {
    const res = await post(
      JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: 7 },
      ]),
    );
    assert.equal(res.status, 400);
    const answer = await answerOf(res);
    assert.deepEqual([answer.id, answer.error.code], [null, -32600]);
    // The modern era has no batches: the answer says so and locates the item that sent the batch there.
    assert.match(answer.error.message, /batch/);
    assert.deepEqual(
      answer.error.data?.errors.map((e) => e.instancePath),
      ["/1/method"],
    );
  });

  test("a batch under a 2025-06-18 header is refused: that revision removed batches", async () => {
    const res = await post(JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]), { "MCP-Protocol-Version": "2025-06-18" });
    assert.equal(res.status, 400);
    assert.deepEqual(
      (await answerOf(res)).error.data?.errors.map((e) => e.instancePath),
      [""],
    );
  });

  test("a GET passes the middleware untouched and gets the SDK's own 405", async () => {
    const res = await fetch(server.url, { headers: { Accept: "text/event-stream" } });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST");
    await res.body?.cancel();
  });

  test("after all of the above the server still answers a legacy client normally", async () => {
    await withClient(false, async (client) => {
      assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "still here" } })), "echo (legacy): still here");
    });
  });
});
