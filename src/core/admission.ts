/**
 * @module admission: the one stage every face runs on a POSTed body, and the one place each refusal is worded: media
 * type (`415`), declared and streamed size (`413`), strict UTF-8 and JSON (`400`/-32700), the nesting bound
 * (`400`/-32600), the era's validation (`400`/-32600 or -32602). Results are data; nothing here throws on a client's
 * bytes. Web APIs only (`TextDecoder`, `Uint8Array`): Workers run it as Node does.
 */
import { exceedsDepth } from "./depth.js";
import {
  answerId,
  errorResponse,
  INVALID_REQUEST,
  PARSE_ERROR,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type ToolErrorAnswer,
} from "./envelope.js";
import type { Era } from "./era.js";
import type { RequestHeaders } from "./header-body.js";
import { mediaType } from "./header-value.js";
import { checkHostOrigin, type HostPolicy } from "./host-origin.js";
import type { RuleName, RuleStates } from "./rules.js";
import { validateMcpRequest, type JudgedKind, type ValidateOptions, type ValidationResult } from "./validate.js";

/** What the admission stage needs of a face's options: the limits, and what validation takes beyond the request. */
export interface AdmissionSettings {
  /** Largest body read, in bytes. */
  readonly maxBodyBytes: number;
  /** Deepest nesting of arrays and objects accepted; `Infinity` when the bound is off. */
  readonly maxDepth: number;
  /** Every rule's state, as the face applies it (`resolveRules`); unset: the defaults of `validateMcpRequest`. */
  readonly rules?: RuleStates;
  /** The modern versions the server serves (`allow.versions`); unset: those this library knows. */
  readonly versions?: readonly string[] | undefined;
  /**
   * A clock in milliseconds (`performance.now`), given by a face with telemetry: the era's validation is then timed
   * (`validationMs`) and a refused parsed body kept on its refusal (`body`), for the observer alone.
   */
  readonly clock?: () => number;
}

/** Why a face answered instead of handing the request on. */
export type RejectReason =
  | "body-too-large"
  | "unsupported-media-type"
  | "parse-error"
  | "nested-too-deeply"
  | "invalid-message"
  | "forbidden-host"
  | "forbidden-origin"
  | "invalid-tool-arguments"
  | "param-header-mismatch"
  | "tool-locked";

/** A message that passed or was bypassed, as handed to the next handler. */
export type Admitted = Extract<ValidationResult, { outcome: "pass" | "bypass" }>;

/** What the next handler learns about an admitted POST. */
export interface WymcpInfo {
  era: Era;
  result: Admitted;
}

/** The HTTP status of a refusal: the validator's for an invalid message, `400`, `403`, `413` or `415` for the others. */
export type RefusalStatus = Extract<ValidationResult, { outcome: "reject" }>["status"] | 403 | 413 | 415;

/** A refused body: the status and JSON-RPC answer to send, and why. Nothing of the body but the id is in it. */
export interface Refusal {
  ok: false;
  status: RefusalStatus;
  reason: RejectReason;
  /** The rule that refuses it: `limits` (size, media type, JSON, nesting), `origin`, or one of validation's. */
  rule: RuleName;
  response: JsonRpcErrorResponse;
  /** The era the message was judged in; unset when the body was refused before it was judged. */
  era: Era | undefined;
  /** The kind of message, for `invalid-message` refusals. */
  kind: JudgedKind | undefined;
  /** The definition an invalid message failed (`CallToolRequest`, ...); only on `invalid-message` refusals. */
  definition?: string;
  /** The legacy revision whose definition it failed; only on a legacy params failure. */
  revision?: string;
  /** With `clock`: the parsed body (for telemetry's facts: method, id, names), when it was parsed. Never given to `onReject`. */
  body?: unknown;
  /** With `clock`: milliseconds spent in the era's validation, when it ran. */
  validationMs?: number;
}

