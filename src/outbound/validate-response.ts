/**
 * @module outbound: checks what a server sends (results, errors, notifications, legacy server requests)
 * against the era's schema, with the result judged by the method of the request it answers.
 * A separate entry (`wymcp/outbound`): the inbound runtime never loads these validators.
 */
import { outbound, type RevisionOutbound } from "../../generated/outbound.js";
import type { ValidationError, Validator } from "../../generated/validator.js";
import { distill } from "../core/distill.js";
import type { LocatedError } from "../core/envelope.js";
import type { Era } from "../core/era.js";
import { switchFormats } from "../core/format-switch.js";
import type { Formats } from "../core/formats.js";

/** What a server-sent message is, judged by its members alone. */
export type OutboundKind = "result" | "error" | "notification" | "request" | "other";

/** Violations distilled like an inbound rejection: one entry per location, bounded, no values of the message. */
export interface OutboundViolations {
  /** One line: what the message was judged as, how many locations failed, the first problem. */
  message: string;
  errors: LocatedError[];
  /** Problems found but not listed, present only when some were left out. */
  omitted?: number;
}

export type OutboundResult =
  /** The message conforms; `definition` names the most specific definition it was judged against, `revision` whose it is. */
  | { outcome: "pass"; kind: OutboundKind; definition: string; revision: string }
  /** The message does not conform: a bug of the server's (or of the client's, for a legacy client's result). */
  | { outcome: "violation"; kind: OutboundKind; definition: string; revision: string; violations: OutboundViolations };

export interface ResponseContext {
  /** The era the exchange is in; unset (or unknown) reads as legacy, as inbound. */
  era?: Era;
  /** For a response: the method of the request it answers. Notifications and requests carry their own. */
  method?: string;
  /**
   * The revision the exchange negotiated (its `MCP-Protocol-Version` header): a message is judged by that
   * revision's definitions. Unset, or no revision of the era: the era's newest (legacy: 2025-11-25).
   */
  protocolVersion?: string | null | undefined;
  /**
   * Whether a schema's `format` is asserted, as inbound: `"annotation"` (default) reports no string for its format, as
   * the official SDKs' clients accept any; `"strict"` reports a `uri`, `uri-template` or `byte` string that fails it.
   */
  formats?: Formats | undefined;
}

type Module = typeof outbound.legacy | typeof outbound.modern;

/** Ajv's calling convention with the location of the value inside the whole message. */
type Located = (data: unknown, at: { instancePath: string; parentData: unknown; parentDataProperty: string; rootData: unknown }) => boolean;

/**
 * Checks one JSON-RPC message a server sends (or, in the legacy era, a client's result to a server request):
 * the envelope of its kind, then the most specific definition the era has for it. A result is judged by the
 * answered request's `method` (name rule `XRequest` → `XResult`, exceptions in `schemas/outbound/`), except
 * that in the modern era a result with `resultType: "input_required"` is judged as `InputRequiredResult`
 * where the method's response admits one.
 * @example const result = validateMcpResponse(JSON.parse(body), { era: "modern", method: "tools/call" });
 */
