/**
 * @module runtime: what every module `wymcp compile` writes carries beside its validators. Not imported at run time:
 * `npm run codegen` bundles this file, with the core modules it imports, into generated/compile-runtime.js, and
 * `wymcp compile` writes that text into each module (`npm run codegen -- --check` fails when it is stale). So the
 * distiller, the escaping and the structure key a compiled module runs are the core's own code, not a copy.
 */
import type { ValidationError } from "../../../../generated/validator.js";
import { structureKey } from "../canonical.js";
import { toolMessage } from "./message.js";

/** A schema's validator as the SDK's `jsonSchemaValidator` returns it. */
type Validate = (input: unknown) => { valid: boolean; data: unknown; errorMessage: string | undefined };

/** The SDK's result for an invalid input: the message distilled from the validator's errors. */
export function invalidResult(errors: readonly ValidationError[] | null | undefined) {
  return { valid: false, data: undefined, errorMessage: toolMessage(errors || []) };
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
