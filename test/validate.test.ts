import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { comparePointers } from "../src/core/distill.js";
import { MAX_ANSWER_BYTES, validateMcpRequest, type Era, type ValidationResult } from "wymcp";

/** The legacy lane's three modes, as the params rule's states spell them. */
type LegacyChecks = "params" | "report" | "framing";
const PARAMS = { params: "enforce", report: "report", framing: "off" } as const;
import {
  CLIENT_ERROR_RESPONSE,
  CLIENT_RESPONSE,
  LEGACY_INITIALIZE,
  MODERN_META,
  modernToolsCall,
  NOTIFICATION,
} from "./support/messages.js";

interface Want {
  outcome: ValidationResult["outcome"];
  kind: string;
  /** pass: the definition judged against; bypass: the reason. */
  detail?: string;
  /** reject: the instance locations listed, in order. */
  locations?: string[];
  /** reject: the JSON-RPC error code; -32600 unless given. */
  code?: number;
  /** reject: the HTTP status; 400 unless given. */
  status?: number;
  /** pass or reject on the legacy lane's params checks: the revision whose definition judged it. */
  revision?: string;
}

const BAD_TOOLS_CALL = modernToolsCall({ params: { name: 5 } });
const JUNK_NOTIFICATION = { jsonrpc: "2.0", method: "notifications/x", params: 5 };

