/** classifyEra on the edges of its signals: header shapes, claims with spaces, bodies that are not objects; the SDK's router decides. */
import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { isLegacyRequest } from "@modelcontextprotocol/server";
import { classifyEra } from "wymcp";

const header = (value: string) => ({ "mcp-protocol-version": value });
const PING = { jsonrpc: "2.0", id: 1, method: "ping" };

/** The lane the official SDK's router gives the same POST; an array's values go in as header lines of their own, as the SDK's Node bridge appends them. */
async function sdkLane(record: Record<string, string | string[]>, body: unknown): Promise<"legacy" | "modern"> {
  const headers = new Headers({ "content-type": "application/json" });
  for (const [name, value] of Object.entries(record)) for (const item of [value].flat()) headers.append(name, item);
  const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers, body: JSON.stringify(body) });
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
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": " 2026-07-28 " } },
    };
    assert.equal(classifyEra(undefined, body).era, "legacy");
    assert.equal(await sdkLane({}, body), "legacy");
  });

  test("bodies that are not JSON-RPC objects read modern under a modern header, and do not throw", async () => {
    for (const body of [null, "initialize", 5, { method: "x", id: 1, params: null }, { method: "x", id: 1, params: { _meta: null } }]) {
      assert.equal(classifyEra(header("2026-07-28"), body).era, "modern", JSON.stringify(body));
      assert.equal(await sdkLane(header("2026-07-28"), body), "modern", JSON.stringify(body));
    }
  });

  test("a header value loses leading and trailing HTTP whitespace (CR and LF too) as a Fetch Headers stores it, strings and arrays alike", async () => {
    const values: Array<string | string[]> = [
      "\n2026-07-28",
      "\r2026-07-28",
      "\t\r\n 2026-07-28\r\n\t ",
      ["\n2026-07-28"],
      ["\r2026-07-28", "2025-06-18"],
    ];
    for (const value of values) {
      assert.equal(classifyEra({ "mcp-protocol-version": value }, PING).era, "modern", JSON.stringify(value));
      assert.equal(await sdkLane({ "mcp-protocol-version": value }, PING), "modern", JSON.stringify(value));
    }
  });

  test("a legacy revision with whitespace on either side is still reported as the header's revision, not as no signal", async () => {
    for (const value of ["2025-06-18 ", "2025-06-18\n", " \t2025-06-18", "\r\n2025-06-18\r\n", ["2025-06-18\t"]]) {
      assert.deepEqual(
        classifyEra({ "mcp-protocol-version": value }, PING),
        { era: "legacy", signal: "header-protocol-version" },
        JSON.stringify(value),
      );
      assert.equal(await sdkLane({ "mcp-protocol-version": value }, PING), "legacy", JSON.stringify(value));
    }
    // A value that is no revision after trimming is no signal of its own.
    assert.deepEqual(classifyEra(header("2025-06-18x"), PING), { era: "legacy", signal: "default" });
  });

  test("a header key holding undefined counts as absent, as Node leaves an unset header", () => {
    assert.deepEqual(classifyEra({ "mcp-protocol-version": undefined }, PING), { era: "legacy", signal: "default" });
    assert.deepEqual(classifyEra({ "MCP-Protocol-Version": "2025-06-18", "mcp-protocol-version": undefined }, PING), {
      era: "legacy",
      signal: "header-protocol-version",
    });
  });

  test("only a header object's own keys are read, as the SDK's Node bridge reads them (Object.entries)", () => {
    const inherited = Object.create({ "mcp-protocol-version": "2026-07-28" }) as Record<string, string>;
    assert.deepEqual(classifyEra(inherited, PING), { era: "legacy", signal: "default" });
    inherited["x-other"] = "1";
    assert.deepEqual(classifyEra(inherited, PING), { era: "legacy", signal: "default" });
  });

  test("a Fetch Headers carrying Mcp-Session-Id reports the session as the signal", () => {
    assert.deepEqual(classifyEra(new Headers({ "Mcp-Session-Id": "s" }), PING), { era: "legacy", signal: "header-session-id" });
    assert.deepEqual(classifyEra(new Headers(), PING), { era: "legacy", signal: "default" });
  });

  test("headers may be a Fetch Headers, a Node header object (arrays joined as the SDK's Node bridge joins them) or any-case plain object", () => {
    assert.equal(classifyEra(new Headers({ "MCP-Protocol-Version": "2026-07-28" }), PING).era, "modern");
    assert.equal(classifyEra({ "mcp-protocol-version": ["2026-07-28", "2025-06-18"] }, PING).era, "modern");
    assert.equal(classifyEra({ "Mcp-Protocol-Version": "2026-07-28" }, PING).era, "modern");
    assert.deepEqual(classifyEra({ "MCP-SESSION-ID": "s" }, PING), { era: "legacy", signal: "header-session-id" });
  });
});

