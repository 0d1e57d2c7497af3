import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  decodeSentinel,
  HEADER_MISMATCH,
  headerProblem,
  headersAgree,
  FetchHeaders,
  JoinedHeaders,
  type RequestHeaders,
} from "../src/core/header-body.js";
import { judgeRequest, resolveFetchFace } from "../src/hosts/fetch/guard.js";
import type { HeadersLike } from "../src/core/era.js";
import { UNSUPPORTED_PROTOCOL_VERSION } from "../src/core/protocol-versions.js";
import { validateMcpRequest } from "../src/core/validate.js";
import { MODERN_META, modernToolsCall } from "./support/messages.js";

const CALL = modernToolsCall();
const RESOURCE = {
  jsonrpc: "2.0",
  id: 8,
  method: "resources/read",
  params: { _meta: MODERN_META, uri: "file:///notes.txt" },
};
const LIST = { jsonrpc: "2.0", id: 9, method: "tools/list", params: { _meta: MODERN_META } };
const base64 = (text: string) => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;
const good = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_weather" };

type Case = [string, { body: unknown; headers: HeadersLike; want: "pass" | { header: string } }];

const CASES: Case[] = [
  ["headers that match the body pass", { body: CALL, headers: good, want: "pass" }],
  [
    "header names match in any case",
    { body: CALL, headers: { "MCP-PROTOCOL-VERSION": "2026-07-28", "Mcp-Method": "tools/call", "mcp-NAME": "get_weather" }, want: "pass" },
  ],
  [
    "values are case-sensitive: TOOLS/CALL is not tools/call",
    { body: CALL, headers: { ...good, "mcp-method": "TOOLS/CALL" }, want: { header: "Mcp-Method" } },
  ],
  ["spaces and tabs around a value are not part of it", { body: CALL, headers: { ...good, "mcp-name": " \tget_weather  " }, want: "pass" }],
  [
    "a missing MCP-Protocol-Version is refused",
    { body: CALL, headers: { "mcp-method": "tools/call", "mcp-name": "get_weather" }, want: { header: "MCP-Protocol-Version" } },
  ],
  [
    "an MCP-Protocol-Version other than the _meta claim is refused",
    { body: CALL, headers: { ...good, "mcp-protocol-version": "2025-11-25" }, want: { header: "MCP-Protocol-Version" } },
  ],
  [
    "a missing Mcp-Method is refused",
    { body: CALL, headers: { "mcp-protocol-version": "2026-07-28", "mcp-name": "get_weather" }, want: { header: "Mcp-Method" } },
  ],
  [
    "an Mcp-Method naming another method is refused",
    { body: CALL, headers: { ...good, "mcp-method": "tools/list" }, want: { header: "Mcp-Method" } },
  ],
  [
    "a missing Mcp-Name on tools/call is refused",
    { body: CALL, headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" }, want: { header: "Mcp-Name" } },
  ],
  ["an Mcp-Name naming another tool is refused", { body: CALL, headers: { ...good, "mcp-name": "other" }, want: { header: "Mcp-Name" } }],
  [
    "tools/list needs no Mcp-Name, and one it carries is not judged",
    { body: LIST, headers: { ...good, "mcp-method": "tools/list", "mcp-name": "x" }, want: "pass" },
  ],
  [
    "resources/read mirrors params.uri, and an Mcp-Name in the Base64 sentinel is decoded first",
    { body: RESOURCE, headers: { ...good, "mcp-method": "resources/read", "mcp-name": base64("file:///notes.txt") }, want: "pass" },
  ],
  [
    "resources/read with an Mcp-Name naming another URI is refused",
    { body: RESOURCE, headers: { ...good, "mcp-method": "resources/read", "mcp-name": "file:///other.txt" }, want: { header: "Mcp-Name" } },
  ],
  [
    "a sentinel with a bad alphabet is refused",
    { body: CALL, headers: { ...good, "mcp-name": "=?base64?Z2V0X3dlYXRoZXI*?=" }, want: { header: "Mcp-Name" } },
  ],
  [
    "a sentinel with bad padding is refused",
    { body: CALL, headers: { ...good, "mcp-name": "=?base64?Z2V0X3dlYXRoZXI?=" }, want: { header: "Mcp-Name" } },
  ],
  ["a sentinel decoding to the body's value passes", { body: CALL, headers: { ...good, "mcp-name": base64("get_weather") }, want: "pass" }],
  [
    "an upper-case sentinel is a literal value, not Base64",
    {
      body: CALL,
      headers: { ...good, "mcp-name": `=?BASE64?${Buffer.from("get_weather").toString("base64")}?=` },
      want: { header: "Mcp-Name" },
    },
  ],
  ["a raw non-ASCII value is malformed", { body: CALL, headers: { ...good, "mcp-name": "get_wéather" }, want: { header: "Mcp-Name" } }],
  [
    "a header repeated with the same value passes (Node's headersDistinct)",
    { body: CALL, headers: { ...good, "mcp-name": ["get_weather", "get_weather"] }, want: "pass" },
  ],
  [
    "a header repeated with different values is refused",
    { body: CALL, headers: { ...good, "mcp-method": ["tools/call", "tools/list"] }, want: { header: "Mcp-Method" } },
  ],
  [
    "the same name in two cases is one header repeated",
    { body: CALL, headers: { ...good, "Mcp-Method": "tools/list" }, want: { header: "Mcp-Method" } },
  ],
  [
    "a Fetch Headers' joined repeat of one value passes",
    { body: CALL, headers: new Headers([...Object.entries(good), ["mcp-name", "get_weather"]]), want: "pass" },
  ],
  [
    "a Fetch Headers' joined repeat of two values is refused",
    { body: CALL, headers: new Headers([...Object.entries(good), ["mcp-name", "other"]]), want: { header: "Mcp-Name" } },
  ],
  [
    "a Fetch Headers' joined repeat of one sentinel passes, as the same repeat does on a Node face",
    {
      body: CALL,
      headers: new Headers([
        ...Object.entries(good).filter(([name]) => name !== "mcp-name"),
        ["mcp-name", "=?base64?Z2V0X3dlYXRoZXI=?="],
        ["mcp-name", "=?base64?Z2V0X3dlYXRoZXI=?="],
      ]),
      want: "pass",
    },
  ],
  [
    "a Fetch Headers' joined repeat of a sentinel and a bad one is refused",
    {
      body: CALL,
      headers: new Headers([
        ...Object.entries(good).filter(([name]) => name !== "mcp-name"),
        ["mcp-name", "=?base64?Z2V0X3dlYXRoZXI=?="],
        ["mcp-name", "=?base64?Z2V0X3dlYXRoZXI!?="],
      ]),
      want: { header: "Mcp-Name" },
    },
  ],
];

describe("the modern lane's header rules (validateMcpRequest with headers)", () => {
  for (const [name, { body, headers, want }] of CASES) {
    test(name, () => {
      const result = validateMcpRequest(body, "modern", { headers });
      if (want === "pass") return assert.equal(result.outcome, "pass", JSON.stringify(result));
      assert.equal(result.outcome, "reject");
      if (result.outcome !== "reject") return;
      assert.equal(result.status, 400);
      assert.equal(result.response.error.code, HEADER_MISMATCH);
      assert.equal(result.response.id, (body as { id: number }).id);
      assert.match(result.response.error.message, new RegExp(`^Header mismatch: the ${want.header} header `));
      assert.doesNotMatch(result.response.error.message, /\n/);
    });
  }

  test("no value of a header or of the body is in the answer, only the header's name and the body's field", () => {
    const secret = "s3cr3t\u001b[2J";
    const body = modernToolsCall({ params: { _meta: MODERN_META, name: secret, arguments: {} } });
    const result = validateMcpRequest(body, "modern", { headers: { ...good, "mcp-name": "leak-me" } });
    assert.equal(result.outcome, "reject");
    const text = JSON.stringify(result);
    assert.ok(!text.includes("leak-me") && !text.includes("s3cr3t"), text);
  });

  test("without headers (a stdio message, the pure check) nothing about headers is judged", () => {
    assert.equal(validateMcpRequest(CALL, "modern").outcome, "pass");
  });

  test("the headers rule off hands on a request whose headers disagree", () => {
    assert.equal(validateMcpRequest(CALL, "modern", { headers: {}, rules: { headers: "off" } }).outcome, "pass");
  });

  test("a body that fails its definition is answered by the validator, not the header rules", () => {
    const bad = modernToolsCall({ params: { _meta: MODERN_META, name: 5, arguments: {} } });
    const result = validateMcpRequest(bad, "modern", { headers: {} });
    assert.equal(result.outcome === "reject" && result.response.error.code, -32602);
  });

  test("a modern notification is not held to the header rules (202 whatever they say)", () => {
    const note = { jsonrpc: "2.0", method: "notifications/cancelled", params: { _meta: MODERN_META } };
    assert.equal(validateMcpRequest(note, "modern", { headers: { "mcp-method": "tools/call" } }).outcome, "bypass");
  });

  test("the legacy lane ignores the header rules", () => {
    const legacy = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: {} } };
    assert.equal(validateMcpRequest(legacy, "legacy", { headers: {} }).outcome, "pass");
  });
});

