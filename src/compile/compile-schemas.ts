/**
 * @module compile-schemas: Ajv standalone code for a server's schemas, compiled as the SDK's own Ajv provider
 * compiles them (the class its dialect rule picks, its options, ajv-formats), then through the shared codegen
 * stages (tagged anyOf, compact-code) that wymcp's own validators go through.
 */
import { Ajv, type Options } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import standalone from "ajv/dist/standalone/index.js";
import addFormatsModule from "ajv-formats";
import { boundKeys } from "../codegen/bound-keys.js";
import { compactCode } from "../codegen/compact-code.js";
import { taggedAnyOf } from "../codegen/tagged-any-of.js";
import { ERROR_BUDGET } from "../core/error-budget.js";
import type { Dialect } from "./dialect.js";
import { replaceRequires } from "./runtime-helpers.js";
import { shrinkCode } from "./shrink-code.js";

const standaloneCode = standalone.default;
// ajv-formats is CommonJS: its default export is the plugin, whichever way the loader wraps it.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/**
 * The SDK's options (createDefaultAjvInstance in @modelcontextprotocol/server's ajvProvider): verdicts follow
 * them. `messages: false` only leaves Ajv's English out (the distiller writes its own); it changes no verdict.
 */
export const SDK_AJV_OPTIONS = { strict: false, validateFormats: true, validateSchema: false, allErrors: true } as const;

const ENGINES = { "2020-12": Ajv2020, "2019-09": Ajv2019, "draft-07": Ajv } as const;

export interface UniqueSchema {
  /** The structure key (canonical.ts). */
  key: string;
  schema: object;
  dialect: Dialect;
}

export interface CompiledGroup {
  /** The variable the group's exports object is bound to in the module. */
  variable: string;
  dialect: Dialect;
  /**
   * Whether the group keeps wymcp's own shape: all errors up to the error budget, anyOf branches tagged. Otherwise
   * (a schema with oneOf, not, if, contains, unevaluated* or a dynamic reference) it stops at its first error.
   */
  bounded: boolean;
  /** Standalone code (CommonJS-style `exports.sN = ...`), requires replaced. */
  code: string;
  /** Structure key → the group's export name. */
  exports: Map<string, string>;
  helpers: string[];
}

/**
 * Keywords under which a failing subschema need not fail its parent (other than anyOf), or that read evaluated
 * properties (which the tagged anyOf does not merge). The error budget's early exit (scripts/codegen/error-budget.ts)
 * is sound only where anyOf is the one such keyword, so these schemas are compiled with `allErrors: false`
 * instead: verdicts are the same, the cost is linear too, the message names the first problem only. A property
 * merely named like one of them is counted too, which only costs that schema its full error list.
 */
const UNBOUNDABLE = /"(?:oneOf|not|if|contains|unevaluatedProperties|unevaluatedItems|\$dynamicRef|\$recursiveRef)"\s*:/;

/**
 * Schemas per call of Ajv's standaloneCode. Given many schemas at once it rebuilds its whole output at each one
 * (`code = _\`${code}...\``, a copy of every code item so far): quadratic in the number of schemas, and past about
 * 8,000 small ones the copy's argument spread overflows the stack. One call per slice of this many keeps the work
 * linear; each slice is a group of its own, in its own function scope, so the values Ajv declares for each call
 * (formats, referenced validators) never meet another slice's.
 */
export const SCHEMAS_PER_GROUP = 256;

/** How the edge compiles a server's schemas, where `wymcp compile` follows the SDK (native patterns, formats asserted). */
export interface EngineOptions {
  /** The engine of `pattern` and `patternProperties` (Ajv's `code.regExp`); the SDK's native RegExp when unset. */
  regExp?: NonNullable<NonNullable<Options["code"]>["regExp"]>;
  /** Whether `format` is asserted (ajv-formats, as the SDK registers it); an annotation when false. Default true. */
  formats?: boolean;
}

/**
 * One group per dialect and shape (and per {@link SCHEMAS_PER_GROUP} schemas of them), in a fixed order, so the same
 * input gives the same code.
 */
export function compileSchemas(schemas: UniqueSchema[], engine: EngineOptions = {}): CompiledGroup[] {
  const groups = new Map<string, UniqueSchema[]>();
  for (const item of schemas) {
    const id = `${item.dialect}${UNBOUNDABLE.test(JSON.stringify(item.schema)) ? "-first-error" : ""}`;
    const list = groups.get(id);
    if (list) list.push(item);
    else groups.set(id, [item]);
  }
  const out: CompiledGroup[] = [];
  for (const id of [...groups.keys()].sort()) {
    const items = groups.get(id)!;
    const bounded = !id.endsWith("-first-error");
    for (let start = 0; start < items.length; start += SCHEMAS_PER_GROUP)
      out.push(compileGroup(items.slice(start, start + SCHEMAS_PER_GROUP), bounded, `group${out.length}`, engine));
  }
  return out;
}

