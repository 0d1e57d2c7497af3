/**
 * @module admit: the host-independent half of the middleware adapters: the checks made on the
 * headers, the bounded reading of a body, and the decision about what to do with it.
 */
import { answerId, errorResponse, INVALID_REQUEST, PARSE_ERROR, type JsonRpcErrorResponse, type JsonRpcId } from "../core/envelope.js";
import type { Era } from "../core/era.js";
import { validateMcpRequest, type JudgedKind, type ValidationResult } from "../core/validate.js";
import type { LegacyChecks } from "../core/legacy-checks.js";
import { DEFAULT_MAX_DEPTH, exceedsDepth } from "../core/depth.js";

export { DEFAULT_MAX_DEPTH };

/** Default largest body read, in bytes (4 MiB, the official SDK's own default). */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Why the middleware answered instead of handing the request on. */
export type RejectReason = "body-too-large" | "unsupported-media-type" | "parse-error" | "nested-too-deeply" | "invalid-message";

/** What `onReject` receives: the answer that was sent and why, never the client's body. */
export interface RejectInfo {
  /** `200` for a legacy request whose params fail (answered as the SDK answers it, with the JSON-RPC error). */
  status: 200 | 400 | 413 | 415;
  response: JsonRpcErrorResponse;
  reason: RejectReason;
  /** The era the message was judged in; unset when the body was refused before it was judged. */
  era: Era | undefined;
  /** The kind of message, for `invalid-message` rejections. */
  kind: JudgedKind | undefined;
}

/** A message that passed or was bypassed, as handed to the next handler. */
export type Admitted = Extract<ValidationResult, { outcome: "pass" | "bypass" }>;

/** What the next handler learns about an admitted POST. */
export interface WymcpInfo {
  era: Era;
  result: Admitted;
}

/** Options both adapters take; `R` is the host's request type. */
export interface GateOptions<R> {
  /** Largest body accepted, in bytes; a larger one is answered `413`. */
  maxBodyBytes?: number;
  /** Deepest nesting of arrays and objects accepted (`{}` is 1); a deeper body is answered `400`. `Infinity` turns the bound off. */
  maxDepth?: number;
  /** The era of a parsed POST body (e.g. from `classifyEra`); unset or `undefined` means legacy. */
  era?: (request: R, body: unknown) => Era | undefined;
  /** Called once per answered request, for logging or metrics; it must not throw. */
  onReject?: (info: RejectInfo) => void;
  /**
   * What the legacy lane checks: `"params"` (default) the framing and a known method's params against the revision
   * the request names, `"report"` the same but a params failure is passed on and given to `onLegacyReport`,
   * `"framing"` the JSON-RPC framing alone.
   */
  legacyChecks?: LegacyChecks;
  /** With `legacyChecks: "report"`: called once per legacy message whose params fail, with what `onReject` would have received. */
  onLegacyReport?: (info: RejectInfo) => void;
}

type Hooks = Pick<GateOptions<unknown>, "maxBodyBytes" | "maxDepth" | "onReject" | "legacyChecks" | "onLegacyReport">;

/** The parts of an HTTP POST the gate looks at, whatever the host. */
export interface Exchange {
  contentType: string | null | undefined;
  contentLength: string | null | undefined;
  /** The `MCP-Protocol-Version` header: it decides whether a legacy batch is judged or refused. */
  protocolVersion: string | null | undefined;
  /** The body when the host has parsed it already (e.g. `express.json()`). */
  parsed?: { body: unknown };
  /** The body's bytes, read lazily and only after the header checks pass. */
  chunks: () => AsyncIterable<Uint8Array>;
  era: (body: unknown) => Era | undefined;
}

export type Verdict =
  | { ok: true; info: WymcpInfo; body: unknown; parsedHere: boolean }
  | { ok: false; status: 200 | 400 | 413 | 415; response: JsonRpcErrorResponse };

/** Checks a `maxDepth` option once, when the middleware is built: a wrong one is the host's bug, not the client's. */
export function checkMaxDepth(maxDepth: number | undefined): void {
  if (maxDepth === undefined || maxDepth === Number.POSITIVE_INFINITY || (Number.isSafeInteger(maxDepth) && maxDepth >= 1)) return;
  throw new RangeError(`wymcp: maxDepth must be a positive integer or Infinity, not ${String(maxDepth)}`);
}

/**
 * Whether a `Content-Type` value names JSON: `application/json`, parameters allowed, a `charset`
 * only if UTF-8 (RFC 8259 §8.1 makes UTF-8 the only encoding of JSON between systems).
 */
