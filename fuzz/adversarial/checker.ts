/**
 * @module fuzz/adversarial/checker: whether a value is valid for any node of a lane's schema, by its JSON pointer.
 * Ajv compiled at run time with codegen's options (first error only: only the verdict is used), so the generator
 * builds and checks its instances against the very rules the generated validators apply.
 */
import { Ajv, type ValidateFunction } from "ajv";
import { ajvOptions, engineDocument } from "../../scripts/codegen/compile-validators.js";
import type { JsonSchema } from "../../scripts/codegen/load-spec.js";
import type { Selection } from "../../scripts/codegen/select-definitions.js";

export type Checker = (pointer: string, value: unknown) => boolean;

/** A pointer segment as JSON Pointer (RFC 6901) inside a URI fragment. */
export function pointerSegment(key: string | number): string {
  return String(key).replace(/~/g, "~0").replace(/\//g, "~1");
}

export function makeChecker(defs: Record<string, JsonSchema>, formats: Record<string, string>, id: string): Checker {
  const ajv = new Ajv({ ...ajvOptions(formats), allErrors: false, code: { source: false } });
  ajv.addSchema(engineDocument({ defs } as Selection, id));
  const compiled = new Map<string, ValidateFunction>();
  return (pointer, value) => {
    let validate = compiled.get(pointer);
    if (!validate) {
      const fragment = pointer
        .split("/")
        .map((s) => encodeURIComponent(s))
        .join("/");
      validate = ajv.compile({ $ref: `${id}#${fragment}` });
      compiled.set(pointer, validate);
    }
    return validate(value) as boolean;
  };
}