// The table of docs/validation.md#what-is-validated, one row per cell and era.
const CASES: Array<[string, { era: Era | undefined; body: unknown; want: Want; checks?: LegacyChecks }]> = [
  [
    "legacy, framing: a known request method is checked for framing only",
    { era: "legacy", checks: "framing", body: LEGACY_INITIALIZE, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } },
  ],
  [
    "legacy, framing: a modern method with bad params still passes framing",
    { era: "legacy", checks: "framing", body: BAD_TOOLS_CALL, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } },
  ],
  [
    "legacy: a known request method is checked against the definition of the revision it names (initialize: its own)",
    {
      era: "legacy",
      body: LEGACY_INITIALIZE,
      want: { outcome: "pass", kind: "request", detail: "InitializeRequest", revision: "2025-11-25" },
    },
  ],
  [
    "legacy: a known method with bad params is refused -32602 with HTTP 200, judged by 2025-03-26 without a header",
    {
      era: "legacy",
      body: BAD_TOOLS_CALL,
      want: { outcome: "reject", kind: "request", locations: ["/params/name"], code: -32602, status: 200, revision: "2025-03-26" },
    },
  ],
  [
    "legacy, report: a known method with bad params passes, carrying the answer it would have had",
    {
      era: "legacy",
      checks: "report",
      body: BAD_TOOLS_CALL,
      want: { outcome: "pass", kind: "request", detail: "CallToolRequest", revision: "2025-03-26", code: -32602, status: 200 },
    },
  ],
  [
    "legacy: a known notification with bad params is refused -32602 with HTTP 400 (a notification has no answer to carry it)",
    {
      era: "legacy",
      body: { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: true } },
      want: { outcome: "reject", kind: "notification", locations: ["/params/requestId"], code: -32602, revision: "2025-03-26" },
    },
  ],
  [
    "legacy: a request with a bad envelope is rejected at each location",
    {
      era: "legacy",
      body: { jsonrpc: "1.0", id: true, method: 3 },
      want: { outcome: "reject", kind: "request", locations: ["/id", "/jsonrpc", "/method"] },
    },
  ],
  [
    "legacy: an unknown method passes",
    {
      era: "legacy",
      body: { jsonrpc: "2.0", id: 1, method: "vendor/unknown" },
      want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" },
    },
  ],
  [
    "legacy: a notification's method beside an id passes",
    {
      era: "legacy",
      body: { jsonrpc: "2.0", id: 1, method: "notifications/initialized" },
      want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" },
    },
  ],
  [
    "legacy: a request's method without an id passes",
    {
      era: "legacy",
      body: { jsonrpc: "2.0", method: "tools/call", params: {} },
      want: { outcome: "pass", kind: "notification", detail: "JSONRPCNotification" },
    },
  ],
  [
    "legacy, framing: a notification is checked for framing",
    {
      era: "legacy",
      checks: "framing",
      body: NOTIFICATION,
      want: { outcome: "pass", kind: "notification", detail: "JSONRPCNotification" },
    },
  ],
  [
    "legacy: a known notification is checked against its revision's definition",
    {
      era: "legacy",
      body: NOTIFICATION,
      want: { outcome: "pass", kind: "notification", detail: "InitializedNotification", revision: "2025-03-26" },
    },
  ],
  [
    "legacy: a notification with a bad envelope is rejected",
    { era: "legacy", body: JUNK_NOTIFICATION, want: { outcome: "reject", kind: "notification", locations: ["/params"] } },
  ],
  [
    "legacy: a client's result response bypasses validation",
    { era: "legacy", body: CLIENT_RESPONSE, want: { outcome: "bypass", kind: "response", detail: "legacy-response" } },
  ],
  [
    "legacy: a client's error response bypasses validation",
    { era: "legacy", body: CLIENT_ERROR_RESPONSE, want: { outcome: "bypass", kind: "response", detail: "legacy-response" } },
  ],
  [
    "legacy: even a malformed response bypasses validation",
    { era: "legacy", body: { id: {}, result: 5 }, want: { outcome: "bypass", kind: "response", detail: "legacy-response" } },
  ],
  [
    "legacy: an object of no kind is rejected",
    {
      era: "legacy",
      body: { jsonrpc: "2.0", id: 1 },
      want: { outcome: "reject", kind: "other", locations: ["", "/error", "/method", "/result"] },
    },
  ],
  [
    "an unset era reads as legacy (framing)",
    { era: undefined, checks: "framing", body: BAD_TOOLS_CALL, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } },
  ],
  [
    "an unset era reads as legacy (params)",
    {
      era: undefined,
      body: BAD_TOOLS_CALL,
      want: { outcome: "reject", kind: "request", locations: ["/params/name"], code: -32602, status: 200, revision: "2025-03-26" },
    },
  ],
  [
    "an unknown era (from untyped callers) reads as legacy",
    { era: "Modern" as Era, body: CLIENT_RESPONSE, want: { outcome: "bypass", kind: "response", detail: "legacy-response" } },
  ],

  [
    "modern: a known request method is checked against its own definition",
    { era: "modern", body: modernToolsCall(), want: { outcome: "pass", kind: "request", detail: "CallToolRequest" } },
  ],
  [
    "modern: a known method with bad params is rejected at each location",
    {
      era: "modern",
      body: BAD_TOOLS_CALL,
      want: { outcome: "reject", kind: "request", locations: ["/params/_meta", "/params/name"], code: -32602 },
    },
  ],
  [
    "modern: a request with a bad envelope is rejected",
    {
      era: "modern",
      body: { ...modernToolsCall(), jsonrpc: "1.0" },
      want: { outcome: "reject", kind: "request", locations: ["/jsonrpc"] },
    },
  ],
  [
    "modern: an unknown method gets framing only and passes",
    {
      era: "modern",
      body: { jsonrpc: "2.0", id: 1, method: "vendor/unknown", params: { x: 1 } },
      want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" },
    },
  ],
  [
    "modern: an unknown method with a bad envelope is rejected",
    {
      era: "modern",
      body: { jsonrpc: "2.0", id: 1.5, method: "vendor/unknown" },
      want: { outcome: "reject", kind: "request", locations: ["/id"] },
    },
  ],
  [
    "modern: a legacy-only method (initialize) gets framing only",
    { era: "modern", body: LEGACY_INITIALIZE, want: { outcome: "pass", kind: "request", detail: "JSONRPCRequest" } },
  ],
  [
    "modern: a notification bypasses validation",
    { era: "modern", body: NOTIFICATION, want: { outcome: "bypass", kind: "notification", detail: "modern-notification" } },
  ],
  [
    "modern: a junk notification bypasses validation too",
    { era: "modern", body: JUNK_NOTIFICATION, want: { outcome: "bypass", kind: "notification", detail: "modern-notification" } },
  ],
  [
    "modern: a client's result response is rejected",
    { era: "modern", body: CLIENT_RESPONSE, want: { outcome: "reject", kind: "response", locations: [""] } },
  ],
  [
    "modern: a client's error response is rejected",
    { era: "modern", body: CLIENT_ERROR_RESPONSE, want: { outcome: "reject", kind: "response", locations: [""] } },
  ],
  ["modern: a scalar is rejected", { era: "modern", body: 42, want: { outcome: "reject", kind: "other", locations: [""] } }],
  ["modern: null is rejected", { era: "modern", body: null, want: { outcome: "reject", kind: "other", locations: [""] } }],
  // The two eras' JSONRPCMessage differ in Result (2026-07-28 requires resultType), so the answer tells which judged.
  [
    "modern: a result without an id is judged by the modern era's JSONRPCMessage",
    {
      era: "modern",
      body: { jsonrpc: "2.0", result: {} },
      want: { outcome: "reject", kind: "other", locations: ["", "/error", "/method"] },
    },
  ],
  [
    "legacy: the same body is judged by the legacy era's JSONRPCMessage",
    {
      era: "legacy",
      body: { jsonrpc: "2.0", result: {} },
      want: { outcome: "reject", kind: "other", locations: ["", "/error", "/id", "/method"] },
    },
  ],
  [
    "modern: an error response without an id is of no kind and rejected",
    {
      era: "modern",
      body: { jsonrpc: "2.0", error: { code: 1, message: "m" } },
      want: { outcome: "reject", kind: "other", locations: [""] },
    },
  ],
];

