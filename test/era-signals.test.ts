/** classifyEra on the edges of its signals: header shapes, claims with spaces, bodies that are not objects; the SDK's router decides. */
import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { isLegacyRequest } from "@modelcontextprotocol/server";
import { classifyEra } from "wymcp";

const header = (value: string) => ({ "mcp-protocol-version": value });
const PING = { jsonrpc: "2.0", id: 1, method: "ping" };

/** The lane the official SDK's router gives the same POST. */
async function sdkLane(headers: Record<string, string>, body: unknown): Promise<"legacy" | "modern"> {
  const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return (await isLegacyRequest(request)) ? "legacy" : "modern";
}

describe("classifyEra at the edges of its signals", () => {
  test("a header reads modern when it sorts at or after the first modern revision as text, as the SDK compares it", async () => {
    for (const value of ["x2026-07-28", "2026-07-28x", "2026-7-28", "latest", " 2026-07-28 ", "2026-07-28"]) {
      assert.deepEqual(classifyEra(header(value), PING), { era: "modern", signal: "header-protocol-version" }, value);
      assert.equal(await sdkLane(header(value), PING), "modern", value);
    }
    for (const value of ["2025-11-25", "2026-07-27", "1", ""]) {
      assert.equal(classifyEra(header(value), PING).era, "legacy", value);
      assert.equal(await sdkLane(header(value), PING), "legacy", value);
    }
  });

  test("an initialize claiming a modern revision with spaces around it but no client capabilities stays legacy, as the SDK routes it", async () => {
    const body = { jsonrpc: "2.0", id: 1, method: "initialize", params: { _meta: { "io.modelcontextprotocol/protocolVersion": " 2026-07-28 " } } };
    assert.equal(classifyEra(undefined, body).era, "legacy");
    assert.equal(await sdkLane({}, body), "legacy");
  });

  test("bodies that are not JSON-RPC objects read modern under a modern header, and do not throw", async () => {
    for (const body of [null, "initialize", 5, { method: "x", id: 1, params: null }, { method: "x", id: 1, params: { _meta: null } }]) {
      assert.equal(classifyEra(header("2026-07-28"), body).era, "modern", JSON.stringify(body));
      assert.equal(await sdkLane(header("2026-07-28"), body), "modern", JSON.stringify(body));
    }
  });

  test("headers may be a Fetch Headers, a Node header object (arrays joined as the SDK's Node bridge joins them) or any-case plain object", () => {
    assert.equal(classifyEra(new Headers({ "MCP-Protocol-Version": "2026-07-28" }), PING).era, "modern");
    assert.equal(classifyEra({ "mcp-protocol-version": ["2026-07-28", "2025-06-18"] }, PING).era, "modern");
    assert.equal(classifyEra({ "Mcp-Protocol-Version": "2026-07-28" }, PING).era, "modern");
    assert.deepEqual(classifyEra({ "MCP-SESSION-ID": "s" }, PING), { era: "legacy", signal: "header-session-id" });
  });
});
