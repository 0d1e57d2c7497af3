/**
 * @module legacy-revision: which legacy revision judges a legacy message, and that revision's definition of its method.
 * The legacy lane's params checks live here, apart from the era rules in validate.ts, so that removing the legacy era
 * later is one deletion.
 */
import { eras } from "../../generated/index.js";
import type { MethodValidator, RevisionValidators } from "../../generated/validator.js";

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

// Keyed by string: a header or a body may name anything.
const tables: ReadonlyMap<string, RevisionValidators> = eras.legacy.revisions;
const NEWEST = eras.legacy.revision;
const WITHOUT_HEADER = eras.legacy.revisionWithoutHeader;

/**
 * The revision a legacy message is judged by, first match wins: the `MCP-Protocol-Version` header when it names a
 * legacy revision; for an `initialize` request, the revision its `params.protocolVersion` names, or the newest when
 * that is no legacy revision; otherwise the revision a server assumes without the header (2025-03-26).
 */
export function legacyRevisionOf(body: unknown, protocolVersion: string | null | undefined): LegacyRevision {
  if (typeof protocolVersion === "string") {
    const named = trimmed(protocolVersion);
    if (tables.has(named)) return { revision: named, signal: "header" };
  }
  if (isInitialize(body)) {
    const params = (body as { params?: unknown }).params;
    const asked = typeof params === "object" && params !== null ? (params as { protocolVersion?: unknown }).protocolVersion : undefined;
    if (typeof asked === "string" && tables.has(asked)) return { revision: asked, signal: "initialize" };
    return { revision: NEWEST, signal: "newest" };
  }
  return { revision: WITHOUT_HEADER, signal: "default" };
}

/** The revision's definition of a request's (with an `id`) or a notification's method; undefined for a method it does not have. */
export function legacyMethod(revision: string, kind: "request" | "notification", method: unknown): MethodValidator | undefined {
  if (typeof method !== "string") return undefined;
  const table = tables.get(revision);
  return kind === "request" ? table?.requests.get(method) : table?.notifications.get(method);
}

function isInitialize(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize" && Object.hasOwn(body, "id");
}

/** Spaces and tabs around the value, as the SDK strips them; a header of anything else names no revision. */
function trimmed(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 0x20 || value.charCodeAt(start) === 0x09)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 0x20 || value.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}
