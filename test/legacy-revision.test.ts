import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { legacyRevisionOf, validateMcpRequest, type LegacyRevision } from "wymcp";
import { LEGACY_INITIALIZE, NOTIFICATION } from "./support/messages.js";

/** The legacy lane's three modes, as the params rule's states spell them. */
const PARAMS = { params: "enforce", report: "report", framing: "off" } as const;

const TOOLS_LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };
const initialize = (protocolVersion: unknown) => ({ ...LEGACY_INITIALIZE, params: { ...LEGACY_INITIALIZE.params, protocolVersion } });

describe("which legacy revision judges a legacy message, first match wins", () => {
  const cases: Array<[string, { body: unknown; header?: string | null; want: LegacyRevision }]> = [
    ...["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].map(
      (revision): [string, { body: unknown; header: string; want: LegacyRevision }] => [
        `the MCP-Protocol-Version header naming ${revision}`,
        { body: TOOLS_LIST, header: revision, want: { revision, signal: "header" } },
      ],
    ),
    [
      "the header with spaces and tabs around it",
      { body: TOOLS_LIST, header: " \t2025-06-18 ", want: { revision: "2025-06-18", signal: "header" } },
    ],
    ...[" 2025-06-18", "2025-06-18 ", "2025-06-18\t"].map((header): [string, { body: unknown; header: string; want: LegacyRevision }] => [
      `the header with a space or tab on one side only (${JSON.stringify(header)})`,
      { body: TOOLS_LIST, header, want: { revision: "2025-06-18", signal: "header" } },
    ]),
    [
      "a header that is no revision once stripped is no signal",
      { body: TOOLS_LIST, header: " 2025-01-01 ", want: { revision: "2025-03-26", signal: "default" } },
    ],
    [
      "the header beats an initialize's own protocolVersion",
      { body: initialize("2024-11-05"), header: "2025-06-18", want: { revision: "2025-06-18", signal: "header" } },
    ],
    [
      "a header naming a modern revision is no legacy signal: no signal, 2025-03-26",
      { body: TOOLS_LIST, header: "2026-07-28", want: { revision: "2025-03-26", signal: "default" } },
    ],
    [
      "a header naming a date that is no revision is no signal",
      { body: TOOLS_LIST, header: "2025-01-01", want: { revision: "2025-03-26", signal: "default" } },
    ],
    [
      "a repeated header (joined with a comma) names no revision",
      { body: TOOLS_LIST, header: "2025-06-18, 2025-06-18", want: { revision: "2025-03-26", signal: "default" } },
    ],
    ["an empty header is no signal", { body: TOOLS_LIST, header: "", want: { revision: "2025-03-26", signal: "default" } }],
    ...["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].map((revision): [string, { body: unknown; want: LegacyRevision }] => [
      `an initialize asking for ${revision}, without a header`,
      { body: initialize(revision), want: { revision, signal: "initialize" } },
    ]),
    [
      "an initialize asking for a modern revision: the newest legacy one (the server negotiates)",
      { body: initialize("2026-07-28"), want: { revision: "2025-11-25", signal: "newest" } },
    ],
    [
      "an initialize asking for the number 20251125: the newest legacy one",
      { body: initialize(20251125), want: { revision: "2025-11-25", signal: "newest" } },
    ],
    [
      "an initialize without params: the newest legacy one",
      { body: { jsonrpc: "2.0", id: 1, method: "initialize" }, want: { revision: "2025-11-25", signal: "newest" } },
    ],
    [
      "initialize without an id is a notification, no handshake: no signal",
      {
        body: { jsonrpc: "2.0", method: "initialize", params: { protocolVersion: "2024-11-05" } },
        want: { revision: "2025-03-26", signal: "default" },
      },
    ],
    ["no header and no initialize: 2025-03-26", { body: TOOLS_LIST, header: null, want: { revision: "2025-03-26", signal: "default" } }],
    ["no body at all: 2025-03-26", { body: undefined, want: { revision: "2025-03-26", signal: "default" } }],
    ["a null body: 2025-03-26", { body: null, want: { revision: "2025-03-26", signal: "default" } }],
    [
      "an initialize whose params are null: the newest legacy one",
      { body: { jsonrpc: "2.0", id: 1, method: "initialize", params: null }, want: { revision: "2025-11-25", signal: "newest" } },
    ],
  ];
  for (const [name, { body, header, want }] of cases) test(name, () => assert.deepEqual(legacyRevisionOf(body, header), want));
});