export function validateMcpResponse(message: unknown, context: ResponseContext = {}): OutboundResult {
  // The generated validators assert formats as this call's policy says (format-switch.ts).
  switchFormats(context.formats);
  const { era, method, protocolVersion } = context;
  const lane: Module = era === "modern" ? outbound.modern : outbound.legacy;
  // The framing is the era's own (newest) revision's; the tables are the negotiated revision's.
  const named = protocolVersion == null ? undefined : (lane.revisions as ReadonlyMap<string, RevisionOutbound>).get(protocolVersion);
  const tables: RevisionOutbound = named ?? lane;
  const revision = named ? (protocolVersion as string) : lane.revision;
  // Summaries name the revision where an era has several, as the inbound legacy ones do.
  const which = lane === outbound.legacy ? `, revision ${revision}` : "";
  const check = (
    kind: OutboundKind,
    judged: string,
    framing: Validator,
    definition: string,
    validate?: Validator,
    ofResult = false,
  ): OutboundResult => judge(message, kind, `${judged} (${definition}${which})`, revision, framing, definition, validate, ofResult);
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return check("other", "JSON-RPC message", lane.JSONRPCMessage, "JSONRPCMessage");
  }
  const body = message as Record<string, unknown>;
  if (Object.hasOwn(body, "method")) {
    const own = body.method as string;
    if (Object.hasOwn(body, "id")) {
      if (lane === outbound.modern) return modernRequest(revision);
      const known = tables.requests.get(own);
      return known
        ? check("request", `${own} request`, lane.JSONRPCRequest, known.definition, known.validate)
        : check("request", "JSON-RPC request", lane.JSONRPCRequest, "JSONRPCRequest");
    }
    const known = tables.notifications.get(own);
    return known
      ? check("notification", `${own} notification`, lane.JSONRPCNotification, known.definition, known.validate)
      : check("notification", "JSON-RPC notification", lane.JSONRPCNotification, "JSONRPCNotification");
  }
  if (Object.hasOwn(body, "error")) {
    const code = (body.error as { code?: unknown } | null)?.code;
    const typed = typeof code === "number" ? tables.errors.get(code) : undefined;
    return typed
      ? check("error", `error ${code} response`, lane.JSONRPCErrorResponse, typed.definition, typed.validate)
      : check("error", "JSON-RPC error response", lane.JSONRPCErrorResponse, "JSONRPCErrorResponse");
  }
  if (Object.hasOwn(body, "result")) {
    const known = method === undefined ? undefined : tables.results.get(method);
    const d = lane.discriminator;
    const result = body.result as Record<string, unknown> | null;
    // MRTR: input_required picks its own definition where the method's response admits one, or when the method is not known.
    if (
      d &&
      (known === undefined || known.discriminated) &&
      typeof result === "object" &&
      result !== null &&
      result[d.member] === d.value
    ) {
      const name = known ? `${method} result` : "JSON-RPC result";
      return check("result", name, lane.JSONRPCResultResponse, d.definition, d.validate, true);
    }
    return known
      ? check("result", `${method} result`, lane.JSONRPCResultResponse, known.definition, known.validate, true)
      : check("result", "JSON-RPC result", lane.JSONRPCResultResponse, "JSONRPCResultResponse");
  }
  return check("other", "JSON-RPC message", lane.JSONRPCMessage, "JSONRPCMessage");
}

/** Modern servers send no requests: MRTR's input_required results replaced server-to-client requests. */
function modernRequest(revision: string): OutboundResult {
  return violation("request", "JSONRPCRequest", revision, {
    message: "Invalid JSON-RPC request: servers of the modern era send none (MRTR replaced server-to-client requests)",
    errors: [{ instancePath: "", messages: ["must be a response or a notification, not a request"] }],
  });
}

/** The envelope, then the definition (of the whole message, or of its `result` located under `/result`). */
function judge(
  message: unknown,
  kind: OutboundKind,
  judged: string,
  revision: string,
  framing: Validator,
  definition: string,
  validate?: Validator,
  ofResult = false,
): OutboundResult {
  let errors: ValidationError[] = [];
  try {
    if (!framing(message)) errors = framing.errors ?? [];
    if (validate) {
      const ok = ofResult
        ? (validate as unknown as Located)((message as { result: unknown }).result, {
            instancePath: "/result",
            parentData: message,
            parentDataProperty: "result",
            rootData: message,
          })
        : validate(message);
      if (!ok) errors = errors.concat(validate.errors ?? []);
    }
  } catch (error) {
    // The schemas' recursive JSONValue follows the message's nesting; past the stack it cannot be judged.
    if (!(error instanceof RangeError)) throw error;
    return violation(kind, definition, revision, {
      message: `Invalid ${judged}: nested too deeply to validate`,
      errors: [{ instancePath: "", messages: ["nests too deeply to validate"] }],
    });
  }
  if (errors.length === 0) {
    if (kind !== "other") return { outcome: "pass", kind, definition, revision };
    return violation(kind, definition, revision, {
      message: `Invalid ${judged}: not a request, a notification or a response`,
      errors: [{ instancePath: "", messages: ["must have a method, or a result or an error"] }],
    });
  }
  const { message: summary, data } = distill(errors, judged);
  return violation(kind, definition, revision, { message: summary, ...data });
}

function violation(kind: OutboundKind, definition: string, revision: string, violations: OutboundViolations): OutboundResult {
  return { outcome: "violation", kind, definition, revision, violations };
}
