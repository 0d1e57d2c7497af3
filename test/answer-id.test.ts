/** The id of an answer: the client's own only when it is a valid MCP request id of bounded size (128 as JSON). */
import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { validateMcpRequest, type JsonRpcId } from "wymcp";

const answered = (id: unknown): JsonRpcId => {
  const result = validateMcpRequest({ jsonrpc: "1.0", id, method: "m" }, "legacy");
  assert.equal(result.outcome, "reject");
  return result.response.id;
};

describe("the id an answer echoes", () => {
  test("integers are echoed up to the largest safe one, negative and zero included", () => {
    for (const id of [0, -5, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) assert.equal(answered(id), id);
    for (const id of [Number.MAX_SAFE_INTEGER + 1, 2.5, 1e300]) assert.equal(answered(id), null, String(id));
  });

  test("the id 2^53 + 1 as sent is answered null, not the number JSON.parse rounds it to (an id the client never sent)", () => {
    const body = JSON.parse('{"jsonrpc":"1.0","id":9007199254740993,"method":"m"}') as { id: number };
    assert.equal(body.id, 2 ** 53);
    const result = validateMcpRequest(body, "legacy");
    assert.equal(result.outcome === "reject" && result.response.id, null);
  });

  test("a body with no id to read, undefined included (no JSON text gives it, but the API takes any value), is answered null", () => {
    for (const body of [undefined, null, 5, "text", [], [{ id: 1 }]]) {
      const result = validateMcpRequest(body, "legacy");
      assert.equal(result.outcome, "reject", String(body));
      assert.equal(result.response.id, null, String(body));
    }
  });

  test("a string is echoed while it is at most 128 characters as JSON", () => {
    assert.equal(answered("a".repeat(126)), "a".repeat(126));
    assert.equal(answered("a".repeat(127)), null);
    assert.equal(answered(""), "");
  });

  test("a string holding a control character is answered null, whatever its length (an escaped id would answer another request)", () => {
    assert.equal(answered("\u0001"), null);
    assert.equal(answered("\u0001".repeat(21)), null);
    assert.equal(answered(`${"a".repeat(20)}\u001b`), null);
    // Quotes and backslashes are JSON-escaped, not control characters: 21 of them stay within 128 as JSON.
    const quotes = '"'.repeat(21);
    assert.equal(answered(quotes), quotes);
    assert.equal(answered('"'.repeat(63)), '"'.repeat(63));
    assert.equal(answered('"'.repeat(64)), null);
  });

  test("anything else is answered null: booleans, objects, arrays, null, a missing id", () => {
    for (const id of [true, {}, [1], null]) assert.equal(answered(id), null, JSON.stringify(id));
    const result = validateMcpRequest({ jsonrpc: "2.0", method: 5 }, "legacy");
    assert.equal(result.outcome === "reject" && result.response.id, null);
    const batch = validateMcpRequest([{ jsonrpc: "1.0", id: 3, method: "m" }], "legacy");
    assert.equal(batch.outcome === "reject" && batch.response.id, null);
  });
});