/** Schemas of one dialect and shape, compiled by an engine of their own into one standalone group. */
function compileGroup(items: UniqueSchema[], bounded: boolean, variable: string, engine: EngineOptions): CompiledGroup {
  const dialect = items[0]!.dialect;
  const ajv = createEngine(dialect, bounded, engine);
  const refs: Record<string, string> = {};
  const exports = new Map<string, string>();
  const objectRoots = new Set<string>();
  items.forEach((item, i) => {
    if (fastRejectsNonObjects(item.schema)) objectRoots.add(`s${i}`);
    const name = `s${i}`;
    ajv.addSchema(item.schema, `wymcp-${name}`);
    refs[name] = `wymcp-${name}`;
    exports.set(item.key, name);
  });
  let source: string;
  try {
    source = standaloneCode(ajv, refs);
  } catch (error) {
    throw failingSchema(items, bounded, error);
  }
  // A location keeps the first units of a client's key that an answer can show (bound-keys.ts): tool arguments are client data.
  let code = boundKeys(compactCode(source));
  if (!bounded) code = withoutBudget(code);
  code = shrinkCode(code, bounded);
  code = resultShaped(code, objectRoots);
  const replaced = replaceRequires(code);
  return { variable, dialect, bounded, code: replaced.code, exports, helpers: replaced.helpers };
}

/** A schema Ajv cannot compile: its structure key (the caller names its file and tool), and Ajv's reason. */
export class SchemaCompileError extends Error {
  override name = "SchemaCompileError";
  constructor(
    readonly key: string,
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`a schema cannot be compiled: ${reason}`, options);
  }
}

/**
 * Which schema of a group made Ajv fail, compiled alone by an engine of its own (a group compiles every schema at
 * once, and Ajv's error names the group's internal id at most); the reason without that id.
 */
function failingSchema(items: UniqueSchema[], bounded: boolean, groupError: unknown): Error {
  for (const item of items) {
    try {
      createEngine(item.dialect, bounded).compile(item.schema);
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).replace(/ from id \S+/g, "").split("\n")[0]!;
      return new SchemaCompileError(item.key, reason, { cause: error });
    }
  }
  return groupError instanceof Error ? groupError : new Error(String(groupError));
}

/**
 * Each export becomes a function of its own that returns the SDK's result shape, written out per schema rather
 * than a closure over shared code: its call to the validator stays monomorphic, which keeps a valid call as fast
 * as the SDK's runtime-compiled Ajv. The group lives in a function scope of the one module, so exports become
 * properties of `exports`; `invalidResult` is the module's distiller (runtime/index.ts, bundled from the core),
 * `budgetResult` shrink-code.ts's.
 */
function resultShaped(code: string, objectRoots: ReadonlySet<string>): string {
  const out = code.replace(
    /^export const (s\d+) = withinBudget\((validate\d+)\);$/gm,
    (_line, name: string, validate: string) =>
      `exports.${name} = function ${name}(input) {\n` +
      (objectRoots.has(name) ? "  if (notObject(input)) return notObjectResult();\n" : "") +
      `  try { return ${validate}(input) ? { valid: true, data: input, errorMessage: undefined } : invalidResult(${validate}.errors); } catch (thrown) { return budgetResult(thrown); }\n};`,
  );
  if (/^export const /m.test(out)) throw new Error("compact-code.ts's exports changed shape; compile-schemas.ts must be updated");
  return out;
}

/** Root keywords that apply to objects alone, and annotations: with nothing else beside `type: "object"`, any other value fails with one error. */
const OBJECT_ONLY = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "unevaluatedProperties",
  "$schema",
  "$id",
  "$anchor",
  "$comment",
  "$defs",
  "definitions",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

/**
 * Whether a value that is not an object fails the schema with exactly one error, its root type's: then the module
 * answers it before running the validator, with the message the validator's path would give (`notObjectResult` in
 * runtime/index.ts, written by the core's briefAnswer). Tool arguments are objects, so this is the commonest
 * failure that costs the interpreter nothing; a `$ref` or any other keyword beside the type keeps the full path.
 */
export function fastRejectsNonObjects(schema: object): boolean {
  if ((schema as { type?: unknown }).type !== "object") return false;
  for (const key of Object.keys(schema)) if (!OBJECT_ONLY.has(key)) return false;
  return true;
}

const BUDGET_THROW = `if (list.push(error) >= ${ERROR_BUDGET}) throw new ErrorBudgetReached(list);`;

/** A first-error group's pushes never throw: the budget's early exit is unsound under oneOf, not, if and contains. */
function withoutBudget(code: string): string {
  if (!code.includes(BUDGET_THROW)) throw new Error("compact-code.ts's budget helpers changed; compile-schemas.ts must be updated");
  return code.replace(BUDGET_THROW, "list.push(error);");
}

/** An engine as the SDK configures it, with the tagged anyOf in a bounded group. */
export function createEngine(dialect: Dialect, bounded: boolean, engine: EngineOptions = {}): Ajv {
  const code: Options["code"] = { source: true, esm: true, lines: true, ...(engine.regExp ? { regExp: engine.regExp } : {}) };
  const options: Options = { ...SDK_AJV_OPTIONS, validateFormats: engine.formats ?? true, allErrors: bounded, messages: false, code };
  const ajv = new ENGINES[dialect](options) as Ajv;
  addFormats(ajv);
  if (bounded) {
    ajv.removeKeyword("anyOf");
    ajv.addKeyword(taggedAnyOf());
  }
  return ajv;
}
