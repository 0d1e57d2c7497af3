import { loadSpec, type JsonSchema, type SpecSchema } from "./load-spec.js";
import { normalizeDefinitions } from "./normalize-definitions.js";
import { refName, type Selection, SelectionError } from "./select-definitions.js";
import { shareDefinitions, type SharedDefinitions } from "./share-definitions.js";
import { stripProse } from "./strip-prose.js";
import { impliesFraming } from "./implies-framing.js";

/** The framing definitions a request and a notification of every revision are judged by (the era's own revision's). */
const REQUEST_FRAMING = "JSONRPCRequest";
const NOTIFICATION_FRAMING = "JSONRPCNotification";
import { selectOutbound, type Errata, type OutboundConfig, type OutboundSelection } from "./select-outbound.js";

/** An era's revisions judged one by one (`schemas/legacy.json` `revisions`). */
export interface RevisionsConfig {
  /** Every revision of the era, oldest first; the last is the era's own `revision`, whose framing every message gets. */
  list: string[];
  /** The union whose members are the client request methods, in each revision. */
  requestUnion: string;
  /** The union whose members are the client notification methods, in each revision. */
  notificationUnion: string;
  /** The revision a server assumes for a request without an `MCP-Protocol-Version` header. */
  withoutHeader: string;
}

export interface MethodEntry {
  method: string;
  /** The definition's name in its revision (`CallToolRequest`). */
  definition: string;
  /** The validator it is compiled as, shared by every revision whose definition is the same (`CallToolRequest_2024_11_05`). */
  validator: string;
  /** Whether a value the definition accepts always passes the era's framing of its kind too (implies-framing.ts). */
  framed: boolean;
}

export interface RevisionTables {
  revision: string;
  spec: SpecSchema;
  /** The revision's definitions, prose stripped. */
  defs: Record<string, JsonSchema>;
  requests: MethodEntry[];
  notifications: MethodEntry[];
}

export interface RevisionsSelection {
  config: RevisionsConfig;
  revisions: RevisionTables[];
  shared: SharedDefinitions;
}

/** A revision's schema as codegen reads every revision: loaded, prose stripped, `$defs` shape. */
export function loadRevision(revision: string, dir: string): { spec: SpecSchema; defs: Record<string, JsonSchema> } {
  const spec = loadSpec(revision, dir);
  const schema = normalizeDefinitions(stripProse(spec.schema));
  const defs = schema.$defs as Record<string, JsonSchema> | undefined;
  if (!defs) throw new SelectionError(`revision ${revision} has no $defs`);
  return { spec: { ...spec, schema }, defs };
}

/** Method → definition of each member of a union, in the union's order. */
export function unionMethods(
  defs: Record<string, JsonSchema>,
  union: string,
  revision: string,
): Array<{ method: string; definition: string }> {
  const schema = defs[union];
  const members = (schema?.anyOf ?? schema?.oneOf) as JsonSchema[] | undefined;
  if (!Array.isArray(members)) throw new SelectionError(`revision ${revision} has no ${union} union`);
  return members.map((member) => {
    const definition = refName(member.$ref);
    const method = ((defs[definition]?.properties as JsonSchema | undefined)?.method as JsonSchema | undefined)?.const;
    if (typeof method !== "string") throw new SelectionError(`${definition} of ${revision} has no constant method`);
    return { method, definition };
  });
}

/**
 * The client's methods of every revision of an era, each request and notification by its own revision's
 * definition, read from that revision's unions; definitions identical across revisions are one validator.
 * `era` is the selection of the era's own (newest) revision, whose framing joins the shared document.
 */
export function selectRevisions(era: Selection, config: RevisionsConfig, dir: string): RevisionsSelection {
  const newest = config.list[config.list.length - 1];
  if (newest !== era.config.revision) {
    throw new SelectionError(`revisions of ${era.config.era} must end with its revision ${era.config.revision}, not ${newest}`);
  }
  if (!config.list.includes(config.withoutHeader)) throw new SelectionError(`withoutHeader ${config.withoutHeader} is not in revisions`);
  if ([...config.list].sort().join() !== config.list.join() || new Set(config.list).size !== config.list.length) {
    throw new SelectionError("revisions must be listed once each, oldest first");
  }
  const loaded = config.list.map((revision) => {
    const { spec, defs } = revision === era.config.revision ? { spec: era.spec, defs: era.defs } : loadRevision(revision, dir);
    const requests = unionMethods(defs, config.requestUnion, revision);
    const notifications = unionMethods(defs, config.notificationUnion, revision);
    const roots = [...requests, ...notifications].map((m) => m.definition);
    if (revision === era.config.revision) roots.unshift(...era.config.framing);
    return { revision, spec, defs, roots, requests, notifications };
  });
  const shared = shareDefinitions(loaded, era.config.revision);
  const entries = (revision: string, list: Array<{ method: string; definition: string }>, framing: string): MethodEntry[] =>
    list.map(({ method, definition }) => {
      const validator = shared.nameOf(revision, definition);
      return { method, definition, validator, framed: impliesFraming(shared.defs, validator, framing) };
    });
  for (const name of [REQUEST_FRAMING, NOTIFICATION_FRAMING]) {
    if (!era.config.framing.includes(name)) throw new SelectionError(`the framing of ${era.config.era} must include ${name}`);
  }
  return {
    config,
    shared,
    revisions: loaded.map(({ revision, spec, defs, requests, notifications }) => ({
      revision,
      spec,
      defs,
      requests: entries(revision, requests, REQUEST_FRAMING),
      notifications: entries(revision, notifications, NOTIFICATION_FRAMING),
    })),
  };
}

/** The selection Ajv compiles for an era with revisions: the era's framing and every revision's method validators, shared. */
export function revisionsCompileSelection(era: Selection, revisions: RevisionsSelection): Selection {
  const validators = revisions.revisions.flatMap((r) => [...r.requests, ...r.notifications].map((m) => m.validator));
  const entries = [...new Set([...era.config.framing, ...validators])];
  return { ...era, defs: revisions.shared.defs, entries };
}

/** One revision's server-to-client tables, with the validator each definition is compiled as. */
export interface RevisionOutbound {
  revision: string;
  outbound: OutboundSelection;
  /** The shared validator of one of this revision's definitions. */
  validator(definition: string): string;
}

export interface RevisionsOutbound {
  revisions: RevisionOutbound[];
  shared: SharedDefinitions;
  /** Every validator exported, the era's framing first. */
  entries: string[];
}

/**
 * The server-to-client tables of each revision (results by the answered request's method, notifications, server
 * requests, typed errors), from that revision's own unions with its own errata; the framing is the era's revision's.
 */
export function selectRevisionsOutbound(
  era: Selection,
  eraOutbound: OutboundSelection,
  revisions: RevisionsSelection,
  config: OutboundConfig,
  errata: Errata,
): RevisionsOutbound {
  const per = revisions.revisions.map(({ revision, spec, defs }) => {
    const outbound =
      revision === era.config.revision
        ? eraOutbound
        : selectOutbound({ config: { ...era.config, revision, framing: [] }, spec, defs, entries: [], methods: [] }, config, errata, []);
    return { revision, outbound, defs: outbound.defs, roots: outbound.entries };
  });
  const shared = shareDefinitions(per, era.config.revision);
  const entries = [...new Set(per.flatMap((p) => p.roots.map((name) => shared.nameOf(p.revision, name))))];
  return {
    shared,
    entries,
    revisions: per.map(({ revision, outbound }) => ({
      revision,
      outbound,
      validator: (definition) => shared.nameOf(revision, definition),
    })),
  };
}
