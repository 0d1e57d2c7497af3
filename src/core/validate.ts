import { batches, eras } from "../../generated/index.js";
import type { RevisionMethodValidator, Validator, ValidationError } from "../../generated/validator.js";
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
import type { Era } from "./era.js";
import { isRevision } from "./routing-shapes.js";
import { switchFormats } from "./format-switch.js";
import { headerMismatchResponse, headerProblem, headersAgree, type RequestHeaders } from "./header-body.js";
import { legacyMethodOf } from "./legacy-revision.js";
import { claimedVersion, KNOWN_MODERN_REVISIONS, unsupportedVersionResponse } from "./protocol-versions.js";
import type { Mode, RuleName, RuleState, Rules } from "./rules.js";

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

/** A failure of a rule in `"report"`: the rule, and the answer enforcing it would have sent. */
export interface Reported {
  rule: RuleName;
  status: 200 | 400;
  response: JsonRpcErrorResponse;
}

/** The rules validation applies itself; the faces apply the others (origin, limits, the tools, the lock, outbound). */
export type ValidationRule = "framing" | "params" | "formats" | "headers" | "versions";

export type ValidationResult =
  /**
   * The message conforms, or fails only rules in `"report"` or `"off"`; `definition` names the schema definition it was
   * judged against, `revision` the legacy revision whose definition that was. `reported` holds, per rule in
   * `"report"` that it fails, the answer enforcing that rule would have sent: the message passes all the same.
   */
  | {
      outcome: "pass";
      kind: JudgedKind;
      definition: string;
      revision?: string;
      reported?: readonly Reported[];
    }
  /** The message was not validated: answering it with an error is the protocol's to forbid. */
  | { outcome: "bypass"; kind: "response" | "notification" | "batch"; reason: BypassReason }
  /**
   * The message does not conform: send `response` with HTTP `status`; `definition` names what it failed, `rule` the
   * rule that refuses it. `status` is `200` only for a legacy request whose framing holds and whose params fail (legacy
   * clients read a `400` as a transport failure and lose the code).
   */
  | {
      outcome: "reject";
      kind: JudgedKind;
      definition: string;
      revision?: string;
      rule: RuleName;
      status: 200 | 400;
      response: JsonRpcErrorResponse;
    };

/** A refusal, as `reject` builds every one. */
type Rejected = Extract<ValidationResult, { outcome: "reject" }>;

export interface ValidateOptions {
  /**
   * The request's `MCP-Protocol-Version` header, if it had one. It picks the legacy revision that judges a known
   * method's params, and decides batches: revision 2025-03-26 allowed them and sent no such header, 2025-06-18
   * removed them and brought the header.
   */
  protocolVersion?: string | null | undefined;
  /**
   * The HTTP request's headers. Given, a modern request that passes is also held to the transport's header rules
   * (header-body.ts): `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` present and matching the body, else `400`/-32020.
   * A Node face reads `req.headersDistinct` for a value with a comma, so that a repeated header is seen as such. The
   * legacy lane ignores them.
   */
  headers?: RequestHeaders | undefined;
  /**
   * The states of the rules validation applies (`framing`, `params`, `formats`, `headers`, `versions`; the others
   * are the faces'): `"enforce"` refuses, `"report"` passes the message and lists the answer it would have had in
   * `reported`, `"off"` does not judge it. Unset: `formats` off, `versions` report (enforce with `versions`), the rest enforced.
   */
  rules?: Rules | undefined;
  /** `"report"` turns every rule enforced by default to report; a state `rules` names stays as named. */
  mode?: Mode | undefined;
  /**
   * The modern protocol versions the server behind serves. Given, `versions` is enforced by default: a modern request
   * claiming another is answered `400`/-32022 with `data.supported` and `data.requested`. Unset, the versions this
   * library knows are the list, and an unknown one is reported by default (judged on its framing alone, and passed).
   */
  versions?: readonly string[] | undefined;
}

