import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { comparePointers } from "../src/distill.js";
import { validateMcpRequest, type Era, type ValidationResult } from "wymcp";
import { CLIENT_ERROR_RESPONSE, CLIENT_RESPONSE, LEGACY_INITIALIZE, modernToolsCall, NOTIFICATION } from "./support/messages.js";

interface Want {
  outcome: ValidationResult["outcome"];
  kind: string;
  /** pass: the definition judged against; bypass: the reason. */
  detail?: string;
  /** reject: the instance locations listed, in order. */
  locations?: string[];
}

const BAD_TOOLS_CALL = modernToolsCall({ params: { name: 5 } });
const JUNK_NOTIFICATION = { jsonrpc: "2.0", method: "notifications/x", params: 5 };

// DESIGN §3.3, one row per cell and era.
const CASES: Array<[string, { era: Era | undefined; body: unknown; want: Want }]> = [
  ["legacy: a known request method is checked for framing only", { era: "legacy", body: LEGACY_INITIALIZE, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } }],
  ["legacy: a modern method with bad params still passes framing", { era: "legacy", body: BAD_TOOLS_CALL, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } }],
  ["legacy: a request with a bad envelope is rejected at each location", { era: "legacy", body: { jsonrpc: "1.0", id: true, method: 3 }, want: { outcome: "reject", kind: "request", locations: ["/id", "/jsonrpc", "/method"] } }],
  ["legacy: an unknown method passes", { era: "legacy", body: { jsonrpc: "2.0", id: 1, method: "vendor/unknown" }, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } }],
  ["legacy: a notification's method beside an id passes", { era: "legacy", body: { jsonrpc: "2.0", id: 1, method: "notifications/initialized" }, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } }],
  ["legacy: a request's method without an id passes", { era: "legacy", body: { jsonrpc: "2.0", method: "tools/call", params: {} }, want: { outcome: "pass", kind: "notification", detail: "JSONRPCNotification" } }],
  ["legacy: a notification is checked for framing", { era: "legacy", body: NOTIFICATION, want: { outcome: "pass", kind: "notification", detail: "JSONRPCNotification" } }],
  ["legacy: a notification with a bad envelope is rejected", { era: "legacy", body: JUNK_NOTIFICATION, want: { outcome: "reject", kind: "notification", locations: ["/params"] } }],
  ["legacy: a client's result response bypasses validation", { era: "legacy", body: CLIENT_RESPONSE, want: { outcome: "bypass", kind: "response", detail: "legacy-response" } }],
  ["legacy: a client's error response bypasses validation", { era: "legacy", body: CLIENT_ERROR_RESPONSE, want: { outcome: "bypass", kind: "response", detail: "legacy-response" } }],
  ["legacy: even a malformed response bypasses validation", { era: "legacy", body: { id: {}, result: 5 }, want: { outcome: "bypass", kind: "response", detail: "legacy-response" } }],
  ["legacy: an array (a batch) is rejected", { era: "legacy", body: [LEGACY_INITIALIZE], want: { outcome: "reject", kind: "other", locations: [""] } }],
  ["legacy: an object of no kind is rejected", { era: "legacy", body: { jsonrpc: "2.0", id: 1 }, want: { outcome: "reject", kind: "other", locations: ["", "/error", "/method", "/result"] } }],
  ["an unset era reads as legacy", { era: undefined, body: BAD_TOOLS_CALL, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } }],
  ["an unknown era (from untyped callers) reads as legacy", { era: "Modern" as Era, body: CLIENT_RESPONSE, want: { outcome: "bypass", kind: "response", detail: "legacy-response" } }],

  ["modern: a known request method is checked against its own definition", { era: "modern", body: modernToolsCall(), want: { outcome: "pass", kind: "request", detail: "CallToolRequest" } }],
  ["modern: a known method with bad params is rejected at each location", { era: "modern", body: BAD_TOOLS_CALL, want: { outcome: "reject", kind: "request", locations: ["/params/_meta", "/params/name"] } }],
  ["modern: a request with a bad envelope is rejected", { era: "modern", body: { ...modernToolsCall(), jsonrpc: "1.0" }, want: { outcome: "reject", kind: "request", locations: ["/jsonrpc"] } }],
  ["modern: an unknown method gets framing only and passes", { era: "modern", body: { jsonrpc: "2.0", id: 1, method: "vendor/unknown", params: { x: 1 } }, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } }],
  ["modern: an unknown method with a bad envelope is rejected", { era: "modern", body: { jsonrpc: "2.0", id: 1.5, method: "vendor/unknown" }, want: { outcome: "reject", kind: "request", locations: ["/id"] } }],
  ["modern: a legacy-only method (initialize) gets framing only", { era: "modern", body: LEGACY_INITIALIZE, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } }],
  ["modern: a notification bypasses validation", { era: "modern", body: NOTIFICATION, want: { outcome: "bypass", kind: "notification", detail: "modern-notification" } }],
  ["modern: a junk notification bypasses validation too", { era: "modern", body: JUNK_NOTIFICATION, want: { outcome: "bypass", kind: "notification", detail: "modern-notification" } }],
  ["modern: a client's result response is rejected", { era: "modern", body: CLIENT_RESPONSE, want: { outcome: "reject", kind: "response", locations: [""] } }],
  ["modern: a client's error response is rejected", { era: "modern", body: CLIENT_ERROR_RESPONSE, want: { outcome: "reject", kind: "response", locations: [""] } }],
  ["modern: a scalar is rejected", { era: "modern", body: 42, want: { outcome: "reject", kind: "other", locations: [""] } }],
  ["modern: null is rejected", { era: "modern", body: null, want: { outcome: "reject", kind: "other", locations: [""] } }],
  ["modern: an error response without an id is of no kind and rejected", { era: "modern", body: { jsonrpc: "2.0", error: { code: 1, message: "m" } }, want: { outcome: "reject", kind: "other", locations: [""] } }],
];

