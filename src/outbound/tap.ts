/**
 * @module tap: the faces' `outbound` rule. Every JSON-RPC message a server sends back (wire/messages.ts reads them from
 * a JSON body or each `data:` event of an SSE stream) goes to an injected check, and each violation is reported
 * (`onReport`, rule `outbound`). It never touches the bytes: the adapters pass them on first, then tap them. The check
 * is injected (`outbound: validateMcpResponse` from `wymcp/outbound`), so the inbound entry never loads the outbound
 * validators.
 */
import { answerId, type JsonRpcId } from "../core/envelope.js";
import type { Era } from "../core/era.js";
import type { Formats } from "../core/formats.js";
import { legacyRevisionOf } from "../core/legacy-revision.js";
import { escapeText } from "../core/log-safe.js";
import { describeValue, WymcpOptionError } from "../options/options.js";
import { deliverReport, MAX_REPORT_NAME_UNITS, type Report, type RuleState } from "../core/rules.js";
import { MAX_TAPPED_MESSAGE_UNITS, readMessages } from "../wire/messages.js";
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

/**
 * A tap for one response: its messages (wire/messages.ts) shown to `onMessage`, then checked. Headers are read at the
 * first byte (hosts set them before the body); a body that is neither `application/json` nor `text/event-stream`, or
 * that is compressed, is not looked at.
 */
export function createTap({
  era,
  requestBody,
  header,
  hooks,
  maxMessageUnits = MAX_TAPPED_MESSAGE_UNITS,
  protocolVersion,
}: TapOptions): Tap {
  const { onMessage, outboundCheck, onReport, formats } = hooks;
  const check =
    outboundCheck && checkOf(era, requestBody, protocolVersion, { outboundCheck, onReport: onReport ?? (() => undefined), formats });
  return readMessages(
    header,
    (message) => {
      onMessage?.(message);
      check?.(message);
    },
    maxMessageUnits,
  );
}

/**
 * The `outbound` rule's check of one exchange's messages: each judged as the answer to its request (by its id) in the
 * exchange's era, a legacy one by the revision its request was judged by inbound (the header, an initialize's own); a
 * violation is reported. Neither the check nor the hook breaks a response already on its way.
 */
export function checkOf(
  era: Era,
  requestBody: unknown,
  protocolVersion: string | null | undefined,
  { outboundCheck, onReport, formats }: ReportSettings,
): (message: unknown) => void {
  const methods = requestMethods(requestBody);
  const revision = era === "legacy" ? legacyRevisionOf(requestBody, protocolVersion).revision : undefined;
  return (message) => {
    const isObject = typeof message === "object" && message !== null && !Array.isArray(message);
    const body = (isObject ? message : {}) as Record<string, unknown>;
    const own = typeof body.method === "string" ? body.method : undefined;
    const id = Object.hasOwn(body, "id") ? answerId(body) : undefined;
    const method = own ?? (id === undefined || id === null ? undefined : methods.get(id));
    let result: ReturnType<OutboundCheck>;
    try {
      const context: Parameters<OutboundCheck>[1] = method === undefined ? { era } : { era, method };
      if (revision !== undefined) context.protocolVersion = revision;
      if (formats === "strict") context.formats = formats;
      result = outboundCheck(message, context);
    } catch {
      // A failing check must not break a response already on its way.
      return;
    }
    if (result.outcome === "pass") return;
    deliverReport(onReport, outboundReport({ era, method, id, revision, violations: result.violations }));
  };
}

/** A server's message that fails the `outbound` rule, as every face reports it: its method escaped and bounded. */
export function outboundReport({
  era,
  method,
  id,
  revision,
  violations,
}: {
  era: Era;
  method: string | undefined;
  id: JsonRpcId | undefined;
  revision?: string | undefined;
  violations: OutboundViolations;
}): Report {
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
  return report;
}

export { MAX_TAPPED_MESSAGE_UNITS };

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
