import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  assembleBatchDeclarations,
  assembleBatchModule,
  assembleDeclarations,
  assembleIndex,
  assembleIndexDeclarations,
  assembleModule,
  assembleTypes,
  VALIDATOR_DECLARATIONS,
} from "./assemble-module.js";
import {
  assembleOutboundDeclarations,
  assembleOutboundIndex,
  assembleOutboundIndexDeclarations,
  assembleOutboundModule,
} from "./assemble-outbound.js";
import { boundKeys } from "../../src/codegen/bound-keys.js";
import { compactCode } from "../../src/codegen/compact-code.js";
import { assembleCompileRuntime, bundleCompileRuntime } from "./bundle-runtime.js";
import { compileValidators } from "./compile-validators.js";
import { emitTypes } from "./emit-types.js";
import { loadSpec, specDir } from "./load-spec.js";
import { normalizeDefinitions } from "./normalize-definitions.js";
import { selectDefinitions, type EraConfig, type Selection } from "./select-definitions.js";
import { selectOutbound, type Errata, type OutboundConfig, type OutboundSelection } from "./select-outbound.js";
import { stripProse } from "./strip-prose.js";
import type { Files } from "./write-output.js";

export interface GenerateOptions {
  /** The project's `schemas/` folder. */
  schemasDir: string;
  /** The folder holding `schema/<revision>/schema.json`. */
  specDir?: string;
}

/** Reads the era descriptions in `schemas/`, sorted by era name. */
export function readEraConfigs(schemasDir: string): EraConfig[] {
  return readdirSync(schemasDir)
    .filter((name) => name.endsWith(".json") && name !== "formats.json")
    .sort()
    .map((name) => JSON.parse(readFileSync(join(schemasDir, name), "utf8")) as EraConfig);
}

export function readFormats(schemasDir: string): Record<string, string> {
  return JSON.parse(readFileSync(join(schemasDir, "formats.json"), "utf8")) as Record<string, string>;
}

/** The outbound description of `era` in `schemas/outbound/`. */
export function readOutboundConfig(schemasDir: string, era: string): OutboundConfig {
  return JSON.parse(readFileSync(join(schemasDir, "outbound", `${era}.json`), "utf8")) as OutboundConfig;
}

/** Corrections to published schemas, by revision (`schemas/outbound/errata.json`). */
export function readErrata(schemasDir: string): Errata {
  return JSON.parse(readFileSync(join(schemasDir, "outbound", "errata.json"), "utf8")) as Errata;
}

/** One era's server-to-client tables, from the era's selection and `schemas/outbound/`. */
export function selectEraOutbound(selection: Selection, schemasDir: string): OutboundSelection {
  return selectOutbound(selection, readOutboundConfig(schemasDir, selection.config.era), readErrata(schemasDir));
}

/** Ajv standalone code of the outbound entries, compiled like the inbound ones but over the errata-corrected definitions. */
export function compileOutbound(selection: Selection, outbound: OutboundSelection, formats: Record<string, string>): string {
  return boundKeys(compactCode(compileValidators({ ...selection, defs: outbound.defs, entries: outbound.entries }, formats)));
}

/** Loads one era's revision from the spec folder and selects its definitions, prose stripped. */
export function selectEra(config: EraConfig, dir: string = specDir()): Selection {
  const spec = loadSpec(config.revision, dir);
  return selectDefinitions(config, { ...spec, schema: normalizeDefinitions(stripProse(spec.schema)) });
}

/** The framing an era's batches are judged by, from the earlier revision that allowed them; undefined if none did. */
export function selectBatch(config: EraConfig, dir: string = specDir()): Selection | undefined {
  if (!config.batch) return undefined;
  const { revision, framing } = config.batch;
  return selectEra({ era: `${config.era}-batch`, revision, framing, requestUnion: null }, dir);
}

