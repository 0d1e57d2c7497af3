import { eras } from "../generated/index.js";

/** The two eras of MCP a dual-era server serves on one endpoint. */
export type Era = "legacy" | "modern";

/** Which signal decided the era; `default` when none was present. */
export type EraSignal = "initialize" | "body-meta" | "header-protocol-version" | "header-session-id" | "default";

export interface EraClassification {
  era: Era;
  signal: EraSignal;
}

/** What the classifier reads of a Fetch `Headers`; structural, so the core needs no DOM, Node or Workers types. */
export interface HeadersReader {
  get(name: string): string | null;
  has(name: string): boolean;
}

/** Request headers as a plain object (any key case, Node's `IncomingHttpHeaders` included) or a Fetch `Headers`. */
export type HeadersLike = HeadersReader | Record<string, string | string[] | undefined>;

export const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";

const FIRST_MODERN_REVISION = eras.modern.revision;
const REVISION_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The era a revision belongs to: revisions are dates, and every one from the first modern revision on
 * is modern (later revisions join the same way). `undefined` for a value that is not a revision.
 */
export function eraOfRevision(revision: string): Era | undefined {
  if (!isRevision(revision)) return undefined;
  return revision >= FIRST_MODERN_REVISION ? "modern" : "legacy";
}

/** Whether a value has the shape of a revision (a date); revisions then compare as strings. */
export function isRevision(value: string): boolean {
  return REVISION_SHAPE.test(value);
}

/**
 * Reads the signals a dual-era server sees on a POST, body first:
 * 1. `params._meta["io.modelcontextprotocol/protocolVersion"]` is modern (only modern clients send it),
 *    except on an `initialize` request, where only a modern revision there counts (as the official SDK rules);
 * 2. an `initialize` request is legacy (the modern era has no handshake);
 * 3. an `MCP-Protocol-Version` header naming a revision gives that revision's era;
 * 4. an `Mcp-Session-Id` header is legacy (the modern era has no sessions);
 * 5. otherwise legacy, the lane for a request with no signal.
 * The body wins because it is what gets validated and it travels whole, while proxies may add or drop headers.
 */
export function classifyEra(headers: HeadersLike | undefined, body: unknown): EraClassification {
  if (isObject(body)) {
    const initialize = body.method === "initialize" && Object.hasOwn(body, "id");
    const params = body.params;
    const claim = isObject(params) && isObject(params._meta) ? params._meta[PROTOCOL_VERSION_META_KEY] : undefined;
    // A modern client probing with initialize carries the envelope; the SDK serves that on the modern lane.
    if (typeof claim === "string" && (!initialize || eraOfRevision(claim.trim()) === "modern")) return { era: "modern", signal: "body-meta" };
    if (initialize) return { era: "legacy", signal: "initialize" };
  }
  const version = header(headers, "mcp-protocol-version");
  const era = version === undefined ? undefined : eraOfRevision(version.trim());
  if (era) return { era, signal: "header-protocol-version" };
  if (header(headers, "mcp-session-id") !== undefined) return { era: "legacy", signal: "header-session-id" };
  return { era: "legacy", signal: "default" };
}

/** First value of a header, matched case-insensitively. */
export function header(headers: HeadersLike | undefined, lowerName: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as HeadersReader).get === "function" && typeof (headers as HeadersReader).has === "function") {
    return (headers as HeadersReader).get(lowerName) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  // Node lower-cases header names, so the direct look-up is the usual hit; other objects are scanned.
  let value = Object.hasOwn(record, lowerName) ? record[lowerName] : undefined;
  if (value === undefined) {
    for (const key in record) {
      if (Object.hasOwn(record, key) && key.toLowerCase() === lowerName) {
        value = record[key];
        break;
      }
    }
  }
  return Array.isArray(value) ? value[0] : value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