/** The summary and locations of a legacy message judged under a header, in params mode. */
function judged(body: unknown, protocolVersion?: string) {
  const result = validateMcpRequest(body, "legacy", { protocolVersion });
  if (result.outcome === "reject") {
    return {
      outcome: "reject",
      revision: result.revision,
      status: result.status,
      code: result.response.error.code,
      message: result.response.error.message,
    };
  }
  return { outcome: result.outcome, revision: result.outcome === "pass" ? result.revision : undefined };
}

describe("each revision judges by its own definition", () => {
  test("a cancellation without requestId: required until 2025-11-25, optional from then", () => {
    const body = { jsonrpc: "2.0", method: "notifications/cancelled", params: { reason: "gone" } };
    for (const revision of ["2024-11-05", "2025-03-26", "2025-06-18"]) {
      assert.deepEqual(judged(body, revision), {
        outcome: "reject",
        revision,
        status: 400,
        code: -32602,
        message: `Invalid notifications/cancelled notification (CancelledNotification, revision ${revision}): 1 invalid location; first: /params/requestId is required`,
      });
    }
    assert.deepEqual(judged(body, "2025-11-25"), { outcome: "pass", revision: "2025-11-25" });
  });

  test("a header with spaces or tabs around it picks its revision's definitions too", () => {
    const body = { jsonrpc: "2.0", method: "notifications/cancelled", params: { reason: "gone" } };
    assert.deepEqual(judged(body, " 2025-11-25\t"), { outcome: "pass", revision: "2025-11-25" });
    assert.equal(judged(body, " 2025-06-18\t").outcome, "reject");
  });

  test("an initialize naming no legacy revision is judged by the newest one (params null break the framing: -32600)", () => {
    assert.deepEqual(judged(initialize("2026-07-28")), { outcome: "pass", revision: "2025-11-25" });
    assert.deepEqual(judged({ jsonrpc: "2.0", id: 1, method: "initialize", params: null }), {
      outcome: "reject",
      revision: "2025-11-25",
      status: 400,
      code: -32600,
      message: "Invalid initialize request (InitializeRequest, revision 2025-11-25): 1 invalid location; first: /params must be object",
    });
  });

  test("a progress message of the wrong type: 2024-11-05 had no message member, later revisions type it", () => {
    const body = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1, message: 5 } };
    assert.deepEqual(judged(body, "2024-11-05"), { outcome: "pass", revision: "2024-11-05" });
    assert.equal(judged(body, "2025-03-26").outcome, "reject");
  });

  test("a tools/call task (2025-11-25's tasks) is judged only by 2025-11-25, and the answer names the revision", () => {
    const body = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "t", task: { ttl: "soon" } } };
    assert.deepEqual(judged(body, "2025-06-18"), { outcome: "pass", revision: "2025-06-18" });
    assert.deepEqual(judged(body, "2025-11-25"), {
      outcome: "reject",
      revision: "2025-11-25",
      status: 200,
      code: -32602,
      message:
        "Invalid tools/call request (CallToolRequest, revision 2025-11-25): 1 invalid location; first: /params/task/ttl must be integer",
    });
  });

  test("a method a revision does not have (tasks/get before 2025-11-25) passes on framing, as an unknown method", () => {
    const body = { jsonrpc: "2.0", id: 1, method: "tasks/get", params: {} };
    const framed = validateMcpRequest(body, "legacy", { protocolVersion: "2025-06-18" });
    assert.deepEqual(framed, { outcome: "pass", kind: "request", definition: "JSONRPCRequest" });
    assert.equal(judged(body, "2025-11-25").outcome, "reject");
  });

  test("an initialize is judged by the revision it asks for: 2025-06-18 brought clientInfo.title", () => {
    const body = {
      ...initialize("2024-11-05"),
      params: { ...initialize("2024-11-05").params, clientInfo: { name: "c", version: "1", title: 5 } },
    };
    assert.deepEqual(judged(body), { outcome: "pass", revision: "2024-11-05" });
    const asked = { ...body, params: { ...body.params, protocolVersion: "2025-06-18" } };
    assert.equal(judged(asked).outcome, "reject");
  });

  test("framing mode judges no method, whatever the revision", () => {
    const body = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: 5 } };
    for (const protocolVersion of ["2024-11-05", "2025-11-25", undefined]) {
      assert.deepEqual(validateMcpRequest(body, "legacy", { protocolVersion, rules: { params: "off" } }), {
        outcome: "pass",
        kind: "request",
        definition: "JSONRPCRequest",
      });
    }
  });

  test("in every mode: a notification's method beside an id and a request's method without one pass on framing", () => {
    for (const mode of ["params", "report", "framing"] as const) {
      const asRequest = validateMcpRequest({ ...NOTIFICATION, id: 1, params: { junk: true } }, "legacy", {
        rules: { params: PARAMS[mode] },
      });
      assert.deepEqual(asRequest, { outcome: "pass", kind: "request", definition: "JSONRPCRequest" }, mode);
      const asNotification = validateMcpRequest({ jsonrpc: "2.0", method: "tools/call", params: { name: 5 } }, "legacy", {
        rules: { params: PARAMS[mode] },
      });
      assert.deepEqual(asNotification, { outcome: "pass", kind: "notification", definition: "JSONRPCNotification" }, mode);
      assert.deepEqual(validateMcpRequest({ jsonrpc: "2.0", id: 1, result: 5 }, "legacy", { rules: { params: PARAMS[mode] } }), {
        outcome: "bypass",
        kind: "response",
        reason: "legacy-response",
      });
    }
  });

  test("report mode passes a conforming message as params mode does, with nothing reported", () => {
    assert.deepEqual(validateMcpRequest(TOOLS_LIST, "legacy", { rules: { params: "report" } }), {
      outcome: "pass",
      kind: "request",
      definition: "ListToolsRequest",
      revision: "2025-03-26",
    });
  });

  test("report mode still refuses a broken framing; only params failures are passed on", () => {
    const result = validateMcpRequest({ jsonrpc: "1.0", id: 1, method: "tools/call", params: { name: 5 } }, "legacy", {
      rules: { params: "report" },
    });
    assert.equal(result.outcome, "reject");
    assert.equal(result.status, 400);
    assert.equal(result.response.error.code, -32600);
  });

  test("the params rule judges the modern lane too: refused, reported with the same answer, or framed only", () => {
    const body = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: 5 } };
    const [enforced, reported, off] = (["enforce", "report", "off"] as const).map((params) =>
      validateMcpRequest(body, "modern", { rules: { params } }),
    );
    assert.equal(enforced!.outcome, "reject");
    if (enforced!.outcome !== "reject" || reported!.outcome !== "pass") return assert.fail("refused, then reported");
    assert.deepEqual(reported!.reported, [{ rule: "params", status: enforced!.status, response: enforced!.response }]);
    assert.deepEqual(off, { outcome: "pass", kind: "request", definition: "JSONRPCRequest" });
  });
});

