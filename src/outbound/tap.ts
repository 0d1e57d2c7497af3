/**
 * @module tap: the faces' outbound report mode. Every JSON-RPC message a server sends back (wire/messages.ts reads
 * them from a JSON body or each `data:` event of an SSE stream) goes to an injected check, and each violation to a
 * hook. It never touches the bytes: the adapters pass them on first, then tap them.
 * The check is injected (`outboundCheck: validateMcpResponse` from `wymcp/outbound`), so the inbound
 * entry never loads the outbound validators.
 */
import type { JsonRpcId } from "../core/envelope.js";
import type { Era } from "../core/era.js";
import type { Formats } from "../core/formats.js";
import { legacyRevisionOf } from "../core/legacy-revision.js";
import { describeValue, optionalFunction, WymcpOptionError } from "../core/options.js";
import { MAX_TAPPED_MESSAGE_UNITS, readMessages } from "../wire/messages.js";
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
 * A tap for one response: its messages (wire/messages.ts) shown to `onMessage`, then checked. Headers are read at the
 * first byte (hosts set them before the body); a body that is neither `application/json` nor `text/event-stream`, or
 * that is compressed, is not looked at.
 */
export function createTap(
  era: Era,
  requestBody: unknown,
  header: (name: "content-type" | "content-encoding") => string | null | undefined,
  hooks: TapHooks,
  maxMessageUnits = MAX_TAPPED_MESSAGE_UNITS,
  protocolVersion?: string | null,
): Tap {
  const { onMessage } = hooks;
  const check = hooks.outboundCheck && checkOf(era, requestBody, protocolVersion, hooks as ReportSettings);
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
 * Report mode's check of one exchange's messages: each judged as the answer to its request (by its id) in the
 * exchange's era, a legacy one by the revision its request was judged by inbound (the header, an initialize's own); a
 * violation goes to the hook. Neither the check nor the hook breaks a response already on its way.
 */
export function checkOf(
  era: Era,
  requestBody: unknown,
  protocolVersion: string | null | undefined,
  { outboundCheck, onOutboundViolation, formats }: ReportSettings,
): (message: unknown) => void {
  const methods = requestMethods(requestBody);
  const revision = era === "legacy" ? legacyRevisionOf(requestBody, protocolVersion).revision : undefined;
  return (message) => {
    const isObject = typeof message === "object" && message !== null && !Array.isArray(message);
    const body = (isObject ? message : {}) as Record<string, unknown>;
    const own = typeof body.method === "string" ? body.method : undefined;
    const id = Object.hasOwn(body, "id") ? (body.id as JsonRpcId) : undefined;
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
    try {
      onOutboundViolation(
        revision === undefined
          ? { era, method, id, violations: result.violations }
          : { era, method, id, revision, violations: result.violations },
      );
    } catch {
      // Same as onReject: a broken logger must not break the response.
    }
  };
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
