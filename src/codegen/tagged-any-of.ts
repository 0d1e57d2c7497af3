import type { CodeKeywordDefinition, KeywordCxt } from "ajv";
import { _, not, strConcat } from "ajv/dist/compile/codegen/index.js";
import { _Code } from "ajv/dist/compile/codegen/code.js";
import names from "ajv/dist/compile/names.js";

/**
 * The generated code's one helper, as the source emitted once per module: marks every error a failed
 * anyOf branch produced with the union, the instance location of the union, and the branch. The runtime
 * uses the marks to keep the branch the client most likely meant (src/core/likely-branch.ts). Kept as text,
 * not as a function's `toString()`, so the bytes do not depend on how this file was transpiled; the
 * keyword is therefore for standalone code only (a run-time compile would find no function to call).
 */
export const TAG_BRANCH_SOURCE =
  "function tagBranch(errors, from, to, union, at, branch) { for (let i = from; i < to; i++) (errors[i].branches ??= []).push(union, at, branch); }";

/**
 * Ajv's own anyOf (vocabularies/code.ts validateUnion), plus a call to `tagBranch` after each failed
 * branch, the union's number in the anyOf error's params, and each branch in a `try` that catches the error
 * budget running out (budget-helpers.ts). Verdicts are Ajv's: only the errors
 * carry more. Unions are numbered in compile order, so the same input gives the same code.
 */
export function taggedAnyOf(): CodeKeywordDefinition {
  let unions = 0;
  return {
    keyword: "anyOf",
    schemaType: "array",
    trackErrors: true,
    code(cxt: KeywordCxt) {
      const { gen, schema, it } = cxt;
      const union = unions++;
      const tag = gen.scopeValue("func", { ref: TAG_BRANCH_SOURCE, code: new _Code(TAG_BRANCH_SOURCE) });
      const at = strConcat(names.default.instancePath, it.errorPath);
      const valid = gen.let("valid", false);
      const branchValid = gen.name("_valid");
      const { vErrors, errors } = names.default;
      gen.block(() =>
        (schema as unknown[]).forEach((_branch, i) => {
          const from = gen.const("_from", errors);
          gen.try(
            () => cxt.subschema({ keyword: "anyOf", schemaProp: i, compositeRule: true }, branchValid),
            // The error budget ran out inside this branch (budget-helpers.ts): the branch failed, with what it collected.
            (thrown) => {
              gen.assign(errors, _`absorbErrors(${vErrors} ??= [], ${thrown})`);
              gen.assign(branchValid, false);
            },
          );
          gen.if(not(branchValid), () => gen.code(_`${tag}(${vErrors}, ${from}, ${errors}, ${union}, ${at}, ${i})`));
          gen.assign(valid, _`${valid} || ${branchValid}`);
          // Without unevaluated* keywords nothing needs merging: stop at the first valid branch, as Ajv does.
          gen.if(not(valid));
        }),
      );
      cxt.setParams({ union });
      cxt.result(
        valid,
        () => cxt.reset(),
        () => cxt.error(true),
      );
    },
    error: { message: "must match a schema in anyOf", params: ({ params }) => _`{union: ${params.union}}` },
  };
}
