import { eras } from "../generated/index.js";
import type { Validator, ValidationError } from "../generated/validator.js";
import { classifyMessage, type MessageKind } from "./classify-message.js";
import { distill } from "./distill.js";
import { answerId, errorResponse, INVALID_PARAMS, INVALID_REQUEST, type InvalidRequestData, type JsonRpcErrorResponse } from "./envelope.js";
import type { Era } from "./era.js";

/**
 * The answer to a rejected message never exceeds this many UTF-8 bytes as JSON, by construction:
 * entries ≤ 6,000 bytes (measured in distill.ts), id ≤ 128 UTF-16 units as JSON (≤ 384 bytes), summary ≤
 * ~700 bytes (a 61-character location escaped at worst 6 bytes a character, a schema-worded message, a
 * definition name), envelope ≤ 150 bytes. test/properties.test.ts and test/pathological.test.ts check it.
 */
export const MAX_ANSWER_BYTES = 8192;

export type BypassReason = "legacy-response" | "modern-notification";

export type ValidationResult =
  /** The message conforms; `definition` names the schema definition it was judged against. */
  | { outcome: "pass"; kind: "request" | "notification"; definition: string }
  /** The message was not validated: answering it with an error is the protocol's to forbid. */
  | { outcome: "bypass"; kind: "response" | "notification"; reason: BypassReason }
  /** The message does not conform: send `response` with HTTP `status`. */
  | { outcome: "reject"; kind: MessageKind; status: 400; response: JsonRpcErrorResponse };

type Rule = "validate" | "bypass" | "reject-response";

/**
 * DESIGN §3.3 as data: what each era does with each kind of message ("other" is always validated and
 * rejected). The legacy response bypass is the one `bypass` in the legacy row and goes with that row.
 */
const RULES: Record<Era, Record<"request" | "notification" | "response", Rule>> = {
  legacy: { request: "validate", notification: "validate", response: "bypass" },
  modern: { request: "validate", notification: "bypass", response: "reject-response" },
};

/**
 * The pure check: classifies `body` (an already parsed JSON value), applies the era's rules and, for a
 * non-conforming message, builds the JSON-RPC answer: `-32600` when the framing fails, `-32602` when the
 * framing holds and a known method's params fail its definition. An unset (or unknown) era reads as legacy.
 */
export function validateMcpRequest(body: unknown, era: Era = "legacy"): ValidationResult {
  const lane: Era = era === "modern" ? "modern" : "legacy";
  const module = eras[lane];
  const kind = classifyMessage(body);
  if (kind === "other") return check(body, kind, module.JSONRPCMessage, "JSONRPCMessage");
  const rule = RULES[lane][kind];
  if (rule === "bypass") return { outcome: "bypass", kind, reason: `${lane}-${kind}` } as ValidationResult;
  if (rule === "reject-response") {
    return reject(body, kind, "Invalid JSON-RPC response: clients of the modern era send none (MRTR replaced server-to-client requests)", {
      errors: [{ instancePath: "", messages: ["must be a request or a notification, not a response"] }],
    });
  }
  if (kind === "notification") return check(body, kind, module.JSONRPCNotification, "JSONRPCNotification");
  const method = (body as { method: unknown }).method;
  const known = module.methods.get(method as string);
  if (!known) return check(body, kind, module.JSONRPCRequest, "JSONRPCRequest");
  return check(body, kind, module.JSONRPCRequest, known.definition, known.validate, method as string);
}

/**
 * Framing, then the method's own definition when there is one; errors of both are distilled together.
 * Nothing is built for the answer unless the message fails: this is the per-message hot path.
 */
function check(
  body: unknown,
  kind: MessageKind,
  framing: Validator,
  definition: string,
  validate?: Validator,
  method?: string,
): ValidationResult {
  let errors: ValidationError[] = [];
  let framingHolds = true;
  try {
    if (!framing(body)) {
      errors = framing.errors ?? [];
      framingHolds = false;
    }
    if (validate && !validate(body)) errors = errors.concat(validate.errors ?? []);
  } catch (error) {
    // The schema's recursive JSONValue follows the client's nesting; past the stack, the message cannot be judged.
    if (!(error instanceof RangeError)) throw error;
    return reject(body, kind, `Invalid ${judgedAs(kind, definition, method)}: nested too deeply to validate`, {
      errors: [{ instancePath: "", messages: ["nests too deeply to validate"] }],
    });
  }
  if (kind === "other") {
    if (errors.length === 0) {
      return reject(body, kind, `Invalid ${judgedAs(kind, definition, method)}: not a request, a notification or a response`, {
        errors: [{ instancePath: "", messages: ["must have a method, or an id with a result or an error"] }],
      });
    }
  } else if (errors.length === 0) {
    return { outcome: "pass", kind: kind as "request" | "notification", definition };
  }
  const { message, data } = distill(errors, judgedAs(kind, definition, method));
  // The spec's own split: a message that is not a valid JSON-RPC request is InvalidRequest; a valid one
  // whose params fail its method's definition is InvalidParams (the conformance suite checks which).
  return reject(body, kind, message, data, framingHolds && validate ? INVALID_PARAMS : INVALID_REQUEST);
}

/** What the message was judged as, for the summary: "tools/call request (CallToolRequest)". */
function judgedAs(kind: MessageKind, definition: string, method: string | undefined): string {
  // Only a method of the era's table is named: an unknown method is the client's string, not a protocol fact.
  if (method !== undefined) return `${method} request (${definition})`;
  return `JSON-RPC ${kind === "other" ? "message" : kind} (${definition})`;
}

function reject(body: unknown, kind: MessageKind, message: string, data: InvalidRequestData, code = INVALID_REQUEST): ValidationResult {
  return { outcome: "reject", kind, status: 400, response: errorResponse(answerId(body), code, message, data) };
}
