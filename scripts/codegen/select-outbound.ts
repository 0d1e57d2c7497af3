import type { JsonSchema } from "./load-spec.js";
import { refName, SelectionError, type Selection } from "./select-definitions.js";

/** An era's outbound description in `schemas/outbound/<era>.json`: what the server sends, as data. */
export interface OutboundConfig {
  era: string;
  /** Unions whose members are requests answered by a result: the client's, and in the legacy era the server's. */
  requestUnions: string[];
  /** Unions whose members are the results those requests may get. */
  resultUnions: string[];
  /** Unions of the notifications the server sends. */
  notificationUnions: string[];
  /** Unions of the requests the server sends (legacy: sampling, elicitation, roots, ping, tasks). */
  serverRequestUnions: string[];
  /** The name rule: `<stem><request>` is answered by `<stem><result>`. */
  resultName: { request: string; result: string };
  /** Method → result definition, for the requests the name rule finds no result for. */
  resultExceptions: Record<string, string>;
  /** A result whose `member` equals `value` is judged as `definition`, where `<stem><allowedBy>` admits it. */
  discriminator: Discriminator | null;
}

export interface Discriminator {
  member: string;
  value: string;
  definition: string;
  allowedBy: string;
}

/**
 * One erratum (`schemas/outbound/errata.json`, by revision): the definition's property is given this `type`
 * (an `integer` that should be a `number`), or with `orNull` also admits `null` (a `$ref` becomes `anyOf [$ref, null]`).
 */
export type Erratum = { definition: string; property: string } & ({ type: string; orNull?: never } | { orNull: true; type?: never });

export type Errata = Record<string, Erratum[]>;

export interface ResultEntry {
  method: string;
  definition: string;
  /** How the definition was found: by the name rule or from `resultExceptions`. */
  source: "name-rule" | "exception";
  /** Whether the discriminator may select its definition instead (MRTR's input_required). */
  discriminated: boolean;
}

export interface OutboundSelection {
  config: OutboundConfig;
  /** The era's definitions with the errata applied (a copy; the era's own selection is untouched). */
  defs: Record<string, JsonSchema>;
  results: ResultEntry[];
  notifications: Array<{ method: string; definition: string }>;
  requests: Array<{ method: string; definition: string }>;
  /** Typed error responses: `error.code` constant → definition. */
  errors: Array<{ code: number; definition: string }>;
  /** What each erratum did to this revision: changed the type, or found it already so. */
  errata: Array<Erratum & { outcome: "applied" | "already-so" }>;
  /** Definition names that become exported validators, in a stable order. */
  entries: string[];
}

/** The framing every outbound module carries: the JSON-RPC envelope of each kind. */
export const OUTBOUND_FRAMING = [
  "JSONRPCMessage",
  "JSONRPCRequest",
  "JSONRPCNotification",
  "JSONRPCResultResponse",
  "JSONRPCErrorResponse",
];

/**
 * Derives the server-to-client tables of one era from its schema, the config and the errata. `framing` is left
 * empty for an earlier revision of an era whose framing comes from its newest one.
 */
