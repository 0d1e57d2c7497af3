import assert from "node:assert/strict";
import "./support/built.js";
import { ERROR_BUDGET } from "../src/core/error-budget.js";
import { describe, test } from "node:test";
import { LIMITS } from "../src/core/distill.js";
import { MAX_ANSWER_BYTES, validateMcpRequest } from "wymcp";
import { MODERN_META, modernToolsCall } from "./support/messages.js";

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

function answerBytes(result: ReturnType<typeof validateMcpRequest>): number {
  assert.equal(result.outcome, "reject");
  return Buffer.byteLength(JSON.stringify(result.response));
}

describe("pathological inputs get a bounded answer and the process keeps serving", () => {
  test("10,000-deep nesting inside tools/call arguments passes (arguments are free-form)", () => {
    const body = modernToolsCall({ params: { _meta: MODERN_META, name: "t", arguments: { deep: nested(10_000) } } });
    assert.equal(validateMcpRequest(body, "modern").outcome, "pass");
    assert.equal(validateMcpRequest(body, "legacy").outcome, "pass");
  });

  test("100,000-deep nesting inside a recursive schema (capabilities.experimental) is rejected, not thrown", () => {
    const meta = { ...MODERN_META, "io.modelcontextprotocol/clientCapabilities": { experimental: { x: nested(100_000) } } };
    const result = validateMcpRequest(modernToolsCall({ params: { _meta: meta, name: "t" } }), "modern");
    assert.equal(result.outcome, "reject");
    assert.match(result.response.error.message, /nested too deeply/);
    assert.equal(result.response.id, 7);
  });

  test("a 1 MB string id is not echoed and the answer stays small", () => {
    const body = { jsonrpc: "1.0", id: "i".repeat(1 << 20), method: "x" };
    const result = validateMcpRequest(body, "legacy");
    assert.ok(answerBytes(result) < 1024);
    assert.equal(result.outcome === "reject" && result.response.id, null);
  });

  test("100,000 unknown keys in params pass framing and the method's definition", () => {
    const params: Record<string, unknown> = { _meta: MODERN_META, name: "t" };
    for (let i = 0; i < 100_000; i++) params[`k${i}`] = i;
    assert.equal(validateMcpRequest(modernToolsCall({ params }), "modern").outcome, "pass");
  });

  test("100,000 failing locations: the validator stops at its error budget and the answer says how many it left out", (t) => {
    const args: Record<string, number> = {};
    for (let i = 0; i < 100_000; i++) args[`k${i}`] = i;
    const body = { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { _meta: MODERN_META, name: "p", arguments: args } };
    const started = performance.now();
    const result = validateMcpRequest(body, "modern");
    const ms = performance.now() - started;
    const bytes = answerBytes(result);
    assert.ok(bytes <= MAX_ANSWER_BYTES);
    assert.equal(result.outcome === "reject" && result.response.error.data?.omitted, ERROR_BUDGET - LIMITS.entries);
    assert.match(result.outcome === "reject" ? result.response.error.message : "", new RegExp(`: ${ERROR_BUDGET}\\+ invalid locations`));
    t.diagnostic(`100,000 failing locations: ${ms.toFixed(0)} ms, answer ${bytes} bytes`);
  });

  test("100,000 roots with no RFC 3986 URI: served by default; under formats strict the error budget holds", () => {
    const roots = Array.from({ length: 100_000 }, (_, i) => ({ uri: `file:///Users/José/My Documents/${i}` }));
    const params = { _meta: MODERN_META, name: "t", arguments: {}, inputResponses: { roots: { roots } } };
    const body = modernToolsCall({ params });
    assert.equal(validateMcpRequest(body, "modern").outcome, "pass");
    const result = validateMcpRequest(body, "modern", { rules: { formats: "enforce" } });
    assert.ok(answerBytes(result) <= MAX_ANSWER_BYTES);
    assert.ok(result.outcome === "reject" && (result.response.error.data?.omitted ?? 0) > 0);
    assert.match(result.outcome === "reject" ? result.response.error.message : "", /\+ invalid locations/);
    assert.equal(validateMcpRequest(body, "modern").outcome, "pass", "the strict call left the default in force");
  });

  test("a key longer than a segment's bound is cut to 64 characters and an ellipsis", () => {
    const key = "k".repeat(10_000);
    const body = { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { _meta: MODERN_META, name: "p", arguments: { [key]: 1 } } };
    const result = validateMcpRequest(body, "modern");
    assert.equal(result.outcome, "reject");
    const [entry] = result.response.error.data!.errors;
    assert.equal(entry!.instancePath, `/params/arguments/${"k".repeat(64)}…`);
  });

  test("keys that JSON escapes six-fold or encodes in four bytes still give an answer within the bound", () => {
    for (const unit of ["\u0001", "\u{1D11E}", '"', "é"]) {
      const args: Record<string, number> = {};
      for (let i = 0; i < 60; i++) args[`${i}${unit.repeat(400)}`] = i;
      const id = unit.repeat(Math.floor(128 / 6));
      const body = { jsonrpc: "2.0", id, method: "prompts/get", params: { _meta: MODERN_META, name: "p", arguments: args } };
      assert.ok(answerBytes(validateMcpRequest(body, "modern")) <= MAX_ANSWER_BYTES, JSON.stringify(unit));
    }
  });

  test("__proto__ and constructor keys and methods pollute nothing", () => {
    const text = JSON.stringify(modernToolsCall()).replace(
      '"arguments":{',
      '"arguments":{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},',
    );
    const bodies = [
      JSON.parse(text),
      JSON.parse('{"jsonrpc":"2.0","id":1,"method":"__proto__","params":{"__proto__":{"polluted":1}}}'),
      JSON.parse('{"jsonrpc":"2.0","id":1,"method":"constructor","params":{"constructor":{"polluted":1}}}'),
      JSON.parse('{"__proto__":{"polluted":1},"id":1,"result":{}}'),
      JSON.parse('{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p","arguments":{"__proto__":1}}}'),
    ];
    // Own members named __proto__ or constructor are plain keys: each body is judged like any other of its kind.
    const want = {
      legacy: ["pass request", "pass request", "pass request", "bypass response", "pass request"],
      modern: ["pass request", "pass request", "pass request", "reject response", "reject request"],
    };
    for (const era of ["legacy", "modern"] as const) {
      assert.deepEqual(
        bodies
          .map((body) => validateMcpRequest(body, era, era === "legacy" ? { rules: { params: "off" } } : undefined))
          .map((r) => `${r.outcome} ${r.kind}`),
        want[era],
        era,
      );
    }
    // With the legacy params checks, prompts/get's arguments must be strings (2025-03-26): "__proto__": 1 is located like any key.
    assert.deepEqual(
      bodies.map((body) => validateMcpRequest(body, "legacy")).map((r) => `${r.outcome} ${r.kind}`),
      ["pass request", "pass request", "pass request", "bypass response", "reject request"],
    );
    const legacyProto = validateMcpRequest(bodies[4], "legacy");
    assert.ok(
      legacyProto.outcome === "reject" &&
        legacyProto.response.error.data!.errors.some((e) => e.instancePath === "/params/arguments/__proto__"),
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.hasOwn(Object.prototype, "polluted"), false);
    assert.equal(validateMcpRequest(bodies[1], "modern").outcome, "pass", "a __proto__ method is an unknown method");
    const protoArgument = validateMcpRequest(bodies[4], "modern");
    assert.equal(protoArgument.outcome, "reject");
    assert.ok(protoArgument.response.error.data!.errors.some((e) => e.instancePath === "/params/arguments/__proto__"));
  });
});
