import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { launchExample, type LaunchedExample } from "../examples/launch.js";

let server: LaunchedExample;

before(async () => {
  server = await launchExample({ script: "examples/conformance-server.ts", env: { WYMCP_GATE: "on" } });
});

after(async () => {
  await server?.stop();
});

/** An SDK client that answers sampling and elicitation itself, connected through the gate. */
async function withClient<T>(modern: boolean, use: (client: Client, asked: string[]) => Promise<T>): Promise<T> {
  const asked: string[] = [];
  const client = new Client(
    { name: "wymcp-conformance-test", version: "0.0.0" },
    { capabilities: { sampling: {}, elicitation: {} }, ...(modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}) },
  );
  client.setRequestHandler("sampling/createMessage", async (request) => {
    asked.push(`sampling: ${JSON.stringify(request.params.messages[0]?.content)}`);
    return { model: "test-model", role: "assistant", content: { type: "text", text: "Paris" } };
  });
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(`elicitation: ${request.params.message}`);
    return { action: "accept", content: { response: "yes", name: "Ada" } };
  });
  await client.connect(new StreamableHTTPClientTransport(server.url));
  try {
    return await use(client, asked);
  } finally {
    await client.close();
  }
}

function textOf(result: { content?: unknown }): string {
  const [first] = result.content as { type: string; text: string }[];
  return first?.text ?? "";
}

describe("the conformance server behind the gate", () => {
  test("legacy sampling: the server's request reaches the client and the client's POSTed answer reaches its session", async () => {
    await withClient(false, async (client, asked) => {
      assert.equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
      const result = await client.callTool({ name: "test_sampling", arguments: { prompt: "Capital of France?" } });
      assert.equal(textOf(result), "LLM response: Paris");
      assert.deepEqual(asked, ['sampling: {"type":"text","text":"Capital of France?"}']);
    });
    // The answer was a JSON-RPC response POSTed through the gate: handed on as a bypass, never refused.
    assert.doesNotMatch(server.stderr(), /wymcp rejected/);
  });

  test("legacy elicitation round trip ends in the tool's result", async () => {
    await withClient(false, async (client, asked) => {
      const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Continue?" } });
      assert.equal(textOf(result), 'User response: action=accept, content={"response":"yes","name":"Ada"}');
      assert.deepEqual(asked, ["elicitation: Continue?"]);
    });
  });

  test("modern MRTR: the input_required result is answered by the client's retry, no server-to-client request", async () => {
    await withClient(true, async (client, asked) => {
      assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
      const result = await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} });
      assert.equal(textOf(result), "Hello, Ada!");
      assert.deepEqual(asked, ["elicitation: What is your name?"]);
    });
  });

  test("legacy MRTR: the SDK's shim turns the same input_required tool into a server-to-client elicitation", async () => {
    await withClient(false, async (client, asked) => {
      const result = await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} });
      assert.equal(textOf(result), "Hello, Ada!");
      assert.deepEqual(asked, ["elicitation: What is your name?"]);
    });
  });

  test("a legacy request naming an unknown session is answered 404, not served", async () => {
    const res = await fetch(server.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Session-Id": "no-such-session" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: { code: number } }).error.code, -32001);
  });
});
