import assert from "node:assert/strict";
import "./support/built.js";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { MAX_ANSWER_BYTES, validateMcpRequest, type Era, type JsonRpcId } from "wymcp";

type Formats = "annotation" | "strict";
import { assertGolden, updatingGoldens } from "./support/golden.js";
import { MODERN_META, modernToolsCall } from "./support/messages.js";
import { repoRoot } from "./support/spec.js";

/**
 * What matters in each answer, written from the spec's rules rather than read back from the golden file, so a
 * regenerated golden that flips one of these still fails: the JSON-RPC code (-32602 only when the framing holds and a
 * known method's params fail), the echoed id, the first location, how many locations are listed and left out.
 */
interface Want {
  kind: string;
  definition: string;
  code: -32600 | -32602;
  id: JsonRpcId;
  first: string;
  listed: number;
  omitted?: number;
}

// Representative rejections whose exact answer is pinned in test/golden/<name>.json.
const CASES: Array<[string, { era: Era; body: unknown; protocolVersion?: string; formats?: Formats; want: Want }]> = [
  [
    "modern-tools-call-bad-params",
    {
      era: "modern",
      body: modernToolsCall({ params: { name: 5 } }),
      want: { kind: "request", definition: "CallToolRequest", code: -32602, id: 7, first: "/params/_meta", listed: 2 },
    },
  ],
  [
    "modern-tools-call-missing-meta-fields",
    {
      era: "modern",
      body: modernToolsCall({ params: { name: "t", _meta: {} } }),
      want: {
        kind: "request",
        definition: "CallToolRequest",
        code: -32602,
        id: 7,
        first: "/params/_meta/io.modelcontextprotocol~1clientCapabilities",
        listed: 2,
      },
    },
  ],
  [
    "modern-prompts-get-non-string-arguments",
    {
      era: "modern",
      body: { jsonrpc: "2.0", id: "p1", method: "prompts/get", params: { _meta: MODERN_META, name: "p", arguments: { a: 1, b: true } } },
      want: { kind: "request", definition: "GetPromptRequest", code: -32602, id: "p1", first: "/params/arguments/a", listed: 2 },
    },
  ],
  [
    "modern-resources-read-relative-uri",
    {
      era: "modern",
      // A format is an annotation by default; this answer is the one formats: "strict" gives.
      formats: "strict",
      body: { jsonrpc: "2.0", id: 4, method: "resources/read", params: { _meta: MODERN_META, uri: "not a uri" } },
      want: { kind: "request", definition: "ReadResourceRequest", code: -32602, id: 4, first: "/params/uri", listed: 1 },
    },
  ],
  [
    "modern-client-response",
    {
      era: "modern",
      body: { jsonrpc: "2.0", id: 9, result: {} },
      want: { kind: "response", definition: "JSONRPCMessage", code: -32600, id: 9, first: "", listed: 1 },
    },
  ],
  [
    "modern-bad-framing-unknown-method",
    {
      era: "modern",
      body: { jsonrpc: "2.0", id: 1.5, method: "vendor/x", params: [] },
      want: { kind: "request", definition: "JSONRPCRequest", code: -32600, id: null, first: "/id", listed: 2 },
    },
  ],
  [
    "legacy-bad-request-envelope",
    {
      era: "legacy",
      body: { jsonrpc: "1.0", id: "r1", method: 3 },
      want: { kind: "request", definition: "JSONRPCRequest", code: -32600, id: "r1", first: "/jsonrpc", listed: 2 },
    },
  ],
  [
    "legacy-bad-notification",
    {
      era: "legacy",
      body: { jsonrpc: "2.0", method: "notifications/x", params: "junk" },
      want: { kind: "notification", definition: "JSONRPCNotification", code: -32600, id: null, first: "/params", listed: 1 },
    },
  ],
  [
    "legacy-batch-under-2025-06-18",
    {
      era: "legacy",
      body: [{ jsonrpc: "2.0", id: 1, method: "ping" }],
      protocolVersion: "2025-06-18",
      want: { kind: "batch", definition: "JSONRPCBatchRequest", code: -32600, id: null, first: "", listed: 1 },
    },
  ],
  [
    "legacy-batch-bad-items",
    {
      era: "legacy",
      body: [{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "1.0", id: 2, method: "tools/list" }, 5],
      want: { kind: "batch", definition: "JSONRPCBatchRequest", code: -32600, id: null, first: "/1/jsonrpc", listed: 2 },
    },
  ],
  [
    "legacy-object-of-no-kind",
    {
      era: "legacy",
      body: { jsonrpc: "2.0", id: 1 },
      want: { kind: "other", definition: "JSONRPCMessage", code: -32600, id: 1, first: "", listed: 4 },
    },
  ],
  [
    "modern-many-bad-arguments-bounded",
    {
      era: "modern",
      body: {
        jsonrpc: "2.0",
        id: 5,
        method: "prompts/get",
        params: { _meta: MODERN_META, name: "p", arguments: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])) },
      },
      want: {
        kind: "request",
        definition: "GetPromptRequest",
        code: -32602,
        id: 5,
        first: "/params/arguments/k0",
        listed: 20,
        omitted: 30,
      },
    },
  ],
];

