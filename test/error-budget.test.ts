import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, describe, test } from "node:test";
import { Ajv } from "ajv";
import { eras } from "../generated/index.js";
import { outbound } from "../generated/outbound.js";
import type { Validator } from "../generated/validator.js";
import { compactCode } from "../src/codegen/compact-code.js";
import { compileValidators, UnsupportedKeywordError } from "../scripts/codegen/compile-validators.js";
import type { Selection } from "../scripts/codegen/select-definitions.js";
import { validateMcpResponse } from "../src/outbound.js";
import { validateMcpRequest } from "../src/core/validate.js";
import { ERROR_BUDGET } from "../src/core/error-budget.js";
import { repoRoot } from "./support/spec.js";

const generatedModules = readdirSync(join(repoRoot, "generated"), { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".js") && file.includes("/"))
  .sort();

describe("the generated code collects errors within a bound", () => {
  for (const file of generatedModules) {
    const code = readFileSync(join(repoRoot, "generated", file), "utf8");
    test(`${file}: no error list is copied per error (no concat), every push and append checks the budget`, () => {
      assert.doesNotMatch(code, /\.concat\(/);
      assert.doesNotMatch(code, /vErrors\.push\(|vErrors = \[/);
      assert.ok(code.includes(`if (list.push(error) >= ${ERROR_BUDGET}) throw new ErrorBudgetReached(list);`));
      // Every site that adds an error goes through pushError (one error, directly or through pushNew, which
      // shorten-errors.ts writes for wymcp's own modules) or collectErrors (a callee's errors).
      const sites = code.match(/\n(?:pushError|pushNew|collectErrors)\(vErrors \?\?= \[\], /g) ?? [];
      const errorObjects = code.match(/\nconst err\d+ = \{|\npushNew\(/g) ?? [];
      const calls = code.match(/\.errors\);\nerrors = vErrors\.length;/g) ?? [];
      assert.equal(sites.length, errorObjects.length + calls.length);
      assert.ok(errorObjects.length > 0, "no error site found: the patterns above no longer match the generated code");
      if (code.includes("\npushNew("))
        assert.ok(code.includes("function pushNew(list, instancePath, keyword, params) { pushError(list, {"));
    });
    test(`${file}: every exported validator is the one that stops at the budget`, () => {
      const exported = code.match(/^export const \w+ = (?:validate|withinBudget)\S*/gm) ?? [];
      assert.ok(exported.length > 0);
      for (const line of exported) assert.match(line, /= withinBudget\(validate\d+\)/);
    });
    test(`${file}: every anyOf branch catches the budget running out and counts as failed`, () => {
      const branches = code.match(/\nconst _from\d+ = errors;\ntry\{/g) ?? [];
      const catches = code.match(/\ncatch\(e\d+\)\{\nerrors = absorbErrors\(vErrors \?\?= \[\], e\d+\);\n_valid\d+ = false;\n\}/g) ?? [];
      assert.equal(catches.length, branches.length);
      assert.equal(branches.length, (code.match(/const _from\d+ = errors;/g) ?? []).length);
    });
  }
});

const META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const withContent = (content: unknown[]) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { _meta: META, name: "echo", arguments: {}, inputResponses: { a: { role: "assistant", model: "m", content } } },
});

describe("an invalid body stops costing errors at the budget", () => {
  const callTool = eras.modern.methods.get("tools/call")!.validate;
  const listTools = outbound.modern.results.get("tools/list")!.validate;
  const outboundTools = Object.assign((tools: unknown) => listTools({ tools }), {}) as Validator;
  Object.defineProperty(outboundTools, "errors", { get: () => listTools.errors });
  const cases: Array<[string, Validator, (n: number) => unknown]> = [
    ["sampling content items that are not objects", callTool, (n) => withContent(Array(n).fill(1))],
    ["content items that fail every branch of the content union", callTool, (n) => withContent(Array(n).fill({ type: "none" }))],
    [
      "an inputResponses map of invalid values",
      callTool,
      (n) =>
        withContent([]).params && {
          ...withContent([]),
          params: { _meta: META, name: "echo", inputResponses: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])) },
        },
    ],
    ["a tools/list result's tools that each lack a name", outboundTools, (n) => Array(n).fill({ name: 1, inputSchema: {} })],
  ];
  for (const [name, validate, make] of cases) {
    test(`${name}: the same errors for 1,000 and 16,000 items, about ${ERROR_BUDGET} of them`, () => {
      assert.equal(validate(make(1000)), false);
      const few = validate.errors!.map((e) => `${e.keyword} ${e.instancePath}`);
      assert.equal(validate(make(16000)), false);
      const many = validate.errors!.map((e) => `${e.keyword} ${e.instancePath}`);
      // The budget, plus the failed branches and unions on the way out of the union that was cut short.
      assert.ok(few.length >= ERROR_BUDGET && few.length <= ERROR_BUDGET + 8, `${few.length} errors`);
      assert.deepEqual(many, few);
    });
  }

  test("nested unions cut short at every level keep the list near the budget: the way-out errors grow with depth, not items", () => {
    const tools = eras.modern.methods.get("tools/list")!.validate;
    const nested = (depth: number, items: number) => {
      let value: unknown = [];
      // JSONValue takes every JSON value; an infinite number (which a parsed body handed to the pure check can hold) is
      // one no branch takes.
      for (let d = 0; d < depth; d++) value = [...Array(items).fill(Number.POSITIVE_INFINITY), value];
      const capabilities = { experimental: { x: { y: value } } };
      return {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": capabilities } },
      };
    };
    for (const [depth, items] of [
      [55, 5],
      [55, 500],
      [5, 5000],
    ] as const) {
      assert.equal(tools(nested(depth, items)), false);
      // JSONValue is a three-way union: per level, at most its failed branches and its own anyOf error.
      assert.ok(tools.errors!.length <= ERROR_BUDGET + 4 * depth, `${depth}×${items}: ${tools.errors!.length} errors`);
    }
  });

  test("the answer to a body cut short by the budget counts its locations as a lower bound (N+)", () => {
    const result = validateMcpRequest(withContent(Array(16000).fill(1)), "modern");
    assert.equal(result.outcome, "reject");
    if (result.outcome !== "reject") return;
    assert.match(result.response.error.message, /: \d+\+ invalid locations; first: \/params\/inputResponses\/a\/content\/0 /);
    assert.equal(result.response.error.code, -32602);
  });

  test("an outbound result of 16,000 invalid content items is judged within the budget too", () => {
    const result = validateMcpResponse(
      { jsonrpc: "2.0", id: 1, result: { content: Array(16000).fill(1) } },
      { era: "modern", method: "tools/call" },
    );
    assert.equal(result.outcome, "violation");
    if (result.outcome !== "violation") return;
    assert.match(result.violations.message, /\d+\+ invalid locations; first: \/result\/content\/0 /);
  });

  test("a legacy batch stops judging items once the budget is full", () => {
    const result = validateMcpRequest(Array(16000).fill({}), "legacy");
    assert.equal(result.outcome, "reject");
    if (result.outcome !== "reject") return;
    assert.match(result.response.error.message, /\d+\+ invalid locations; first: \/0\//);
  });
});

describe("the early exit keeps Ajv's verdicts", () => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-budget-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  // Schemas where a union branch fails with more errors than the budget, and what a later branch then decides.
  const defs = {
    LaterBranchPasses: { anyOf: [{ type: "array", items: { type: "string" } }, { type: "array" }] },
    EveryBranchFails: {
      anyOf: [
        { type: "array", items: { type: "string" } },
        { type: "array", items: { type: "boolean" } },
      ],
    },
    ItemsOfUnions: {
      type: "array",
      items: {
        anyOf: [
          { type: "array", items: { type: "string" } },
          { type: "array", items: { type: "number" } },
        ],
      },
    },
    NestedUnion: {
      type: "object",
      properties: {
        v: {
          anyOf: [
            { type: "object", additionalProperties: { type: "string" } },
            { type: "object", additionalProperties: { anyOf: [{ type: "number" }, { type: "null" }] } },
          ],
        },
      },
    },
  };
  const selection = { config: { era: "budget" }, defs, entries: Object.keys(defs), methods: [] } as unknown as Selection;
  const file = join(dir, "validators.mjs");
  writeFileSync(file, compactCode(compileValidators(selection, {})));
  const reference = new Ajv({ allErrors: true, strict: false });
  reference.addSchema({ $id: "https://wymcp.test/ref", $defs: defs });

  const numbers = (n: number) => Array.from({ length: n }, (_, i) => i);
  const values: Array<[string, unknown]> = [
    ["LaterBranchPasses", numbers(ERROR_BUDGET * 3)],
    ["EveryBranchFails", numbers(ERROR_BUDGET * 3)],
    ["ItemsOfUnions", [numbers(ERROR_BUDGET * 2), numbers(5), numbers(ERROR_BUDGET * 2)]],
    ["ItemsOfUnions", [numbers(ERROR_BUDGET * 2), [...numbers(ERROR_BUDGET), "x"]]],
    ["NestedUnion", { v: Object.fromEntries(numbers(ERROR_BUDGET * 2).map((i) => [`k${i}`, i])) }],
    ["NestedUnion", { v: Object.fromEntries(numbers(ERROR_BUDGET * 2).map((i) => [`k${i}`, i % 2 ? null : i])) }],
    ["NestedUnion", { v: Object.fromEntries(numbers(ERROR_BUDGET * 2).map((i) => [`k${i}`, i === 300 ? true : i])) }],
  ];
  for (const [definition, value] of values) {
    test(`${definition}: the same verdict as Ajv without a budget (${JSON.stringify(value).length} bytes)`, async () => {
      const module = (await import(pathToFileURL(file).href)) as Record<string, Validator>;
      const expected = reference.validate(`https://wymcp.test/ref#/$defs/${definition}`, value);
      assert.equal(module[definition]!(value), expected);
      if (!expected) assert.ok(module[definition]!.errors!.length <= ERROR_BUDGET + 8);
    });
  }

  test("codegen refuses oneOf and not, whose failing subschemas the early exit would misjudge", () => {
    for (const schema of [{ oneOf: [{ type: "string" }] }, { not: { type: "string" } }]) {
      const bad = { ...selection, defs: { Bad: schema }, entries: ["Bad"] } as Selection;
      assert.throws(() => compileValidators(bad, {}), UnsupportedKeywordError);
    }
  });
});