describe("validateMcpRequest applies each era's rule to each kind of message", () => {
  for (const [name, { era, body, want, checks }] of CASES) {
    test(name, () => {
      const result = validateMcpRequest(body, era, checks && { rules: { params: PARAMS[checks] } });
      assert.equal(result.outcome, want.outcome, JSON.stringify(result));
      assert.equal(result.kind, want.kind);
      if (result.outcome === "pass") {
        assert.equal(result.definition, want.detail);
        assert.equal(result.revision, want.revision);
        assert.equal(result.reported?.[0]?.status, want.status);
        assert.equal(result.reported?.[0]?.response.error.code, want.code);
      }
      if (result.outcome === "bypass") assert.equal(result.reason, want.detail);
      if (result.outcome === "reject") {
        assert.equal(result.revision, want.revision);
        assert.equal(result.status, want.status ?? 400);
        assert.equal(result.response.error.code, want.code ?? -32600);
        assert.deepEqual(
          result.response.error.data?.errors.map((e) => e.instancePath),
          want.locations,
        );
      }
    });
  }
});

const META_KEYS = ["io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"] as const;

function withoutMetaKey(key: (typeof META_KEYS)[number]) {
  const { [key]: _dropped, ...meta } = MODERN_META;
  return modernToolsCall({ params: { _meta: meta, name: "get_weather" } });
}

// docs/validation.md#the-answer-to-a-bad-message: -32600 when the message is not a valid JSON-RPC request (InvalidRequestError), -32602 when
// it is one and its params fail the method's definition (InvalidParamsError).
const CODE_CASES: Array<[string, { era: Era; body: unknown; code: number }]> = [
  [
    "modern: a tools/call without _meta is invalid params",
    { era: "modern", body: modernToolsCall({ params: { name: "get_weather" } }), code: -32602 },
  ],
  ...META_KEYS.map((key): [string, { era: Era; body: unknown; code: number }] => [
    `modern: a tools/call whose _meta lacks ${key} is invalid params`,
    { era: "modern", body: withoutMetaKey(key), code: -32602 },
  ]),
  [
    "modern: a tools/call without params is invalid params",
    { era: "modern", body: { jsonrpc: "2.0", id: 1, method: "tools/call" }, code: -32602 },
  ],
  [
    "modern: a tools/call with a bad id is an invalid request, whatever its params",
    { era: "modern", body: modernToolsCall({ id: 1.5, params: {} }), code: -32600 },
  ],
  [
    "modern: a tools/call with a wrong jsonrpc is an invalid request",
    { era: "modern", body: { ...modernToolsCall(), jsonrpc: "1.0" }, code: -32600 },
  ],
  [
    "modern: an unknown method with a bad envelope is an invalid request",
    { era: "modern", body: { jsonrpc: "2.0", id: true, method: "vendor/x" }, code: -32600 },
  ],
  ["modern: a message of no kind is an invalid request", { era: "modern", body: { jsonrpc: "2.0" }, code: -32600 }],
  [
    "legacy: a bad envelope is an invalid request (the lane checks framing only)",
    { era: "legacy", body: { jsonrpc: "2.0", id: [], method: "tools/call" }, code: -32600 },
  ],
  [
    "legacy: a bad notification envelope is an invalid request",
    { era: "legacy", body: { jsonrpc: "2.0", method: "notifications/x", params: [] }, code: -32600 },
  ],
];

describe("the error code separates a broken envelope (-32600) from bad params of a known method (-32602)", () => {
  for (const [name, { era, body, code }] of CODE_CASES) {
    test(name, () => {
      const result = validateMcpRequest(body, era);
      assert.equal(result.outcome, "reject", JSON.stringify(result));
      assert.equal(result.status, 400);
      assert.equal(result.response.error.code, code);
    });
  }
});

const PING = { jsonrpc: "2.0", id: 1, method: "ping" };
const TOOLS_LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };

