import { eras } from "../../generated/index.js";
import {
  hasEnvelopeClaim,
  isJsonRpcMessage,
  isJsonRpcNotification,
  isJsonRpcRequest,
  isJsonRpcResponse,
  isPlainObject,
  isRevision,
  isValidEnvelope,
  metaOf,
  PROTOCOL_VERSION_META_KEY,
} from "./routing-shapes.js";

export { PROTOCOL_VERSION_META_KEY };

/** The two eras of MCP a dual-era server serves on one endpoint. */
export type Era = "legacy" | "modern";

/**
 * Which signal decided the era, in the order they win (docs/routing.md):
 * `batch`, `response` and `not-json-rpc` are the body's framing; `body-meta` a `_meta` protocol-version
 * claim; `initialize` the legacy handshake; `header-protocol-version` the `MCP-Protocol-Version` header;
 * `header-session-id` an `Mcp-Session-Id` header (legacy, and never decisive); `default` none of these.
 */
export type EraSignal =
  | "batch"
  | "response"
  | "not-json-rpc"
  | "body-meta"
  | "initialize"
  | "header-protocol-version"
  | "header-session-id"
  | "default";

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

const FIRST_MODERN_REVISION = eras.modern.revision;
/**
 * The lane the official SDK's router (`isLegacyRequest`, `@modelcontextprotocol/server`) sends a POST to,
 * with the signal that decided it. First match wins:
 * 1. a batch (array) is legacy when it is non-empty and every element is a JSON-RPC message with no
 *    `_meta` protocol-version claim; otherwise modern (the modern path refuses it);
 * 2. a JSON-RPC response is legacy;
 * 3. a body that is no JSON-RPC request or notification in the SDK's strict reading is modern (refused there);
 * 4. `initialize` without a valid modern envelope is legacy, unless `MCP-Protocol-Version` reads modern;
 * 5. a `_meta["io.modelcontextprotocol/protocolVersion"]` claim, of any type or revision, is modern;
 * 6. an `MCP-Protocol-Version` header that sorts at or after the first modern revision is modern
 *    (the SDK compares the raw value as a string, so `latest` and `9` read modern too);
 * 7. anything else is legacy, reported as the legacy revision in the header, an `Mcp-Session-Id`, or `default`.
 * `body` `undefined` means no body to read (the CLI's outbound check): then only the headers count.
 */
export function classifyEra(headers: HeadersLike | undefined, body: unknown): EraClassification {
  const version = protocolVersionHeader(headers);
  const headerIsModern = version !== undefined && version >= FIRST_MODERN_REVISION;
  if (body !== undefined) {
    if (Array.isArray(body)) return { era: isLegacyBatch(body) ? "legacy" : "modern", signal: "batch" };
    if (isPlainObject(body) && isJsonRpcResponse(body)) return { era: "legacy", signal: "response" };
    const request = isPlainObject(body) && isJsonRpcRequest(body);
    if (!request && !(isPlainObject(body) && isJsonRpcNotification(body))) return { era: "modern", signal: "not-json-rpc" };
    const params = (body as Record<string, unknown>).params;
    // Only a whole modern envelope overrides the handshake; a modern header under it is refused on the modern path.
    if (request && (body as Record<string, unknown>).method === "initialize" && !carriesValidModernEnvelope(params)) {
      return headerIsModern ? { era: "modern", signal: "header-protocol-version" } : { era: "legacy", signal: "initialize" };
    }
    if (hasEnvelopeClaim(params)) return { era: "modern", signal: "body-meta" };
  }
  if (headerIsModern) return { era: "modern", signal: "header-protocol-version" };
  // Not modern by now, so a header that is a revision names a legacy one.
  if (version !== undefined && isRevision(version)) return { era: "legacy", signal: "header-protocol-version" };
  if (header(headers, "mcp-session-id") !== undefined) return { era: "legacy", signal: "header-session-id" };
  return { era: "legacy", signal: "default" };
}

function isLegacyBatch(batch: unknown[]): boolean {
  if (batch.length === 0) return false;
  for (const element of batch) {
    if (isPlainObject(element) && hasEnvelopeClaim(element.params)) return false;
    if (!isJsonRpcMessage(element)) return false;
  }
  return true;
}

function carriesValidModernEnvelope(params: unknown): boolean {
  const meta = metaOf(params);
  // A valid envelope holds a string claim, which then sorts at or after the first modern revision.
  return meta !== undefined && isValidEnvelope(meta) && (meta[PROTOCOL_VERSION_META_KEY] as string) >= FIRST_MODERN_REVISION;
}

/**
 * `MCP-Protocol-Version` as the SDK reads it through its Node bridge: each value trimmed, a repeated header
 * (an array) joined with `, ` as a Fetch `Headers` joins it, a later key of another case replacing an earlier
 * one, then spaces and tabs stripped.
 */
function protocolVersionHeader(headers: HeadersLike | undefined): string | undefined {
  if (!headers) return undefined;
  let value: string | undefined;
  if (isHeadersReader(headers)) {
    value = headers.get("mcp-protocol-version") ?? undefined;
  } else {
    // for-in, not Object.entries: no array per header (docs/performance.md#figures-behind-code-comments).
    for (const name in headers) {
      const raw = headers[name];
      if (raw === undefined || !Object.hasOwn(headers, name) || name.toLowerCase() !== "mcp-protocol-version") continue;
      if (!Array.isArray(raw)) value = trimHttpWhitespace(String(raw));
      else
        for (const item of raw)
          value = value === undefined ? trimHttpWhitespace(String(item)) : `${value}, ${trimHttpWhitespace(String(item))}`;
    }
  }
  return value === undefined ? undefined : trimSpacesAndTabs(value);
}

/** A header value with the spaces and tabs around it stripped, as the SDK strips `MCP-Protocol-Version`. */
export function trimSpacesAndTabs(value: string): string {
  return trim(value, SPACE_OR_TAB);
}

const SPACE_OR_TAB = (code: number) => code === 0x20 || code === 0x09;
const HTTP_WHITESPACE = (code: number) => SPACE_OR_TAB(code) || code === 0x0a || code === 0x0d;

/** A Fetch `Headers` strips leading and trailing HTTP whitespace from every value it stores. */
function trimHttpWhitespace(value: string): string {
  return trim(value, HTTP_WHITESPACE);
}

/** Linear in the value's length, where a `/\s+$/` regex is quadratic on a header of spaces. */
function trim(value: string, strip: (code: number) => boolean): string {
  let start = 0;
  let end = value.length;
  while (start < end && strip(value.charCodeAt(start))) start++;
  while (end > start && strip(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isHeadersReader(headers: HeadersLike): headers is HeadersReader {
  return typeof (headers as HeadersReader).get === "function" && typeof (headers as HeadersReader).has === "function";
}

/** First value of a header, matched case-insensitively. */
export function header(headers: HeadersLike | undefined, lowerName: string): string | undefined {
  if (!headers) return undefined;
  if (isHeadersReader(headers)) return headers.get(lowerName) ?? undefined;
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