export function selectOutbound(
  selection: Selection,
  config: OutboundConfig,
  errata: Errata,
  framing = OUTBOUND_FRAMING,
): OutboundSelection {
  const { revision } = selection.spec;
  if (config.era !== selection.config.era)
    throw new SelectionError(`outbound config of ${config.era} given for era ${selection.config.era}`);
  const { defs, applied } = applyErrata(selection.defs, errata[revision] ?? [], revision);
  const need = (name: string, why: string): JsonSchema => {
    const def = defs[name];
    if (!def) throw new SelectionError(`revision ${revision} has no definition ${name} (${why})`);
    return def;
  };
  const members = (union: string) => {
    const schema = need(union, `union of outbound ${config.era}`);
    const list = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (!Array.isArray(list)) throw new SelectionError(`${union} is not an anyOf/oneOf union`);
    return list.map((member) => refName(member.$ref));
  };
  const methodOf = (definition: string): string => {
    const method = (need(definition, "union member").properties as JsonSchema | undefined)?.method as JsonSchema | undefined;
    if (typeof method?.const !== "string") throw new SelectionError(`${definition} has no constant method`);
    return method.const;
  };
  const byMethod = (unions: string[]) => {
    const seen = new Map<string, string>();
    for (const union of unions)
      for (const definition of members(union)) if (!seen.has(methodOf(definition))) seen.set(methodOf(definition), definition);
    return [...seen].map(([method, definition]) => ({ method, definition }));
  };

  const resultNames = new Set(config.resultUnions.flatMap(members));
  const { request, result } = config.resultName;
  const used = new Set<string>();
  const results: ResultEntry[] = byMethod(config.requestUnions).map(({ method, definition }) => {
    const named = definition.endsWith(request) ? `${definition.slice(0, -request.length)}${result}` : undefined;
    const exception = config.resultExceptions[method];
    if (named && resultNames.has(named)) {
      if (exception) throw new SelectionError(`resultExceptions names ${method}, which the name rule already answers with ${named}`);
      return { method, definition: named, source: "name-rule", discriminated: admits(definition) };
    }
    if (!exception)
      throw new SelectionError(
        `no result for ${method} (${definition}): neither ${named} in ${config.resultUnions.join("/")} nor an exception`,
      );
    need(exception, `resultExceptions of ${method}`);
    used.add(method);
    return { method, definition: exception, source: "exception", discriminated: admits(definition) };
  });
  const unused = Object.keys(config.resultExceptions).filter((method) => !used.has(method));
  if (unused.length > 0) throw new SelectionError(`resultExceptions name methods no request union has: ${unused.join(", ")}`);

  /** Whether `<stem><allowedBy>`'s result union admits the discriminator's definition. */
  function admits(requestDefinition: string): boolean {
    const d = config.discriminator;
    if (!d || !requestDefinition.endsWith(request)) return false;
    const response = defs[`${requestDefinition.slice(0, -request.length)}${d.allowedBy}`];
    const union = ((response?.properties as JsonSchema | undefined)?.result as JsonSchema | undefined)?.anyOf;
    return Array.isArray(union) && union.some((member) => (member as JsonSchema).$ref === `#/$defs/${d.definition}`);
  }
  if (config.discriminator) need(config.discriminator.definition, "discriminator");

  const notifications = byMethod(config.notificationUnions);
  const requests = byMethod(config.serverRequestUnions);
  const errors = typedErrors(defs);
  const entries = unique([
    ...framing.map((name) => (need(name, "framing"), name)),
    ...results.map((r) => r.definition),
    ...(config.discriminator && results.some((r) => r.discriminated) ? [config.discriminator.definition] : []),
    ...notifications.map((n) => n.definition),
    ...requests.map((r) => r.definition),
    ...errors.map((e) => e.definition),
  ]);
  return { config, defs, results, notifications, requests, errors, errata: applied, entries };
}

/**
 * Definitions of whole error responses whose `error` pins a `code` constant (`error.allOf[].properties.code.const`),
 * in name order: a server's error with that code is judged by its own definition, as the conformance suite does.
 */
function typedErrors(defs: Record<string, JsonSchema>): Array<{ code: number; definition: string }> {
  const out: Array<{ code: number; definition: string }> = [];
  for (const name of Object.keys(defs).sort()) {
    const error = (defs[name]!.properties as JsonSchema | undefined)?.error as JsonSchema | undefined;
    for (const part of (error?.allOf ?? []) as JsonSchema[]) {
      const code = ((part.properties as JsonSchema | undefined)?.code as JsonSchema | undefined)?.const;
      if (typeof code === "number") out.push({ code, definition: name });
    }
  }
  return out;
}

/** A copy of `defs` with each erratum applied; an erratum that finds a property it was not written for stops codegen. */
export function applyErrata(defs: Record<string, JsonSchema>, errata: Erratum[], revision: string) {
  const copy = structuredClone(defs);
  const applied: OutboundSelection["errata"] = [];
  for (const erratum of errata) {
    const properties = copy[erratum.definition]?.properties as Record<string, JsonSchema> | undefined;
    const property = properties?.[erratum.property];
    const name = `${erratum.definition}.${erratum.property}`;
    if (erratum.orNull) {
      const admitsNull = Array.isArray(property?.anyOf) && (property.anyOf as JsonSchema[]).some((branch) => branch.type === "null");
      if (admitsNull) applied.push({ ...erratum, outcome: "already-so" });
      else if (properties && typeof property?.$ref === "string" && Object.keys(property).length === 1) {
        properties[erratum.property] = { anyOf: [property, { type: "null" }] };
        applied.push({ ...erratum, outcome: "applied" });
      } else {
        throw new SelectionError(`erratum ${name} of ${revision} (or null) finds ${JSON.stringify(property)}, not a lone $ref`);
      }
    } else if (property?.type === erratum.type) applied.push({ ...erratum, outcome: "already-so" });
    else if (property?.type === "integer") {
      property.type = erratum.type;
      applied.push({ ...erratum, outcome: "applied" });
    } else {
      throw new SelectionError(`erratum ${name} of ${revision} finds type ${JSON.stringify(property?.type)}`);
    }
  }
  return { defs: copy, applied };
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
