import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CorrectionError, correctSpec, readCorrections } from "../scripts/codegen/correct-spec.js";
import { readPublishedSpecSchema, readSpecSchema } from "./support/spec.js";

const JSON_VALUE = {
  pointer: "/$defs/JSONValue/anyOf/2/type",
  from: ["string", "integer", "boolean"],
  to: ["string", "number", "boolean", "null"],
};
const scalars = (schema: Record<string, unknown>) =>
  (schema.$defs as { JSONValue: { anyOf: Array<{ type?: unknown }> } }).JSONValue.anyOf[2]?.type;

describe("the corrections of schemas/spec/corrections.json", () => {
  test("each one applies to the published file of its revision: the value it expects is there", () => {
    const corrections = readCorrections();
    assert.deepEqual(Object.keys(corrections).sort(), ["2025-11-25", "2026-07-28"]);
    for (const revision of Object.keys(corrections)) assert.doesNotThrow(() => correctSpec(revision, readPublishedSpecSchema(revision)));
  });

  test("2026-07-28's JSONValue takes every JSON scalar, as the spec's text says; the published file is left as it was", () => {
    const published = readPublishedSpecSchema("2026-07-28");
    const before = structuredClone(published);
    const corrected = correctSpec("2026-07-28", published);
    assert.deepEqual(scalars(corrected), ["string", "number", "boolean", "null"]);
    assert.deepEqual(published, before);
    assert.deepEqual(scalars(readSpecSchema("2026-07-28")), ["string", "number", "boolean", "null"]);
  });

  test("a correction that finds another value than it expects stops codegen, naming the place and what it found", () => {
    const schema = { $defs: { JSONValue: { anyOf: [{}, {}, { type: ["string", "number"] }] } } };
    assert.throws(
      () => correctSpec("r", schema, { r: [JSON_VALUE] }),
      (error: unknown) =>
        error instanceof CorrectionError &&
        error.message ===
          'correction /$defs/JSONValue/anyOf/2/type of r expects ["string","integer","boolean"] and finds ["string","number"]',
    );
    assert.throws(() => correctSpec("r", { $defs: {} }, { r: [JSON_VALUE] }), /finds undefined/);
  });

  test("a revision with no corrections comes back equal, as a copy", () => {
    const schema = { $defs: { A: { type: "integer" } } };
    const out = correctSpec("2024-11-05", schema, {});
    assert.deepEqual(out, schema);
    assert.notEqual(out, schema);
  });
});
