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
import { compactCode } from "../../scripts/codegen/compact-code.js";
import { taggedAnyOf } from "../../scripts/codegen/tagged-any-of.js";
import type { Dialect } from "./dialect.js";
import { replaceRequires } from "./runtime-helpers.js";

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
  /** Whether anyOf branches are tagged for the distiller (not under unevaluated* keywords). */
  tagged: boolean;
  /** Standalone code (CommonJS-style `exports.sN = ...`), requires replaced. */
  code: string;
  /** Structure key → the group's export name. */
  exports: Map<string, string>;
  helpers: string[];
}

// The tagged anyOf does not merge evaluated properties, so a schema that reads them keeps Ajv's own anyOf.
const EVALUATION_KEYWORDS = /"(?:unevaluatedProperties|unevaluatedItems|\$dynamicRef|\$recursiveRef)"\s*:/;

/** One group per dialect (and per anyOf flavour), in a fixed order, so the same input gives the same code. */
export function compileSchemas(schemas: UniqueSchema[]): CompiledGroup[] {
  const groups = new Map<string, UniqueSchema[]>();
  for (const item of schemas) {
    const tagged = !EVALUATION_KEYWORDS.test(JSON.stringify(item.schema));
    const id = `${item.dialect}${tagged ? "" : "-untagged"}`;
    const list = groups.get(id);
    if (list) list.push(item);
    else groups.set(id, [item]);
  }
  const out: CompiledGroup[] = [];
  for (const id of [...groups.keys()].sort()) {
    const items = groups.get(id)!;
    const dialect = items[0]!.dialect;
    const tagged = !id.endsWith("-untagged");
    const ajv = createEngine(dialect, tagged);
    const refs: Record<string, string> = {};
    const exports = new Map<string, string>();
    items.forEach((item, i) => {
      const name = `s${i}`;
      ajv.addSchema(item.schema, `wymcp-${name}`);
      refs[name] = `wymcp-${name}`;
      exports.set(item.key, name);
    });
    const { code, helpers } = replaceRequires(compactCode(standaloneCode(ajv, refs)));
    out.push({ variable: `group${out.length}`, dialect, tagged, code, exports, helpers });
  }
  return out;
}

function createEngine(dialect: Dialect, tagged: boolean): Ajv {
  const options: Options = { ...SDK_AJV_OPTIONS, messages: false, code: { source: true, lines: true } };
  const ajv = new ENGINES[dialect](options) as Ajv;
  addFormats(ajv);
  if (tagged) {
    ajv.removeKeyword("anyOf");
    ajv.addKeyword(taggedAnyOf());
  }
  return ajv;
}
