import { banner } from "./assemble-module.js";
import { formatModeImport } from "./switchable-formats.js";
import type { Selection } from "./select-definitions.js";
import { OUTBOUND_FRAMING, type OutboundSelection } from "./select-outbound.js";
import type { RevisionsOutbound, RevisionsSelection } from "./select-revisions.js";

const j = JSON.stringify;

/** `new Map([...])` of `[key, { definition, validate, ...extra }]` rows, one per line, indented by `indent`. */
function mapOf<K>(
  rows: Array<{ key: K; definition: string; extra?: string }>,
  validator: (definition: string) => string = (d) => d,
  indent = "",
): string {
  if (rows.length === 0) return "new Map()";
  const lines = rows.map(
    ({ key, definition, extra }) =>
      `${indent}  [${j(key)}, { definition: ${j(definition)}, validate: ${validator(definition)}${extra ?? ""} }],`,
  );
  return `new Map([\n${lines.join("\n")}\n${indent}])`;
}

/** The four server-to-client tables of one revision, as `name: new Map(...)` members. */
function tablesOf(outbound: OutboundSelection, validator: (definition: string) => string, indent: string): Record<string, string> {
  return {
    results: mapOf(
      outbound.results.map((r) => ({ key: r.method, definition: r.definition, extra: `, discriminated: ${r.discriminated}` })),
      validator,
      indent,
    ),
    notifications: mapOf(
      outbound.notifications.map((n) => ({ key: n.method, definition: n.definition })),
      validator,
      indent,
    ),
    requests: mapOf(
      outbound.requests.map((r) => ({ key: r.method, definition: r.definition })),
      validator,
      indent,
    ),
    errors: mapOf(
      outbound.errors.map((e) => ({ key: e.code, definition: e.definition })),
      validator,
      indent,
    ),
  };
}

/**
 * The era's outbound ESM module: banner, Ajv's standalone code, then the server-to-client tables of the era's
 * revision, and `revisions`: each revision's own tables (the era's revision's are the ones above).
 */
export function assembleOutboundModule(
  selection: Selection,
  outbound: OutboundSelection,
  ajvCode: string,
  perRevision?: { revisions: RevisionsSelection; outbound: RevisionsOutbound },
): string {
  const d = outbound.config.discriminator;
  const discriminated = outbound.results.some((r) => r.discriminated);
  const own = tablesOf(outbound, (definition) => definition, "");
  // Maps, not objects: a method or code the server chose, such as "__proto__", must find nothing.
  const tables = [
    `export const revision = ${j(selection.spec.revision)};`,
    `export const results = ${own.results};`,
    d && discriminated
      ? `export const discriminator = { member: ${j(d.member)}, value: ${j(d.value)}, definition: ${j(d.definition)}, validate: ${d.definition} };`
      : "export const discriminator = null;",
    `export const notifications = ${own.notifications};`,
    `export const requests = ${own.requests};`,
    `export const errors = ${own.errors};`,
  ];
  const rows = (perRevision?.outbound.revisions ?? []).map(({ revision, outbound: theirs, validator }) => {
    if (revision === selection.spec.revision) return `  [${j(revision)}, { results, notifications, requests, errors }],`;
    const t = tablesOf(theirs, validator, "    ");
    return `  [${j(revision)}, {\n${Object.entries(t)
      .map(([name, map]) => `    ${name}: ${map},`)
      .join("\n")}\n  }],`;
  });
  if (rows.length === 0) rows.push(`  [${j(selection.spec.revision)}, { results, notifications, requests, errors }],`);
  tables.push(`export const revisions = new Map([\n${rows.join("\n")}\n]);`);
  const head = [banner(selection, perRevision?.revisions), ...formatModeImport(ajvCode)].join("\n");
  return `${[head, ajvCode.trim(), tables.join("\n")].join("\n\n")}\n`;
}

export function assembleOutboundDeclarations(selection: Selection, revisions?: RevisionsSelection): string {
  const names = revisions?.revisions.map((r) => r.revision) ?? [selection.spec.revision];
  return `${[
    banner(selection, revisions),
    `import type { Validator } from "../validator.js";`,
    `import type { Discriminator, ResultValidator, RevisionOutbound } from "../outbound.js";`,
    "",
    `export declare const revision: ${j(selection.spec.revision)};`,
    ...OUTBOUND_FRAMING.map((name) => `export declare const ${name}: Validator;`),
    "/** Request method → the validator of its result (applied to `result`, located under `/result`). */",
    "export declare const results: ReadonlyMap<string, ResultValidator>;",
    "/** The result member that selects another definition (MRTR's input_required), or null in an era without one. */",
    "export declare const discriminator: Discriminator | null;",
    "/** Server notification method → the validator of the whole message. */",
    "export declare const notifications: ReadonlyMap<string, { readonly definition: string; readonly validate: Validator }>;",
    "/** Server request method → the validator of the whole message; empty where servers send no requests. */",
    "export declare const requests: ReadonlyMap<string, { readonly definition: string; readonly validate: Validator }>;",
    "/** `error.code` → the validator of the whole error response that code has its own definition for. */",
    "export declare const errors: ReadonlyMap<number, { readonly definition: string; readonly validate: Validator }>;",
    "/** Each revision of the era (oldest first) → its own tables; the era's revision's are the ones above. */",
    `export declare const revisions: ReadonlyMap<${names.map((n) => j(n)).join(" | ")}, RevisionOutbound>;`,
  ].join("\n")}\n`;
}

const SHARED_BANNER = "// DO NOT EDIT: generated by scripts/codegen.ts (npm run codegen).";

/** `generated/outbound.js`: era → outbound module, apart from `index.js` so the inbound runtime never loads it. */
export function assembleOutboundIndex(eras: string[]): string {
  return `${[
    SHARED_BANNER,
    ...eras.map((era) => `import * as ${era} from ${j(`./${era}/outbound.js`)};`),
    "",
    `export const outbound = Object.freeze({ ${eras.join(", ")} });`,
  ].join("\n")}\n`;
}

export function assembleOutboundIndexDeclarations(eras: string[]): string {
  return `${[
    SHARED_BANNER,
    `import type { Validator } from "./validator.js";`,
    ...eras.map((era) => `import type * as ${era} from ${j(`./${era}/outbound.js`)};`),
    "",
    "export interface ResultValidator {",
    "  readonly definition: string;",
    "  readonly validate: Validator;",
    "  /** Whether the era's discriminator may select its own definition for this method's result instead. */",
    "  readonly discriminated: boolean;",
    "}",
    "",
    "/** One revision's server-to-client tables. */",
    "export interface RevisionOutbound {",
    "  readonly results: ReadonlyMap<string, ResultValidator>;",
    "  readonly notifications: ReadonlyMap<string, { readonly definition: string; readonly validate: Validator }>;",
    "  readonly requests: ReadonlyMap<string, { readonly definition: string; readonly validate: Validator }>;",
    "  readonly errors: ReadonlyMap<number, { readonly definition: string; readonly validate: Validator }>;",
    "}",
    "",
    "export interface Discriminator {",
    "  readonly member: string;",
    "  readonly value: string;",
    "  readonly definition: string;",
    "  readonly validate: Validator;",
    "}",
    "",
    `export declare const outbound: { readonly ${eras.map((era) => `${era}: typeof ${era}`).join("; readonly ")} };`,
  ].join("\n")}\n`;
}
