/**
 * @module telemetry: what a face tells an observer about each POST (or line) it judged, with no observability library
 * behind it: `wymcp/otel` implements `Telemetry` with OpenTelemetry, and nothing else in wymcp loads it. The facts are
 * read from the body here, once, each bounded and made safe to log (log-safe.ts): the method, the request id, a tool or
 * prompt name, a resource URI, the protocol version, the session id, and the trace context a client put in `_meta`.
 */
import { isResponse } from "../wire/is-response.js";
import type { Era } from "../core/era.js";
import { escapeText } from "../core/log-safe.js";
import type { Report, RuleName } from "../core/rules.js";
import type { ExchangeTrace, TransportFacts } from "../core/trace.js";
// routing-shapes.ts imports nothing: the facts load no validator of the core with them.
import { isRevision, PROTOCOL_VERSION_META_KEY } from "../core/routing-shapes.js";

/**
 * What the gate did with a body: handed it on, answered it itself with an error, handed it on unjudged, or handed on a
 * message that fails a rule in `"report"` (or that it could not judge at all, with `limits` in `"report"`).
 */
export type TelemetryVerdict = "admitted" | "refused" | "bypassed" | "reported";

/** The trace context a client sent in a message's `params._meta` (W3C Trace Context and Baggage keys, unprefixed). */
export interface MetaTraceContext {
  traceparent?: string;
  tracestate?: string;
  baggage?: string;
}

/** One JSON-RPC message of a judged body, as far as an observer may know it. Every text is bounded and log-safe. */
export interface MessageFacts {
  /** The method, when the message names one as a string. */
  method: string | undefined;
  /** The id as sent (a string or a number), to match the answer; `undefined` for a notification or a `null` id. */
  id: string | number | undefined;
  /** The id as text, bounded and log-safe, for recording. */
  idText: string | undefined;
  /** `params.name` of a `tools/call`. */
  toolName: string | undefined;
  /** `params.name` of a `prompts/get`. */
  promptName: string | undefined;
  /** `params.uri` of a `resources/read`, `resources/subscribe` or `resources/unsubscribe`. */
  resourceUri: string | undefined;
  /** The `jsonrpc` member when it is a version number other than `2.0` (only ever on a refused message). */
  jsonrpcVersion: string | undefined;
  /** The MCP revision the message claims (a date-shaped value only): the modern `_meta` claim, `initialize`'s, or the header's. */
  protocolVersion: string | undefined;
  /** `params._meta` trace context, each value at most `MAX_CONTEXT_UNITS` long; not recorded, only extracted. */
  traceContext: MetaTraceContext | undefined;
}

/** One judged POST (or stdio line): the verdict and what the observer may know of the body and the connection. */
export interface JudgedExchange {
  verdict: TelemetryVerdict;
  /** The era the body was judged in; `undefined` when it was refused before (media type, size, JSON). */
  era: Era | undefined;
  /** Why it was refused or reported (`RejectReason`) or bypassed (`BypassReason`); `undefined` when admitted. */
  reason: string | undefined;
  /** The JSON-RPC error code of the gate's own answer, for a refusal. */
  code: number | undefined;
  /** One entry per message of the body (a legacy batch holds several; at most `MAX_TRACED_MESSAGES`); responses a client sends back are left out unless refused. */
  messages: readonly MessageFacts[];
  /** The legacy session the request belongs to (`Mcp-Session-Id`), bounded and log-safe; never set in the modern era. */
  sessionId: string | undefined;
  transport: TransportFacts;
  /** When the face began with this body, as `performance.now()`. */
  startTime: number;
  /** Milliseconds spent in the era's validation alone, when the face measured it. */
  validationMs: number | undefined;
  /** The rules in `"report"` the body failed, when it failed any (`wymcp.report.rule`): reports, not errors. */
  reported?: readonly RuleName[];
}

/** The observer a face takes as its `telemetry` option; `mcpTelemetry()` from `wymcp/otel` is one. */
export interface Telemetry {
  /**
   * Whether anything of an exchange judged now would be recorded. `false` (no SDK installed) lets the face skip reading
   * the body's facts and calling `judged` at all. Optional: without it, every judged body is shown to `judged`.
   */
  recording?(): boolean;
  /**
   * Called once per judged body, before the answer is written or the server runs; it must not throw. `undefined` when
   * nothing of this exchange is recorded (no SDK installed): the face then skips watching the answer.
   */
  judged(exchange: JudgedExchange): ExchangeTrace | undefined;
  /**
   * A report that belongs to no judged exchange the face traces (a tool's drift from the lock, a server's message on a
   * stream); it must not throw. Optional.
   */
  report?(report: Report): void;
}

/** Most messages of one body traced: a legacy batch of thousands must not cost thousands of spans. */
export const MAX_TRACED_MESSAGES = 32;
/** Longest method, tool name, prompt name, request id or session id recorded, in characters once escaped. */
export const MAX_NAME_UNITS = 128;
/** Longest resource URI recorded, in characters once escaped. */
export const MAX_URI_UNITS = 512;
/** Longest `_meta` trace-context value extracted (W3C Baggage allows 8,192 bytes; `traceparent` is 55, `tracestate` 512). */
export const MAX_CONTEXT_UNITS = 8192;

const RESOURCE_METHODS: ReadonlySet<string> = new Set(["resources/read", "resources/subscribe", "resources/unsubscribe"]);
const JSONRPC_VERSION = /^\d{1,3}(?:\.\d{1,3})?$/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `text` escaped and cut as the answers' own texts are (log-safe.ts). */
export function safeText(text: string, max: number): string {
  return escapeText(text, max);
}

