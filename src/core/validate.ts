import { batches, eras } from "../../generated/index.js";
import type { Validator, ValidationError } from "../../generated/validator.js";
import { classifyMessage, type MessageKind } from "./classify-message.js";
import { distill } from "./distill.js";
import { ERROR_BUDGET } from "./error-budget.js";
import {
  answerId,
  errorResponse,
  INVALID_PARAMS,
  INVALID_REQUEST,
  type InvalidRequestData,
  type JsonRpcErrorResponse,
} from "./envelope.js";
import { isRevision, type Era } from "./era.js";

/**
 * The answer to a rejected message never exceeds this many UTF-8 bytes as JSON, by construction:
 * entries ≤ 6,000 bytes (measured in distill.ts), id ≤ 128 UTF-16 units as JSON (≤ 384 bytes), summary ≤
 * ~700 bytes (a 61-character location escaped at worst 6 bytes a character, a schema-worded message, a
 * definition name), envelope ≤ 150 bytes. test/properties.test.ts and test/pathological.test.ts check it.
 */
export const MAX_ANSWER_BYTES = 8192;

export type BypassReason = "legacy-response" | "modern-notification";

/** What a body was judged as: a message of one kind, or (legacy lane, 2025-03-26 clients) a JSON-RPC batch. */
export type JudgedKind = MessageKind | "batch";

export type ValidationResult =
  /** The message conforms; `definition` names the schema definition it was judged against. */
  | { outcome: "pass"; kind: "request" | "notification" | "batch"; definition: string }
  /** The message was not validated: answering it with an error is the protocol's to forbid. */
  | { outcome: "bypass"; kind: "response" | "notification" | "batch"; reason: BypassReason }
  /** The message does not conform: send `response` with HTTP `status`; `definition` names what it failed. */
  | { outcome: "reject"; kind: JudgedKind; definition: string; status: 400; response: JsonRpcErrorResponse };

export interface ValidateOptions {
  /**
   * The request's `MCP-Protocol-Version` header, if it had one. Only batches need it: revision 2025-03-26
   * allowed them and sent no such header, 2025-06-18 removed them and brought the header.
   */
  protocolVersion?: string | null | undefined;
}

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
export function validateMcpRequest(body: unknown, era: Era = "legacy", options?: ValidateOptions): ValidationResult {
  const lane: Era = era === "modern" ? "modern" : "legacy";
  const module = eras[lane];
  if (Array.isArray(body)) {
    const batch = batches[lane];
    if (batch && judgesBatch(batch.refusedFromRevision, options?.protocolVersion))
      return checkBatch(body, lane, batch, `JSON-RPC batch (items framed by revision ${batch.revision})`);
    if (lane === "modern") return refuseModernBatch(body, module);
  }
  const kind = classifyMessage(body);
  if (kind === "other") return check(body, kind, module.JSONRPCMessage, "JSONRPCMessage");
  const rule = RULES[lane][kind];
  if (rule === "bypass") return { outcome: "bypass", kind, reason: `${lane}-${kind}` } as ValidationResult;
  if (rule === "reject-response") {
    return reject(
      body,
      kind,
      "JSONRPCMessage",
      "Invalid JSON-RPC response: clients of the modern era send none (MRTR replaced server-to-client requests)",
      {
        errors: [{ instancePath: "", messages: ["must be a request or a notification, not a response"] }],
      },
    );
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
    return reject(body, kind, definition, `Invalid ${judgedAs(kind, definition, method)}: nested too deeply to validate`, {
      errors: [{ instancePath: "", messages: ["nests too deeply to validate"] }],
    });
  }
  if (kind === "other") {
    if (errors.length === 0) {
      return reject(body, kind, definition, `Invalid ${judgedAs(kind, definition, method)}: not a request, a notification or a response`, {
        errors: [{ instancePath: "", messages: ["must have a method, or an id with a result or an error"] }],
      });
    }
  } else if (errors.length === 0) {
    return { outcome: "pass", kind: kind as "request" | "notification", definition };
  }
  const { message, data } = distill(errors, judgedAs(kind, definition, method));
  // The spec's own split: a message that is not a valid JSON-RPC request is InvalidRequest; a valid one
  // whose params fail its method's definition is InvalidParams (the conformance suite checks which).
  return reject(body, kind, definition, message, data, framingHolds && validate ? INVALID_PARAMS : INVALID_REQUEST);
}

