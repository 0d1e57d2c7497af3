import assert from "node:assert/strict";
import { test } from "node:test";
import { CompactionError, compactCode } from "../src/codegen/compact-code.js";
import { BUDGET_HELPERS_SOURCE } from "../src/codegen/budget-helpers.js";

const AJV_SHAPED = [
  '"use strict";',
  "export const Request = validate22;",
  'const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "id"}};',
  "if(vErrors === null){\nvErrors = [err0];\n}\nelse {\nvErrors.push(err0);\n}\nerrors++;",
  "vErrors = vErrors === null ? validate24.errors : vErrors.concat(validate24.errors);",
  "vErrors = vErrors === null ? wrapper0.validate.errors : vErrors.concat(wrapper0.validate.errors);",
].join("\n");

test("compactCode rewrites each Ajv idiom into its short, budgeted form and puts the budget's helpers first", () => {
  assert.equal(
    compactCode(AJV_SHAPED),
    [
      `"use strict";\n${BUDGET_HELPERS_SOURCE}`,
      "export const Request = withinBudget(validate22);",
      'const err0 = {instancePath,keyword:"required",params:{missingProperty: "id"}};',
      "pushError(vErrors ??= [], err0);\nerrors++;",
      "collectErrors(vErrors ??= [], validate24.errors);",
      "collectErrors(vErrors ??= [], wrapper0.validate.errors);",
    ].join("\n"),
  );
});

test("compactCode stops on an idiom it does not know instead of half-compacting", () => {
  assert.throws(() => compactCode("if(vErrors === null){ vErrors = [err0]; } else { vErrors.push(err0); }"), CompactionError);
  assert.throws(() => compactCode("vErrors = vErrors === null ? other.errors : vErrors.concat(other.errors);"), CompactionError);
  assert.throws(() => compactCode('"use strict";\nexport const Request = wrapper0.validate;'), CompactionError);
});

test("compactCode drops a schema constant no code reads and keeps one that is read", () => {
  const code = [
    '"use strict";',
    'const schema7 = {"type":"object"};',
    'const schema8 = {"type":["string","integer"]};',
    "f(schema8.type);",
    "",
  ].join("\n");
  const helpers = `"use strict";\n${BUDGET_HELPERS_SOURCE}\n`;
  assert.equal(compactCode(code), helpers + ['const schema8 = {"type":["string","integer"]};', "f(schema8.type);", ""].join("\n"));
});

test("the compacted push keeps Ajv's semantics: a first error makes the array, later ones append", () => {
  let vErrors: unknown[] | null = null;
  (vErrors ??= []).push(1);
  const first = vErrors;
  (vErrors ??= []).push(2);
  assert.deepEqual(vErrors, [1, 2]);
  assert.equal(vErrors, first);
});
