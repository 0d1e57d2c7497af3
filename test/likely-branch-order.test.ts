/**
 * keepLikelyBranches on tagged error lists built by hand: the criteria in their order, nested unions, and lists
 * the schemas' own cases (likely-branch.test.ts) never produce.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ValidationError } from "../generated/validator.js";
import { keepLikelyBranches } from "../src/core/likely-branch.js";

/** A failed branch's mark as the generated code leaves it: union number, the union's location, branch. */
type Mark = [union: number, at: string, branch: number];

const fault = (keyword: string, instancePath: string, ...marks: Mark[]): ValidationError =>
  ({ keyword, instancePath, params: {}, ...(marks.length > 0 && { branches: marks.flat() }) }) as ValidationError;
const union = (number: number, instancePath: string, ...marks: Mark[]): ValidationError => ({
  ...fault("anyOf", instancePath, ...marks),
  params: { union: number },
});

describe("keepLikelyBranches on hand-built error lists", () => {
  test("an inner union's losing branch is not counted against the outer branch that holds it", () => {
    // Outer union 0 at "", inner union 1 at /a inside its branch 0. Inner: branch 0 has 3 faults, branch 1 one.
    const inner0 = ["/a/x", "/a/y", "/a/z"].map((at) => fault("type", at, [1, "/a", 0], [0, "", 0]));
    const inner1 = fault("type", "/a/w", [1, "/a", 1], [0, "", 0]);
    const innerUnion = union(1, "/a", [0, "", 0]);
    // Outer branch 1: 3 faults. Counted whole, outer branch 0 would have 5; what is left of it after the inner union is settled, 2.
    const outer1 = ["/b/x", "/b/y", "/b/z"].map((at) => fault("type", at, [0, "", 1]));
    const outerUnion = union(0, "");
    const kept = keepLikelyBranches([...inner0, inner1, innerUnion, ...outer1, outerUnion]);
    assert.deepEqual(kept, [inner1, innerUnion, outerUnion]);
  });

  test("a branch that rejects a constant member, an enum discriminator included, is less likely than one with more faults elsewhere", () => {
    for (const keyword of ["enum", "const"]) {
      const discriminator = fault(keyword, "/c/type", [0, "/c", 0]);
      const deeper = [fault("type", "/c/x/y", [0, "/c", 1]), fault("type", "/c/z", [0, "/c", 1])];
      const anyOf = union(0, "/c");
      assert.deepEqual(keepLikelyBranches([discriminator, ...deeper, anyOf]), [...deeper, anyOf], keyword);
    }
  });

  test("a branch that rejects the value itself is the least likely, whatever the other's faults", () => {
    const itself = fault("type", "/c", [0, "/c", 0]);
    const members = ["/c/a", "/c/b", "/c/d"].map((at) => fault("required", at, [0, "/c", 1]));
    const anyOf = union(0, "/c");
    assert.deepEqual(keepLikelyBranches([itself, ...members, anyOf]), [...members, anyOf]);
  });

  test("with every other criterion tied, the branch with fewer faults is kept; a full tie keeps both", () => {
    const three = ["/c/a/x", "/c/b/x", "/c/d/x"].map((at) => fault("type", at, [0, "/c", 0]));
    const one = fault("type", "/c/e/x", [0, "/c", 1]);
    const anyOf = union(0, "/c");
    assert.deepEqual(keepLikelyBranches([...three, one, anyOf]), [one, anyOf]);
    const other = fault("type", "/c/f/x", [0, "/c", 0]);
    assert.deepEqual(keepLikelyBranches([other, one, anyOf]), [other, one, anyOf]);
  });

  test("a union of three branches keeps only its best one", () => {
    const faults = [
      fault("type", "/c/a/x", [0, "/c", 0]),
      fault("type", "/c/b/x", [0, "/c", 0]),
      fault("type", "/c/e/x", [0, "/c", 1]),
      fault("type", "/c", [0, "/c", 2]),
    ];
    const anyOf = union(0, "/c");
    assert.deepEqual(keepLikelyBranches([...faults, anyOf]), [faults[2], anyOf]);
  });

  test("an anyOf error none of whose branches left a marked error in the list is kept, and nothing throws", () => {
    const unmarked = union(5, "/q");
    const other = [fault("type", "/c/a", [0, "/c", 0]), fault("type", "/c/b/x", [0, "/c", 1]), fault("type", "/c/b/y", [0, "/c", 1])];
    assert.deepEqual(keepLikelyBranches([...other, union(0, "/c"), unmarked]), [other[0], union(0, "/c"), unmarked]);
  });

  test("a list with no marks is returned as it is", () => {
    const list = [fault("type", "/a"), fault("required", "")];
    assert.equal(keepLikelyBranches(list), list);
  });
});
