import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import fc from "fast-check";
import { validateMcpRequest } from "wymcp";
import { DEFAULT_MAX_DEPTH } from "wymcp/node";
import { exceedsDepth } from "../src/core/depth.js";
import { bytesExceedDepth } from "../bench/depth-scan.js";
import { MODERN_META, modernToolsCall } from "./support/messages.js";

/** `depth` containers, alternating arrays and objects when `mixed`, around `inner`. */
function nested(depth: number, kind: "array" | "object" | "mixed", inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = kind === "array" || (kind === "mixed" && i % 2) ? [value] : { k: value };
  return value;
}

/** The depth by definition, recursively: only for small values. */
function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

describe("exceedsDepth counts open arrays and objects", () => {
  test("scalars are depth 0, {} and [] depth 1, and the limit itself is allowed", () => {
    for (const scalar of [1, "[[[[", null, true]) assert.equal(exceedsDepth(scalar, 1), false);
    assert.equal(exceedsDepth({}, 1), false);
    assert.equal(exceedsDepth([], 1), false);
    assert.equal(exceedsDepth({ a: [] }, 1), true);
    for (const kind of ["array", "object", "mixed"] as const) {
      assert.equal(exceedsDepth(nested(DEFAULT_MAX_DEPTH, kind), DEFAULT_MAX_DEPTH), false, kind);
      assert.equal(exceedsDepth(nested(DEFAULT_MAX_DEPTH + 1, kind), DEFAULT_MAX_DEPTH), true, kind);
    }
  });

  test("the deep branch is found wherever it sits among wide siblings", () => {
    const wide = Array.from({ length: 1000 }, (_, i) => ({ i, tags: ["a", "b"] }));
    wide.splice(777, 0, nested(70, "object") as { i: number; tags: string[] });
    assert.equal(exceedsDepth({ params: { arguments: { rows: wide } } }, 64), true);
    assert.equal(exceedsDepth({ params: { arguments: { rows: wide } } }, 75), false);
  });

  test("a million levels are judged without throwing; Infinity turns the bound off", () => {
    const deep = JSON.parse("[".repeat(1_000_000) + "]".repeat(1_000_000)) as unknown;
    assert.equal(exceedsDepth(deep, DEFAULT_MAX_DEPTH), true);
    assert.equal(exceedsDepth(deep, Number.POSITIVE_INFINITY), false);
    // A limit larger than the stack can walk counts as exceeded rather than throwing.
    assert.equal(exceedsDepth(deep, 10_000_000), true);
  });

  test("agrees with the recursive definition on any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 10 }), (value, max) => {
        assert.equal(exceedsDepth(value, max), depthOf(value) > max);
      }),
      { numRuns: 2000, seed: 8 },
    );
  });
});

describe("the byte scanner (the benchmark's alternative) agrees with the parsed walk", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  test("brackets, quotes and backslashes inside strings do not count", () => {
    for (const text of ['["[[[[["]', '{"{{{":"}}}]]]"}', '["\\"[[[[\\\\"]', '["\\\\\\"[[["]', '["\\u005b\\u005b"]', '["é[[", "😀{{"]']) {
      assert.equal(bytesExceedDepth(bytes(text), 1), false, text);
      assert.equal(bytesExceedDepth(bytes(`[${text}]`), 1), true, text);
    }
  });

  test("on any JSON text, with strings full of brackets and escapes", () => {
    const tricky = fc.string({ unit: fc.constantFrom("[", "]", "{", "}", '"', "\\", "a", "é", "\u0000", "\ud800") });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        tricky,
        fc.integer(),
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(tricky, tie("node"), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 8 }), (v, max) => {
        assert.equal(bytesExceedDepth(bytes(JSON.stringify(v)), max), exceedsDepth(v, max));
      }),
      { numRuns: 3000, seed: 8 },
    );
  });
});