export function isJsonMediaType(value: string | null | undefined): boolean {
  if (!value || value.includes(",")) return false;
  const [essence = "", ...parameters] = value.split(";");
  if (essence.trim().toLowerCase() !== "application/json") return false;
  for (const parameter of parameters) {
    const eq = parameter.indexOf("=");
    if (eq < 0) continue;
    if (parameter.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    const charset = parameter
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
    if (charset !== "utf-8" && charset !== "utf8") return false;
  }
  return true;
}

/**
 * Reads at most `limit` bytes: `undefined` as soon as the body turns out longer, so a large body is
 * never held whole.
 */
export async function readLimited(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  limit: number,
): Promise<Uint8Array | undefined> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.byteLength;
    if (size > limit) return undefined;
    parts.push(chunk);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The whole POST pipeline after the method check: media type (`415`), size (`413`), JSON (`400`/-32700),
 * nesting (`400`/-32600), era, validation (`400`/-32600). Rejections are reported to `onReject` here, once, for every host.
 */
export async function admit(
  exchange: Exchange,
  { maxBodyBytes = DEFAULT_MAX_BODY_BYTES, maxDepth = DEFAULT_MAX_DEPTH, onReject, legacyChecks, onLegacyReport }: Hooks,
): Promise<Verdict> {
  // A missing Content-Type is refused too: MCP clients always send application/json, and the official
  // SDK's transport answers such a POST 415 anyway, so passing it on would only move the refusal.
  if (!isJsonMediaType(exchange.contentType)) {
    return refuse(onReject, 415, "unsupported-media-type", "Unsupported Media Type: Content-Type must be application/json");
  }
  let body: unknown;
  let parsedHere = false;
  if (exchange.parsed) {
    body = exchange.parsed.body;
  } else {
    const tooLarge = () =>
      refuse(onReject, 413, "body-too-large", `Payload Too Large: the body exceeds the limit of ${maxBodyBytes} bytes`);
    const declared = Number(exchange.contentLength ?? Number.NaN);
    if (declared > maxBodyBytes) return tooLarge();
    const bytes = await readLimited(exchange.chunks(), maxBodyBytes);
    if (!bytes) return tooLarge();
    try {
      body = JSON.parse(utf8.decode(bytes));
    } catch (error) {
      // A parser that recurses (V8's does not) runs out of stack on deep bodies: that is the nesting bound's answer.
      if (error instanceof RangeError) return tooDeep(onReject, maxDepth, null);
      // The message is fixed: a parser's message quotes the body, and the answer must not reflect it.
      return refuse(onReject, 400, "parse-error", "Parse error: the body is not valid JSON", PARSE_ERROR);
    }
    parsedHere = true;
  }
  // Before anything recursive sees the body: the era callback, the validators, the next handler's re-serialization.
  if (exceedsDepth(body, maxDepth)) return tooDeep(onReject, maxDepth, answerId(body));
  const era = exchange.era(body) ?? "legacy";
  const result = validateMcpRequest(body, era, { protocolVersion: exchange.protocolVersion, legacyChecks });
  if (result.outcome === "reject") {
    notify(onReject, { status: result.status, response: result.response, reason: "invalid-message", era, kind: result.kind });
    return { ok: false, status: result.status, response: result.response };
  }
  if (result.outcome === "pass" && result.reported) {
    const { status, response } = result.reported;
    notify(onLegacyReport, { status, response, reason: "invalid-message", era, kind: result.kind });
  }
  return { ok: true, info: { era, result }, body, parsedHere };
}

function tooDeep(onReject: Hooks["onReject"], maxDepth: number, id: JsonRpcId): Verdict {
  const message = `Invalid Request: the body nests arrays and objects deeper than the limit of ${maxDepth} levels`;
  return refuse(onReject, 400, "nested-too-deeply", message, INVALID_REQUEST, id);
}

function refuse(
  onReject: Hooks["onReject"],
  status: 400 | 413 | 415,
  reason: RejectReason,
  message: string,
  code = INVALID_REQUEST,
  id: JsonRpcId = null,
): Verdict {
  const response = errorResponse(id, code, message);
  notify(onReject, { status, response, reason, era: undefined, kind: undefined });
  return { ok: false, status, response };
}

function notify(onReject: Hooks["onReject"], info: RejectInfo): void {
  try {
    onReject?.(info);
  } catch {
    // A logging hook must not turn a request that was answered into a crashed one.
  }
}
