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
import { shortenErrors } from "./shorten-errors.js";
import { compileValidators } from "./compile-validators.js";
import { emitTypes } from "./emit-types.js";
import { loadSpec, specDir } from "./load-spec.js";
import { normalizeDefinitions } from "./normalize-definitions.js";
import { selectDefinitions, type EraConfig, type Selection } from "./select-definitions.js";
import { selectOutbound, type Errata, type OutboundConfig, type OutboundSelection } from "./select-outbound.js";
import {
  revisionsCompileSelection,
  selectRevisions,
  selectRevisionsOutbound,
  type RevisionsOutbound,
  type RevisionsSelection,
} from "./select-revisions.js";
import { stripProse } from "./strip-prose.js";
import { FORMAT_MODE_DECLARATIONS, FORMAT_MODE_MODULE } from "./switchable-formats.js";
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
  return shrink(compileValidators({ ...selection, defs: outbound.defs, entries: outbound.entries }, formats));
}

/**
 * Ajv's standalone code made short and budgeted: compact-code.ts, bound-keys.ts, then shorten-errors.ts (wymcp's own
 * modules only).
 */
export function shrink(code: string): string {
  return shortenErrors(boundKeys(compactCode(code)));
}

/** An era's revisions judged one by one, when `schemas/<era>.json` lists them; undefined otherwise. */
export function selectEraRevisions(selection: Selection, dir: string = specDir()): RevisionsSelection | undefined {
  return selection.config.revisions && selectRevisions(selection, selection.config.revisions, dir);
}

/** Each revision's server-to-client tables, for an era with revisions. */
export function selectEraRevisionsOutbound(
  selection: Selection,
  outbound: OutboundSelection,
  revisions: RevisionsSelection,
  schemasDir: string,
): RevisionsOutbound {
  return selectRevisionsOutbound(
    selection,
    outbound,
    revisions,
    readOutboundConfig(schemasDir, selection.config.era),
    readErrata(schemasDir),
  );
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
    const revisions = selectEraRevisions(selection, options.specDir);
    const compiled = revisions ? revisionsCompileSelection(selection, revisions) : selection;
    files.set(`${era}/validators.js`, assembleModule(compiled, shrink(compileValidators(compiled, formats)), revisions));
    files.set(`${era}/validators.d.ts`, assembleDeclarations(compiled, revisions));
    files.set(`${era}/types.d.ts`, assembleTypes(selection, await emitTypes(selection)));
    const outbound = selectEraOutbound(selection, options.schemasDir);
    const outboundRevisions = revisions && selectEraRevisionsOutbound(selection, outbound, revisions, options.schemasDir);
    const outboundCode = outboundRevisions
      ? shrink(compileValidators({ ...selection, defs: outboundRevisions.shared.defs, entries: outboundRevisions.entries }, formats))
      : compileOutbound(selection, outbound, formats);
    files.set(
      `${era}/outbound.js`,
      assembleOutboundModule(
        selection,
        outbound,
        outboundCode,
        revisions && outboundRevisions && { revisions, outbound: outboundRevisions },
      ),
    );
    files.set(`${era}/outbound.d.ts`, assembleOutboundDeclarations(selection, revisions));
    manifestEras[era] = {
      revision: selection.spec.revision,
      input: { file: selection.spec.file, sha256: selection.spec.sha256 },
      validators: compiled.entries,
      methods: Object.fromEntries(selection.methods.map(({ method, definition }) => [method, definition])),
      ...(revisions && { revisions: revisionsManifest(revisions) }),
      outbound: {
        ...outboundManifest(outbound),
        ...(outboundRevisions && { revisions: outboundRevisionsManifest(outboundRevisions) }),
      },
    };
    const batch = selectBatch(config, options.specDir);
    if (batch && config.batch) {
      const { refusedFromRevision } = config.batch;
      files.set(`${era}/batch.js`, assembleBatchModule(batch, shrink(compileValidators(batch, formats)), refusedFromRevision));
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
  files.set("format-mode.js", FORMAT_MODE_MODULE);
  files.set("format-mode.d.ts", FORMAT_MODE_DECLARATIONS);
  files.set("outbound.js", assembleOutboundIndex(eras));
  files.set("outbound.d.ts", assembleOutboundIndexDeclarations(eras));
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
      "Ajv draft-07 class, allErrors, no messages, anyOf branches tagged (tagged-any-of.ts), formats from schemas/formats.json (byte checked by linear-formats.ts), each format check asserted only while format-mode.js says strict, compacted by compact-code.ts",
    projectInputs: Object.fromEntries(
      [
        ...readdirSync(schemasDir),
        ...readdirSync(join(schemasDir, "outbound")).map((f) => `outbound/${f}`),
        ...readdirSync(join(schemasDir, "spec"))
          .filter((f) => f === "corrections.json")
          .map((f) => `spec/${f}`),
      ]
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => [`schemas/${f}`, sha256(f)]),
    ),
    eras,
  };
}

/** Each revision's input and client methods (method → definition, and the validator it shares), and what was shared. */
function revisionsManifest(revisions: RevisionsSelection) {
  const table = (list: Array<{ method: string; definition: string; validator: string }>) =>
    Object.fromEntries(
      list.map(({ method, definition, validator }) => [method, definition === validator ? definition : `${definition} as ${validator}`]),
    );
  const framed = revisions.revisions.flatMap((r) => [...r.requests, ...r.notifications]).filter((m) => m.framed);
  return {
    withoutHeader: revisions.config.withoutHeader,
    ...sharingManifest(revisions.shared),
    /** Validators whose pass implies the framing's: a conforming message of these is judged by one validator. */
    impliesFraming: [...new Set(framed.map((m) => m.validator))].sort(),
    byRevision: Object.fromEntries(
      revisions.revisions.map(({ revision, spec, requests, notifications }) => [
        revision,
        { input: { file: spec.file, sha256: spec.sha256 }, requests: table(requests), notifications: table(notifications) },
      ]),
    ),
  };
}

function outboundRevisionsManifest(outbound: RevisionsOutbound) {
  return {
    ...sharingManifest(outbound.shared),
    byRevision: Object.fromEntries(
      outbound.revisions.map(({ revision, outbound: o, validator }) => [
        revision,
        {
          results: Object.fromEntries(o.results.map((r) => [r.method, validator(r.definition)])),
          notifications: Object.fromEntries(o.notifications.map((n) => [n.method, validator(n.definition)])),
          requests: Object.fromEntries(o.requests.map((r) => [r.method, validator(r.definition)])),
          errors: Object.fromEntries(o.errors.map((e) => [String(e.code), validator(e.definition)])),
          errata: o.errata,
        },
      ]),
    ),
  };
}

/** How many definitions the revisions hold between them, how many were compiled, and which ones several revisions share. */
function sharingManifest(shared: RevisionsSelection["shared"]) {
  return {
    definitions: {
      reachable: shared.classes.reduce((n, c) => n + c.revisions.length, 0),
      compiled: shared.classes.length,
      sharedByRevisions: Object.fromEntries(shared.classes.filter((c) => c.revisions.length > 1).map((c) => [c.name, c.revisions])),
    },
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
