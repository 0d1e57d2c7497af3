import { eras } from "../generated/index.js";
import type { Validator, ValidationError } from "../generated/validator.js";
import { classifyMessage, type MessageKind } from "./classify-message.js";
import { distill } from "./distill.js";
import { answerId, errorResponse, INVALID_REQUEST, type JsonRpcErrorResponse } from "./envelope.js";
import type { Era } from "./era.js";

/** The answer to a rejected message never exceeds this many UTF-8 bytes as JSON. */
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

const BYPASS_REASON: Record<Era, BypassReason> = { legacy: "legacy-response", modern: "modern-notification" };

/**
 * The pure check: classifies `body` (an already parsed JSON value), applies the era's rules and, for a
 * non-conforming message, builds the JSON-RPC `-32600` answer. An unset era reads as legacy.
 */
export function validateMcpRequest(body: unknown, era: Era = "legacy"): ValidationResult {
  const module = eras[era] ?? eras.legacy;
  const kind = classifyMessage(body);
  if (kind === "other") {
    return check(body, kind, module.JSONRPCMessage, "JSON-RPC message", "JSONRPCMessage");
  }
  const rule = RULES[era]?.[kind] ?? RULES.legacy[kind];
  if (rule === "bypass") return { outcome: "bypass", kind, reason: BYPASS_REASON[era] } as ValidationResult;
  if (rule === "reject-response") {
    return reject(body, kind, "Invalid JSON-RPC response: clients of the modern era send none (MRTR replaced server-to-client requests)", [
      { instancePath: "", messages: ["must be a request or a notification, not a response"] },
    ]);
  }
  if (kind === "notification") return check(body, kind, module.JSONRPCNotification, "JSON-RPC notification", "JSONRPCNotification");
  const method = module.methods.get((body as { method: unknown }).method as string);
  if (!method) return check(body, kind, module.JSONRPCRequest, "JSON-RPC request", "JSONRPCRequest");
  return check(body, kind, module.JSONRPCRequest, `${(body as { method: string }).method} request`, method.definition, method.validate);
}

/** Framing, then the method's own definition when there is one; errors of both are distilled together. */
function check(
  body: unknown,
  kind: MessageKind,
  framing: Validator,
  what: string,
  definition: string,
  validate?: Validator,
): ValidationResult {
  const judgedAs = `${what} (${definition})`;
  let errors: ValidationError[] = [];
  try {
    if (!framing(body)) errors = framing.errors ?? [];
    if (validate && !validate(body)) errors = errors.concat(validate.errors ?? []);
  } catch (error) {
    // The schema's recursive JSONValue follows the client's nesting; past the stack, the message cannot be judged.
    if (!(error instanceof RangeError)) throw error;
    return reject(body, kind, `Invalid ${judgedAs}: nested too deeply to validate`, [
      { instancePath: "", messages: ["nests too deeply to validate"] },
    ]);
  }
  if (kind === "other") {
    if (errors.length === 0) {
      return reject(body, kind, `Invalid ${judgedAs}: not a request, a notification or a response`, [
        { instancePath: "", messages: ["must have a method, or an id with a result or an error"] },
      ]);
    }
  } else if (errors.length === 0) {
    return { outcome: "pass", kind: kind as "request" | "notification", definition };
  }
  const distilled = distill(errors, judgedAs);
  return reject(body, kind, distilled.message, distilled.data.errors, distilled.data.omitted);
}

function reject(
  body: unknown,
  kind: MessageKind,
  message: string,
  errors: { instancePath: string; messages: string[] }[],
  omitted = 0,
): ValidationResult {
  const data = omitted > 0 ? { errors, omitted } : { errors };
  const response = errorResponse(answerId(body), INVALID_REQUEST, message, data);
  // The limits in distill.ts keep the answer under the bound; this loop is the guarantee if they drift.
  while (Buffer.byteLength(JSON.stringify(response)) > MAX_ANSWER_BYTES && errors.length > 0) {
    errors.pop();
    data.omitted = (data.omitted ?? 0) + 1;
  }
  return { outcome: "reject", kind, status: 400, response };
}
