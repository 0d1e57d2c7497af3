import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type BriefError, briefAnswer } from "../src/core/brief-answer.js";
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