describe("decodeSentinel: strict Base64 of strict UTF-8", () => {
  const table: Array<[string, string | undefined]> = [
    ["plain", "plain"],
    [base64("Hello, 世界"), "Hello, 世界"],
    [base64(" padded "), " padded "],
    [base64("=?base64?literal?="), "=?base64?literal?="],
    ["=?base64??=", ""],
    ["=?base64?SGVsbG8?=", undefined],
    ["=?base64?SGVsbG9=?=", undefined],
    ["=?base64?SGVsbG8-?=", undefined],
    ["=?base64?/w==?=", undefined],
    ["=?base64?SGVsbG8=?=", "Hello"],
    ["=?base64?SGVsbA==?=", "Hell"],
    ["=?base64?SGVsbB==?=", undefined],
    ["=?base64?SGVs=bG8?=", undefined],
    ["=?base64?SGVsbG8==?=", undefined],
    ["=?base64?====?=", undefined],
    ["=?base64?SGVs bG8=?=", undefined],
    ["=?base64?SGVsbG8 ?=", undefined],
    ["=?base64?SGVsbA= ?=", undefined],
    ["=?base64?A===?=", undefined],
    ["=?base64?SGV\u00e9bG8=?=", undefined],
    [`=?base64?${"QUFB".repeat(4096)}QUF!?=`, undefined],
    ["=?BASE64?SGVsbG8=?=", "=?BASE64?SGVsbG8=?="],
  ];
  for (const [given, want] of table) {
    test(`${JSON.stringify(given)} reads ${want === undefined ? "as a failure" : JSON.stringify(want)}`, () => {
      assert.equal(decodeSentinel(given), want);
    });
  }
});

