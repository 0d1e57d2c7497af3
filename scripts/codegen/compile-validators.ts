import { Ajv, type Options } from "ajv";
import standalone from "ajv/dist/standalone/index.js";

// A CommonJS module whose `default` is the function itself, both at run time and in its types.
const standaloneCode = standalone.default;
import type { JsonSchema } from "./load-spec.js";
import type { Selection } from "./select-definitions.js";
import { linearFormats } from "../../src/codegen/linear-formats.js";
import { taggedAnyOf } from "../../src/codegen/tagged-any-of.js";
import { switchableFormats } from "./switchable-formats.js";

/**
 * Keywords these revisions use that mean the same under draft-07 and 2020-12. The validators are
 * compiled with Ajv's draft-07 class, which skips 2020-12's evaluated-property bookkeeping on every
 * anyOf branch; a schema with any other keyword stops codegen instead of silently changing meaning.
 */
export const SHARED_KEYWORDS = new Set([
  // No oneOf or not: a failing subschema there can make its parent pass, which the error budget's early exit
  // (budget-helpers.ts) only allows for anyOf branches.
  "$ref",
  "$defs",
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "allOf",
  "const",
  "enum",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "pattern",
  "default",
  "title",
  "deprecated",
]);

/** The options shared by codegen and by the tests that compile the same schema at run time. */
export function ajvOptions(formats: Record<string, string>): Options {
  return {
    allErrors: true,
    // Messages are written by the runtime from keyword and params; leaving Ajv's out saves 8 % of the code.
    messages: false,
    strict: true,
    allowUnionTypes: true,
    inlineRefs: false,
    formats: Object.fromEntries(Object.entries(formats).map(([name, source]) => [name, new RegExp(source, "u")])),
    code: { source: true, esm: true, lines: true },
  };
}

export class UnsupportedKeywordError extends Error {
  override name = "UnsupportedKeywordError";
}

/** The schema document handed to Ajv: all definitions, no `$schema` (the engine is chosen here). */
export function engineDocument(selection: Selection, id: string): JsonSchema {
  const doc: JsonSchema = { $id: id, $defs: selection.defs };
  assertSharedKeywords(doc.$defs, "#/$defs", true);
  return doc;
}

/** The `$id` an era's document is compiled under. */
export function eraDocumentId(era: string): string {
  return `urn:wymcp:${era}`;
}

/** The compiler codegen uses: Ajv's draft-07 class with the options above and anyOf branches tagged. */
function createEngine(formats: Record<string, string>): Ajv {
  const ajv = new Ajv(ajvOptions(formats));
  ajv.removeKeyword("anyOf");
  ajv.addKeyword(taggedAnyOf());
  return ajv;
}

/** Ajv standalone ESM code exporting one validator per entry, under the entry's name, its format checks switchable. */
export function compileValidators(selection: Selection, formats: Record<string, string>): string {
  const id = eraDocumentId(selection.config.era);
  const ajv = createEngine(formats);
  ajv.addSchema(engineDocument(selection, id));
  const refs = Object.fromEntries(selection.entries.map((name) => [name, `${id}#/$defs/${name}`]));
  const code = standaloneCode(ajv, refs);
  if (/\brequire\(/.test(code)) {
    throw new UnsupportedKeywordError(
      `Ajv's standalone code for ${selection.config.era} requires a runtime helper; ` +
        `avoid the keyword or option that needs it: ${code.match(/require\([^)]*\)/)?.[0]}`,
    );
  }
  return switchableFormats(linearFormats(code, formats));
}

function assertSharedKeywords(node: unknown, path: string, nameMap: boolean): void {
  if (Array.isArray(node)) return node.forEach((item, i) => assertSharedKeywords(item, `${path}/${i}`, false));
  if (node === null || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (nameMap) {
      assertSharedKeywords(value, `${path}/${key}`, false);
      continue;
    }
    if (!SHARED_KEYWORDS.has(key)) {
      throw new UnsupportedKeywordError(`keyword ${key} at ${path} is not known to mean the same in draft-07 and 2020-12`);
    }
    if (key === "items" && Array.isArray(value)) throw new UnsupportedKeywordError(`array-form items at ${path}`);
    const isNameMap = key === "properties" || key === "$defs";
    if (key === "const" || key === "enum" || key === "default") continue;
    assertSharedKeywords(value, `${path}/${key}`, isNameMap);
  }
}
