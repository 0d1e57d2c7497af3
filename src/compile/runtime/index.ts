/**
 * @module runtime: what every module `wymcp compile` writes carries beside its validators. Not imported at run time:
 * `npm run build` bundles this file, with the core modules it imports, into the bin (runtime-text.ts, which bundles it
 * as it loads when run from the sources), and `wymcp compile` writes that text into each module. So the
 * answer to invalid arguments (src/compile/runtime/brief-answer.ts), the escaping and the structure key a compiled module runs are
 * the core's own code, not a copy.
 */
import type { ValidationError } from "../../../generated/validator.js";
import { briefAnswer } from "./brief-answer.js";
import { ERROR_BUDGET } from "../../core/error-budget.js";
import { structureKey } from "../canonical.js";

/** A schema's validator as the SDK's `jsonSchemaValidator` returns it. */
type Validate = (input: unknown) => { valid: boolean; data: unknown; errorMessage: string | undefined };

/**
 * The SDK's result for invalid arguments: the core's brief answer, one line for the model that retries the call (a
 * list as long as the error budget was cut short by the validator, and says so).
 */
export function invalidResult(errors: readonly ValidationError[] | null | undefined) {
  return { valid: false, data: undefined, errorMessage: briefAnswer(errors || [], ERROR_BUDGET) };
}

/** What a value that is not an object gets from a schema whose root is `type: "object"` alone: the validator's own answer. */
const NOT_AN_OBJECT = briefAnswer([{ instancePath: "", keyword: "type", params: { type: "object" } }], ERROR_BUDGET);

/**
 * Whether a value is not an object, tested before the validator of a schema whose root is `type: "object"` alone
 * (compile-schemas.ts): that value fails with one error, the root type's, so its answer is known in advance.
 */
export function notObject(input: unknown): boolean {
  return input === null || typeof input !== "object" || Array.isArray(input);
}

export function notObjectResult() {
  return { valid: false, data: undefined, errorMessage: NOT_AN_OBJECT };
}

/**
 * The SDK's `jsonSchemaValidator` over the module's validators: a schema is found by its text as written, then by its
 * structure (any key order); one the module does not hold goes to `fallback`, or is an error naming how to add it.
 */
export function providerOver(
  byText: Map<string, Validate>,
  byKey: Map<string, Validate>,
  options: { fallback?: { getValidator(schema: unknown): Validate } } | undefined,
  compiledFrom: string,
) {
  const fallback = options?.fallback;
  return {
    getValidator(schema: unknown): Validate {
      const found = byText.get(JSON.stringify(schema)) || byKey.get(structureKey(schema));
      if (found) return found;
      if (fallback) return fallback.getValidator(schema);
      throw new Error(
        `wymcp: no precompiled validator for this JSON Schema (structure key ${structureKey(schema)}). ` +
          `Add the schema to the inputs of wymcp compile (this module was compiled from ${compiledFrom}, relative to its folder) ` +
          "and run it again, or pass a fallback provider: createJsonSchemaValidator({ fallback }).",
      );
    },
  };
}
