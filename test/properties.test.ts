import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import fc from "fast-check";
import { MAX_ANSWER_BYTES, validateMcpRequest, type Era, type ValidationResult } from "wymcp";
import { CLIENT_RESPONSE, LEGACY_INITIALIZE, MODERN_META, modernToolsCall, NOTIFICATION } from "./support/messages.js";

// Every string value the generators put in a body carries this character; none may reach an answer.
const MARK = "\u2063";
const RUNS = 1500;
const SEED = 20261202;
const ERAS: Era[] = ["legacy", "modern"];
const seen: Record<string, number> = {};

const markedString = fc.string({ maxLength: 40 }).map((s) => `${MARK}${s}`);
const markedJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    markedString,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(fc.string({ maxLength: 12 }), tie("value"), { maxKeys: 5 }),
  ),
})).value;

const BASES: unknown[] = [
  modernToolsCall(),
  { jsonrpc: "2.0", id: "d", method: "server/discover", params: { _meta: MODERN_META } },
  { jsonrpc: "2.0", id: 2, method: "prompts/get", params: { _meta: MODERN_META, name: "p", arguments: { a: "b" } } },
  { jsonrpc: "2.0", id: 3, method: "resources/read", params: { _meta: MODERN_META, uri: "file:///a.txt" } },
  { jsonrpc: "2.0", id: 4, method: "completion/complete", params: { _meta: MODERN_META, ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "v" } } },
  LEGACY_INITIALIZE,
  NOTIFICATION,
  CLIENT_RESPONSE,
];

/** Marks every string value except the root `method`, so known methods keep being exercised. */
function markValues(node: unknown, root = true): unknown {
  if (typeof node === "string") return `${MARK}${node}`;
  if (Array.isArray(node)) return node.map((v) => markValues(v, false));
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, root && (k === "method" || k === "jsonrpc") ? v : markValues(v, false)]),
  );
}

type Mutation = { path: number[]; op: "delete" | "replace" | "add"; key: string; value: unknown };

/** Applies a mutation at a path chosen by walking child indices modulo each node's size. */
function mutate(base: unknown, { path, op, key, value }: Mutation): unknown {
  const copy = structuredClone(base);
  let parent: unknown = undefined;
  let parentKey: string | number | undefined;
  let node: unknown = copy;
  for (const step of path) {
    if (node === null || typeof node !== "object") break;
    const keys = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    parent = node;
    parentKey = keys[step % keys.length]!;
    node = (node as Record<string | number, unknown>)[parentKey];
  }
  if (op === "add" && node !== null && typeof node === "object" && !Array.isArray(node)) {
    Object.defineProperty(node, key, { value, enumerable: true, configurable: true, writable: true });
    return copy;
  }
  if (parent === undefined || parentKey === undefined) return value;
  if (op === "delete" && !Array.isArray(parent)) delete (parent as Record<string, unknown>)[parentKey as string];
  else (parent as Record<string | number, unknown>)[parentKey] = value;
  return copy;
}

const mutation = fc.record({
  path: fc.array(fc.nat(), { maxLength: 6 }),
  op: fc.constantFrom("delete", "replace", "add") as fc.Arbitrary<Mutation["op"]>,
  key: fc.constantFrom("__proto__", "constructor", "x", "_meta", "id", "method", "result", "name"),
  value: markedJson,
});

const mutatedMessage = fc.tuple(fc.constantFrom(...BASES), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(
  ([base, mutations]) => mutations.reduce((body, m) => mutate(body, m), markValues(base)),
);

function assertWellFormedOutcome(result: ValidationResult): void {
  assert.ok(["pass", "bypass", "reject"].includes(result.outcome));
  seen[result.outcome] = (seen[result.outcome] ?? 0) + 1;
  if (result.outcome !== "reject") return;
  const answer = JSON.stringify(result.response);
  assert.ok(Buffer.byteLength(answer) <= MAX_ANSWER_BYTES, `answer of ${Buffer.byteLength(answer)} bytes`);
  assert.ok(!JSON.stringify({ ...result.response, id: null }).includes(MARK), `a body value was reflected: ${answer}`);
  const locations = result.response.error.data?.errors.map((e) => e.instancePath) ?? [];
  assert.equal(new Set(locations).size, locations.length, "duplicate instance locations");
  assert.doesNotMatch(result.response.error.message, /[\r\n]/);
}

describe("validateMcpRequest properties", () => {
  for (const era of ERAS) {
    test(`${era}: any JSON value gets one of three outcomes, a bounded answer and no reflection`, () => {
      fc.assert(
        fc.property(markedJson, (body) => assertWellFormedOutcome(validateMcpRequest(body, era))),
        { numRuns: RUNS, seed: SEED },
      );
    });
    test(`${era}: mutated valid messages get one of three outcomes, a bounded answer and no reflection`, () => {
      fc.assert(
        fc.property(mutatedMessage, (body) => assertWellFormedOutcome(validateMcpRequest(body, era))),
        { numRuns: RUNS, seed: SEED },
      );
    });
  }
  test("modern: many long client-chosen keys still give an answer within the bound", () => {
    const args = fc.dictionary(fc.string({ minLength: 150, maxLength: 400 }), fc.integer(), { minKeys: 20, maxKeys: 80 });
    fc.assert(
      fc.property(args, (argumentsValue) => {
        const body = { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { _meta: MODERN_META, name: "p", arguments: argumentsValue } };
        const result = validateMcpRequest(body, "modern");
        assert.equal(result.outcome, "reject");
        assertWellFormedOutcome(result);
      }),
      { numRuns: 200, seed: SEED },
    );
  });
});

test("the properties above exercised every outcome", (t) => {
  for (const outcome of ["pass", "bypass", "reject"]) assert.ok((seen[outcome] ?? 0) > 50, JSON.stringify(seen));
  t.diagnostic(`outcomes seen: ${JSON.stringify(seen)}`);
});