// Revision 2025-03-26 alone allowed JSON-RPC batches; its clients send no MCP-Protocol-Version header.
const BATCH_CASES: Array<[string, { era: Era; body: unknown; protocolVersion?: string; want: Want }]> = [
  [
    "legacy, no header: a batch of good requests and a notification passes",
    { era: "legacy", body: [TOOLS_LIST, PING, NOTIFICATION], want: { outcome: "pass", kind: "batch", detail: "JSONRPCBatchRequest" } },
  ],
  [
    "legacy, no header: a bad item is located by its index",
    {
      era: "legacy",
      body: [TOOLS_LIST, { ...PING, jsonrpc: "1.0" }],
      want: { outcome: "reject", kind: "batch", locations: ["/1/jsonrpc"] },
    },
  ],
  [
    "legacy, no header: a bad notification item is located too",
    {
      era: "legacy",
      body: [NOTIFICATION, { jsonrpc: "2.0", method: "n", params: 1 }],
      want: { outcome: "reject", kind: "batch", locations: ["/1/params"] },
    },
  ],
  [
    "legacy, no header: items are framed by 2025-03-26 (its typed progressToken)",
    {
      era: "legacy",
      body: [{ ...PING, params: { _meta: { progressToken: true } } }],
      want: { outcome: "reject", kind: "batch", locations: ["/0/params/_meta/progressToken"] },
    },
  ],
  [
    "legacy, no header: a scalar item is located",
    { era: "legacy", body: [PING, 5], want: { outcome: "reject", kind: "batch", locations: ["/1"] } },
  ],
  [
    "legacy, no header: a nested array item is located",
    { era: "legacy", body: [[PING]], want: { outcome: "reject", kind: "batch", locations: ["/0"] } },
  ],
  [
    "legacy, no header: an item of no kind is located at what it lacks",
    { era: "legacy", body: [{ jsonrpc: "2.0", id: 3 }], want: { outcome: "reject", kind: "batch", locations: ["/0/method"] } },
  ],
  [
    "legacy, no header: an empty batch is rejected",
    { era: "legacy", body: [], want: { outcome: "reject", kind: "batch", locations: [""] } },
  ],
  [
    "legacy, no header: client responses in a batch stay bypassed, even malformed",
    {
      era: "legacy",
      body: [CLIENT_RESPONSE, { id: {}, result: 5 }, PING],
      want: { outcome: "pass", kind: "batch", detail: "JSONRPCBatchRequest" },
    },
  ],
  [
    "legacy, no header: a batch of client responses only is bypassed",
    {
      era: "legacy",
      body: [CLIENT_RESPONSE, CLIENT_ERROR_RESPONSE],
      want: { outcome: "bypass", kind: "batch", detail: "legacy-response" },
    },
  ],
  [
    "legacy, header 2025-03-26: a batch is judged",
    { era: "legacy", body: [PING], protocolVersion: "2025-03-26", want: { outcome: "pass", kind: "batch", detail: "JSONRPCBatchRequest" } },
  ],
  [
    "legacy, header 2025-06-18: a batch is refused as a batch, not as a message of no kind",
    { era: "legacy", body: [PING], protocolVersion: "2025-06-18", want: { outcome: "reject", kind: "batch", locations: [""] } },
  ],
  [
    "legacy, header 2025-11-25: a batch is refused, its items' framing located",
    {
      era: "legacy",
      body: [PING, { jsonrpc: "1.0", id: 2, method: "ping" }],
      protocolVersion: " 2025-11-25 ",
      want: { outcome: "reject", kind: "batch", locations: ["/1/jsonrpc"] },
    },
  ],
  [
    "legacy, header 2025-11-25 with spaces around it: a batch is refused",
    { era: "legacy", body: [PING], protocolVersion: " 2025-11-25\t", want: { outcome: "reject", kind: "batch", locations: [""] } },
  ],
  [
    "legacy, header 2025-06-18: a batch of responses only is refused too (no revision from 2025-06-18 takes one)",
    {
      era: "legacy",
      body: [CLIENT_RESPONSE],
      protocolVersion: "2025-06-18",
      want: { outcome: "reject", kind: "batch", locations: [""] },
    },
  ],
  // The modern era has none: refused as a batch (its items' framing located, none failing here), never "must be object".
  ["modern: a batch is refused", { era: "modern", body: [PING], want: { outcome: "reject", kind: "batch", locations: [""] } }],
  [
    "modern, modern header: a batch is refused",
    {
      era: "modern",
      body: [modernToolsCall()],
      protocolVersion: "2026-07-28",
      want: { outcome: "reject", kind: "batch", locations: [""] },
    },
  ],
];

