/**
 * @module tap: the faces' `outbound` rule. Watches the bytes a server sends back (a JSON body, or each `data:` event
 * of an SSE stream), hands every JSON-RPC message in them to an injected check, and reports each violation
 * (`onReport`, rule `outbound`). It never touches the bytes: the adapters pass them on first, then tap them. The check
 * is injected (`outbound: validateMcpResponse` from `wymcp/outbound`), so the inbound entry never loads the outbound
 * validators.
 */
import { answerId } from "../core/envelope.js";
import type { Era } from "../core/era.js";
import type { Formats } from "../core/formats.js";
import { legacyRevisionOf } from "../core/legacy-revision.js";
import { escapeText } from "../core/log-safe.js";
import { describeValue, WymcpOptionError } from "../core/options.js";
import { deliverReport, MAX_REPORT_NAME_UNITS, type Report, type RuleState } from "../core/rules.js";
import { mediaType } from "../core/header-value.js";
import { createSseReader, type SseReader } from "../core/sse.js";
import type { OutboundViolations } from "./validate-response.js";

export type { OutboundViolations };

/** The shape of `validateMcpResponse`, as far as the adapters need it. */
export type OutboundCheck = (
  message: unknown,
  context: { era: Era; method?: string; protocolVersion?: string; formats?: Formats },
) => { outcome: "pass" } | { outcome: "violation"; violations: OutboundViolations };

/** The `outbound` rule's settings: the check, where its reports go, and whether formats are asserted (the face's `formats` rule). */
export interface ReportSettings {
  outboundCheck: OutboundCheck;
  onReport: (report: Report) => void;
  formats?: Formats | undefined;
}

/**
 * The `outbound` option checked (the check, e.g. `validateMcpResponse`), with the rule's state: the settings a tap
 * reports by, or `undefined` when the rule is off. `"enforce"` and `"report"` both report each violation: a server's
 * message is already on its way, so enforcing it is logging it.
 */
export function outboundSettings(
  check: unknown,
  state: RuleState,
  onReport: ((report: Report) => void) | undefined,
  formats?: Formats,
): ReportSettings | undefined {
  if (check !== undefined && typeof check !== "function")
    throw new WymcpOptionError(
      "outbound",
      `outbound must be the check (validateMcpResponse from "wymcp/outbound"), not ${describeValue(check)}`,
    );
  if (state === "off" || check === undefined) return undefined;
  return { outboundCheck: check as OutboundCheck, onReport: onReport ?? (() => undefined), formats };
}

/** What a tap does with each message: report mode's check, and (telemetry) a plain look at it. */
export interface TapHooks extends Partial<ReportSettings> {
  /** Every JSON-RPC message read, before the check; it must not throw (a throw is ignored). */
  onMessage?: (message: unknown) => void;
}

/**
 * A tap's hooks for an exchange with a trace: every message shown to it, and each violation reported to the face's
 * hook and to the span (an attribute, not an error).
 */
export function tracedHooks(
  report: ReportSettings | undefined,
  trace: { answered(message: unknown): void; report?(report: Report): void },
): TapHooks {
  const onMessage = (message: unknown) => trace.answered(message);
  if (!report) return { onMessage };
  const onReport = (found: Report) => {
    report.onReport(found);
    trace.report?.(found);
  };
  return { ...report, onReport, onMessage };
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
export function createTap({
  era,
  requestBody,
  header,
  hooks,
  maxMessageUnits = MAX_TAPPED_MESSAGE_UNITS,
  protocolVersion,
}: TapOptions): Tap {
  return new ResponseTap(era, requestBody, header, hooks, maxMessageUnits, protocolVersion);
}

/** One response's tap, as `createTap` takes it. */
export interface TapOptions {
  /** The exchange's era. */
  era: Era;
  /** The request the response answers (its ids name the methods answered). */
  requestBody: unknown;
  /** The response's headers, read at the first byte. */
  header: (name: "content-type" | "content-encoding") => string | null | undefined;
  hooks: TapHooks;
  /** Largest message held to check. */
  maxMessageUnits?: number | undefined;
  /** The request's `MCP-Protocol-Version` (a legacy exchange is judged by that revision). */
  protocolVersion?: string | null | undefined;
}

/** One response's tap: what its body is (read at the first byte), the text or events read so far, and each message's check. */
class ResponseTap implements Tap {
  private readonly outboundCheck: OutboundCheck | undefined;
  private readonly onReport: ReportSettings["onReport"] | undefined;
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
    { outboundCheck, onReport, onMessage, formats }: TapHooks,
    private readonly maxMessageUnits: number,
    protocolVersion: string | null | undefined,
  ) {
    this.outboundCheck = outboundCheck;
    this.onReport = onReport;
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

  /** The message judged as the answer to its request (by its id) in the exchange's era; a violation is reported. */
  private check(message: unknown, outboundCheck: OutboundCheck): void {
    const { era, revision, onReport } = this;
    const isObject = typeof message === "object" && message !== null && !Array.isArray(message);
    const body = (isObject ? message : {}) as Record<string, unknown>;
    const own = typeof body.method === "string" ? body.method : undefined;
    const id = Object.hasOwn(body, "id") ? answerId(body) : undefined;
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
    const { violations } = result;
    const report: Report = {
      rule: "outbound",
      direction: "out",
      era,
      method: method === undefined ? undefined : escapeText(method, MAX_REPORT_NAME_UNITS),
      id,
      client: undefined,
      message: violations.message,
      errors: violations.errors,
    };
    if (revision !== undefined) report.revision = revision;
    if (violations.omitted !== undefined) report.omitted = violations.omitted;
    deliverReport(onReport, report);
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