/** A rule's state for one call: the option's as given, else the default with `mode: "report"` applied to it. */
function stateOf(options: ValidateOptions | undefined, rule: ValidationRule): RuleState {
  const given = options?.rules?.[rule];
  if (given !== undefined) return given;
  const state = rule === "formats" ? "off" : rule === "versions" && options?.versions === undefined ? "report" : "enforce";
  return state === "enforce" && options?.mode === "report" ? "report" : state;
}

type KindRule = "validate" | "bypass" | "reject-response";

/**
 * The table of docs/validation.md#what-is-validated as data: what each era does with each kind of message ("other" is always validated and
 * rejected). The legacy response bypass is the one `bypass` in the legacy row and goes with that row.
 */
const KIND_RULES: Record<Era, Record<"request" | "notification" | "response", KindRule>> = {
  legacy: { request: "validate", notification: "validate", response: "bypass" },
  modern: { request: "validate", notification: "bypass", response: "reject-response" },
};

/**
 * The pure check: classifies `body` (an already parsed JSON value), applies the era's rules and, for a
 * non-conforming message, builds the JSON-RPC answer: `-32600` when the framing fails, `-32602` when the
 * framing holds and a known method's params fail its definition. An unset (or unknown) era reads as legacy.
 */
export function validateMcpRequest(body: unknown, era: Era = "legacy", options?: ValidateOptions): ValidationResult {
  const formats = stateOf(options, "formats");
  // The generated validators assert formats as this call's policy says (format-switch.ts).
  switchFormats(formats === "off" ? "annotation" : "strict");
  const result = judged(body, era, options);
  if (result.outcome !== "reject") return result;
  const passed =
    formats !== "off" && (result.rule === "params" || result.rule === "framing")
      ? withoutFormats(body, era, options, result, formats)
      : ruled(result, stateOf(options, result.rule as ValidationRule));
  // A framed modern request whose params a rule not enforced let through meets the rules after it: the header rules.
  return era === "modern" && result.kind === "request" && (result.rule === "params" || result.rule === "formats") && isRecord(body)
    ? withHeaderRule(body, passed, options)
    : passed;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function judged(body: unknown, era: Era, options: ValidateOptions | undefined): ValidationResult {
  if (Array.isArray(body)) return judgeBatch(body, era, options);
  // One function per lane: each is optimized on its own traffic, so a server busy with one era does not crowd the
  // other's hot path out of the compiler's inlining budget (docs/performance.md#one-function-per-lane).
  return era === "modern" ? modernMessage(body, options) : legacyMessage(body, options);
}

/**
 * A message refused with formats asserted, judged again with formats as annotations: when it passes then, its failure
 * is the `formats` rule's alone (refused as such, or passed and reported); when it fails again, that answer (which
 * names no format) is the one a rule in `"report"` reports. Runs only on a refusal: a valid message is judged once.
 */
function withoutFormats(
  body: unknown,
  era: Era,
  options: ValidateOptions | undefined,
  strict: Rejected,
  formats: RuleState,
): ValidationResult {
  switchFormats("annotation");
  const loose = judged(body, era, options);
  switchFormats("strict");
  if (loose.outcome === "reject") {
    const state = stateOf(options, loose.rule as ValidationRule);
    // Enforced, the answer names the format failures too, as it always did under strict formats.
    return state === "enforce" ? strict : ruled(loose, state);
  }
  if (formats === "enforce") return { ...strict, rule: "formats" };
  return withReport(loose, { rule: "formats", status: strict.status, response: strict.response });
}

/** A refusal under its rule's state: refused, passed and reported, or passed. */
function ruled(result: Rejected, state: RuleState): ValidationResult {
  if (state === "enforce") return result;
  const { kind, definition, revision, status, response, rule } = result;
  const passed: Extract<ValidationResult, { outcome: "pass" }> = { outcome: "pass", kind, definition };
  if (revision !== undefined) passed.revision = revision;
  return state === "report" ? withReport(passed, { rule, status, response }) : passed;
}

/** A pass with one more rule's report. */
function withReport(result: Extract<ValidationResult, { outcome: "pass" | "bypass" }>, reported: Reported): ValidationResult {
  if (result.outcome !== "pass") return result;
  return { ...result, reported: result.reported ? [...result.reported, reported] : [reported] };
}

function judgeBatch(body: unknown[], era: Era, options: ValidateOptions | undefined): ValidationResult {
  const lane: Era = era === "modern" ? "modern" : "legacy";
  const batch = batches[lane];
  if (!batch) return refuseBatch(body, lane, eras[lane], `revision ${eras[lane].revision} takes none`);
  if (judgesBatch(batch.refusedFromRevision, options?.protocolVersion))
    return checkBatch(body, lane, batch, `JSON-RPC batch (items framed by revision ${batch.revision})`);
  return refuseBatch(body, lane, eras[lane], `revision ${batch.refusedFromRevision} and later take none`);
}

/** A single legacy message: the era's rules (KIND_RULES.legacy), then the revision's definition of a known method. */
function legacyMessage(body: unknown, options: ValidateOptions | undefined): ValidationResult {
  const kind = classifyMessage(body);
  const framing = FRAMING.legacy;
  if (kind === "other") return check(body, kind, framing.message, "JSONRPCMessage");
  // The legacy row of KIND_RULES: a response is bypassed, a request and a notification validated.
  if (kind === "response") return LEGACY_RESPONSE;
  // With params off, a known method is judged by the framing alone: its definition is not even run.
  if (options?.rules?.params !== "off") {
    const known = legacyMethodOf(body, kind, options?.protocolVersion);
    if (known) return byDefinition(body, kind, framing, known, (body as { method: string }).method);
  }
  return kind === "notification"
    ? check(body, kind, framing.notification, "JSONRPCNotification")
    : check(body, kind, framing.request, "JSONRPCRequest");
}

/** A single modern message: the era's rules (KIND_RULES.modern), the protocol version it claims, its method, its headers. */
function modernMessage(body: unknown, options: ValidateOptions | undefined): ValidationResult {
  const kind = classifyMessage(body);
  const framing = FRAMING.modern;
  if (kind === "other") return check(body, kind, framing.message, "JSONRPCMessage");
  // The modern row of KIND_RULES. A notification is not held to the header rules either: the official client sends it
  // none, the SDK answers it 202 whatever they say, and JSON-RPC forbids an error answer to it.
  if (kind === "notification") return MODERN_NOTIFICATION;
  if (kind === "response") return modernResponse(body);
  // Only requests reach the method table.
  const version = claimedVersion(body);
  let result: ValidationResult;
  if (version === KNOWN_MODERN_REVISION && options?.versions === undefined) {
    // The usual request: a version this library carries, no list of served versions to hold it to.
    result = byMethod(body, options);
  } else result = versionedRequest(body, version, options);
  return withHeaderRule(body, result, options);
}

/** A modern request that passed (or was passed by a rule not enforced), held to the transport's header rules. */
function withHeaderRule(body: unknown, result: ValidationResult, options: ValidateOptions | undefined): ValidationResult {
  const headers = options?.headers;
  if (result.outcome !== "pass" || headers === undefined) return result;
  const headerState = stateOf(options, "headers");
  if (headerState === "off") return result;
  // Headers that are the body's own strings agree at a glance; anything else is judged by the rules in full.
  if (headersAgree(body as Record<string, unknown>, headers, KNOWN_MODERN_REVISION)) return result;
  const broken = headerRule(body, headers);
  if (broken === undefined) return result;
  return headerState === "enforce" ? broken : headerState === "report" ? withReport(result, reportedOf(broken)) : result;
}

/** A modern request by its method's definition (the framing alone for an unknown method, or with params off). */
function byMethod(body: unknown, options: ValidateOptions | undefined): ValidationResult {
  const method = (body as { method: unknown }).method;
  const known = options?.rules?.params === "off" ? undefined : MODERN_METHODS.get(method as string);
  return known
    ? byDefinition(body, "request", FRAMING.modern, known, method as string)
    : check(body, "request", FRAMING.modern.request, "JSONRPCRequest");
}

function reportedOf({ rule, status, response }: Rejected): Reported {
  return { rule, status, response };
}

/**
 * A modern request claiming no version, another one, or one a list of served versions is to judge. The list is
 * `versions`, or the versions this library knows. A version off the list is refused with `versions` enforced; in
 * `"report"` or `"off"` the request is judged as it would be without the rule (its framing alone when this library
 * does not carry its revision), and in `"report"` the -32022 answer is reported.
 */
function versionedRequest(body: unknown, version: unknown, options: ValidateOptions | undefined): ValidationResult {
  const listed = options?.versions ?? KNOWN_MODERN_REVISIONS;
  if (typeof version !== "string" || listed.includes(version)) {
    if (typeof version === "string" && !KNOWN_MODERN_REVISIONS.includes(version)) return framedOnly(body);
    return byMethod(body, options);
  }
  const state = stateOf(options, "versions");
  if (state === "enforce") {
    const headers = options?.headers;
    // Headers that disagree with the body make its version no one's request: that is the answer then.
    const broken = headers !== undefined && stateOf(options, "headers") === "enforce" ? headerRule(body, headers) : undefined;
    return broken ?? unsupported(body, listed, version);
  }
  // A revision newer than this library: its definitions are not ours to apply, its framing is JSON-RPC's.
  const result = KNOWN_MODERN_REVISIONS.includes(version) ? byMethod(body, options) : framedOnly(body);
  if (result.outcome !== "pass" || state === "off") return result;
  return withReport(result, { rule: "versions", status: 400, response: unsupportedVersionResponse(answerId(body), listed, version) });
}

/** A modern request judged by the JSON-RPC framing alone. */
function framedOnly(body: unknown): ValidationResult {
  return check(body, "request", FRAMING.modern.request, "JSONRPCRequest");
}

/** The modern row of KIND_RULES for a response: clients of the modern era send none. */
function modernResponse(body: unknown): ValidationResult {
  return reject(
    body,
    "response",
    "JSONRPCMessage",
    "Invalid JSON-RPC response: clients of the modern era send none (MRTR replaced server-to-client requests)",
    {
      errors: [{ instancePath: "", messages: ["must be a request or a notification, not a response"] }],
    },
  );
}

/** The transport's header rules on a modern request that passed: the `400`/-32020 refusal, or `undefined`. */
function headerRule(body: unknown, headers: RequestHeaders): Rejected | undefined {
  const problem = headerProblem(body as Record<string, unknown>, headers);
  if (!problem) return undefined;
  return {
    outcome: "reject",
    kind: "request",
    definition: "HeaderMismatchError",
    rule: "headers",
    status: 400,
    response: headerMismatchResponse(answerId(body), problem),
  };
}

/** A modern request claiming a version the operator did not list: `400`/-32022. */
function unsupported(body: unknown, supported: readonly string[], version: string): Rejected {
  return {
    outcome: "reject",
    kind: "request",
    definition: "UnsupportedProtocolVersionError",
    rule: "versions",
    status: 400,
    response: unsupportedVersionResponse(answerId(body), supported, version),
  };
}

/**
 * Each era's framing validators, read once from the generated modules into plain objects: a bundler makes a module
 * namespace an object of getters, which the hot path would otherwise call on every message.
 */
const FRAMING: Record<Era, { message: Validator; request: Validator; notification: Validator }> = {
  legacy: { message: eras.legacy.JSONRPCMessage, request: eras.legacy.JSONRPCRequest, notification: eras.legacy.JSONRPCNotification },
  modern: { message: eras.modern.JSONRPCMessage, request: eras.modern.JSONRPCRequest, notification: eras.modern.JSONRPCNotification },
};

/** A method's definition, with the verdict on a message that passes it built once (a pass allocates nothing). */
interface KnownMethod extends RevisionMethodValidator {
  readonly revision?: string;
  readonly passed: ValidationResult;
}

/** The modern lane's client requests: one definition each, whose pass the framing's follows from when `framed`. */
const MODERN_METHODS: ReadonlyMap<string, KnownMethod> = new Map(
  [...eras.modern.methods].map(([method, { definition, validate, framed }]) => [
    method,
    { definition, validate, framed, passed: Object.freeze({ outcome: "pass", kind: "request", definition }) },
  ]),
);

/** The modern revision whose definitions this library carries: a request claiming it takes the hot path. */
const KNOWN_MODERN_REVISION: string = eras.modern.revision;

const LEGACY_RESPONSE: ValidationResult = Object.freeze({ outcome: "bypass", kind: "response", reason: "legacy-response" });
const MODERN_NOTIFICATION: ValidationResult = Object.freeze({ outcome: "bypass", kind: "notification", reason: "modern-notification" });

/**
 * A known method's message. The hot path: where codegen proved the definition implies the framing, a message that
 * passes the definition is judged by that one validator and gets the method's prebuilt verdict; a failure goes on to
 * `check` with the definition's errors, so no validator runs twice.
 */
function byDefinition(
  body: unknown,
  kind: MessageKind,
  framings: (typeof FRAMING)[Era],
  known: KnownMethod,
  method: string,
): ValidationResult {
  if (known.framed) {
    // The hot path, kept small so that it inlines into its callers: one validator, the prebuilt verdict.
    try {
      if (known.validate(body)) return known.passed;
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      return tooDeepToValidate(body, kind, known.definition, method, known.revision);
    }
  }
  return notPassed(body, kind, framings, known, method);
}

/** A known method's message that did not pass its definition alone (or whose definition does not imply the framing). */
function notPassed(
  body: unknown,
  kind: MessageKind,
  framings: (typeof FRAMING)[Era],
  known: KnownMethod,
  method: string,
): ValidationResult {
  const { definition, validate, revision } = known;
  const framing = kind === "notification" ? framings.notification : framings.request;
  if (!known.framed) {
    const result = check(body, kind, framing, definition, validate, method, revision);
    return result.outcome === "pass" ? known.passed : result;
  }
  return check(body, kind, framing, definition, validate, method, revision, validate.errors ?? NO_ERRORS);
}

const NO_ERRORS: readonly ValidationError[] = Object.freeze([]);

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
  revision?: string,
  definitionErrors?: readonly ValidationError[],
): ValidationResult {
  // No array is made for a message that passes: this is the per-message hot path.
  let errors: readonly ValidationError[] = NO_ERRORS;
  let framingHolds = true;
  try {
    if (!framing(body)) {
      errors = framing.errors ?? NO_ERRORS;
      framingHolds = false;
    }
    if (definitionErrors) errors = errors.concat(definitionErrors);
    else if (validate && !validate(body)) errors = errors.concat(validate.errors ?? NO_ERRORS);
  } catch (error) {
    // The schema's recursive JSONValue follows the client's nesting; past the stack, the message cannot be judged.
    if (!(error instanceof RangeError)) throw error;
    return tooDeepToValidate(body, kind, definition, method, revision);
  }
  if (kind === "other") {
    if (errors.length === 0) {
      return reject(body, kind, definition, `Invalid ${judgedAs(kind, definition, method)}: not a request, a notification or a response`, {
        errors: [{ instancePath: "", messages: ["must have a method, or an id with a result or an error"] }],
      });
    }
  } else if (errors.length === 0) {
    return passed(kind, definition);
  }
  const { message, data } = distill(errors, judgedAs(kind, definition, method, revision));
  // The spec's own split: a message that is not a valid JSON-RPC request is InvalidRequest; a valid one
  // whose params fail its method's definition is InvalidParams (the conformance suite checks which).
  const code = framingHolds && validate ? INVALID_PARAMS : INVALID_REQUEST;
  const result = reject(body, kind, definition, message, data, code);
  if (revision === undefined) return result;
  // A legacy request's params failure is answered 200, as the SDK answers it: a legacy client reads a 400 as a
  // transport failure and loses the code. A notification has no answer to carry it: it keeps the 400 refusal.
  return { ...result, revision, status: code === INVALID_PARAMS && kind === "request" ? 200 : 400 };
}