const CLAIM = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

/** An initialize whose `_meta` claims 2026-07-28 with the given capabilities and other envelope members. */
function initialize(capabilities: unknown, members: Record<string, unknown> = {}) {
  const meta = { [CLAIM]: "2026-07-28", ...(capabilities !== undefined && { [CAPABILITIES]: capabilities }), ...members };
  return {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" }, _meta: meta },
  };
}
const withInfo = (info: unknown) => initialize({}, { [CLIENT_INFO]: info });
const withIcons = (icons: unknown) => withInfo({ name: "c", version: "1", icons });

// A whole, well-typed envelope takes an initialize to the modern lane; any member the SDK's schema refuses leaves it legacy.
const WHOLE_ENVELOPES: Array<[string, unknown]> = [
  ["capabilities only", initialize({})],
  ["client info with its optional strings", withInfo({ name: "c", version: "1", title: "t", websiteUrl: "https://x", description: "d" })],
  [
    "icons with every optional member",
    withIcons([
      { src: "a.png" },
      { src: "b.png", mimeType: "image/png", sizes: ["16x16", "any"], theme: "light" },
      { src: "c.svg", theme: "dark" },
    ]),
  ],
  ...["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"].map((level): [string, unknown] => [
    `log level ${level}`,
    initialize({}, { [LOG_LEVEL]: level }),
  ]),
  [
    "experimental JSON of every kind",
    initialize({ experimental: { x: { flag: true, off: false, n: 1.5, s: "s", z: null, list: [1, "a", true, null, { deep: [false] }] } } }),
  ],
  ["extensions", initialize({ extensions: { "a/b": {}, "c/d": { e: [1] } } })],
  ["sampling with context and tools", initialize({ sampling: { context: {}, tools: { x: 1 } } })],
  ["roots, with and without listChanged", initialize({ roots: {} })],
  ["roots listChanged false", initialize({ roots: { listChanged: false } })],
  ["elicitation, empty", initialize({ elicitation: {} })],
  ["elicitation form with applyDefaults, and url", initialize({ elicitation: { form: { applyDefaults: true }, url: {} } })],
  ["unknown capabilities, tasks included", initialize({ tasks: 5, other: "x" })],
];
const BROKEN_ENVELOPES: Array<[string, unknown]> = [
  ["no capabilities", initialize(undefined)],
  ["capabilities null", initialize(null)],
  ["capabilities an array", initialize([])],
  ["a claim in an array", { ...initialize({}), params: { _meta: { [CLAIM]: ["2026-07-28"], [CAPABILITIES]: {} } } }],
  ["a claim that is a number", { ...initialize({}), params: { _meta: { [CLAIM]: 20260728, [CAPABILITIES]: {} } } }],
  ["a legacy claim", { ...initialize({}), params: { _meta: { [CLAIM]: "2025-11-25", [CAPABILITIES]: {} } } }],
  ["client info not an object", withInfo(5)],
  ["client info without version", withInfo({ name: "c" })],
  ["client info with a numeric name", withInfo({ name: 1, version: "1" })],
  ["client info title not a string", withInfo({ name: "c", version: "1", title: 1 })],
  ["client info websiteUrl not a string", withInfo({ name: "c", version: "1", websiteUrl: 1 })],
  ["client info description not a string", withInfo({ name: "c", version: "1", description: 1 })],
  ["icons not an array", withIcons("a.png")],
  ["an icon that is no object", withIcons([5])],
  ["an icon without src", withIcons([{}])],
  ["an icon with a numeric src", withIcons([{ src: 1 }])],
  ["one bad icon after a good one", withIcons([{ src: "a.png" }, { src: 1 }])],
  ["an icon mimeType not a string", withIcons([{ src: "a", mimeType: 1 }])],
  ["icon sizes not an array", withIcons([{ src: "a", sizes: "16x16" }])],
  ["an icon size not a string", withIcons([{ src: "a", sizes: ["16x16", 16] }])],
  ["an unknown icon theme", withIcons([{ src: "a", theme: "dim" }])],
  ["an unknown log level", initialize({}, { [LOG_LEVEL]: "verbose" })],
  ["experimental not an object", initialize({ experimental: 5 })],
  ["experimental an array", initialize({ experimental: [] })],
  ["an experimental member not an object", initialize({ experimental: { x: 1 } })],
  ["extensions not an object", initialize({ extensions: 5 })],
  ["an extension member not an object", initialize({ extensions: { x: "y" } })],
  ["sampling not an object", initialize({ sampling: 5 })],
  ["sampling context not an object", initialize({ sampling: { context: 1 } })],
  ["sampling tools not an object", initialize({ sampling: { tools: [] } })],
  ["roots not an object", initialize({ roots: 5 })],
  ["roots listChanged not a boolean", initialize({ roots: { listChanged: "yes" } })],
  ["elicitation not an object", initialize({ elicitation: 5 })],
  ["elicitation url not an object", initialize({ elicitation: { url: 1 } })],
  ["elicitation form not an object", initialize({ elicitation: { form: 1 } })],
  ["elicitation applyDefaults not a boolean", initialize({ elicitation: { form: { applyDefaults: "yes" } } })],
];

