import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { classifyEra, type EraClassification, type HeadersLike } from "wymcp";
import { CLIENT_RESPONSE, LEGACY_INITIALIZE, modernToolsCall, NOTIFICATION } from "./support/messages.js";

const MODERN_BODY = modernToolsCall();
const PLAIN_LEGACY_BODY = { jsonrpc: "2.0", id: 2, method: "tools/list" };

const CASES: Array<[string, { headers: HeadersLike | undefined; body: unknown; want: EraClassification }]> = [
  ["no signal at all reads as legacy", { headers: {}, body: PLAIN_LEGACY_BODY, want: { era: "legacy", signal: "default" } }],
  ["missing headers read as no signal", { headers: undefined, body: NOTIFICATION, want: { era: "legacy", signal: "default" } }],
  ["an initialize request is legacy", { headers: {}, body: LEGACY_INITIALIZE, want: { era: "legacy", signal: "initialize" } }],
  ["body _meta protocolVersion is modern", { headers: {}, body: MODERN_BODY, want: { era: "modern", signal: "body-meta" } }],
  ["a header naming the modern revision is modern", { headers: { "mcp-protocol-version": "2026-07-28" }, body: NOTIFICATION, want: { era: "modern", signal: "header-protocol-version" } }],
  ["a header naming a later revision is modern", { headers: { "mcp-protocol-version": "2027-03-01" }, body: NOTIFICATION, want: { era: "modern", signal: "header-protocol-version" } }],
  ["a header naming each legacy revision is legacy", { headers: { "mcp-protocol-version": "2024-11-05" }, body: CLIENT_RESPONSE, want: { era: "legacy", signal: "header-protocol-version" } }],
  ["a header that names no revision is no signal", { headers: { "mcp-protocol-version": "latest" }, body: PLAIN_LEGACY_BODY, want: { era: "legacy", signal: "default" } }],
  ["an Mcp-Session-Id header is legacy", { headers: { "mcp-session-id": "abc" }, body: PLAIN_LEGACY_BODY, want: { era: "legacy", signal: "header-session-id" } }],
  ["header names match in any case", { headers: { "MCP-Protocol-Version": "2026-07-28" }, body: PLAIN_LEGACY_BODY, want: { era: "modern", signal: "header-protocol-version" } }],
  ["a Fetch Headers instance is read too", { headers: new Headers({ "Mcp-Protocol-Version": "2026-07-28" }), body: PLAIN_LEGACY_BODY, want: { era: "modern", signal: "header-protocol-version" } }],
  ["a repeated header counts by its first value", { headers: { "mcp-protocol-version": ["2025-06-18", "2026-07-28"] }, body: PLAIN_LEGACY_BODY, want: { era: "legacy", signal: "header-protocol-version" } }],
  // Conflicts: the body wins over headers, initialize wins over everything.
  ["conflict: body _meta beats a legacy protocol-version header", { headers: { "mcp-protocol-version": "2025-11-25" }, body: MODERN_BODY, want: { era: "modern", signal: "body-meta" } }],
  ["conflict: body _meta beats an Mcp-Session-Id header", { headers: { "mcp-session-id": "abc" }, body: MODERN_BODY, want: { era: "modern", signal: "body-meta" } }],
  ["conflict: initialize beats a modern protocol-version header", { headers: { "mcp-protocol-version": "2026-07-28" }, body: LEGACY_INITIALIZE, want: { era: "legacy", signal: "initialize" } }],
  ["conflict: a modern protocol-version header beats an Mcp-Session-Id header", { headers: { "mcp-protocol-version": "2026-07-28", "mcp-session-id": "abc" }, body: NOTIFICATION, want: { era: "modern", signal: "header-protocol-version" } }],
  ["conflict: an initialize carrying a modern envelope is modern, as the SDK routes it", { headers: {}, body: { ...LEGACY_INITIALIZE, params: { ...LEGACY_INITIALIZE.params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } }, want: { era: "modern", signal: "body-meta" } }],
  ["an initialize whose _meta names a legacy revision stays legacy", { headers: {}, body: { ...LEGACY_INITIALIZE, params: { ...LEGACY_INITIALIZE.params, _meta: { "io.modelcontextprotocol/protocolVersion": "2025-11-25" } } }, want: { era: "legacy", signal: "initialize" } }],
  ["an initialize notification (no id) is not the handshake", { headers: {}, body: { jsonrpc: "2.0", method: "initialize" }, want: { era: "legacy", signal: "default" } }],
  ["a non-string _meta protocolVersion is no signal", { headers: {}, body: modernToolsCall({ params: { _meta: { "io.modelcontextprotocol/protocolVersion": 1 } } }), want: { era: "legacy", signal: "default" } }],
  ["an array body gives no body signal", { headers: { "mcp-protocol-version": "2026-07-28" }, body: [MODERN_BODY], want: { era: "modern", signal: "header-protocol-version" } }],
];

describe("classifyEra reads the dual-era signals in a documented order", () => {
  for (const [name, { headers, body, want }] of CASES) {
    test(name, () => assert.deepEqual(classifyEra(headers, body), want));
  }
  test("every legacy revision reads as legacy through the header", () => {
    for (const revision of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
      assert.deepEqual(classifyEra({ "mcp-protocol-version": revision }, NOTIFICATION), { era: "legacy", signal: "header-protocol-version" });
    }
  });
});