/** Every file of `generated/`, in memory. */
export async function generate(options: GenerateOptions): Promise<Files> {
  const configs = readEraConfigs(options.schemasDir);
  const formats = readFormats(options.schemasDir);
  const files: Files = new Map();
  const manifestEras: Record<string, unknown> = {};
  for (const config of configs) {
    const selection = selectEra(config, options.specDir);
    const { era } = config;
    files.set(`${era}/validators.js`, assembleModule(selection, boundKeys(compactCode(compileValidators(selection, formats)))));
    files.set(`${era}/validators.d.ts`, assembleDeclarations(selection));
    files.set(`${era}/types.d.ts`, assembleTypes(selection, await emitTypes(selection)));
    const outbound = selectEraOutbound(selection, options.schemasDir);
    files.set(`${era}/outbound.js`, assembleOutboundModule(selection, outbound, compileOutbound(selection, outbound, formats)));
    files.set(`${era}/outbound.d.ts`, assembleOutboundDeclarations(selection));
    manifestEras[era] = {
      revision: selection.spec.revision,
      input: { file: selection.spec.file, sha256: selection.spec.sha256 },
      validators: selection.entries,
      methods: Object.fromEntries(selection.methods.map(({ method, definition }) => [method, definition])),
      outbound: outboundManifest(outbound),
    };
    const batch = selectBatch(config, options.specDir);
    if (batch && config.batch) {
      const { refusedFromRevision } = config.batch;
      files.set(
        `${era}/batch.js`,
        assembleBatchModule(batch, boundKeys(compactCode(compileValidators(batch, formats))), refusedFromRevision),
      );
      files.set(`${era}/batch.d.ts`, assembleBatchDeclarations(batch));
      (manifestEras[era] as Record<string, unknown>).batch = {
        revision: batch.spec.revision,
        input: { file: batch.spec.file, sha256: batch.spec.sha256 },
        validators: batch.entries,
        refusedFromRevision,
      };
    }
  }
  const eras = configs.map((c) => c.era);
  const batchEras = configs.filter((c) => c.batch).map((c) => c.era);
  files.set("index.js", assembleIndex(eras, batchEras));
  files.set("index.d.ts", assembleIndexDeclarations(eras, batchEras));
  files.set("validator.d.ts", VALIDATOR_DECLARATIONS);
  files.set("outbound.js", assembleOutboundIndex(eras));
  files.set("outbound.d.ts", assembleOutboundIndexDeclarations(eras));
  const runtime = assembleCompileRuntime(await bundleCompileRuntime());
  files.set("compile-runtime.js", runtime.js);
  files.set("compile-runtime.d.ts", runtime.dts);
  files.set("manifest.json", `${JSON.stringify(manifest(options.schemasDir, manifestEras), null, 2)}\n`);
  return files;
}

function manifest(schemasDir: string, eras: Record<string, unknown>) {
  const sha256 = (file: string) =>
    createHash("sha256")
      .update(readFileSync(join(schemasDir, file)))
      .digest("hex");
  return {
    generatedBy: "scripts/codegen.ts (npm run codegen); do not edit",
    tools: { ajv: toolVersion("ajv"), "json-schema-to-typescript": toolVersion("json-schema-to-typescript") },
    engine:
      "Ajv draft-07 class, allErrors, no messages, anyOf branches tagged (tagged-any-of.ts), formats from schemas/formats.json, compacted by compact-code.ts",
    projectInputs: Object.fromEntries(
      [...readdirSync(schemasDir), ...readdirSync(join(schemasDir, "outbound")).map((f) => `outbound/${f}`)]
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => [`schemas/${f}`, sha256(f)]),
    ),
    eras,
  };
}

/** The method → result table and the rest of the outbound selection, as the manifest records them. */
function outboundManifest(outbound: OutboundSelection) {
  return {
    validators: outbound.entries,
    results: Object.fromEntries(outbound.results.map((r) => [r.method, r.definition])),
    resultExceptions: Object.fromEntries(outbound.results.filter((r) => r.source === "exception").map((r) => [r.method, r.definition])),
    discriminator: outbound.config.discriminator && {
      ...outbound.config.discriminator,
      methods: outbound.results.filter((r) => r.discriminated).map((r) => r.method),
    },
    notifications: Object.fromEntries(outbound.notifications.map((n) => [n.method, n.definition])),
    requests: Object.fromEntries(outbound.requests.map((r) => [r.method, r.definition])),
    errors: Object.fromEntries(outbound.errors.map((e) => [String(e.code), e.definition])),
    errata: outbound.errata,
  };
}

function toolVersion(name: string): string {
  const require = createRequire(import.meta.url);
  return (require(`${name}/package.json`) as { version: string }).version;
}
