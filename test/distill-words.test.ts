/**
 * The words of an answer, built from a validator error's schema facts alone (distill.ts `describe`): one case per
 * keyword, including those only the outbound checks and `wymcp compile` meet.
 */
import assert from "node:assert/strict";
import { describe as suite, test } from "node:test";
import type { ValidationError } from "../generated/validator.js";
import { describe, escapePointer, LIMITS } from "../src/core/distill.js";

const error = (keyword: string, params: Record<string, unknown>, instancePath = "/params/x"): ValidationError =>
  ({ keyword, params, instancePath, schemaPath: "#/x" }) as ValidationError;

const CASES: Array<[string, ValidationError, { location: string; message: string }]> = [
  ["type, one", error("type", { type: "string" }), { location: "/params/x", message: "must be string" }],
  ["type, two as Ajv joins them", error("type", { type: "string,integer" }), { location: "/params/x", message: "must be string or integer" }],
  ["type, three as an array", error("type", { type: ["string", "number", "null"] }), { location: "/params/x", message: "must be string, number or null" }],
  ["const", error("const", { allowedValue: "2.0" }), { location: "/params/x", message: 'must equal "2.0"' }],
  ["enum", error("enum", { allowedValues: ["a", 1, null] }), { location: "/params/x", message: 'must be one of "a", 1, null' }],
  ["format", error("format", { format: "uri" }), { location: "/params/x", message: 'must be a valid "uri" string' }],
  ["anyOf", error("anyOf", {}), { location: "/params/x", message: "must match one of the allowed shapes" }],
  ["oneOf", error("oneOf", {}), { location: "/params/x", message: "must match exactly one of the allowed shapes" }],
  ["minimum", error("minimum", { comparison: ">=", limit: 0 }), { location: "/params/x", message: "must be >= 0" }],
  ["maximum", error("maximum", { comparison: "<=", limit: 1 }), { location: "/params/x", message: "must be <= 1" }],
  ["exclusiveMinimum", error("exclusiveMinimum", { comparison: ">", limit: 0 }), { location: "/params/x", message: "must be > 0" }],
  ["exclusiveMaximum", error("exclusiveMaximum", { comparison: "<", limit: 9 }), { location: "/params/x", message: "must be < 9" }],
  ["maxItems", error("maxItems", { limit: 3 }), { location: "/params/x", message: "must have at most 3 items" }],
  ["minItems", error("minItems", { limit: 1 }), { location: "/params/x", message: "must have at least 1 items" }],
  ["maxLength", error("maxLength", { limit: 8 }), { location: "/params/x", message: "must be at most 8 characters long" }],
  ["minLength", error("minLength", { limit: 2 }), { location: "/params/x", message: "must be at least 2 characters long" }],
  ["pattern", error("pattern", { pattern: "^a+$" }), { location: "/params/x", message: 'must match pattern "^a+$"' }],
  ["any other keyword", error("uniqueItems", { i: 1, j: 2 }), { location: "/params/x", message: 'fails the schema\'s "uniqueItems" rule' }],
  ["required: the missing member is located, escaped", error("required", { missingProperty: "a/b~c" }), { location: "/params/x/a~1b~0c", message: "is required" }],
  ["required at the message itself", error("required", { missingProperty: "id" }, ""), { location: "/id", message: "is required" }],
];

suite("describe: a validator error in the answer's words", () => {
  for (const [name, given, want] of CASES) test(name, () => assert.deepEqual(describe(given), want));

  test("a location longer than the bound keeps its first characters and ends in an ellipsis", () => {
    // Segments of 39 characters, under the 64-character cut of a single key (log-safe.ts).
    const exact = `/${"a".repeat(39)}`.repeat(LIMITS.locationLength / 40);
    assert.equal(describe(error("type", { type: "string" }, exact)).location, exact);
    const over = `${exact}b`;
    assert.equal(describe(error("type", { type: "string" }, over)).location, `${exact}…`);
    const missing = describe(error("required", { missingProperty: "k".repeat(500) }, ""));
    // One key: the 64-character cut of a key comes first (log-safe.ts).
    assert.equal(missing.location, `/${"k".repeat(64)}…`);
  });
});

suite("escapePointer", () => {
  test("escapes ~ before / (RFC 6901), and leaves other keys as they are", () => {
    assert.equal(escapePointer("a~1"), "a~01");
    assert.equal(escapePointer("~/"), "~0~1");
    assert.equal(escapePointer("a/b/c"), "a~1b~1c");
    assert.equal(escapePointer("plain key"), "plain key");
  });
});