describe("an initialize's modern envelope is judged member by member, as the SDK's schema judges it", () => {
  for (const [name, body] of WHOLE_ENVELOPES) {
    test(`whole (modern lane): ${name}`, async () => {
      assert.deepEqual(classifyEra(undefined, body), { era: "modern", signal: "body-meta" });
      assert.equal(await sdkLane({}, body), "modern");
    });
  }
  for (const [name, body] of BROKEN_ENVELOPES) {
    test(`broken (legacy lane, the handshake decides): ${name}`, async () => {
      assert.deepEqual(classifyEra(undefined, body), { era: "legacy", signal: "initialize" });
      assert.equal(await sdkLane({}, body), "legacy");
    });
  }
});

describe("a request's params framing, as the SDK's JSON-RPC schemas read it", () => {
  const ping = (meta: unknown) => ({ ...PING, params: { _meta: meta } });
  const CASES: Array<[string, unknown, "legacy" | "modern"]> = [
    ["a string progress token", ping({ progressToken: "t" }), "legacy"],
    ["an integer progress token", ping({ progressToken: 7 }), "legacy"],
    ["a fractional progress token", ping({ progressToken: 1.5 }), "modern"],
    ["a task link with a string taskId", ping({ "io.modelcontextprotocol/related-task": { taskId: "t" } }), "legacy"],
    ["a task link with a numeric taskId", ping({ "io.modelcontextprotocol/related-task": { taskId: 1 } }), "modern"],
    ["a task link without taskId", ping({ "io.modelcontextprotocol/related-task": {} }), "modern"],
    ["a task link that is a string", ping({ "io.modelcontextprotocol/related-task": "t" }), "modern"],
    ["a response with jsonrpc 1.0", { jsonrpc: "1.0", id: 1, result: {} }, "modern"],
  ];
  for (const [name, body, lane] of CASES) {
    test(`${name}: ${lane}`, async () => {
      assert.equal(classifyEra(undefined, body).era, lane);
      assert.equal(await sdkLane({}, body), lane);
    });
  }
});

describe("classifyEra on objects no JSON text gives (it takes any value, not only parsed bodies)", () => {
  test("a capability holding undefined or a function is no JSON object: the envelope is broken, and nothing throws", () => {
    for (const odd of [undefined, () => 1]) {
      assert.deepEqual(
        classifyEra(undefined, initialize({ experimental: { x: { y: odd } } })),
        { era: "legacy", signal: "initialize" },
        String(odd),
      );
    }
  });
});
