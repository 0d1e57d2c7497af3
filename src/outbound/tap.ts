/**
 * @module tap: the faces' outbound report mode. Watches the bytes a server sends back (a JSON body,
 * or each `data:` event of an SSE stream), hands every JSON-RPC message in them to an injected check, and
 * reports violations to a hook. It never touches the bytes: the adapters pass them on first, then tap them.
 * The check is injected (`outboundCheck: validateMcpResponse` from `wymcp/outbound`), so the inbound
 * entry never loads the outbound validators.
 */
import type { JsonRpcId } from "../core/envelope.js";
import type { Era } from "../core/era.js";
import type { Formats } from "../core/formats.js";
import { legacyRevisionOf } from "../core/legacy-revision.js";
import { describeValue, optionalFunction, WymcpOptionError } from "../core/options.js";
import { mediaType } from "../core/header-value.js";
import { createSseReader, type SseReader } from "../wire/sse.js";
import type { OutboundViolations } from "./validate-response.js";

export type { OutboundViolations };

/** The shape of `validateMcpResponse`, as far as the adapters need it. */
export type OutboundCheck = (
  message: unknown,
  context: { era: Era; method?: string; protocolVersion?: string; formats?: Formats },
) => { outcome: "pass" } | { outcome: "violation"; violations: OutboundViolations };

/** What `onOutboundViolation` receives for one message that failed the check. */
export interface OutboundViolationInfo {
  era: Era;
  /** The answered request's method for a response (when known), the message's own for a notification or request. */
  method: string | undefined;
  /** The message's `id`, when it has one. */
  id: JsonRpcId | undefined;
  /** Legacy: the revision whose definitions judged it (the request's `MCP-Protocol-Version`, as inbound). */
  revision?: string;
  violations: OutboundViolations;
}

/** Development-mode options both adapters take. */
export interface OutboundOptions {
  /**
   * `"report"` checks every JSON-RPC message sent back through the gate with `outboundCheck` and reports each
   * violation; nothing is altered or delayed (docs/outbound.md).
   * @default `"off"`
   */
  outbound?: "off" | "report";
  /**
   * The check to run, e.g. `validateMcpResponse` from `wymcp/outbound`; required with `outbound: "report"`.
   * @default none
   */
  outboundCheck?: OutboundCheck;
  /**
   * Called once per message that fails the check; it must not throw (a throw is ignored).
   * @default none
   */
  onOutboundViolation?: (info: OutboundViolationInfo) => void;
}

/** The report settings: the check, the hook, and the face's `formats` option, which the check is given with each message. */
export type ReportSettings = Required<Pick<OutboundOptions, "outboundCheck" | "onOutboundViolation">> & { formats?: Formats | undefined };

/**
 * The validated report settings, or undefined when the mode is off; misuse throws when the face is built. `formats` is
 * the face's own option (checked with the others), so that what a face reports follows the policy it admits by.
 */
export function reportSettings(options: OutboundOptions, formats?: Formats): ReportSettings | undefined {
  const { outbound = "off", outboundCheck, onOutboundViolation } = options;
  if (outbound === "off") return undefined;
  if (outbound !== "report") throw new WymcpOptionError("outbound", `outbound must be "off" or "report", not ${describeValue(outbound)}`);
  if (typeof outboundCheck !== "function") {
    throw new WymcpOptionError("outboundCheck", 'outbound: "report" needs outboundCheck, e.g. validateMcpResponse from "wymcp/outbound"');
  }
  const hook = optionalFunction<OutboundOptions["onOutboundViolation"]>("onOutboundViolation", onOutboundViolation);
  return { outboundCheck, onOutboundViolation: hook ?? (() => undefined), formats };
}

/** What a tap does with each message: report mode's check, and (telemetry) a plain look at it. */
export interface TapHooks extends Partial<ReportSettings> {
  /** Every JSON-RPC message read, before the check; it must not throw (a throw is ignored). */
  onMessage?: (message: unknown) => void;
}

/** Receives the response's bytes in order; `end()` once they are all sent. */
export interface Tap {
  push(chunk: Uint8Array | string): void;
  end(): void;
}

/**
 * A tap for one response. Headers are read at the first byte (hosts set them before the body); a body that is
 * neither `application/json` nor `text/event-stream`, or that is compressed, is not looked at.
 */
export function createTap(
  era: Era,
  requestBody: unknown,
  header: (name: "content-type" | "content-encoding") => string | null | undefined,
  hooks: TapHooks,
  maxMessageUnits = MAX_TAPPED_MESSAGE_UNITS,
  protocolVersion?: string | null,
): Tap {
  return new ResponseTap(era, requestBody, header, hooks, maxMessageUnits, protocolVersion);
}

/** One response's tap: what its body is (read at the first byte), the text or events read so far, and each message's check. */
class ResponseTap implements Tap {
  private readonly outboundCheck: OutboundCheck | undefined;
  private readonly onOutboundViolation: ReportSettings["onOutboundViolation"] | undefined;
  private readonly onMessage: ((message: unknown) => void) | undefined;
  private readonly formats: Formats | undefined;
  private readonly methods: Map<unknown, string> | undefined;
  private readonly revision: string | undefined;
  private mode: "json" | "sse" | "ignore" | undefined;
  private readonly decoder = new TextDecoder("utf-8");
  private text = "";
  // SSE: events past the bound are dropped whole, as a larger JSON body is.
  private events: SseReader | undefined;