describe("validateMcpRequest applies each era's rule to each kind of message", () => {
  for (const [name, { era, body, want }] of CASES) {
    test(name, () => {
      const result = validateMcpRequest(body, era);
      assert.equal(result.outcome, want.outcome, JSON.stringify(result));
      assert.equal(result.kind, want.kind);
      if (result.outcome === "pass") assert.equal(result.definition, want.detail);
      if (result.outcome === "bypass") assert.equal(result.reason, want.detail);
      if (result.outcome === "reject") {
        assert.equal(result.status, 400);
        assert.equal(result.response.error.code, -32600);
        assert.deepEqual(result.response.error.data?.errors.map((e) => e.instancePath), want.locations);
      }
    });
  }
});

describe("the rejection answer", () => {
  test("merges every message for one location into a single entry", () => {
    const result = validateMcpRequest({ jsonrpc: "2.0", id: 1, method: "x", params: { _meta: {} } }, "modern");
    assert.equal(result.outcome, "pass");
    const bad = validateMcpRequest({ ...modernToolsCall(), jsonrpc: 2 }, "modern");
    assert.equal(bad.outcome, "reject");
    assert.deepEqual(bad.response.error.data?.errors, [{ instancePath: "/jsonrpc", messages: ["must be string", 'must equal "2.0"'] }]);
  });

  test("names the definition, the count of locations and the first problem in one line", () => {
    const result = validateMcpRequest(BAD_TOOLS_CALL, "modern");
    assert.equal(result.outcome, "reject");
    assert.equal(
      result.response.error.message,
      "Invalid tools/call request (CallToolRequest): 2 invalid locations; first: /params/_meta is required",
    );
    assert.doesNotMatch(result.response.error.message, /\n/);
  });

  test("echoes a valid id and answers null for an id that is not one", () => {
    const cases: Array<[unknown, unknown]> = [[7, 7], ["abc", "abc"], [1.5, null], [{}, null], [null, null], [true, null], ["x".repeat(200), null]];
    for (const [id, want] of cases) {
      const result = validateMcpRequest({ jsonrpc: "1.0", id, method: "m" }, "legacy");
      assert.equal(result.outcome, "reject");
      assert.equal(result.response.id, want, `id ${JSON.stringify(id).slice(0, 20)}`);
    }
  });

  test("escapes a missing member's name in its JSON Pointer location", () => {
    const result = validateMcpRequest(modernToolsCall({ params: { name: "t", _meta: { "io.modelcontextprotocol/clientCapabilities": {} } } }), "modern");
    assert.equal(result.outcome, "reject");
    assert.deepEqual(result.response.error.data?.errors.map((e) => e.instancePath), ["/params/_meta/io.modelcontextprotocol~1protocolVersion"]);
  });

  test("sorts locations by pointer segments, parents first, array indices numerically", () => {
    const sorted = ["/b", "/a/10", "", "/a/2/x", "/a", "/a/2", "/a~1b"].sort(comparePointers);
    assert.deepEqual(sorted, ["", "/a", "/a/2", "/a/2/x", "/a/10", "/a~1b", "/b"]);
  });
});
