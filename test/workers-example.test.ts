import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import worker from "../examples/workers/worker.js";
import { MODERN_META } from "./support/messages.js";

// The same scenarios run on workerd in the runtime matrix (runtimes/check/workers-example-host.mjs).
const root = join(import.meta.dirname, "..");

// biome-ignore lint/suspicious/noExplicitAny: the answers are read field by field, as JSON
async function call(name: string, args: unknown, params: Record<string, unknown> = {}): Promise<{ status: number; body: any }> {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": String(name),
  };
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { _meta: MODERN_META, name, arguments: args, ...params },
  });
  const response = await worker.fetch(new Request("http://localhost/mcp", { method: "POST", headers, body }));
  const text = await response.text();
  const json = text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)?.[1];
  return { status: response.status, body: json === undefined ? text : JSON.parse(json) };
}

test("the Workers example: a tools/call passes the gate and reaches the tool through its precompiled input schema", async () => {
  const sum = await call("sum", { numbers: [1, 2, 3.5] });
  assert.equal(sum.status, 200);
  assert.deepEqual(sum.body.result.content, [{ type: "text", text: "6.5" }]);
  const note = await call("add_note", { title: "Buy milk", body: "2 litres", tags: ["home", "shop"], due: "2026-12-24" });
  assert.deepEqual(note.body.result.content, [{ type: "text", text: 'note "Buy milk" stored with 2 tag(s)' }]);
});

test("the Workers example: bad arguments are refused by the SDK as a tool error carrying the precompiled validator's brief answer", async () => {
  const answer = await call("add_note", { title: "", body: 7, tags: ["Not OK", "Not OK"], due: "24/12/2026", colour: "red" });
  // The SDK answers a tool error result, its text carrying the provider's errorMessage.
  assert.equal(answer.status, 200);
  assert.equal(answer.body.result.isError, true);
  assert.equal(
    answer.body.result.content[0].text,
    "Input validation error: Invalid arguments for tool add_note: 7 invalid locations: (the value) has a property the schema does not allow; " +
      "/title must be at least 1 characters long; /body must be string; and 4 more",
  );
});

test("the Workers example: a bad MCP message is refused 400 by the gate before the SDK sees it", async () => {
  const answer = await call("sum", { numbers: [1] }, { name: 42 });
  assert.equal(answer.status, 400);
  assert.equal(answer.body.error.code, -32602);
  assert.ok(
    answer.body.error.data.errors.some((e: { instancePath: string }) => e.instancePath === "/params/name"),
    JSON.stringify(answer.body),
  );
});

test("the Workers example's precompiled schemas are up to date with its tools.json (wymcp compile --check)", () => {
  const run = spawnSync(
    process.execPath,
    ["dist/cli.js", "compile", "examples/workers/tools.json", "--out", "examples/workers/mcp-tools", "--check"],
    { cwd: root, encoding: "utf8" },
  );
  assert.equal(run.status, 0, run.stderr);
});