describe("validateMcpRequest never throws on deep values, wherever they sit", () => {
  const deep = (kind: "array" | "object") => nested(100_000, kind);
  const places: Record<string, (d: unknown) => unknown> = {
    "the whole body": (d) => d,
    id: (d) => ({ ...modernToolsCall(), id: d }),
    method: (d) => ({ ...modernToolsCall(), method: d }),
    jsonrpc: (d) => ({ ...modernToolsCall(), jsonrpc: d }),
    params: (d) => ({ ...modernToolsCall(), params: d }),
    "tools/call arguments": (d) => modernToolsCall({ params: { _meta: MODERN_META, name: "t", arguments: { d } } }),
    "_meta clientCapabilities": (d) =>
      modernToolsCall({
        params: { _meta: { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { experimental: { d } } }, name: "t" },
      }),
    "a legacy response result": (d) => ({ jsonrpc: "2.0", id: 1, result: { d } }),
    "a notification's params": (d) => ({ jsonrpc: "2.0", method: "notifications/x", params: { d } }),
  };
  // The verdict per place, container kind and lane: "outcome kind", and for a rejection "code first-location".
  // The legacy lane in framing mode, then the modern lane; the legacy params mode is LEGACY_PARAMS below.
  const want: Record<string, Record<"array" | "object", [legacy: string, modern: string]>> = {
    "the whole body": {
      // Both lanes locate the batch's first item; the modern lane refuses the batch itself as well.
      array: ["reject batch -32600 /0", "reject batch -32600 /0"],
      object: ["reject other -32600 ", "reject other -32600 "],
    },
    id: {
      array: ["reject request -32600 /id", "reject request -32600 /id"],
      object: ["reject request -32600 /id", "reject request -32600 /id"],
    },
    method: {
      array: ["reject request -32600 /method", "reject request -32600 /method"],
      object: ["reject request -32600 /method", "reject request -32600 /method"],
    },
    jsonrpc: {
      array: ["reject request -32600 /jsonrpc", "reject request -32600 /jsonrpc"],
      object: ["reject request -32600 /jsonrpc", "reject request -32600 /jsonrpc"],
    },
    params: {
      array: ["reject request -32600 /params", "reject request -32600 /params"],
      object: ["pass request", "reject request -32602 /params/_meta"],
    },
    "tools/call arguments": { array: ["pass request", "pass request"], object: ["pass request", "pass request"] },
    // Framing alone (legacy) never descends into _meta; the modern definition does, and an object chain that deep
    // exhausts the stack in the recursive JSONValue check: that is refused, as a whole, not thrown.
    "_meta clientCapabilities": {
      array: ["pass request", "reject request -32602 /params/_meta/io.modelcontextprotocol~1clientCapabilities/experimental/d"],
      object: ["pass request", "reject request -32600 "],
    },
    "a legacy response result": {
      array: ["bypass response", "reject response -32600 "],
      object: ["bypass response", "reject response -32600 "],
    },
    "a notification's params": {
      array: ["pass notification", "bypass notification"],
      object: ["pass notification", "bypass notification"],
    },
  };
  // Legacy params mode, judged by 2025-03-26 (no header): its definitions hold no recursive JSONValue, so only
  // what a method's definition names is descended into; a tools/call whose params are the deep value lacks a name.
  const LEGACY_PARAMS: Record<string, Record<"array" | "object", string>> = {
    ...Object.fromEntries(Object.entries(want).map(([place, byKind]) => [place, { array: byKind.array[0], object: byKind.object[0] }])),
    params: { array: "reject request -32600 /params", object: "reject request -32602 /params/name" },
    "a notification's params": { array: "pass notification", object: "pass notification" },
  };
  const seenOf = (result: ReturnType<typeof validateMcpRequest>) =>
    result.outcome === "reject"
      ? `reject ${result.kind} ${result.response.error.code} ${result.response.error.data?.errors[0]?.instancePath}`
      : `${result.outcome} ${result.kind}`;
  for (const [place, build] of Object.entries(places)) {
    test(place, () => {
      for (const kind of ["array", "object"] as const) {
        for (const [i, era] of (["legacy", "modern"] as const).entries()) {
          const result = validateMcpRequest(build(deep(kind)), era, era === "legacy" ? { rules: { params: "off" } } : undefined);
          assert.equal(seenOf(result), want[place]![kind][i], `${kind}, ${era}`);
          if (result.outcome === "reject") assert.ok(JSON.stringify(result.response).length <= 8192);
        }
        const params = validateMcpRequest(build(deep(kind)), "legacy");
        assert.equal(seenOf(params), LEGACY_PARAMS[place]![kind], `${kind}, legacy params`);
        if (params.outcome === "reject") assert.ok(JSON.stringify(params.response).length <= 8192);
      }
    });
  }

  test("a batch item holding the deep value, wherever it sits, is judged by its framing, which does not recurse: never out of stack", () => {
    for (const [place, build] of Object.entries(places)) {
      for (const kind of ["array", "object"] as const) {
        for (const era of ["legacy", "modern"] as const) {
          const result = validateMcpRequest([build(deep(kind)), { jsonrpc: "2.0", id: 2, method: "tools/list" }], era);
          assert.equal(result.kind, "batch");
          const message = result.outcome === "reject" ? result.response.error.message : "";
          assert.doesNotMatch(message, /too deeply/, `${place}, ${kind}, ${era}`);
        }
      }
    }
  });
});