describe("golden answers for representative rejections", () => {
  for (const [name, { era, body, protocolVersion, formats, want }] of CASES) {
    test(`${name}: code ${want.code}, id ${JSON.stringify(want.id)}, first location ${JSON.stringify(want.first)}, as pinned`, () => {
      const result = validateMcpRequest(body, era, { protocolVersion, rules: { formats: formats === "strict" ? "enforce" : "off" } });
      assert.equal(result.outcome, "reject", JSON.stringify(result));
      assert.equal(result.status, 400);
      assert.deepEqual([result.kind, result.definition], [want.kind, want.definition]);
      const { id, error } = result.response;
      assert.deepEqual([error.code, id], [want.code, want.id]);
      assert.equal(error.data?.errors[0]?.instancePath, want.first);
      assert.equal(error.data?.errors.length, want.listed);
      assert.equal(error.data?.omitted, want.omitted);
      assert.ok(Buffer.byteLength(JSON.stringify(result.response)) <= MAX_ANSWER_BYTES);
      assertGolden(name, result);
    });
  }

  test("every golden answer file is pinned by a case here", () => {
    const pinned = new Set(CASES.map(([name]) => `${name}.json`));
    const files = readdirSync(join(repoRoot, "test", "golden")).filter((f) => f.endsWith(".json"));
    assert.deepEqual(
      files.filter((f) => !pinned.has(f)),
      [],
    );
  });
});

describe("the golden update", () => {
  test("rewrites only when UPDATE_GOLDEN=1, and refuses under CI", () => {
    assert.equal(updatingGoldens({}), false);
    assert.equal(updatingGoldens({ UPDATE_GOLDEN: "1" }), true);
    assert.equal(updatingGoldens({ UPDATE_GOLDEN: "1", CI: "false" }), true);
    for (const CI of ["true", "1", "yes"]) assert.throws(() => updatingGoldens({ UPDATE_GOLDEN: "1", CI }), /refuses to run under CI/);
  });

  test("under CI=true an update run fails the golden check and leaves the file as it was", () => {
    const file = join(repoRoot, "test", "golden", "legacy-bad-notification.json");
    const before = readFileSync(file, "utf8");
    const saved = { UPDATE_GOLDEN: process.env.UPDATE_GOLDEN, CI: process.env.CI };
    Object.assign(process.env, { UPDATE_GOLDEN: "1", CI: "true" });
    try {
      assert.throws(() => assertGolden("legacy-bad-notification", { changed: true }), /refuses to run under CI/);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    assert.equal(readFileSync(file, "utf8"), before);
  });
});