function tooDeepToValidate(body: unknown, kind: MessageKind, definition: string, method?: string, revision?: string): Rejected {
  // Past the stack the message cannot be judged at all: the nesting bound's rule, as a body over `maxDepth`.
  return {
    ...reject(body, kind, definition, `Invalid ${judgedAs(kind, definition, method, revision)}: nested too deeply to validate`, {
      errors: [{ instancePath: "", messages: ["nests too deeply to validate"] }],
    }),
    rule: "limits",
  };
}

/** A pass by the framing alone (a method of no table); a known method's pass is its prebuilt verdict (`byDefinition`). */
function passed(kind: MessageKind, definition: string): ValidationResult {
  return { outcome: "pass", kind, definition };
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
  // Past the error budget, more items would only cost time: the count then reads "N+". An item's framing does not
  // recurse into the item (depth.test.ts pins it), so no nesting can exhaust the stack here, unlike in check().
  for (let i = 0; i < body.length && errors.length < ERROR_BUDGET; i++) {
    const item = body[i];
    const kind = classifyMessage(item);
    if (kind !== "other" && KIND_RULES[lane][kind] === "bypass") continue;
    judged++;
    // An item of no kind is judged as the request it most likely meant to be, which locates what it lacks.
    const framing = kind === "notification" ? batch.JSONRPCNotification : batch.JSONRPCRequest;
    if (!framing(item, { instancePath: `/${i}`, parentData: body, parentDataProperty: i, rootData: body })) {
      for (const error of framing.errors ?? NO_ERRORS) errors.push(error);
    }
  }
  if (errors.length > 0) {
    const { message, data } = distill(errors, judgedAs);
    return reject(body, "batch", BATCH, message, data);
  }
  if (judged === 0) return { outcome: "bypass", kind: "batch", reason: `${lane}-response` as BypassReason };
  return { outcome: "pass", kind: "batch", definition: BATCH };
}

