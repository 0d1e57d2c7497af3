import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { classifyEra, type EraClassification, type HeadersLike } from "wymcp";
import {
  CLIENT_ERROR_RESPONSE,
  CLIENT_RESPONSE,
  LEGACY_INITIALIZE,
  MODERN_META,
  modernToolsCall,
  NOTIFICATION,
} from "./support/messages.js";

const MODERN_BODY = modernToolsCall();
const PLAIN_LEGACY_BODY = { jsonrpc: "2.0", id: 2, method: "tools/list" };

const INITIALIZE_MODERN_ENVELOPE = { ...LEGACY_INITIALIZE, params: { ...LEGACY_INITIALIZE.params, _meta: MODERN_META } };
const claiming = (claim: unknown) => modernToolsCall({ params: { _meta: { "io.modelcontextprotocol/protocolVersion": claim } } });

const CASES: Array<[string, { headers: HeadersLike | undefined; body: unknown; want: EraClassification }]> = [
  ["no signal at all reads as legacy", { headers: {}, body: PLAIN_LEGACY_BODY, want: { era: "legacy", signal: "default" } }],
  ["missing headers read as no signal", { headers: undefined, body: NOTIFICATION, want: { era: "legacy", signal: "default" } }],
  ["an initialize request is legacy", { headers: {}, body: LEGACY_INITIALIZE, want: { era: "legacy", signal: "initialize" } }],
  ["body _meta protocolVersion is modern", { headers: {}, body: MODERN_BODY, want: { era: "modern", signal: "body-meta" } }],
  [
    "a header naming the modern revision is modern",
    { headers: { "mcp-protocol-version": "2026-07-28" }, body: NOTIFICATION, want: { era: "modern", signal: "header-protocol-version" } },
  ],
  [
    "a header naming a later revision is modern",
    { headers: { "mcp-protocol-version": "2027-03-01" }, body: NOTIFICATION, want: { era: "modern", signal: "header-protocol-version" } },
  ],
  [
    "a header naming a legacy revision is legacy, reported as the header",
    {
      headers: { "mcp-protocol-version": "2024-11-05" },
      body: PLAIN_LEGACY_BODY,
      want: { era: "legacy", signal: "header-protocol-version" },
    },
  ],
  [
    "a header that sorts after the modern revision is modern, as the SDK compares strings",
    { headers: { "mcp-protocol-version": "latest" }, body: PLAIN_LEGACY_BODY, want: { era: "modern", signal: "header-protocol-version" } },
  ],
  [
    "a header that sorts before it and names no revision is no signal",
    { headers: { "mcp-protocol-version": "1" }, body: PLAIN_LEGACY_BODY, want: { era: "legacy", signal: "default" } },
  ],
  [
    "an Mcp-Session-Id header is reported on a legacy request",
    { headers: { "mcp-session-id": "abc" }, body: PLAIN_LEGACY_BODY, want: { era: "legacy", signal: "header-session-id" } },
  ],
  [
    "header names match in any case",
    {
      headers: { "MCP-Protocol-Version": "2026-07-28" },
      body: PLAIN_LEGACY_BODY,
      want: { era: "modern", signal: "header-protocol-version" },
    },
  ],
  [
    "a Fetch Headers instance is read too",
    {
      headers: new Headers({ "Mcp-Protocol-Version": "2026-07-28" }),
      body: PLAIN_LEGACY_BODY,
      want: { era: "modern", signal: "header-protocol-version" },
    },
  ],
  [
    "a repeated header is joined with a comma, as a Fetch Headers joins it: legacy first reads legacy",
    {
      headers: { "mcp-protocol-version": ["2025-06-18", "2026-07-28"] },
      body: PLAIN_LEGACY_BODY,
      want: { era: "legacy", signal: "default" },
    },
  ],
  [
    "a repeated header is joined with a comma: modern first reads modern",
    {
      headers: { "mcp-protocol-version": ["2026-07-28", "2025-06-18"] },
      body: PLAIN_LEGACY_BODY,
      want: { era: "modern", signal: "header-protocol-version" },
    },
  ],
  [
    "of two keys differing in case the later one counts, as the SDK's Node bridge sets them",
    {
      headers: { "MCP-Protocol-Version": "2026-07-28", "mcp-protocol-version": "2025-11-25" },
      body: PLAIN_LEGACY_BODY,
      want: { era: "legacy", signal: "header-protocol-version" },
    },
  ],
  [
    "spaces and tabs around the header value are ignored",
    {
      headers: { "mcp-protocol-version": " \t2026-07-28 " },
      body: PLAIN_LEGACY_BODY,
      want: { era: "modern", signal: "header-protocol-version" },
    },
  ],
  // Malformed claims: a claim counts whatever its type; the modern rules then refuse it.
  ["a number claim is modern", { headers: {}, body: claiming(1), want: { era: "modern", signal: "body-meta" } }],
  ["a null claim is modern", { headers: {}, body: claiming(null), want: { era: "modern", signal: "body-meta" } }],
  ["an array claim is modern", { headers: {}, body: claiming(["2026-07-28"]), want: { era: "modern", signal: "body-meta" } }],
  ["an object claim is modern", { headers: {}, body: claiming({}), want: { era: "modern", signal: "body-meta" } }],
  [
    "a claim naming a legacy revision is modern (the modern path refuses the revision)",
    { headers: {}, body: claiming("2025-11-25"), want: { era: "modern", signal: "body-meta" } },
  ],
  [
    "a claim on a notification is modern",
    {
      headers: {},
      body: { ...NOTIFICATION, params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } },
      want: { era: "modern", signal: "body-meta" },
    },
  ],
  // Framing, read first: what is no single request or notification.
  [
    "a posted response is legacy",
    { headers: { "mcp-protocol-version": "2026-07-28" }, body: CLIENT_RESPONSE, want: { era: "legacy", signal: "response" } },
  ],
  ["a posted error response is legacy", { headers: {}, body: CLIENT_ERROR_RESPONSE, want: { era: "legacy", signal: "response" } }],
  [
    "a batch of legacy messages is legacy, whatever the header",
    {
      headers: { "mcp-protocol-version": "2026-07-28" },
      body: [PLAIN_LEGACY_BODY, NOTIFICATION],
      want: { era: "legacy", signal: "batch" },
    },
  ],
  [
    "a batch with a claiming element is modern (refused there)",
    { headers: {}, body: [PLAIN_LEGACY_BODY, MODERN_BODY], want: { era: "modern", signal: "batch" } },
  ],
  ["an empty batch is modern (refused there)", { headers: {}, body: [], want: { era: "modern", signal: "batch" } }],
  [
    "a batch with a non-message is modern (refused there)",
    { headers: {}, body: [PLAIN_LEGACY_BODY, 5], want: { era: "modern", signal: "batch" } },
  ],
  [
    "a request with an unknown top-level member is no JSON-RPC: modern",
    { headers: {}, body: { ...PLAIN_LEGACY_BODY, extra: 1 }, want: { era: "modern", signal: "not-json-rpc" } },
  ],
  [
    "a request with a fractional id is no JSON-RPC: modern",
    { headers: {}, body: { ...PLAIN_LEGACY_BODY, id: 1.5 }, want: { era: "modern", signal: "not-json-rpc" } },
  ],
  [
    "a request with a null id is no JSON-RPC: modern",
    { headers: {}, body: { ...PLAIN_LEGACY_BODY, id: null }, want: { era: "modern", signal: "not-json-rpc" } },
  ],
  [
    "a request whose _meta is null is no JSON-RPC: modern",
    { headers: {}, body: { ...PLAIN_LEGACY_BODY, params: { _meta: null } }, want: { era: "modern", signal: "not-json-rpc" } },
  ],
  ["a non-object body is modern", { headers: {}, body: 5, want: { era: "modern", signal: "not-json-rpc" } }],
  // Conflicts between signals, each in the order they win.
  [
    "conflict: a response beats a modern protocol-version header",
    { headers: { "mcp-protocol-version": "2026-07-28" }, body: CLIENT_ERROR_RESPONSE, want: { era: "legacy", signal: "response" } },
  ],
  [
    "conflict: body _meta beats a legacy protocol-version header",
    { headers: { "mcp-protocol-version": "2025-11-25" }, body: MODERN_BODY, want: { era: "modern", signal: "body-meta" } },
  ],
  [
    "conflict: body _meta beats an Mcp-Session-Id header",
    { headers: { "mcp-session-id": "abc" }, body: MODERN_BODY, want: { era: "modern", signal: "body-meta" } },
  ],
  [
    "conflict: a modern protocol-version header beats initialize",
    {
      headers: { "mcp-protocol-version": "2026-07-28" },
      body: LEGACY_INITIALIZE,
      want: { era: "modern", signal: "header-protocol-version" },
    },
  ],
  [
    "conflict: initialize beats a legacy protocol-version header",
    { headers: { "mcp-protocol-version": "2025-06-18" }, body: LEGACY_INITIALIZE, want: { era: "legacy", signal: "initialize" } },
  ],
  [
    "conflict: initialize beats a modern claim without client capabilities",
    {
      headers: {},
      body: {
        ...LEGACY_INITIALIZE,
        params: { ...LEGACY_INITIALIZE.params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
      },
      want: { era: "legacy", signal: "initialize" },
    },
  ],
  [
    "conflict: initialize beats a legacy claim",
    {
      headers: {},
      body: {
        ...LEGACY_INITIALIZE,
        params: { ...LEGACY_INITIALIZE.params, _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } },
      },
      want: { era: "legacy", signal: "initialize" },
    },
  ],
  [
    "conflict: a whole modern envelope beats initialize",
    { headers: {}, body: INITIALIZE_MODERN_ENVELOPE, want: { era: "modern", signal: "body-meta" } },
  ],
  [
    "conflict: a modern protocol-version header beats an Mcp-Session-Id header",
    {
      headers: { "mcp-protocol-version": "2026-07-28", "mcp-session-id": "abc" },
      body: NOTIFICATION,
      want: { era: "modern", signal: "header-protocol-version" },
    },
  ],
  [
    "conflict: a legacy protocol-version header is reported over an Mcp-Session-Id header",
    {
      headers: { "mcp-protocol-version": "2025-11-25", "mcp-session-id": "abc" },
      body: NOTIFICATION,
      want: { era: "legacy", signal: "header-protocol-version" },
    },
  ],
  [
    "an initialize notification (no id) is not the handshake",
    { headers: {}, body: { jsonrpc: "2.0", method: "initialize" }, want: { era: "legacy", signal: "default" } },
  ],
  [
    "with no body (undefined) only the headers count",
    { headers: { "mcp-protocol-version": "2026-07-28" }, body: undefined, want: { era: "modern", signal: "header-protocol-version" } },
  ],
];

describe("classifyEra reads the dual-era signals in a documented order", () => {
  for (const [name, { headers, body, want }] of CASES) {
    test(name, () => assert.deepEqual(classifyEra(headers, body), want));
  }
  test("every legacy revision reads as legacy through the header", () => {
    for (const revision of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
      assert.deepEqual(classifyEra({ "mcp-protocol-version": revision }, NOTIFICATION), {
        era: "legacy",
        signal: "header-protocol-version",
      });
    }
  });
});
