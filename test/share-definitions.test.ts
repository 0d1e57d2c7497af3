import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { shareDefinitions } from "../scripts/codegen/share-definitions.js";

const ref = (name: string) => ({ $ref: `#/$defs/${name}` });

describe("shareDefinitions: one schema per group of identical definitions", () => {
  test("a definition equal in two revisions, keys in another order, is one, named bare when the plain revision has it", () => {
    const shared = shareDefinitions(
      [
        { revision: "2024-01-01", defs: { A: { type: "object", required: ["x"] } }, roots: ["A"] },
        { revision: "2025-01-01", defs: { A: { required: ["x"], type: "object" } }, roots: ["A"] },
      ],
      "2025-01-01",
    );
    assert.deepEqual(Object.keys(shared.defs), ["A"]);
    assert.equal(shared.nameOf("2024-01-01", "A"), "A");
    assert.deepEqual(shared.classes, [{ name: "A", definition: "A", revisions: ["2024-01-01", "2025-01-01"] }]);
  });

  test("equal text that refers to definitions that differ is not equal: the referrer is split too", () => {
    const shared = shareDefinitions(
      [
        { revision: "2024-01-01", defs: { A: { properties: { b: ref("B") } }, B: { type: "string" } }, roots: ["A"] },
        { revision: "2025-01-01", defs: { A: { properties: { b: ref("B") } }, B: { type: "number" } }, roots: ["A"] },
      ],
      "2025-01-01",
    );
    assert.deepEqual(Object.keys(shared.defs), ["A", "A_2024_01_01", "B", "B_2024_01_01"]);
    assert.deepEqual(shared.defs.A_2024_01_01, { properties: { b: ref("B_2024_01_01") } });
    assert.deepEqual(shared.defs.A, { properties: { b: ref("B") } });
  });

  test("recursive definitions equal in two revisions are shared; a difference deep in the cycle splits both", () => {
    const cyclic = (leaf: string) => ({
      V: { anyOf: [{ type: leaf }, { type: "array", items: ref("V") }, { properties: { w: ref("W") } }] },
      W: { items: ref("V") },
    });
    const same = shareDefinitions(
      [
        { revision: "2024-01-01", defs: cyclic("string"), roots: ["V"] },
        { revision: "2025-01-01", defs: cyclic("string"), roots: ["V"] },
      ],
      "2025-01-01",
    );
    assert.deepEqual(Object.keys(same.defs), ["V", "W"]);
    const split = shareDefinitions(
      [
        { revision: "2024-01-01", defs: cyclic("string"), roots: ["W"] },
        { revision: "2025-01-01", defs: cyclic("number"), roots: ["W"] },
      ],
      "2025-01-01",
    );
    assert.deepEqual(Object.keys(split.defs), ["V", "V_2024_01_01", "W", "W_2024_01_01"]);
  });

  test("a group without the plain revision is named after its earliest revision", () => {
    const shared = shareDefinitions(
      [
        { revision: "2024-01-01", defs: { A: { type: "string" } }, roots: ["A"] },
        { revision: "2024-06-01", defs: { A: { type: "string" } }, roots: ["A"] },
        { revision: "2025-01-01", defs: { A: { type: "number" } }, roots: ["A"] },
      ],
      "2025-01-01",
    );
    assert.equal(shared.nameOf("2024-06-01", "A"), "A_2024_01_01");
    assert.equal(shared.nameOf("2025-01-01", "A"), "A");
  });

  test('a "$ref" inside const data, or a property named "const", is read as what it is', () => {
    const defs = (target: string) => ({
      A: { properties: { const: ref(target), v: { const: { $ref: "#/$defs/Nowhere" } } } },
      B: { type: "string" },
      C: { type: "number" },
    });
    const shared = shareDefinitions(
      [
        { revision: "2024-01-01", defs: defs("B"), roots: ["A"] },
        { revision: "2025-01-01", defs: defs("C"), roots: ["A"] },
      ],
      "2025-01-01",
    );
    // The property named const refers to B in one revision and C in the other: two A's, and no "Nowhere" was followed.
    assert.deepEqual(Object.keys(shared.defs), ["A", "A_2024_01_01", "B_2024_01_01", "C"]);
    assert.deepEqual((shared.defs.A as { properties: { v: unknown } }).properties.v, { const: { $ref: "#/$defs/Nowhere" } });
  });

  test("a root a revision lacks stops codegen, naming it", () => {
    assert.throws(
      () => shareDefinitions([{ revision: "2024-01-01", defs: {}, roots: ["Missing"] }], "2024-01-01"),
      /revision 2024-01-01 has no definition Missing/,
    );
  });

  test("its input is left as it was", () => {
    const input = [
      { revision: "2024-01-01", defs: { A: { properties: { b: ref("B") } }, B: { type: "string" } }, roots: ["A"] },
      { revision: "2025-01-01", defs: { A: { properties: { b: ref("B") } }, B: { type: "number" } }, roots: ["A"] },
    ];
    const before = structuredClone(input);
    shareDefinitions(input, "2025-01-01");
    assert.deepEqual(input, before);
  });
});