/**
 * A batch where the revision takes none: the modern lane (where the SDK's router sends every batch it will not serve
 * as legacy: one with an item that is no JSON-RPC message, or with a `_meta` protocol-version claim), and the legacy
 * lane under a header naming 2025-06-18 or later, which removed batches. Refused with an answer that says so and
 * locates each item's framing error (`/1/jsonrpc`) as a judged batch's answer does; `takesNone` is ours, never the
 * client's header.
 */
function refuseBatch(body: unknown[], lane: Era, framing: (typeof eras)[Era], takesNone: string): ValidationResult {
  const judgedAs = `JSON-RPC batch (${takesNone}: one message per request)`;
  const items = checkBatch(body, lane, framing, judgedAs);
  if (items.outcome === "reject") return items;
  return reject(body, "batch", BATCH, `Invalid ${judgedAs}`, {
    errors: [{ instancePath: "", messages: ["must be a single message, not a batch"] }],
  });
}

/** What the message was judged as, for the summary: "tools/call request (CallToolRequest, revision 2025-06-18)". */
function judgedAs(kind: MessageKind, definition: string, method: string | undefined, revision?: string): string {
  // Only a method of the era's table is named: an unknown method is the client's string, not a protocol fact.
  if (method !== undefined) return `${method} ${kind} (${definition}${revision === undefined ? "" : `, revision ${revision}`})`;
  return `JSON-RPC ${kind === "other" ? "message" : kind} (${definition})`;
}

function reject(
  body: unknown,
  kind: JudgedKind,
  definition: string,
  message: string,
  data: InvalidRequestData,
  code = INVALID_REQUEST,
): Rejected {
  // The spec's own split: a message that is no valid JSON-RPC message of its kind fails the framing (-32600); a
  // valid one whose params fail its method's definition fails the params (-32602).
  const rule = code === INVALID_PARAMS ? "params" : "framing";
  return { outcome: "reject", kind, definition, rule, status: 400, response: errorResponse(answerId(body), code, message, data) };
}