/** What `onReject` receives: the answer that was sent, why, and the rule that refused; never the client's body. */
export interface RejectInfo {
  status: number;
  reason: RejectReason;
  rule: RuleName;
  /** The answer sent: a JSON-RPC error, or (a tool's arguments refused from 2025-11-25 on) a tool execution error. */
  response: JsonRpcErrorResponse | ToolErrorAnswer;
  /** The era the message was judged in; unset when it was refused before it was judged. */
  era: Era | undefined;
  kind: JudgedKind | undefined;
}

/** A body the stage let through: parsed, its era, and the validator's pass or bypass. */
export interface Acceptance {
  ok: true;
  body: unknown;
  era: Era;
  result: Admitted;
  /** With `clock`: milliseconds spent in the era's validation. */
  validationMs?: number;
}

/** The stage's verdict on one POST. */
export type Admission = Acceptance | Refusal;

/** The words of every refusal but an invalid message's (which the validator writes): one place, every face. */
export const REFUSAL_MESSAGES = {
  mediaType: "Unsupported Media Type: Content-Type must be application/json",
  tooLarge: (maxBodyBytes: number) => `Payload Too Large: the body exceeds the limit of ${maxBodyBytes} bytes`,
  // Fixed: a parser's message quotes the body, and the answer must not reflect it.
  parse: "Parse error: the body is not valid JSON",
  tooDeep: (maxDepth: number) => `Invalid Request: the body nests arrays and objects deeper than the limit of ${maxDepth} levels`,
} as const;

function refusal(status: RefusalStatus, reason: RejectReason, code: number, message: string, id: JsonRpcId = null): Refusal {
  return { ok: false, status, reason, rule: "limits", response: errorResponse(id, code, message), era: undefined, kind: undefined };
}

/** `415`: the media type is not JSON (a missing one included). */
export const unsupportedMediaType = (): Refusal => refusal(415, "unsupported-media-type", INVALID_REQUEST, REFUSAL_MESSAGES.mediaType);
/** `413`: the body (declared or streamed) exceeds `maxBodyBytes`. */
export const bodyTooLarge = (maxBodyBytes: number): Refusal =>
  refusal(413, "body-too-large", INVALID_REQUEST, REFUSAL_MESSAGES.tooLarge(maxBodyBytes));
/** `400`/-32700: the bytes are not UTF-8 or not JSON. */
export const parseError = (): Refusal => refusal(400, "parse-error", PARSE_ERROR, REFUSAL_MESSAGES.parse);
/** `400`/-32600: the body nests deeper than `maxDepth`; the id is kept when the client's may be echoed. */
export const nestedTooDeeply = (maxDepth: number, id: JsonRpcId): Refusal =>
  refusal(400, "nested-too-deeply", INVALID_REQUEST, REFUSAL_MESSAGES.tooDeep(maxDepth), id);

const JSON_MEDIA_TYPE = "application/json";

/**
 * Whether a `Content-Type` value names JSON: `application/json` in any case, with any parameters. A `charset`
 * label is not looked at, as the SDK does not: the bytes are judged as strict UTF-8 whatever it says (RFC 8259
 * §8.1 makes UTF-8 JSON's only encoding between systems), so bytes in another encoding are a parse error, never
 * read another way. Two media types in one value (a comma) are refused.
 */
export function isJsonMediaType(value: string | null | undefined): boolean {
  // The value MCP clients send (and the stdio gate gives every line) needs no parsing (docs/performance.md#figures-behind-code-comments).
  if (value === JSON_MEDIA_TYPE) return true;
  return !!value && !value.includes(",") && mediaType(value) === JSON_MEDIA_TYPE;
}

/**
 * The `415` for a media type that is not JSON, or `undefined`. A missing Content-Type is refused too: MCP clients
 * always send application/json, and the official SDK's transport answers such a POST 415 anyway.
 */
