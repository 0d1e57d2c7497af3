/**
 * @module "Ajv compiled at boot": the exact document, options and entries codegen compiles into generated/,
 * taken from the codegen stages themselves so that both sides of the comparison judge by the same schema.
 */
import { deepStrictEqual } from "node:assert/strict";
import { Ajv, type Options, type ValidateFunction } from "ajv";
import { ajvOptions, engineDocument, eraDocumentId } from "../scripts/codegen/compile-validators.js";
import { readEraConfigs, readFormats, selectEra, selectEraRevisions } from "../scripts/codegen/generate.js";
import { revisionsCompileSelection } from "../scripts/codegen/select-revisions.js";
import type { JsonSchema } from "../scripts/codegen/load-spec.js";
import { reviveOptions, serializeOptions, type SerializedOptions } from "./ajv-options.mjs";

export interface EngineEra {
  era: string;
  /** The `$id` codegen gives the era's document. */
  id: string;
  document: JsonSchema;
  /** The definitions codegen exports as validators, in its order. */
  entries: string[];
}

export interface Engine {
  options: Options;
  eras: EngineEra[];
}

export function engine(schemasDir: string, specDir: string): Engine {
  const options = ajvOptions(readFormats(schemasDir));
  const eras = readEraConfigs(schemasDir).map((config) => {
    const selection = selectEra(config, specDir);
    // An era judged revision by revision compiles every revision's definitions, shared where equal, as codegen does.
    const revisions = selectEraRevisions(selection, specDir);
    const compiled = revisions ? revisionsCompileSelection(selection, revisions) : selection;
    const id = eraDocumentId(config.era);
    return { era: config.era, id, document: engineDocument(compiled, id), entries: compiled.entries };
  });
  return { options, eras };
}

/** What the start-up child reads: the options as JSON (checked to revive to the very same options) and the documents. */
export function enginePayload(e: Engine): string {
  const options = serializeOptions(e.options);
  deepStrictEqual(reviveOptions(JSON.parse(JSON.stringify(options)) as SerializedOptions), e.options);
  return JSON.stringify({ options, eras: e.eras });
}

/** Compiles every entry of every era, as a server compiling at boot would; era → entry → validator. */
export function compileAtBoot(e: Engine): Record<string, Record<string, ValidateFunction>> {
  const out: Record<string, Record<string, ValidateFunction>> = {};
  for (const { era, id, document, entries } of e.eras) {
    const ajv = new Ajv(e.options);
    ajv.addSchema(document);
    out[era] = Object.fromEntries(
      entries.map((name) => {
        const validate = ajv.getSchema(`${id}#/$defs/${name}`);
        if (!validate) throw new Error(`Ajv has no ${name} in ${id}`);
        return [name, validate];
      }),
    );
  }
  return out;
}