  constructor(
    private readonly era: Era,
    requestBody: unknown,
    private readonly header: (name: "content-type" | "content-encoding") => string | null | undefined,
    { outboundCheck, onOutboundViolation, onMessage, formats }: TapHooks,
    private readonly maxMessageUnits: number,
    protocolVersion: string | null | undefined,
  ) {
    this.outboundCheck = outboundCheck;
    this.onOutboundViolation = onOutboundViolation;
    this.onMessage = onMessage;
    this.formats = formats;
    this.methods = outboundCheck ? requestMethods(requestBody) : undefined;
    // A legacy exchange is judged by the revision its request was judged by inbound (the header, an initialize's own).
    this.revision = outboundCheck && era === "legacy" ? legacyRevisionOf(requestBody, protocolVersion).revision : undefined;
  }

  push(chunk: Uint8Array | string): void {
    this.mode ??= this.modeOf();
    if (this.mode === "ignore") return;
    const piece = typeof chunk === "string" ? chunk : this.decoder.decode(chunk, { stream: true });
    if (this.mode === "sse") {
      this.events ??= createSseReader(this.maxMessageUnits);
      this.events.push(piece);
      return this.drain(this.events);
    }
    this.text += piece;
    // A JSON body past the bound is not checked: holding it whole is what the bound is for.
    if (this.text.length > this.maxMessageUnits) {
      this.mode = "ignore";
      this.text = "";
    }
  }

  end(): void {
    this.mode ??= this.modeOf();
    if (this.mode === "ignore") return;
    const rest = this.decoder.decode();
    if (this.mode === "sse") {
      this.events ??= createSseReader(this.maxMessageUnits);
      this.events.push(rest);
      this.events.end();
      return this.drain(this.events);
    }
    this.text += rest;
    if (this.mode === "json") {
      if (this.text.trim() !== "") this.messages(this.text);
      this.text = "";
    }
  }

  private modeOf(): "json" | "sse" | "ignore" {
    const { header } = this;
    // Compressed bytes (a compression middleware outside the gate) are not JSON the tap can read.
    const encoding = (header("content-encoding") ?? "identity").trim().toLowerCase();
    if (encoding !== "identity" && encoding !== "") return "ignore";
    const type = mediaType(header("content-type"));
    return type === "application/json" ? "json" : type === "text/event-stream" ? "sse" : "ignore";
  }

  // Data of no event, or only blank, is no message (a priming event, a keep-alive).
  private drain(reader: SseReader): void {
    for (let data = reader.next(); data !== undefined; data = reader.next()) if (data.trim() !== "") this.messages(data);
  }

  private messages(json: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      return this.report(NOT_JSON);
    }
    // A batch (2025-03-26) holds one message per element.
    if (Array.isArray(parsed)) for (let i = 0; i < parsed.length; i++) this.report(parsed[i]);
    else this.report(parsed);
  }

  /** One message: shown to `onMessage`, then (report mode) checked. */
  private report(message: unknown): void {
    const { onMessage, outboundCheck } = this;
    if (onMessage) {
      try {
        onMessage(message);
      } catch {
        // An observer must not break a response already on its way.
      }
    }
    if (outboundCheck) this.check(message, outboundCheck);
  }

  /** Report mode: the message judged as the answer to its request (by its id) in the exchange's era; a violation goes to the hook. */
  private check(message: unknown, outboundCheck: OutboundCheck): void {
    const { era, revision, onOutboundViolation } = this;
    const isObject = typeof message === "object" && message !== null && !Array.isArray(message);
    const body = (isObject ? message : {}) as Record<string, unknown>;
    const own = typeof body.method === "string" ? body.method : undefined;
    const id = Object.hasOwn(body, "id") ? (body.id as JsonRpcId) : undefined;
    const method = own ?? (id === undefined || id === null ? undefined : this.methods?.get(id));
    let result;
    try {
      const context: Parameters<OutboundCheck>[1] = method === undefined ? { era } : { era, method };
      if (revision !== undefined) context.protocolVersion = revision;
      if (this.formats === "strict") context.formats = this.formats;
      result = outboundCheck(message, context);
    } catch {
      // A failing check must not break a response already on its way.
      return;
    }
    if (result.outcome === "pass") return;
    try {
      onOutboundViolation?.(
        revision === undefined
          ? { era, method, id, violations: result.violations }
          : { era, method, id, revision, violations: result.violations },
      );
    } catch {
      // Same as onReject: a broken logger must not break the response.
    }
  }
}

/**
 * Largest message the tap holds to check, in UTF-16 units of its text (16 Mi, four times the default inbound
 * body limit): a larger JSON body or SSE event is passed on unchecked rather than buffered.
 */
export const MAX_TAPPED_MESSAGE_UNITS = 16 * 1024 * 1024;

/** Stands for a body or event that is not JSON: no JSON-RPC kind, so the check reports it at the message itself. */
const NOT_JSON = Symbol("not JSON");

/** id → method of the request(s) in a POST body, so a response can be judged by what it answers. */
function requestMethods(body: unknown): Map<unknown, string> {
  const out = new Map<unknown, string>();
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== "object" || message === null) continue;
    const { id, method } = message as { id?: unknown; method?: unknown };
    if (typeof method === "string" && (typeof id === "string" || typeof id === "number")) out.set(id, method);
  }
  return out;
}