export function checkMediaType(contentType: string | null | undefined): Refusal | undefined {
  return isJsonMediaType(contentType) ? undefined : unsupportedMediaType();
}

/**
 * Where a body's bytes come from: read lazily, only once the header checks have passed. A host that reads its stream
 * itself (into a `BodyBytes`) gives the bytes, or `undefined` once the body turned out longer than the limit.
 */
export type ByteSource = () => AsyncIterable<Uint8Array> | Iterable<Uint8Array> | Promise<Uint8Array | undefined>;

/**
 * Reads at most `limit` bytes: `undefined` as soon as the body turns out longer, so a large body is
 * never held whole. `declared` is the `Content-Length`, when the host gave one within the limit.
 * Memory is bounded by the body, not by its chunking: no chunk is kept once the next arrives (a body sent one
 * byte per chunk is a million chunk objects per MiB), every byte is copied into one buffer of the declared length
 * or into blocks of `BODY_BLOCK_BYTES`, and the blocks into one buffer of the exact length at the end: at most
 * twice the body plus one block.
 */
export async function readLimited(
  chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  limit: number,
  declared?: number,
): Promise<Uint8Array | undefined> {
  const body = new BodyBytes(limit, declared);
  for await (const chunk of chunks) if (!body.add(chunk)) return undefined;
  return body.bytes();
}

/** Bytes of one block a body of undeclared length is gathered in. */
export const BODY_BLOCK_BYTES = 64 * 1024;

/**
 * A body's bytes as they arrive, up to a limit: the first chunk as it came while it is the only one, then copies.
 * `declared` is the `Content-Length`, used only when it is within the limit.
 */
export class BodyBytes {
  size = 0;
  /** The only chunk so far, not copied: most bodies come in one. */
  private only: Uint8Array | undefined;
  /** One buffer of the declared length, filled in place while the body keeps to it. */
  private whole: Uint8Array | undefined;
  /** Otherwise, full blocks and the last one being filled (`used` bytes of it). */
  private blocks: Uint8Array[] = [];
  private used = 0;

  private declared: number | undefined;

  constructor(
    private readonly limit: number,
    declared?: number,
  ) {
    this.declared = declared !== undefined && Number.isSafeInteger(declared) && declared >= 0 && declared <= limit ? declared : undefined;
  }

  /** Keeps `chunk`; `false`, keeping nothing of it, when it would take the body past the limit. */
  add(chunk: Uint8Array): boolean {
    if (this.size + chunk.byteLength > this.limit) return false;
    if (chunk.byteLength === 0) return true;
    if (this.size === 0) {
      this.only = chunk;
      this.size = chunk.byteLength;
      return true;
    }
    if (this.only) {
      const first = this.only;
      this.only = undefined;
      this.size = 0;
      this.copy(first);
    }
    this.copy(chunk);
    return true;
  }

  private copy(data: Uint8Array): void {
    if (this.declared !== undefined && this.size + data.byteLength <= this.declared) {
      this.whole ??= new Uint8Array(this.declared);
      this.whole.set(data, this.size);
      this.size += data.byteLength;
      return;
    }
    if (this.whole) {
      // More than declared (a host that does not hold the client to its Content-Length): blocks from here.
      const sofar = this.whole.subarray(0, this.size);
      this.whole = undefined;
      this.declared = undefined;
      this.size = 0;
      this.append(sofar);
    }
    this.declared = undefined;
    this.append(data);
  }

  private append(data: Uint8Array): void {
    let from = 0;
    while (from < data.byteLength) {
      let block = this.blocks[this.blocks.length - 1];
      if (!block || this.used === block.byteLength) {
        block = new Uint8Array(BODY_BLOCK_BYTES);
        this.blocks.push(block);
        this.used = 0;
      }
      const n = Math.min(block.byteLength - this.used, data.byteLength - from);
      block.set(data.subarray(from, from + n), this.used);
      this.used += n;
      from += n;
    }
    this.size += data.byteLength;
  }