describe("protocol versions the face does not know", () => {
  const claiming = (version: string) =>
    modernToolsCall({ params: { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": version }, name: 5 } });

  test("unset allow.versions: a newer version is judged on its framing alone and passes, carrying the -32022 it would have had", () => {
    const result = validateMcpRequest(claiming("2027-01-01"), "modern");
    assert.equal(result.outcome, "pass");
    if (result.outcome !== "pass") return;
    assert.equal(result.definition, "JSONRPCRequest");
    assert.equal(result.reported?.[0]?.rule, "versions");
    assert.equal(result.reported?.[0]?.response.error.code, UNSUPPORTED_PROTOCOL_VERSION);
    assert.deepEqual(result.reported?.[0]?.response.error.data?.supported, ["2026-07-28"]);
    assert.equal(result.reported?.[0]?.response.error.data?.requested, "2027-01-01");
  });

  test("the known version is still judged by its definitions", () => {
    const result = validateMcpRequest(claiming("2026-07-28"), "modern");
    assert.equal(result.outcome === "reject" && result.response.error.code, -32602);
  });

  test("allow.versions given: another version is answered 400/-32022 with supported and requested", () => {
    const result = validateMcpRequest(claiming("2027-01-01"), "modern", { versions: ["2026-07-28"] });
    assert.equal(result.outcome, "reject");
    if (result.outcome !== "reject") return;
    assert.equal(result.status, 400);
    assert.equal(result.response.id, 7);
    assert.equal(result.response.error.code, UNSUPPORTED_PROTOCOL_VERSION);
    assert.deepEqual(result.response.error.data?.supported, ["2026-07-28"]);
    assert.equal(result.response.error.data?.requested, "2027-01-01");
  });

  test("a requested version is echoed escaped and cut, so it cannot forge a log line", () => {
    const result = validateMcpRequest(claiming(`2027\n${"x".repeat(200)}`), "modern", { versions: ["2026-07-28"] });
    const requested = result.outcome === "reject" ? result.response.error.data?.requested : undefined;
    assert.ok(requested !== undefined && !requested.includes("\n") && requested.length <= 33, requested);
  });

  test("headers that disagree with the body win over its version: -32020, not -32022", () => {
    const result = validateMcpRequest(claiming("2027-01-01"), "modern", { versions: ["2026-07-28"], headers: good });
    assert.equal(result.outcome === "reject" && result.response.error.code, HEADER_MISMATCH);
  });
});

describe("the fast path (headersAgree) agrees with the rules in full (headerProblem)", () => {
  const RESOURCE_HEADERS = { "mcp-protocol-version": "2026-07-28", "mcp-method": "resources/read", "mcp-name": "file:///notes.txt" };
  const LIST_HEADERS = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" };
  const reader =
    (record: Record<string, string | string[]>) =>
    (name: string): string | readonly string[] | undefined =>
      record[name];
  const lent = Object.assign(Object.create({ "mcp-name": "get_weather" }) as Record<string, string>, {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
  });
  const SENTINEL_CALL = { ...CALL, params: { ...CALL.params, name: base64("get_weather") } };
  const COMMA_CALL = { ...CALL, params: { ...CALL.params, name: "a, b" } };
  const COMMA_CLAIM = "2026-07-28, 2026-07-28";
  const COMMA_CLAIM_CALL = {
    ...CALL,
    params: { ...CALL.params, _meta: { ...CALL.params._meta, "io.modelcontextprotocol/protocolVersion": COMMA_CLAIM } },
  };
  /** Headers as Node's `http` keeps them: each sent as `[name, ...values]`, names lower-cased, repeats joined with ", ". */
  const joined = (...sent: Array<[string, ...string[]]>) => {
    const headers: Record<string, string> = {};
    const headersDistinct: Record<string, string[]> = {};
    for (const [name, ...values] of sent) {
      headers[name] = values.join(", ");
      headersDistinct[name] = values;
    }
    return new JoinedHeaders({ headers, headersDistinct });
  };
  const nodeGood: Array<[string, ...string[]]> = Object.entries(good).map(([name, value]) => [name, value]);
  /** A Fetch face's form: the `Headers`, and the version read from it once. */
  const fetchRead = (init: ConstructorParameters<typeof Headers>[0]) => {
    const headers = new Headers(init);
    return new FetchHeaders(headers, headers.get("mcp-protocol-version"));
  };
  const goodBut = (name: string) => Object.entries(good).filter(([key]) => key !== name);
  // Each: the body, the headers, and whether the fast path must see them agree at a glance.
  const cases: Array<[string, unknown, RequestHeaders, boolean]> = [
    ["a plain object with lower-case keys", CALL, { host: "x", ...good, "user-agent": "node", connection: "keep-alive" }, true],
    ["a Node face's reader", CALL, reader(good), true],
    ["a Fetch Headers", CALL, new Headers(good), true],
    ["Node's headers (the Node faces' form)", CALL, joined(...nodeGood, ["host", "x"], ["user-agent", "node"]), true],
    ["a Fetch face's headers (the version read once)", CALL, fetchRead({ host: "x", ...good, "user-agent": "node" }), true],
    ["a Fetch face's headers, a resources/read's uri", RESOURCE, fetchRead(RESOURCE_HEADERS), true],
    [
      "a Fetch face's headers, a repeated Mcp-Name of one value",
      CALL,
      fetchRead([...Object.entries(good), ["mcp-name", "get_weather"]]),
      false,
    ],
    ["a Fetch face's headers, a repeated Mcp-Name of two values", CALL, fetchRead([...Object.entries(good), ["mcp-name", "other"]]), false],
    [
      "a Fetch face's headers, a repeated MCP-Protocol-Version of one value",
      CALL,
      fetchRead([...Object.entries(good), ["mcp-protocol-version", "2026-07-28"]]),
      false,
    ],
    ["a Fetch face's headers, no MCP-Protocol-Version", CALL, fetchRead(goodBut("mcp-protocol-version")), false],
    ["a Fetch face's headers, no Mcp-Name", CALL, fetchRead(goodBut("mcp-name")), false],
    ["a Fetch face's headers, another version", CALL, fetchRead({ ...good, "mcp-protocol-version": "2025-11-25" }), false],
    ["a Fetch face's headers, a sentinel for the name", CALL, fetchRead({ ...good, "mcp-name": base64("get_weather") }), false],
    ["Node's headers, a repeat of one value", CALL, joined(...nodeGood.slice(0, 2), ["mcp-name", "get_weather", "get_weather"]), false],
    ["Node's headers, a repeat of two values", CALL, joined(...nodeGood.slice(0, 2), ["mcp-name", "get_weather", "other"]), false],
    ["Node's headers, a body name with a comma, sent once", COMMA_CALL, joined(...nodeGood.slice(0, 2), ["mcp-name", "a, b"]), false],
    // Joined, "a" and "b" read "a, b": the body's very string, and still two values.
    ["Node's headers, two values that join to the body's name", COMMA_CALL, joined(...nodeGood.slice(0, 2), ["mcp-name", "a", "b"]), false],
    [
      "Node's headers, a version claim with a comma, sent once",
      COMMA_CLAIM_CALL,
      joined(["mcp-protocol-version", COMMA_CLAIM], ...nodeGood.slice(1)),
      false,
    ],
    // Joined, the version sent twice reads as the body's claim: still two values, neither of them the claim.
    [
      "Node's headers, two versions that join to the body's claim",
      COMMA_CLAIM_CALL,
      joined(["mcp-protocol-version", "2026-07-28", "2026-07-28"], ...nodeGood.slice(1)),
      false,
    ],
    ["Node's headers, one missing", CALL, joined(...nodeGood.slice(0, 2)), false],
    ["Node's headers, a value that disagrees", CALL, joined(...nodeGood.slice(0, 2), ["mcp-name", "other"]), false],
    ["a resources/read's uri", RESOURCE, RESOURCE_HEADERS, true],
    ["a method that mirrors no name", LIST, LIST_HEADERS, true],
    ["a method that mirrors no name, a stray Mcp-Name", LIST, { ...LIST_HEADERS, "mcp-name": "anything" }, true],
    ["mixed-case keys", CALL, { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "MCP-NAME": "get_weather" }, false],
    ["a lower-case key repeated in another case, same value", CALL, { ...good, "Mcp-Method": "tools/call" }, false],
    ["a lower-case key repeated in another case, other value", CALL, { ...good, "MCP-METHOD": "tools/list" }, false],
    ["an array value", CALL, { ...good, "mcp-method": ["tools/call", "tools/call"] }, false],
    ["an array value that disagrees", CALL, { ...good, "mcp-name": ["get_weather", "other"] }, false],
    ["a reader's repeated values", CALL, reader({ ...good, "mcp-name": ["get_weather", "get_weather"] }), false],
    ["whitespace around a value", CALL, { ...good, "mcp-name": " get_weather\t" }, false],
    // A Fetch Headers drops the whitespace itself: what it hands on is the body's value.
    ["a Fetch Headers with whitespace around a value", CALL, new Headers({ ...good, "mcp-method": "tools/call " }), true],
    ["a Fetch Headers with a repeated header", CALL, new Headers([...Object.entries(good), ["mcp-name", "get_weather"]]), false],
    ["a sentinel for the name", CALL, { ...good, "mcp-name": base64("get_weather") }, false],
    ["a body name that reads as a sentinel", SENTINEL_CALL, { ...good, "mcp-name": base64("get_weather") }, false],
    ["a name a prototype lends", CALL, lent, false],
    ["a record with no prototype", CALL, Object.assign(Object.create(null) as Record<string, string>, { host: "x", ...good }), true],
    [
      "a record with no prototype, a key repeated in another case",
      CALL,
      Object.assign(Object.create(null) as Record<string, string>, { ...good, "Mcp-Name": "other" }),
      false,
    ],
    [
      "a class's instance holding the headers as its own members",
      CALL,
      new (class Held {
        "mcp-protocol-version" = "2026-07-28";
        "mcp-method" = "tools/call";
        "mcp-name" = "get_weather";
      })(),
      true,
    ],
    ["an object literal carrying the Node form's mark is a record", CALL, { [Symbol.for("wymcp.JoinedHeaders")]: true, ...good }, true],
    ["a record whose own get and has make it a reader", CALL, { ...good, get: () => "other", has: () => true } as never, false],
    ["a key of one of the three lengths, not one of the names", CALL, { ...good, "mcp-other": "x", "x-mcp-name": "y" }, true],
    ["a value that disagrees", CALL, { ...good, "mcp-name": "other" }, false],
    ["a missing header", CALL, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" }, false],
    ["no _meta claim", { ...CALL, params: { name: "get_weather" } }, good, false],
  ];
  for (const [name, body, headers, fast] of cases) {
    test(`${name}: ${fast ? "agrees at a glance" : "left to the rules in full"}, and the verdict is the rules'`, () => {
      const agrees = headersAgree(body as Record<string, unknown>, headers);
      // Validation names its own revision as a claim with no comma: that skips a search, never changes the answer.
      assert.equal(headersAgree(body as Record<string, unknown>, headers, "2026-07-28"), agrees);
      const problem = headerProblem(body as Record<string, unknown>, headers);
      assert.equal(agrees, fast);
      if (agrees) assert.equal(problem, undefined);
      const verdict = validateMcpRequest(body, "modern", { headers });
      // The header rules judge a request that passed; one that did not keeps its own verdict.
      const alone = validateMcpRequest(body, "modern").outcome;
      const expected = alone !== "pass" ? alone : problem ? "reject" : "pass";
      assert.equal(verdict.outcome, expected);
      if (alone === "pass" && problem && verdict.outcome === "reject") assert.equal(verdict.response.error.code, HEADER_MISMATCH);
    });
  }
});

describe("Node's headers made by another copy of the module (a bundle may carry it twice)", () => {
  const sent = {
    headers: { ...good },
    headersDistinct: { "mcp-protocol-version": ["2026-07-28"], "mcp-method": ["tools/call"], "mcp-name": ["get_weather"] },
  };
  test("agree at a glance and pass, and a disagreeing Mcp-Name is still refused", async () => {
    // A second instance of the module: its own JoinedHeaders class, as a second bundle chunk would have.
    const copy = "../src/core/header-body.js?copy";
    const other = (await import(copy)) as typeof import("../src/core/header-body.js");
    assert.notEqual(other.JoinedHeaders, JoinedHeaders);
    const headers = new other.JoinedHeaders(sent);
    assert.equal(headersAgree(CALL, headers), true);
    assert.equal(validateMcpRequest(CALL, "modern", { headers }).outcome, "pass");
    const wrong = new other.JoinedHeaders({ ...sent, headers: { ...good, "mcp-name": "other" } });
    const result = validateMcpRequest(CALL, "modern", { headers: wrong });
    assert.equal(result.outcome === "reject" && result.response.error.code, HEADER_MISMATCH);
    assert.match(result.outcome === "reject" ? result.response.error.message : "", /the Mcp-Name header does not match/);
  });
});

describe("a Fetch face's headers made by another copy of the module", () => {
  test("agree at a glance and pass, and a disagreeing Mcp-Name is still refused", async () => {
    const copy = "../src/core/header-body.js?fetch-copy";
    const other = (await import(copy)) as typeof import("../src/core/header-body.js");
    assert.notEqual(other.FetchHeaders, FetchHeaders);
    const sent = new Headers(good);
    const headers = new other.FetchHeaders(sent, sent.get("mcp-protocol-version"));
    assert.equal(headersAgree(CALL, headers), true);
    assert.equal(validateMcpRequest(CALL, "modern", { headers }).outcome, "pass");
    const wrongSent = new Headers({ ...good, "mcp-name": "other" });
    const wrong = new other.FetchHeaders(wrongSent, wrongSent.get("mcp-protocol-version"));
    assert.equal(headersAgree(CALL, wrong), false);
    const result = validateMcpRequest(CALL, "modern", { headers: wrong });
    assert.equal(result.outcome === "reject" && result.response.error.code, HEADER_MISMATCH);
  });
});

describe("the forms told apart the same way after records of many shapes", () => {
  test("each form's answer is what it was before a hundred records of other shapes went through the rules", () => {
    const forms: Array<[string, RequestHeaders]> = [
      ["Node's headers", new JoinedHeaders({ headers: { host: "x", ...good }, headersDistinct: {} })],
      ["a Fetch face's headers", new FetchHeaders(new Headers(good), "2026-07-28")],
      ["a plain record", { host: "x", ...good }],
      ["a plain record repeating a name in another case", { ...good, "MCP-NAME": "other" }],
    ];
    const before = forms.map(([, headers]) => [headersAgree(CALL, headers), validateMcpRequest(CALL, "modern", { headers }).outcome]);
    for (let k = 0; k < 100; k++) {
      const record: Record<string, string> = {};
      for (let j = 0; j < k % 13; j++) record[`x-h${(k * 7 + j) % 31}`] = "v";
      Object.assign(record, k % 2 === 0 ? good : { ...good, "mcp-name": "other" });
      assert.equal(headersAgree(CALL, record), k % 2 === 0);
    }
    const after = forms.map(([, headers]) => [headersAgree(CALL, headers), validateMcpRequest(CALL, "modern", { headers }).outcome]);
    assert.deepEqual(after, before);
    assert.deepEqual(before, [
      [true, "pass"],
      [true, "pass"],
      [true, "pass"],
      [false, "reject"],
    ]);
  });
});

describe("a Fetch face hands the rules the MCP-Protocol-Version it read (FetchHeaders)", () => {
  /** The case's headers as a Fetch `Headers` holds them: each value appended, a repeat joined, the whitespace dropped. */
  const asHeaders = (headers: HeadersLike): Headers => {
    if (headers instanceof Headers) return headers;
    const made = new Headers();
    for (const [name, value] of Object.entries(headers as Record<string, string | string[]>))
      for (const one of Array.isArray(value) ? value : [value]) made.append(name, one);
    return made;
  };
  for (const [name, { body, headers }] of CASES) {
    test(`${name}: the same verdict from a Fetch face's headers as from the Headers itself`, () => {
      const raw = asHeaders(headers);
      const read = new FetchHeaders(raw, raw.get("mcp-protocol-version"));
      assert.deepEqual(validateMcpRequest(body, "modern", { headers: read }), validateMcpRequest(body, "modern", { headers: raw }));
    });
  }

  /** A POST of `body` whose `Headers` counts its `get`s by name. */
  const counted = (body: unknown, headers: Record<string, string>) => {
    const request = new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
    const reads: Record<string, number> = {};
    const get = request.headers.get;
    Object.defineProperty(request.headers, "get", {
      value: function countedGet(this: Headers, name: string) {
        reads[name] = (reads[name] ?? 0) + 1;
        return get.call(this, name);
      },
    });
    return { request, reads };
  };

  test("with the rules on, the face reads MCP-Protocol-Version no more often than with them off, and Mcp-Method and Mcp-Name once", async () => {
    const on = counted(CALL, good);
    const off = counted(CALL, good);
    assert.equal((await judgeRequest(on.request, resolveFetchFace({}), "own")).action, "hand-on");
    assert.equal((await judgeRequest(off.request, resolveFetchFace({ rules: { headers: "off" } }), "own")).action, "hand-on");
    assert.ok((off.reads["mcp-protocol-version"] ?? 0) > 0, "the face reads the version for the era");
    assert.equal(on.reads["mcp-protocol-version"], off.reads["mcp-protocol-version"]);
    assert.equal(on.reads["mcp-method"], 1);
    assert.equal(on.reads["mcp-name"], 1);
    assert.equal(off.reads["mcp-method"], undefined);
    assert.equal(off.reads["mcp-name"], undefined);
  });

  test("the face reads Content-Length once, for the size check and for reading the body whole alike", async () => {
    const { request, reads } = counted(CALL, { ...good, "content-length": String(Buffer.byteLength(JSON.stringify(CALL))) });
    assert.notEqual(request.headers.get("content-length"), null);
    reads["content-length"] = 0;
    const judged = await judgeRequest(request, resolveFetchFace({ limits: { maxBodyBytes: 4096 } }), "own");
    assert.equal(judged.action, "hand-on");
    assert.equal(reads["content-length"], 1);
  });

  const refused = async (headers: Record<string, string>, header: string) => {
    const judged = await judgeRequest(counted(CALL, headers).request, resolveFetchFace({}), "own");
    assert.equal(judged.action, "refuse");
    if (judged.action !== "refuse") return;
    assert.equal(judged.refusal.response.error.code, HEADER_MISMATCH);
    assert.match(judged.refusal.response.error.message, new RegExp(`the ${header} header`));
  };

  test("the face still refuses an MCP-Protocol-Version other than the body's, and a missing one", async () => {
    await refused({ ...good, "mcp-protocol-version": "2025-11-25" }, "MCP-Protocol-Version");
    await refused(Object.fromEntries(Object.entries(good).filter(([name]) => name !== "mcp-protocol-version")), "MCP-Protocol-Version");
  });

  test("the face still refuses an Mcp-Method or an Mcp-Name other than the body's", async () => {
    await refused({ ...good, "mcp-method": "tools/list" }, "Mcp-Method");
    await refused({ ...good, "mcp-name": "other" }, "Mcp-Name");
  });
});
