/** classifyEra on the edges of its signals: what counts as a revision, header shapes, bodies that are not objects. */
import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { classifyEra } from "wymcp";

const header = (value: string) => ({ "mcp-protocol-version": value });

describe("classifyEra at the edges of its signals", () => {
  test("a header is a revision only when it is a whole date, and surrounding spaces are ignored", () => {
    for (const value of ["x2026-07-28", "2026-07-28x", "2026-7-28", "latest"]) assert.deepEqual(classifyEra(header(value), undefined), { era: "legacy", signal: "default" }, value);
    assert.deepEqual(classifyEra(header(" 2026-07-28 "), undefined), { era: "modern", signal: "header-protocol-version" });
  });

  test("an initialize whose _meta names a modern revision with spaces around it is modern", () => {
    const body = { jsonrpc: "2.0", id: 1, method: "initialize", params: { _meta: { "io.modelcontextprotocol/protocolVersion": " 2026-07-28 " } } };
    assert.equal(classifyEra(undefined, body).era, "modern");
  });

  test("bodies that are not objects, or whose params are not, give no body signal and do not throw", () => {
    for (const body of [null, "initialize", 5, [{ method: "initialize", id: 1 }], { method: "x", id: 1, params: null }, { method: "x", id: 1, params: { _meta: null } }]) {
      assert.deepEqual(classifyEra(header("2026-07-28"), body), { era: "modern", signal: "header-protocol-version" }, JSON.stringify(body));
    }
  });

  test("headers may be a Fetch Headers, a Node header object (arrays included) or any-case plain object", () => {
    assert.equal(classifyEra(new Headers({ "MCP-Protocol-Version": "2026-07-28" }), undefined).era, "modern");
    assert.equal(classifyEra({ "mcp-protocol-version": ["2026-07-28", "2025-06-18"] }, undefined).era, "modern");
    assert.equal(classifyEra({ "Mcp-Protocol-Version": "2026-07-28" }, undefined).era, "modern");
    assert.deepEqual(classifyEra({ "MCP-SESSION-ID": "s" }, undefined), { era: "legacy", signal: "header-session-id" });
  });
});