  bytes(): Uint8Array {
    if (this.only) return this.only;
    if (this.whole) return this.size === this.whole.byteLength ? this.whole : this.whole.subarray(0, this.size);
    if (this.blocks.length <= 1) return (this.blocks[0] ?? new Uint8Array(0)).subarray(0, this.size);
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const block of this.blocks) {
      const n = Math.min(block.byteLength, this.size - at);
      out.set(n === block.byteLength ? block : block.subarray(0, n), at);
      at += n;
    }
    return out;
  }
}

/**
 * The body's bytes, or the `413`: first by the declared `Content-Length` (one that is no number is ignored), then
 * by what streams in, read no further than `maxBodyBytes`.
 */
export async function readBody(
  source: ByteSource,
  { maxBodyBytes }: Pick<AdmissionSettings, "maxBodyBytes">,
  declaredLength?: string | number | null,
): Promise<{ ok: true; bytes: Uint8Array } | Refusal> {
  const declared = Number(declaredLength ?? Number.NaN);
  if (declared > maxBodyBytes) return bodyTooLarge(maxBodyBytes);
  const chunks = source();
  const bytes = chunks instanceof Promise ? await chunks : await readLimited(chunks, maxBodyBytes, declared);
  return bytes ? { ok: true, bytes } : bodyTooLarge(maxBodyBytes);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Strict UTF-8, then JSON: the parsed value, or the `400`/-32700. */
export function parseBody(bytes: Uint8Array, { maxDepth }: Pick<AdmissionSettings, "maxDepth">): { ok: true; body: unknown } | Refusal {
  try {
    return { ok: true, body: JSON.parse(utf8.decode(bytes)) };
  } catch (error) {
    // A parser that recurses (V8's does not) runs out of stack on deep bodies: that is the nesting bound's answer.
    if (error instanceof RangeError) return nestedTooDeeply(maxDepth, null);
    return parseError();
  }
}

/** What judging a parsed body needs beside it: its era (or how to find it) and the request's `MCP-Protocol-Version`. */
export interface JudgeContext {
  /** A lane, or a function of the body (run only once the body is within the nesting bound); `undefined` is legacy. */
  era: Era | ((body: unknown) => Era | undefined);
  protocolVersion?: string | null | undefined;
  /** The request's headers, for the modern lane's header rules (`validateMcpRequest`'s `headers`); none on stdio. */
  headers?: RequestHeaders | undefined;
}

/**
 * A parsed body: the nesting bound first (before anything recursive sees it: the era callback, the validators, the
 * next handler's re-serialization), then the era, then `validateMcpRequest` in that era.
 */
export function judgeBody(body: unknown, { era, protocolVersion, headers }: JudgeContext, settings: AdmissionSettings): Admission {
  const { clock } = settings;
  if (exceedsDepth(body, settings.maxDepth)) {
    const refused = nestedTooDeeply(settings.maxDepth, answerId(body));
    if (clock) refused.body = body;
    return refused;
  }
  const lane = (typeof era === "function" ? era(body) : era) ?? "legacy";
  const began = clock?.();
  // Every option spelled out (the type misses none): a spread with members after it takes V8's slow path, about a
  // microsecond a request on Node 20. `mode` is in the states already.
  const options: ValidateOptions & Record<keyof ValidateOptions, unknown> = {
    rules: settings.rules,
    mode: undefined,
    versions: settings.versions,
    protocolVersion,
    headers,
  };
  const result = validateMcpRequest(body, lane, options);
  let verdict: Admission;
  if (result.outcome === "reject") {
    const { status, response, kind, definition, revision, rule } = result;
    const refused: Refusal = { ok: false, status, reason: "invalid-message", rule, response, era: lane, kind, definition };
    if (revision !== undefined) refused.revision = revision;
    verdict = refused;
  } else verdict = { ok: true, body, era: lane, result };
  if (clock) {
    verdict.validationMs = clock() - (began as number);
    if (!verdict.ok) verdict.body = body;
  }
  return verdict;
}

/** The parts of an HTTP POST the stage looks at, whatever the host. */
export interface Exchange extends JudgeContext {
  contentType: string | null | undefined;
  contentLength?: string | null | undefined;
  /** The body when the host has parsed it already (e.g. `express.json()`): then no size limit or parse error applies. */
  parsed?: { body: unknown };
  /** The body's bytes, read only after the header checks pass. */
  chunks: ByteSource;
}

/** The whole stage for one POST, after the method check: media type, size, UTF-8 and JSON, nesting, era, validation. */
export async function admit(exchange: Exchange, settings: AdmissionSettings): Promise<Admission> {
  const wrongType = checkMediaType(exchange.contentType);
  if (wrongType) return wrongType;
  if (exchange.parsed) return judgeBody(exchange.parsed.body, exchange, settings);
  const read = await readBody(exchange.chunks, settings, exchange.contentLength);
  if (!read.ok) return read;
  return judgeBytes(read.bytes, exchange, settings);
}

/**
 * The stage for a body already whole in memory (a stdio line): the checks and answers of `admit`, with no read to
 * wait for, so a caller judging many small bodies pays no promise per body.
 */
export function admitBytes(
  bytes: Uint8Array,
  exchange: Pick<Exchange, "contentType" | "era" | "protocolVersion" | "headers">,
  settings: AdmissionSettings,
): Admission {
  const wrongType = checkMediaType(exchange.contentType);
  if (wrongType) return wrongType;
  if (bytes.byteLength > settings.maxBodyBytes) return bodyTooLarge(settings.maxBodyBytes);
  return judgeBytes(bytes, exchange, settings);
}

/** Strict UTF-8 and JSON, then the parsed body judged. */
function judgeBytes(bytes: Uint8Array, context: JudgeContext, settings: AdmissionSettings): Admission {
  const parsed = parseBody(bytes, settings);
  return parsed.ok ? judgeBody(parsed.body, context, settings) : parsed;
}

/**
 * The `403` for a request whose `Host` or `Origin` the face's policy does not allow (host-origin.ts), or `undefined`:
 * every method, before anything is read. Its answer has no `id`, as the transport asks of it.
 */
export function checkHost(
  policy: HostPolicy | undefined,
  host: string | null | undefined,
  origin: string | null | undefined,
): Refusal | undefined {
  if (policy === undefined) return undefined;
  const forbidden = checkHostOrigin(policy, host, origin);
  if (forbidden === undefined) return undefined;
  // The one answer with no id: the type keeps `id` for every other, and nothing reads it from this one.
  const response = forbidden.response as unknown as JsonRpcErrorResponse;
  return { ok: false, status: 403, reason: forbidden.reason, rule: "origin", response, era: undefined, kind: undefined };
}

/** Reports a refusal to a face's `onReject`, once; a hook that throws does not turn an answered request into a failed one. */
export function reportRefusal(
  onReject: ((info: RejectInfo) => void) | undefined,
  { ok: _ok, definition: _definition, revision: _revision, body: _body, validationMs: _validationMs, ...info }: Refusal,
): void {
  tellRejected(onReject, info);
}

/** `onReject` told of one refusal, whatever refused it (the admission stage, the server's tools, the lock). */
export function tellRejected(onReject: ((info: RejectInfo) => void) | undefined, info: RejectInfo): void {
  try {
    onReject?.(info);
  } catch {
    // A logging hook must not break the answer.
  }
}

/**
 * Whether an admitted body is a modern notification, which the gates answer `202` with no body whatever it holds
 * (JSON-RPC forbids an error answer to a notification; the SDK answers an accepted one so).
 */
export function isAcceptedNotification(result: Admitted): boolean {
  // Only a bypass has a reason.
  return (result as { reason?: unknown }).reason === "modern-notification";
}
