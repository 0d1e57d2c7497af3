/**
 * @module legacy-revision: which legacy revision judges a legacy message, and that revision's definition of its method.
 * The legacy lane's params checks live here, apart from the era rules in validate.ts, so that removing the legacy era
 * later is one deletion.
 */
import { eras } from "../../generated/index.js";
import type { RevisionMethodValidator, RevisionValidators } from "../../generated/validator.js";
import { trimSpacesAndTabs } from "./era.js";

/**
 * Why a revision was chosen: `header` the `MCP-Protocol-Version` header named it; `initialize` an `initialize`
 * request's `params.protocolVersion` named it; `newest` an `initialize` named no legacy revision, so the newest
 * judges (the server will negotiate); `default` no signal, the revision the spec tells a server to assume.
 */
export type LegacyRevisionSignal = "header" | "initialize" | "newest" | "default";

export interface LegacyRevision {
  revision: string;
  signal: LegacyRevisionSignal;
}

/** A revision's definition of one client method, with the revision it belongs to. */
export interface LegacyMethod extends RevisionMethodValidator {
  readonly revision: string;
  /** The verdict on a message that passes this definition, built once and frozen: a pass allocates nothing. */
  readonly passed: Readonly<{ outcome: "pass"; kind: "request" | "notification"; definition: string; revision: string }>;
}

interface Tables {
  readonly requests: ReadonlyMap<string, LegacyMethod>;
  readonly notifications: ReadonlyMap<string, LegacyMethod>;
  /** The last request method looked up in `requests`, and what was found (a method of no table included). */
  last: { readonly method: string | undefined; readonly found: LegacyMethod | undefined };
}

const withRevision = (
  revision: string,
  kind: "request" | "notification",
  table: ReadonlyMap<string, RevisionMethodValidator>,
): ReadonlyMap<string, LegacyMethod> =>
  new Map(
    [...table].map(([method, { definition, validate, framed }]) => [
      method,
      { definition, validate, framed, revision, passed: Object.freeze({ outcome: "pass", kind, definition, revision }) },
    ]),
  );

// Keyed by string, built once: a header or a body may name anything, and the hot path allocates nothing.
const tables: ReadonlyMap<string, Tables> = new Map(
  [...(eras.legacy.revisions as ReadonlyMap<string, RevisionValidators>)].map(([revision, { requests, notifications }]) => [
    revision,
    {
      requests: withRevision(revision, "request", requests),
      notifications: withRevision(revision, "notification", notifications),
      last: { method: undefined, found: undefined },
    },
  ]),
);
/** The last header that named a revision exactly, and its tables: most servers see one revision at a time. */
let lastHeader: string | undefined;
let lastHeaderTables: Tables | undefined;
const NEWEST = eras.legacy.revision;
const WITHOUT_HEADER = eras.legacy.revisionWithoutHeader;
const NEWEST_TABLES = tables.get(NEWEST)!;
const WITHOUT_HEADER_TABLES = tables.get(WITHOUT_HEADER)!;

/**
 * The revision a legacy message is judged by, first match wins: the `MCP-Protocol-Version` header when it names a
 * legacy revision; for an `initialize` request, the revision its `params.protocolVersion` names, or the newest when
 * that is no legacy revision; otherwise the revision a server assumes without the header (2025-03-26).
 */
export function legacyRevisionOf(body: unknown, protocolVersion: string | null | undefined): LegacyRevision {
  const named = headerRevision(protocolVersion);
  if (named !== undefined) return { revision: named, signal: "header" };
  if (isInitialize(body)) {
    const asked = askedRevision(body);
    return asked === undefined ? { revision: NEWEST, signal: "newest" } : { revision: asked, signal: "initialize" };
  }
  return { revision: WITHOUT_HEADER, signal: "default" };
}

/**
 * The definition of a legacy request's (with an `id`) or notification's method in the revision `legacyRevisionOf`
 * picks, with that revision; undefined for a method the revision does not have. The per-message hot path: no allocation.
 */
export function legacyMethodOf(
  body: unknown,
  kind: "request" | "notification",
  protocolVersion: string | null | undefined,
): LegacyMethod | undefined {
  const method = (body as { method?: unknown }).method;
  if (typeof method !== "string") return undefined;
  // The usual header, a revision exactly as the SDK's clients send it: the last one seen; any other, the look-ups.
  const table =
    protocolVersion === lastHeader && lastHeader !== undefined ? lastHeaderTables! : tablesFor(body, kind, method, protocolVersion);
  if (kind !== "request") return table.notifications.get(method);
  // The request method the last look-up in these tables found: a comparison (JSON.parse makes a short method name the
  // very string the table holds) instead of a Map's hashing (docs/performance.md#one-function-per-lane).
  if (method === table.last.method) return table.last.found;
  const found = table.requests.get(method);
  table.last = { method, found };
  return found;
}

/** The tables of the revision that judges a message whose header is not the last one seen (legacyRevisionOf's rules). */
function tablesFor(body: unknown, kind: "request" | "notification", method: string, protocolVersion: string | null | undefined): Tables {
  if (typeof protocolVersion === "string") {
    const table = tables.get(protocolVersion);
    if (table !== undefined) {
      lastHeader = protocolVersion;
      lastHeaderTables = table;
      return table;
    }
  }
  const named = headerRevision(protocolVersion);
  if (named !== undefined) return tables.get(named)!;
  if (kind === "request" && method === "initialize") {
    const asked = askedRevision(body);
    return asked === undefined ? NEWEST_TABLES : tables.get(asked)!;
  }
  return WITHOUT_HEADER_TABLES;
}

/** The legacy revision a header names, as the SDK reads it (spaces and tabs around it stripped); undefined for any other value. */
function headerRevision(protocolVersion: string | null | undefined): string | undefined {
  if (typeof protocolVersion !== "string") return undefined;
  if (tables.has(protocolVersion)) return protocolVersion;
  const stripped = trimSpacesAndTabs(protocolVersion);
  return stripped !== protocolVersion && tables.has(stripped) ? stripped : undefined;
}

/** An initialize's `params.protocolVersion` when it names a legacy revision. */
function askedRevision(body: unknown): string | undefined {
  const params = (body as { params?: unknown }).params;
  const asked = typeof params === "object" && params !== null ? (params as { protocolVersion?: unknown }).protocolVersion : undefined;
  return typeof asked === "string" && tables.has(asked) ? asked : undefined;
}

function isInitialize(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize" && Object.hasOwn(body, "id");
}
