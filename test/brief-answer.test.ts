import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type BriefError, briefAnswer } from "../src/compile/runtime/brief-answer.js";
import { ERROR_BUDGET } from "../src/core/error-budget.js";
import { random } from "./support/schema-samples.js";

const type = (instancePath: string, t: string): BriefError => ({ instancePath, keyword: "type", params: { type: t } });
const required = (instancePath: string, key: string): BriefError => ({
  instancePath,
  keyword: "required",
  params: { missingProperty: key },
});
const brief = (errors: BriefError[]) => briefAnswer(errors, ERROR_BUDGET);

describe("briefAnswer: one line for the model that retries the call", () => {
  test("one error: where and what; the root is (the value), a missing property its own location", () => {
    assert.equal(brief([type("/n", "number")]), "1 invalid location: /n must be number");
    assert.equal(brief([type("", "object")]), "1 invalid location: (the value) must be object");
    assert.equal(brief([required("/a", "b")]), "1 invalid location: /a/b is required");
    assert.equal(brief([required("", "a/b~c")]), "1 invalid location: /a~1b~0c is required", "keys escaped as JSON Pointer segments");
  });

  test("the first three locations in the validator's order, then how many more", () => {
    const errors = ["a", "b", "c", "d", "e"].map((k) => required("", k));
    assert.equal(brief(errors), "5 invalid locations: /a is required; /b is required; /c is required; and 2 more");
  });

  test("a location met twice is counted once; a second, different problem there joins it, a third does not", () => {
    const errors: BriefError[] = [
      { instancePath: "/s", keyword: "minLength", params: { limit: 3 } },
      { instancePath: "/s", keyword: "pattern", params: { pattern: "^[a-z]+$" } },
      { instancePath: "/s", keyword: "format", params: { format: "email" } },
      { instancePath: "/s", keyword: "minLength", params: { limit: 3 } },
      { instancePath: "", keyword: "additionalProperties", params: { additionalProperty: "x" } },
      { instancePath: "", keyword: "additionalProperties", params: { additionalProperty: "y" } },
    ];
    assert.equal(
      brief(errors),
      '2 invalid locations: /s must be at least 3 characters long, must match pattern "^[a-z]+$"; (the value) has a property the schema does not allow',
    );
  });

  test("locations past the third are counted once each too", () => {
    const errors = [
      required("", "a"),
      required("", "b"),
      required("", "c"),
      type("/d", "string"),
      type("/d", "string"),
      type("/e", "string"),
    ];
    assert.equal(brief(errors), "5 invalid locations: /a is required; /b is required; /c is required; and 2 more");
  });

  test("a list cut short by the error budget counts N+", () => {
    const errors = Array.from({ length: ERROR_BUDGET }, (_, i) => type(`/items/${i}`, "string"));
    assert.match(
      brief(errors),
      new RegExp(
        `^${ERROR_BUDGET}\\+ invalid locations: /items/0 must be string; /items/1 must be string; /items/2 must be string; and ${ERROR_BUDGET - 3} more$`,
      ),
    );
    assert.match(briefAnswer([type("", "object")], 1), /^1\+ invalid locations: /);
  });

  test("a failed anyOf: the likely branch's problems, and the union's own words only where none lies below it", () => {
    const union = { union: 0 };
    const errors: BriefError[] = [
      // Branch 0 (a text block) fails on its text; branch 1 (an image) on everything.
      { instancePath: "/c/text", keyword: "type", params: { type: "string" }, branches: [0, "/c", 0] },
      { instancePath: "/c/type", keyword: "const", params: {}, branches: [0, "/c", 1] },
      { instancePath: "/c", keyword: "required", params: { missingProperty: "data" }, branches: [0, "/c", 1] },
      { instancePath: "/c", keyword: "anyOf", params: union },
    ];
    assert.equal(brief(errors), "1 invalid location: /c/text must be string");
    assert.equal(
      brief([{ instancePath: "/u", keyword: "anyOf", params: union }]),
      "1 invalid location: /u must match one of the allowed shapes",
    );
  });

  test("nothing of the value: enum and const name no value, a pattern longer than 60 is not quoted", () => {
    assert.equal(brief([{ instancePath: "/e", keyword: "enum", params: {} }]), "1 invalid location: /e must be one of the allowed values");
    assert.equal(brief([{ instancePath: "/e", keyword: "const", params: {} }]), "1 invalid location: /e must equal the schema's constant");
    assert.equal(
      brief([{ instancePath: "/p", keyword: "pattern", params: { pattern: "x".repeat(61) } }]),
      "1 invalid location: /p must match the schema's pattern",
    );
  });

  test("each keyword's words, from the params Ajv writes; an unknown keyword is named, never its value", () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["type", { type: "integer" }, "must be integer"],
      ["type", { type: ["string", "null"] }, "must be string or null"],
      ["additionalProperties", { additionalProperty: "x" }, "has a property the schema does not allow"],
      ["unevaluatedProperties", { unevaluatedProperty: "x" }, "has a property the schema does not allow"],
      ["format", { format: "email" }, 'must be a valid "email" string'],
      ["oneOf", { passingSchemas: [0, 1] }, "must match exactly one of the allowed shapes"],
      ["minimum", { comparison: ">=", limit: 3 }, "must be >= 3"],
      ["maximum", { comparison: "<=", limit: 9 }, "must be <= 9"],
      ["exclusiveMinimum", { comparison: ">", limit: 0 }, "must be > 0"],
      ["exclusiveMaximum", { comparison: "<", limit: 1 }, "must be < 1"],
      ["maxItems", { limit: 4 }, "must have at most 4 items"],
      ["minItems", { limit: 2 }, "must have at least 2 items"],
      ["maxLength", { limit: 10 }, "must be at most 10 characters long"],
      ["minLength", { limit: 1 }, "must be at least 1 characters long"],
      ["maxProperties", { limit: 5 }, "must have at most 5 properties"],
      ["minProperties", { limit: 1 }, "must have at least 1 properties"],
      ["multipleOf", { multipleOf: 3 }, "must be a multiple of 3"],
      ["uniqueItems", { i: 1, j: 0 }, "must not have duplicate items"],
      ["not", {}, "must not match the excluded shape"],
      ["contains", { minContains: 1 }, 'fails the schema\'s "contains" rule'],
    ];
    for (const [keyword, params, words] of cases)
      assert.equal(brief([{ instancePath: "/v", keyword, params }]), `1 invalid location: /v ${words}`, keyword);
  });

  test("dependentRequired and draft-07 dependencies name the missing property's location, as required does", () => {
    const params = { property: "x", missingProperty: "y", depsCount: 1, deps: "y" };
    for (const keyword of ["dependentRequired", "dependencies"])
      assert.equal(brief([{ instancePath: "/o", keyword, params }]), "1 invalid location: /o/y is required", keyword);
  });

  test("a pattern is quoted up to 60 characters; one that is no string is not quoted", () => {
    const pattern = (p: unknown) => brief([{ instancePath: "/p", keyword: "pattern", params: { pattern: p } }]);
    assert.equal(pattern("y".repeat(60)), `1 invalid location: /p must match pattern "${"y".repeat(60)}"`);
    assert.equal(pattern("y".repeat(61)), "1 invalid location: /p must match the schema's pattern");
    for (const p of [undefined, 5, ["^a$"]]) assert.equal(pattern(p), "1 invalid location: /p must match the schema's pattern", String(p));
  });

  test("the third location met again takes its second problem too, and the root can be the third location", () => {
    const errors: BriefError[] = [
      type("/a", "string"),
      type("/b", "string"),
      { instancePath: "/c", keyword: "minLength", params: { limit: 2 } },
      { instancePath: "/c", keyword: "pattern", params: { pattern: "^c" } },
    ];
    assert.equal(
      brief(errors),
      '3 invalid locations: /a must be string; /b must be string; /c must be at least 2 characters long, must match pattern "^c"',
    );
    assert.equal(
      brief([type("/a", "string"), type("/b", "string"), type("", "object")]),
      "3 invalid locations: /a must be string; /b must be string; (the value) must be object",
    );
  });

  test("a union with nothing below it is one more location, in whichever place comes next", () => {
    const union = (instancePath: string): BriefError => ({ instancePath, keyword: "anyOf", params: {} });
    const shapes = "must match one of the allowed shapes";
    assert.equal(brief([union("")]), `1 invalid location: (the value) ${shapes}`);
    assert.equal(brief([type("/a", "string"), union("/u")]), `2 invalid locations: /a must be string; /u ${shapes}`);
    assert.equal(
      brief([type("/a", "string"), type("/b", "string"), union("/u")]),
      `3 invalid locations: /a must be string; /b must be string; /u ${shapes}`,
    );
    assert.equal(
      brief([type("/a", "string"), type("/b", "string"), type("/c", "string"), union("/u")]),
      "4 invalid locations: /a must be string; /b must be string; /c must be string; and 1 more",
    );
    // A location that merely starts with the union's text is not below it.
    assert.equal(brief([type("/ux", "string"), union("/u")]), `2 invalid locations: /ux must be string; /u ${shapes}`);
  });

  test("a union is not counted when a problem lies at it or below it, in any named place or past them", () => {
    const union: BriefError = { instancePath: "/u", keyword: "anyOf", params: {} };
    assert.equal(brief([type("/u", "string"), union]), "1 invalid location: /u must be string");
    assert.equal(
      brief([type("/a", "string"), type("/u/x", "string"), union]),
      "2 invalid locations: /a must be string; /u/x must be string",
    );
    assert.equal(
      brief([type("/a", "string"), type("/b", "string"), type("/u/x", "string"), union]),
      "3 invalid locations: /a must be string; /b must be string; /u/x must be string",
    );
    const named = [type("/a", "string"), type("/b", "string"), type("/c", "string")];
    assert.equal(
      brief([...named, type("/u/x", "string"), union]),
      "4 invalid locations: /a must be string; /b must be string; /c must be string; and 1 more",
    );
    assert.equal(
      brief([...named, type("/v", "string"), type("/u/x", "string"), union]),
      "5 invalid locations: /a must be string; /b must be string; /c must be string; and 2 more",
    );
  });

  test("a short location is shown as it is only when it is plain ASCII: a control character or a backslash is escaped, a long key cut", () => {
    assert.equal(brief([type("/a\u0007", "string")]), "1 invalid location: /a\\u0007 must be string");
    assert.equal(brief([type("/a\\b", "string")]), "1 invalid location: /a\\\\b must be string");
    assert.equal(brief([type(`/${"k".repeat(70)}`, "string")]), `1 invalid location: /${"k".repeat(64)}… must be string`);
    assert.equal(brief([type(`/${"k".repeat(63)}`, "string")]), `1 invalid location: /${"k".repeat(63)} must be string`);
  });

  test("keys with control characters are escaped, long ones cut: the line stays one line and bounded", () => {
    const key = `a\u001b[2J\r\n${"k".repeat(300)}`;
    const line = brief([type(`/${key}`, "boolean"), type(`/x/${key}`, "string"), type(`/y/${key}`, "string"), type("/z", "null")]);
    assert.doesNotMatch(line, /[\u0000-\u001f\u2028\u2029]/);
    assert.ok(line.includes("\\u001b[2J\\u000d\\u000a"), line);
    assert.ok(line.includes("…"), "a cut location ends in an ellipsis");
    assert.ok(line.length < 3 * 140 + 80, `${line.length} characters`);
  });

  test("whatever the errors, the line is bounded and a single line", () => {
    const next = random(0xb71e);
    for (let n = 0; n < 500; n++) {
      const errors: BriefError[] = [];
      const count = 1 + Math.floor(next() * 70);
      for (let i = 0; i < count; i++) {
        const key = String.fromCharCode(...Array.from({ length: Math.floor(next() * 200) }, () => Math.floor(next() * 0x3000)));
        errors.push(next() < 0.5 ? type(`/${key}`, "string") : required(`/${i}`, key));
      }
      const line = brief(errors);
      assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      assert.ok(line.length < 800, `${line.length} characters`);
    }
  });
});