/**
 * Whether a batch is judged item by item (true) or refused as a message of no kind: refused when the
 * header names the revision that removed batches or a later one. A header naming no revision is no
 * signal here; the server refuses an unsupported version itself.
 */
function judgesBatch(refusedFromRevision: string, header: string | null | undefined): boolean {
  const revision = header?.trim();
  return revision === undefined || !isRevision(revision) || revision < refusedFromRevision;
}

const BATCH = "JSONRPCBatchRequest";

type BatchFraming = NonNullable<(typeof batches)[Era]>;

/**
 * A legacy batch: each item by its kind under the era's rules (a client response stays bypassed), framed by
 * the revision that allowed batches; error locations start at the item's index (`/1/jsonrpc`).
 */
function checkBatch(
  body: unknown[],
  lane: Era,
  batch: Pick<BatchFraming, "JSONRPCRequest" | "JSONRPCNotification">,
  judgedAs: string,
): ValidationResult {
  if (body.length === 0) {
    // JSON-RPC 2.0: an empty array is not a valid batch (and the SDK refuses it too).
    return reject(body, "batch", BATCH, `Invalid ${judgedAs}: it is empty`, {
      errors: [{ instancePath: "", messages: ["must have at least one message"] }],
    });
  }
  const errors: ValidationError[] = [];
  let judged = 0;
  try {
    // Past the error budget, more items would only cost time: the count then reads "N+".
    for (let i = 0; i < body.length && errors.length < ERROR_BUDGET; i++) {
      const item = body[i];
      const kind = classifyMessage(item);
      if (kind !== "other" && RULES[lane][kind] === "bypass") continue;
      judged++;
      // An item of no kind is judged as the request it most likely meant to be, which locates what it lacks.
      const framing = kind === "notification" ? batch.JSONRPCNotification : batch.JSONRPCRequest;
      if (!framing(item, { instancePath: `/${i}`, parentData: body, parentDataProperty: i, rootData: body })) {
        for (const error of framing.errors ?? []) errors.push(error);
      }
    }
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return reject(body, "batch", BATCH, `Invalid ${judgedAs}: nested too deeply to validate`, {
      errors: [{ instancePath: "", messages: ["nests too deeply to validate"] }],
    });
  }
  if (errors.length > 0) {
    const { message, data } = distill(errors, judgedAs);
    return reject(body, "batch", BATCH, message, data);
  }
  if (judged === 0) return { outcome: "bypass", kind: "batch", reason: `${lane}-response` as BypassReason };
  return { outcome: "pass", kind: "batch", definition: BATCH };
}

/**
 * A batch on the modern lane, where the SDK's router sends every batch it will not serve as legacy (one with an item
 * that is no JSON-RPC message, or with a `_meta` protocol-version claim): refused, since the modern era has none, with
 * an answer that says so and locates each item's framing error (`/1/jsonrpc`) as a legacy batch's answer does.
 */
function refuseModernBatch(body: unknown[], module: (typeof eras)[Era]): ValidationResult {
  const judgedAs = `JSON-RPC batch (revision ${module.revision} takes none: one message per request)`;
  const items = checkBatch(body, "modern", module, judgedAs);
  if (items.outcome === "reject") return items;
  return reject(body, "batch", BATCH, `Invalid ${judgedAs}`, {
    errors: [{ instancePath: "", messages: ["must be a single message, not a batch"] }],
  });
}

/** What the message was judged as, for the summary: "tools/call request (CallToolRequest)". */
function judgedAs(kind: MessageKind, definition: string, method: string | undefined): string {
  // Only a method of the era's table is named: an unknown method is the client's string, not a protocol fact.
  if (method !== undefined) return `${method} request (${definition})`;
  return `JSON-RPC ${kind === "other" ? "message" : kind} (${definition})`;
}

function reject(
  body: unknown,
  kind: JudgedKind,
  definition: string,
  message: string,
  data: InvalidRequestData,
  code = INVALID_REQUEST,
): ValidationResult {
  return { outcome: "reject", kind, definition, status: 400, response: errorResponse(answerId(body), code, message, data) };
}
