import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import fc from "fast-check";
import { MAX_ANSWER_BYTES, validateMcpRequest, type Era, type ValidationResult } from "wymcp";

/** The legacy lane's three modes, as the params rule's states spell them. */
type LegacyChecks = "params" | "report" | "framing";
const PARAMS = { params: "enforce", report: "report", framing: "off" } as const;
import { CLIENT_RESPONSE, LEGACY_INITIALIZE, MODERN_META, modernToolsCall, NOTIFICATION } from "./support/messages.js";
import { EXAMPLES_REVISION, readSpecSchema, specDefinitions, type JsonObject } from "./support/spec.js";
import { claimedVersion, KNOWN_MODERN_REVISIONS } from "../src/core/protocol-versions.js";

// Every string value the generators put in a body carries this character; none may reach an answer.
const MARK = "\u2063";
const RUNS = 1500;
const SEED = 20261202;
// The legacy lane in two of its modes: params (the default) and framing (the seed's rule).
const LANES: Array<{ era: Era; checks?: LegacyChecks; name: string }> = [
  { era: "legacy", name: "legacy" },
  { era: "legacy", checks: "framing", name: "legacy (framing)" },
  { era: "modern", name: "modern" },
];
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
  {
    jsonrpc: "2.0",
    id: 4,
    method: "completion/complete",
    params: { _meta: MODERN_META, ref: { type: "ref/prompt", name: "p" }, argument: { name: "a", value: "v" } },
  },
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
  let parent: unknown;
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

const mutatedMessage = fc
  .tuple(fc.constantFrom(...BASES), fc.array(mutation, { minLength: 1, maxLength: 3 }))
  .map(([base, mutations]) => mutations.reduce((body, m) => mutate(body, m), markValues(base)));

/** Method → definition of every modern client request, read from the spec's ClientRequest union. */
const MODERN_METHODS = (() => {
  const defs = specDefinitions(EXAMPLES_REVISION);
  const refs = (defs.ClientRequest!.anyOf ?? defs.ClientRequest!.oneOf) as Array<{ $ref: string }>;
  return new Map(
    refs.map(({ $ref }) => {
      const name = $ref.replace("#/$defs/", "");
      return [(defs[name]!.properties as { method: { const: string } }).method.const, name];
    }),
  );
})();

/** Per legacy revision: method → definition of its client requests and of its client notifications, from its unions. */
const LEGACY_METHODS = new Map(
  ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].map((revision) => {
    const schema = readSpecSchema(revision);
    const defs = (schema.$defs ?? schema.definitions) as Record<string, JsonObject>;
    const table = (union: string) =>
      new Map(
        ((defs[union]!.anyOf ?? defs[union]!.oneOf) as Array<{ $ref: string }>).map(({ $ref }) => {
          const name = $ref.split("/").pop()!;
          return [(defs[name]!.properties as { method: { const: string } }).method.const, name] as const;
        }),
      );
    return [revision, { request: table("ClientRequest"), notification: table("ClientNotification") }] as const;
  }),
);

/**
 * The legacy revision that judges a body with no header, restated from the spec: an initialize asks for its own (the
 * newest when it names none), anything else gets 2025-03-26.
 */
function legacyRevision(body: object): string {
  if ((body as { method?: unknown }).method !== "initialize" || !own(body, "id")) return "2025-03-26";
  const asked = ((body as { params?: unknown }).params as { protocolVersion?: unknown } | null | undefined)?.protocolVersion;
  return typeof asked === "string" && LEGACY_METHODS.has(asked) ? asked : "2025-11-25";
}

const own = (body: object, key: string) => Object.hasOwn(body, key);

/**
 * The kinds and the table of docs/validation.md#what-is-validated restated from the spec's words, apart from the implementation: the kind of `body`, and the
 * verdict its era's rule gives that kind. `undefined` outcome: pass or reject, as the schema decides.
 */
function expected(body: unknown, era: Era): { kind: string; outcome?: string; reason?: string } {
  // A batch: judged item by item on the legacy lane (an empty one refused); refused as a batch on the modern lane, which has none.
  if (Array.isArray(body)) return era === "legacy" && body.length > 0 ? { kind: "batch" } : { kind: "batch", outcome: "reject" };
  if (typeof body !== "object" || body === null) return { kind: "other", outcome: "reject" };
  if (own(body, "method")) {
    if (own(body, "id")) return { kind: "request" };
    return era === "modern" ? { kind: "notification", outcome: "bypass", reason: "modern-notification" } : { kind: "notification" };
  }
  if (own(body, "id") && (own(body, "result") || own(body, "error"))) {
    return era === "legacy" ? { kind: "response", outcome: "bypass", reason: "legacy-response" } : { kind: "response", outcome: "reject" };
  }
  return { kind: "other", outcome: "reject" };
}