/**
 * The facts of each message of a parsed body: one for a single message, one per item (at most `MAX_TRACED_MESSAGES`)
 * for a batch, one empty entry for a body that was refused before it was parsed (`undefined`). Responses (the legacy
 * answers to a server's requests) are left out when `refused` is false: they are no operation of the server's.
 */
export function messageFacts(body: unknown, era: Era | undefined, headerVersion: string | undefined, refused: boolean): MessageFacts[] {
  if (!Array.isArray(body)) return refused || !isResponse(body) ? [factsOf(body, era, headerVersion)] : [];
  const out: MessageFacts[] = [];
  for (const item of body) {
    if (out.length >= MAX_TRACED_MESSAGES) break;
    if (refused || !isResponse(item)) out.push(factsOf(item, era, headerVersion));
  }
  // A refused empty batch is still one answer.
  if (refused && out.length === 0) out.push(factsOf(undefined, era, headerVersion));
  return out;
}

/** The legacy session id to record: only in the legacy era (the modern one has no sessions), bounded and log-safe. */
export function sessionFact(era: Era | undefined, header: string | undefined): string | undefined {
  return era === "legacy" && header !== undefined && header !== "" ? safeText(header, MAX_NAME_UNITS) : undefined;
}

function factsOf(message: unknown, era: Era | undefined, headerVersion: string | undefined): MessageFacts {
  const body = isPlainObject(message) ? message : undefined;
  const method = typeof body?.method === "string" ? body.method : undefined;
  const rawId = body?.id;
  const id = typeof rawId === "string" || (typeof rawId === "number" && Number.isFinite(rawId)) ? rawId : undefined;
  const params = isPlainObject(body?.params) ? body.params : undefined;
  const meta = isPlainObject(params?._meta) ? params._meta : undefined;
  const name = typeof params?.name === "string" ? params.name : undefined;
  const uri = typeof params?.uri === "string" ? params.uri : undefined;
  const jsonrpc = body?.jsonrpc;
  return {
    method: method === undefined ? undefined : safeText(method, MAX_NAME_UNITS),
    id,
    idText: id === undefined ? undefined : safeText(String(id), MAX_NAME_UNITS),
    toolName: method === "tools/call" && name !== undefined ? safeText(name, MAX_NAME_UNITS) : undefined,
    promptName: method === "prompts/get" && name !== undefined ? safeText(name, MAX_NAME_UNITS) : undefined,
    resourceUri: method !== undefined && RESOURCE_METHODS.has(method) && uri !== undefined ? safeText(uri, MAX_URI_UNITS) : undefined,
    jsonrpcVersion: typeof jsonrpc === "string" && jsonrpc !== "2.0" && JSONRPC_VERSION.test(jsonrpc) ? jsonrpc : undefined,
    protocolVersion: protocolVersionOf(era, method, params, meta, headerVersion),
    traceContext: meta === undefined ? undefined : traceContextOf(meta),
  };
}

/** A revision only (`YYYY-MM-DD`): a client's free text never becomes a metric attribute. */
function protocolVersionOf(
  era: Era | undefined,
  method: string | undefined,
  params: Record<string, unknown> | undefined,
  meta: Record<string, unknown> | undefined,
  headerVersion: string | undefined,
): string | undefined {
  const claims = [
    era === "modern" ? meta?.[PROTOCOL_VERSION_META_KEY] : undefined,
    era === "legacy" && method === "initialize" ? params?.protocolVersion : undefined,
    headerVersion?.trim(),
  ];
  for (const claim of claims) if (typeof claim === "string" && isRevision(claim)) return claim;
  return undefined;
}

function traceContextOf(meta: Record<string, unknown>): MetaTraceContext | undefined {
  let context: MetaTraceContext | undefined;
  for (const key of ["traceparent", "tracestate", "baggage"] as const) {
    const value = meta[key];
    if (typeof value === "string" && value.length <= MAX_CONTEXT_UNITS) (context ??= {})[key] = value;
  }
  return context;
}

/** What an answer the server sent says, for the observer: its id, and its error code and message or tool error. */
export interface AnswerFacts {
  /** The id answered; `null` for an error answer that names no request (the SDK's answer to a bad POST). */
  id: string | number | null;
  /** The JSON-RPC error code, for an error answer. */
  code: number | undefined;
  /** The error's message, bounded and log-safe. */
  message: string | undefined;
  /** A result with `isError: true` (a tool's own failure). */
  toolError: boolean;
}

/** The facts of one message the server sent, when it is an answer (a result or an error); `undefined` otherwise. */
export function answerFacts(message: unknown): AnswerFacts | undefined {
  if (!isPlainObject(message) || Object.hasOwn(message, "method")) return undefined;
  const id = message.id;
  if (!(typeof id === "string" || typeof id === "number" || id === null)) return undefined;
  const error = message.error;
  if (isPlainObject(error)) {
    const code = typeof error.code === "number" && Number.isSafeInteger(error.code) ? error.code : undefined;
    const text = typeof error.message === "string" ? safeText(error.message, MAX_URI_UNITS) : undefined;
    return { id, code, message: text, toolError: false };
  }
  if (!Object.hasOwn(message, "result") || id === null) return undefined;
  const result = message.result;
  return { id, code: undefined, message: undefined, toolError: isPlainObject(result) && result.isError === true };
}

/** The `error.type` of something a server threw: its class's name (bounded, log-safe), or `_OTHER`. */
export function errorTypeOf(error: unknown): string {
  const name = typeof error === "object" && error !== null ? (error.constructor as { name?: unknown } | undefined)?.name : undefined;
  return typeof name === "string" && name !== "" ? safeText(name, 64) : "_OTHER";
}