describe("legacy JSON-RPC batches: judged item by item without a 2025-06-18+ header, refused otherwise", () => {
  for (const [name, { era, body, protocolVersion, want }] of BATCH_CASES) {
    test(name, () => {
      const result = validateMcpRequest(body, era, { protocolVersion });
      assert.equal(result.outcome, want.outcome, JSON.stringify(result));
      assert.equal(result.kind, want.kind);
      if (result.outcome === "pass") assert.equal(result.definition, want.detail);
      if (result.outcome === "bypass") assert.equal(result.reason, want.detail);
      if (result.outcome === "reject") {
        assert.equal(result.response.error.code, -32600, "the legacy lane checks framing only");
        assert.equal(result.response.id, null);
        assert.deepEqual(
          result.response.error.data?.errors.map((e) => e.instancePath),
          want.locations,
        );
      }
    });
  }

  test("a batch of 10^5 bad items stops at the errors the answer can use and stays bounded", () => {
    const result = validateMcpRequest(
      Array.from({ length: 100_000 }, () => 5),
      "legacy",
    );
    assert.equal(result.outcome, "reject");
    assert.match(result.response.error.message, /\d+\+ invalid locations/);
    assert.ok(new TextEncoder().encode(JSON.stringify(result.response)).byteLength <= MAX_ANSWER_BYTES);
  });

  test("items are judged until the error budget is full and not one item more", () => {
    // Each item has one fault, so the budget fills at its 64th item and the 65th is not looked at.
    const result = validateMcpRequest(
      Array.from({ length: 100 }, () => ({ ...PING, method: 5 })),
      "legacy",
    );
    assert.equal(result.outcome, "reject");
    assert.match(result.response.error.message, /: 64\+ invalid locations; first: \/0\/method must be string$/);
  });
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
    const cases: Array<[unknown, unknown]> = [
      [7, 7],
      ["abc", "abc"],
      [1.5, null],
      [{}, null],
      [null, null],
      [true, null],
      ["x".repeat(200), null],
    ];
    for (const [id, want] of cases) {
      const result = validateMcpRequest({ jsonrpc: "1.0", id, method: "m" }, "legacy");
      assert.equal(result.outcome, "reject");
      assert.equal(result.response.id, want, `id ${JSON.stringify(id).slice(0, 20)}`);
    }
  });

  test("escapes a missing member's name in its JSON Pointer location", () => {
    const result = validateMcpRequest(
      modernToolsCall({ params: { name: "t", _meta: { "io.modelcontextprotocol/clientCapabilities": {} } } }),
      "modern",
    );
    assert.equal(result.outcome, "reject");
    assert.deepEqual(
      result.response.error.data?.errors.map((e) => e.instancePath),
      ["/params/_meta/io.modelcontextprotocol~1protocolVersion"],
    );
  });

  test("sorts locations by pointer segments, parents first, array indices numerically", () => {
    const sorted = ["/b", "/a/10", "", "/a/2/x", "/a", "/a/2", "/a~1b"].sort(comparePointers);
    assert.deepEqual(sorted, ["", "/a", "/a/2", "/a/2/x", "/a/10", "/a~1b", "/b"]);
  });
});

describe("a passing verdict is built once per definition and frozen", () => {
  test("two passes of one method are one frozen object; a caller cannot change the next message's verdict", () => {
    const legacyCall = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: {} } };
    for (const [body, era, options] of [
      [modernToolsCall(), "modern", undefined],
      [legacyCall, "legacy", { protocolVersion: "2025-11-25" }],
      [{ ...legacyCall, id: 2 }, "legacy", { protocolVersion: "2025-06-18" }],
    ] as const) {
      const first = validateMcpRequest(body, era, options);
      const second = validateMcpRequest(structuredClone(body), era, options);
      assert.equal(first.outcome, "pass");
      assert.equal(second, first);
      assert.ok(Object.isFrozen(first));
      assert.throws(() => {
        (first as { definition: string }).definition = "changed";
      }, TypeError);
      assert.equal((validateMcpRequest(body, era, options) as { definition: string }).definition, "CallToolRequest");
    }
  });

  test("report mode and a failing definition still build their own verdicts", () => {
    const bad = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 5 } };
    const reported = validateMcpRequest(bad, "legacy", { protocolVersion: "2025-11-25", rules: { params: "report" } });
    assert.equal(reported.outcome, "pass");
    assert.ok(!Object.isFrozen(reported));
    assert.equal(reported.outcome === "pass" && reported.reported?.[0]?.response.error.code, -32602);
  });
});
