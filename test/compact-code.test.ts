import assert from "node:assert/strict";
import { test } from "node:test";
import { CompactionError, compactCode } from "../scripts/codegen/compact-code.js";

const AJV_SHAPED = [
  'const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "id"}};',
  "if(vErrors === null){\nvErrors = [err0];\n}\nelse {\nvErrors.push(err0);\n}\nerrors++;",
  "vErrors = vErrors === null ? validate24.errors : vErrors.concat(validate24.errors);",
  "vErrors = vErrors === null ? wrapper0.validate.errors : vErrors.concat(wrapper0.validate.errors);",
].join("\n");

test("compactCode rewrites each Ajv idiom into its short form", () => {
  assert.equal(
    compactCode(AJV_SHAPED),
    [
      'const err0 = {instancePath,keyword:"required",params:{missingProperty: "id"}};',
      "(vErrors ??= []).push(err0);\nerrors++;",
      "vErrors = (vErrors ?? []).concat(validate24.errors);",
      "vErrors = (vErrors ?? []).concat(wrapper0.validate.errors);",
    ].join("\n"),
  );
});

test("compactCode stops on an idiom it does not know instead of half-compacting", () => {
  assert.throws(() => compactCode("if(vErrors === null){ vErrors = [err0]; } else { vErrors.push(err0); }"), CompactionError);
  assert.throws(() => compactCode("vErrors = vErrors === null ? other.errors : vErrors.concat(other.errors);"), CompactionError);
});

test("compactCode drops a schema constant no code reads and keeps one that is read", () => {
  const code = ['const schema7 = {"type":"object"};', 'const schema8 = {"type":["string","integer"]};', "f(schema8.type);", ""].join("\n");
  assert.equal(compactCode(code), ['const schema8 = {"type":["string","integer"]};', "f(schema8.type);", ""].join("\n"));
});

test("the compacted push keeps Ajv's semantics: a first error makes the array, later ones append", () => {
  let vErrors: unknown[] | null = null;
  (vErrors ??= []).push(1);
  const first = vErrors;
  (vErrors ??= []).push(2);
  assert.deepEqual(vErrors, [1, 2]);
  assert.equal(vErrors, first);
});
