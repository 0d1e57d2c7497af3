import assert from "node:assert/strict";
import { test } from "node:test";
import { CompactionError, compactCode } from "../src/codegen/compact-code.js";
import { PUSH_NEW_SOURCE, shortenErrors } from "../scripts/codegen/shorten-errors.js";

const SITES = [
  '"use strict";',
  'const err0 = {instancePath,schemaPath:"#/required",keyword:"required",params:{missingProperty: "id"}};',
  "if(vErrors === null){\nvErrors = [err0];\n}\nelse {\nvErrors.push(err0);\n}\nerrors++;",
  'const err1 = {instancePath:instancePath+"/k/" + key0.replace(/~/g, "~0").replace(/\\//g, "~1"),schemaPath:"#/t",keyword:"type",params:{type: schema8.type}};',
  "if(vErrors === null){\nvErrors = [err1];\n}\nelse {\nvErrors.push(err1);\n}\nerrors++;",
].join("\n");

test("shortenErrors makes each error site one call, the location expression and params untouched, the helper after the budget's", () => {
  const out = shortenErrors(compactCode(SITES));
  assert.ok(out.includes('pushNew(vErrors ??= [], instancePath, "required", {missingProperty: "id"});\nerrors++;'));
  assert.ok(
    out.includes(
      'pushNew(vErrors ??= [], instancePath+"/k/" + key0.replace(/~/g, "~0").replace(/\\//g, "~1"), "type", {type: schema8.type});\nerrors++;',
    ),
  );
  assert.doesNotMatch(out, /const err\d/);
  assert.ok(
    out.indexOf(PUSH_NEW_SOURCE) > out.indexOf("function pushError(") &&
      out.indexOf(PUSH_NEW_SOURCE) < out.indexOf("function withinBudget("),
  );
});

test("the shortened site builds the error Ajv's did: the same members in the same order", () => {
  const list: Array<Record<string, unknown>> = [];
  // The helper's own source, run once to compare the object it builds.
  const pushNew = new Function("pushError", `${PUSH_NEW_SOURCE}; return pushNew;`)((l: unknown[], e: unknown) => l.push(e)) as (
    list: unknown[],
    instancePath: string,
    keyword: string,
    params: unknown,
  ) => void;
  pushNew(list, "/a", "type", { type: "string" });
  assert.deepEqual(list, [{ instancePath: "/a", keyword: "type", params: { type: "string" } }]);
  assert.deepEqual(Object.keys(list[0]!), ["instancePath", "keyword", "params"]);
});

test("an error site of another shape stops codegen instead of half-shortening", () => {
  const odd = `${compactCode('"use strict";\n')}\nconst err0 = {keyword:"type",instancePath,params:{}};\npushError(vErrors ??= [], err0);\nerrors++;`;
  assert.throws(() => shortenErrors(odd), CompactionError);
  assert.throws(() => shortenErrors('"use strict";\nconst x = 1;'), CompactionError);
});