describe("the revision a header names is read afresh for every message", () => {
  test("headers that alternate, or stop coming, each judge by their own revision (no verdict carries over)", () => {
    const body = { jsonrpc: "2.0", method: "notifications/cancelled", params: { reason: "gone" } };
    // 2025-11-25 made requestId optional: the verdict tells which revision judged.
    const sequence: Array<[string | undefined, string, string]> = [
      ["2025-11-25", "pass", "2025-11-25"],
      ["2025-06-18", "reject", "2025-06-18"],
      ["2025-11-25", "pass", "2025-11-25"],
      [undefined, "reject", "2025-03-26"],
      ["2025-11-25", "pass", "2025-11-25"],
      ["2025-11-25 ", "pass", "2025-11-25"],
      ["2099-01-01", "reject", "2025-03-26"],
    ];
    for (const [header, outcome, revision] of sequence) {
      const got = judged(body, header);
      assert.deepEqual([got.outcome, got.revision], [outcome, revision], `header ${JSON.stringify(header)}`);
    }
  });
});

describe("the method a legacy request names is read afresh for every message", () => {
  test("methods that alternate under one header, an unknown one among them, each get their own definition", () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_weather" } };
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    const unknown = { jsonrpc: "2.0", id: 3, method: "x/unknown" };
    // A tools/call without a name fails 2025-11-25's CallToolRequest; the same body named tools/list passes its own.
    const nameless = { jsonrpc: "2.0", id: 4, method: "tools/call", params: {} };
    const sequence: Array<[object, string, string]> = [
      [call, "pass", "CallToolRequest"],
      [call, "pass", "CallToolRequest"],
      [list, "pass", "ListToolsRequest"],
      [nameless, "reject", "CallToolRequest"],
      [unknown, "pass", "JSONRPCRequest"],
      [unknown, "pass", "JSONRPCRequest"],
      [call, "pass", "CallToolRequest"],
      [{ ...nameless, method: "tools/list" }, "pass", "ListToolsRequest"],
    ];
    for (const [body, outcome, definition] of sequence) {
      const got = validateMcpRequest(body, "legacy", { protocolVersion: "2025-11-25" });
      assert.deepEqual([got.outcome, got.outcome === "bypass" ? "" : got.definition], [outcome, definition], JSON.stringify(body));
    }
    // Another revision's tables keep their own last method: 2024-11-05's tools/call is judged by 2024-11-05.
    const older = validateMcpRequest(call, "legacy", { protocolVersion: "2024-11-05" });
    assert.deepEqual([older.outcome, older.outcome === "pass" && older.revision], ["pass", "2024-11-05"]);
  });
});