/** The verdict is the one docs/validation.md#what-is-validated gives, and a rejection is a bounded answer that reflects nothing of the body. */
function assertVerdict(body: unknown, era: Era, result: ValidationResult, checks: LegacyChecks = "params"): void {
  const want = expected(body, era);
  assert.equal(result.kind, want.kind, JSON.stringify(result));
  if (want.outcome) assert.equal(result.outcome, want.outcome, JSON.stringify(result));
  if (result.outcome === "bypass") assert.equal(result.reason, want.reason ?? "legacy-response");
  const method = result.kind === "request" || result.kind === "notification" ? (body as { method?: unknown }).method : undefined;
  let known: string | undefined;
  // A modern request claiming a version this library does not know is judged on its framing alone.
  if (era === "modern" && result.kind === "request" && typeof method === "string" && !unknownVersion(body))
    known = MODERN_METHODS.get(method);
  // The legacy lane's params checks: a request's or a notification's method of the judging revision, by kind.
  const revision = era === "legacy" && checks !== "framing" && typeof method === "string" ? legacyRevision(body as object) : undefined;
  if (revision && (result.kind === "request" || result.kind === "notification"))
    known = LEGACY_METHODS.get(revision)![result.kind].get(method as string);
  if (result.outcome === "pass") {
    const definition = {
      batch: "JSONRPCBatchRequest",
      notification: (era === "legacy" && known) || "JSONRPCNotification",
      request: known ?? "JSONRPCRequest",
    }[result.kind as "batch" | "notification" | "request"];
    assert.equal(result.definition, definition);
    assert.equal(result.revision, known && revision);
  }
  if (result.outcome === "reject") {
    // -32602 only for a request (or a legacy notification) of a known method; a failed framing or any other kind is -32600.
    const code = result.response.error.code;
    assert.ok(code === -32600 || (known && code === -32602), JSON.stringify(result.response.error));
    // A legacy request's params failure is answered 200; everything else 400.
    assert.equal(result.status, code === -32602 && era === "legacy" && result.kind === "request" ? 200 : 400);
    assert.ok((result.response.error.data?.errors.length ?? 0) > 0, "a rejection locates something");
  }
  assertWellFormedOutcome(result);
}

/** Whether a modern body claims, as a string, a protocol version this library does not know. */
function unknownVersion(body: unknown): boolean {
  const claim = claimedVersion(body);
  return typeof claim === "string" && !KNOWN_MODERN_REVISIONS.includes(claim);
}

function assertWellFormedOutcome(result: ValidationResult): void {
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
  for (const { era, checks, name } of LANES) {
    const judge = (body: unknown) =>
      assertVerdict(body, era, validateMcpRequest(body, era, checks && { rules: { params: PARAMS[checks] } }), checks);
    test(`${name}: any JSON value gets the verdict of its kind's rule, a bounded answer and no reflection`, () => {
      fc.assert(fc.property(markedJson, judge), { numRuns: RUNS, seed: SEED });
    });
    test(`${name}: mutated valid messages get the verdict of their kind's rule, a bounded answer and no reflection`, () => {
      fc.assert(fc.property(mutatedMessage, judge), { numRuns: RUNS, seed: SEED });
    });
  }
  test("modern: many long client-chosen keys still give an answer within the bound", () => {
    const args = fc.dictionary(fc.string({ minLength: 150, maxLength: 400 }), fc.integer(), { minKeys: 20, maxKeys: 80 });
    fc.assert(
      fc.property(args, (argumentsValue) => {
        const body = { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { _meta: MODERN_META, name: "p", arguments: argumentsValue } };
        const result = validateMcpRequest(body, "modern");
        assert.equal(result.outcome, "reject");
        assert.equal(result.response.error.code, -32602);
        assertVerdict(body, "modern", result);
      }),
      { numRuns: 200, seed: SEED },
    );
  });
});

test("the properties above exercised every outcome", (t) => {
  for (const outcome of ["pass", "bypass", "reject"]) assert.ok((seen[outcome] ?? 0) > 50, JSON.stringify(seen));
  t.diagnostic(`outcomes seen: ${JSON.stringify(seen)}`);
});
