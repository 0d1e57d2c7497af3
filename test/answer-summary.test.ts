/**
 * The one-line summary of a rejection (`error.message`): what the message was judged as, how many locations
 * failed, and the first concrete problem, its location cut at 60 characters.
 */
import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { validateMcpRequest } from "wymcp";
import { MODERN_META } from "./support/messages.js";

/** A modern prompts/get whose arguments hold `keys`, each with a number where a string belongs. */
function badArguments(...keys: string[]) {
  const body = {
    jsonrpc: "2.0",
    id: 1,
    method: "prompts/get",
    params: { _meta: MODERN_META, name: "p", arguments: Object.fromEntries(keys.map((k) => [k, 1])) },
  };
  const result = validateMcpRequest(body, "modern");
  assert.equal(result.outcome, "reject");
  return { message: result.response.error.message, located: result.response.error.data!.errors };
}

const PREFIX = "/params/arguments/";

describe("the summary of a rejection", () => {
  test("names the definition, counts one location in the singular, and quotes it with its problem", () => {
    assert.equal(
      badArguments("a").message,
      "Invalid prompts/get request (GetPromptRequest): 1 invalid location; first: /params/arguments/a must be string",
    );
  });

  test("counts several locations in the plural and quotes the first in pointer order", () => {
    assert.equal(
      badArguments("b", "a").message,
      "Invalid prompts/get request (GetPromptRequest): 2 invalid locations; first: /params/arguments/a must be string",
    );
  });

  test("quotes a location of exactly 60 characters whole", () => {
    const key = "k".repeat(60 - PREFIX.length);
    const { message, located } = badArguments(key);
    assert.equal(located[0]!.instancePath.length, 60);
    assert.ok(message.endsWith(`first: ${PREFIX}${key} must be string`), message);
  });

  test("cuts a longer location to its first 60 characters and an ellipsis, while the listed location stays whole", () => {
    // Keys of at most 64 characters: a longer key is cut in every location (log-safe.ts), which is another rule.
    for (const length of [61, 82]) {
      const key = "k".repeat(length - PREFIX.length);
      const { message, located } = badArguments(key);
      const listed = located[0]!.instancePath;
      assert.ok(listed.length >= length, `listed: ${listed}`);
      assert.ok(message.endsWith(`first: ${listed.slice(0, 60)}… must be string`), message);
      assert.ok(!message.includes(listed), "the summary quotes the whole location");
    }
  });

  test("quotes the message itself as (the message)", () => {
    const result = validateMcpRequest(42, "legacy");
    assert.equal(result.outcome, "reject");
    assert.equal(
      result.response.error.message,
      "Invalid JSON-RPC message (JSONRPCMessage): 1 invalid location; first: (the message) must be object",
    );
  });
  test("fixed words for what has no located schema error: no kind, an empty batch, a body too deep to validate", () => {
    const answer = (body: unknown, era: "legacy" | "modern") => {
      const result = validateMcpRequest(body, era);
      assert.equal(result.outcome, "reject");
      return { message: result.response.error.message, errors: result.response.error.data?.errors };
    };
    assert.deepEqual(answer({ jsonrpc: "2.0", error: { code: 1, message: "m" } }, "modern"), {
      message: "Invalid JSON-RPC message (JSONRPCMessage): not a request, a notification or a response",
      errors: [{ instancePath: "", messages: ["must have a method, or an id with a result or an error"] }],
    });
    assert.deepEqual(answer([], "legacy"), {
      message: "Invalid JSON-RPC batch (items framed by revision 2025-03-26): it is empty",
      errors: [{ instancePath: "", messages: ["must have at least one message"] }],
    });
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const capabilities = { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { experimental: deep } };
    assert.deepEqual(answer({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: capabilities, name: "t" } }, "modern"), {
      message: "Invalid tools/call request (CallToolRequest): nested too deeply to validate",
      errors: [{ instancePath: "", messages: ["nests too deeply to validate"] }],
    });
  });
});
