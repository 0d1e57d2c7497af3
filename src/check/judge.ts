/**
 * @module judge: one captured message, judged as the gates judge what a client sends (the core's admission stage,
 * so the same status, code and words) or as `wymcp/outbound` judges what a server sends.
 */
import type { Admission, AdmissionSettings, RefusalStatus, Refusal, RejectReason } from "../core/admission.js";
import type { JsonRpcErrorResponse } from "../core/envelope.js";
import { isResponse } from "../wire/is-response.js";
import { classifyEra, type Era, type EraSignal } from "../core/era.js";
import { legacyRevisionOf } from "../core/legacy-revision.js";
import { judgeMessage, readMessage } from "../core/pipeline.js";
import type { ValidationResult } from "../core/validate.js";
import type { Report, RuleName } from "../core/rules.js";
import type { GateAdmitted, OwnAnswer } from "../log/gate-log.js";
import { ownMark, withoutMark } from "./own-answer.js";
// The revision from the outbound modules the CLI loads anyway: generated/index.js would bundle the inbound validators again.
import { outbound } from "../../generated/outbound.js";
import { type OutboundKind, type OutboundViolations, validateMcpResponse } from "../outbound/validate-response.js";
import type { PendingRequest } from "./exchange.js";
import type { Negotiated } from "./negotiation.js";

const MODERN_REVISION = outbound.modern.revision;

/** How each message is judged: what `judge` needs. */
export interface JudgeOptions {
  era: Era | "auto";
  direction: "in" | "out" | "auto";
  /** Request headers of the exchange, names lower-cased. */
  headers: Record<string, string>;
  method: string | undefined;
  /** The gates' limits, checked as the gates check theirs. */
  settings: AdmissionSettings;
}

/** What one message came to, with its place; `--json` prints these as they are. */
export type Verdict = InboundVerdict | OutboundVerdict;

/**
 * How a message's era was told: classifyEra's signal, `flag` for --era legacy|modern, `request` for the request it
 * answers (or whose HTTP exchange carried it), `session` for a legacy session's `initialize` earlier in the capture.
 */
export type CheckSignal = EraSignal | "flag" | "request" | "session";

/** A message judged as the gates judge what a client sends, or one they refuse before judging it. */
export type InboundVerdict = {
  source: string;
  line: number;
  /** In a HAR file: `request`, `response` or `event N` of entry `line`. */
  part?: string;
  /** For a response: the request of the capture it answers (its method is `method`). */
  answers?: Answered;
  era: Era | null;
  /** How the era was chosen: `flag` for --era legacy|modern, `request` for its request's, otherwise classifyEra's signal. */
  eraSignal: CheckSignal | null;
  /** The revision its session negotiated, when that judged it (the message carried no MCP-Protocol-Version header). */
  negotiated?: Negotiated;
  /** `out` only on a line not judged (not JSON, too large) under --direction out. */
  direction: "in" | "out";
  /** The --method label, for a response. */
  method?: string;
  /** wymcp's own answer, not the server's: the face said so, or its record's mark (check/own-answer.ts). */
  own?: OwnAnswer;
  /** What the face reported of this message after admitting it (the server's tools, the lock): the live feed's rows. */
  reports?: Report[];
} & (
  | Extract<ValidationResult, { outcome: "pass" | "bypass" }>
  | {
      /**
       * A body not judged, handed on as sent: what the `limits` rule (or `origin`) would refuse, with the rule in
       * `"report"` (`reported` says what it would have answered) or `"off"`.
       */
      outcome: "pass";
      kind: null;
      definition: null;
      reason: RejectReason;
      reported?: readonly { rule: RuleName; status: RefusalStatus; response: JsonRpcErrorResponse }[];
    }
  | {
      outcome: "reject";
      /** The rule that refuses it. */
      rule: RuleName;
      kind: ValidationResult["kind"] | null;
      /** The definition it failed; null when it was not judged (not JSON, too large, too deep, not JSON's media type). */
      definition: string | null;
      /** The legacy revision whose definition it failed. */
      revision?: string;
      /** The gates' own words for why they answered (their `onReject` reason). */
      reason: RejectReason;
      status: RefusalStatus;
      response: JsonRpcErrorResponse;
    }
);

/** A message judged by validateMcpResponse, the outcome and violations as it returns them. */
export type OutboundVerdict = {
  source: string;
  line: number;
  /** In a HAR file: `request`, `response` or `event N` of entry `line`. */
  part?: string;
  /** For a result or an error response: the request of the capture it answers. */
  answers?: Answered;
  direction: "out";
  era: Era;
  /**
   * `flag` for --era legacy|modern; `request` for the era of the request it answers (or, in a HAR file, of the
   * request whose HTTP exchange carried it); otherwise classifyEra's signal from the headers alone.
   */
  eraSignal: CheckSignal;
  /**
   * The revision whose definitions judged it: legacy, its request's, the MCP-Protocol-Version header's, its session's
   * (`negotiated`), else 2025-03-26.
   */
  revision: string;
  /** The revision its session negotiated, when that judged it (the message carried no MCP-Protocol-Version header). */
  negotiated?: Negotiated;
  /** The --method a result or error response was judged by. */
  method?: string;
  outcome: "pass" | "violation";
  kind: OutboundKind;
  definition: string;
  violations?: OutboundViolations;
  /** With the `outbound` rule in `"report"`: a violation found, and reported rather than counted as a rejection. */
  reported?: OutboundViolations;
  /** wymcp's own answer, not the server's: the face said so, or its record's mark (check/own-answer.ts). */
  own?: OwnAnswer;
};

/** Where the request a response answers was in the capture, and who sent it. */
export interface Answered {
  line: number;
  part?: string;
  /** `server`: the response is a client's answer to a server's request (sampling, elicitation, roots, ping). */
  from: "client" | "server";
}

/** What the capture says about one message beyond its bytes (exchange.ts, har.ts). */
export interface JudgeContext {
  /** The HTTP exchange's request headers (a HAR entry's, names lower-cased); the --headers fill what they lack. */
  headers?: Record<string, string>;
  /** Who sent it, when the capture says (a HAR file): a server's message is judged as wymcp/outbound judges. */
  from?: "client" | "server";
  part?: string;
  /** The request a response answers, looked up once the body is parsed and found to be a response. */
  pair?: (id: unknown) => PendingRequest | undefined;
  /** The era of the request whose HTTP exchange carried a server's message (a HAR file). */
  exchangeEra?: { era: Era; eraSignal: CheckSignal };
  /** The legacy revision the message's session negotiated, for a message without an MCP-Protocol-Version header. */
  negotiated?: Negotiated;
  /**
   * A gate's admission of these very bytes, with the same settings, from a request with these headers (the live feed's
   * proxy requests): taken as the verdict's own when nothing here judges the message otherwise than that gate did (see
   * `gateAdmission`); the bytes are then neither parsed nor validated again.
   */
  admitted?: GateAdmitted;
  /** The face refused the request before reading its body (the live feed): its row is that refusal. */
  refused?: RefusalFacts;
  /** The face wrote this answer itself (the live feed); a record says so by its mark instead. */
  own?: OwnAnswer;
}

/** One message of a capture to judge: where it is, its bytes (`undefined`: longer than --max-body-bytes), what the capture says of it. */
export interface CapturedBytes {
  source: string;
  line: number;
  bytes: Uint8Array | undefined;
  context?: JudgeContext | undefined;
}

/** One message being judged: where it is, how, and what its capture says; made once per message and handed down. */
interface Judging {
  source: string;
  line: number;
  part: string | undefined;
  options: JudgeOptions;
  context: JudgeContext | undefined;
  /** The exchange's request headers over the --headers. */
  headers: Record<string, string>;
  fromServer: boolean;
  /** A gate's admission of these very bytes, taken as this verdict's own when nothing here judges otherwise. */
  given: GateAdmitted | undefined;
  /** `in` or `out`: how a message refused before it is judged is labelled. */
  refusedAs: "in" | "out";
}

/** What a refusal's verdict is made of: the status and answer the gate gave, why, and (when known) the rule. */
export type RefusalFacts = Pick<Refusal, "status" | "reason" | "response"> & { rule?: RuleName | undefined };

/**
 * Methods only a server sends, in either era (test/cli.test.ts derives them from the schemas' Server* and
 * Client* unions): under --direction auto, a request or notification of one of these is judged outbound.
 */
export const SERVER_ONLY_METHODS: ReadonlySet<string> = new Set([
  "sampling/createMessage",
  "roots/list",
  "elicitation/create",
  "notifications/message",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/prompts/list_changed",
  "notifications/tools/list_changed",
  "notifications/elicitation/complete",
  "notifications/subscriptions/acknowledged",
]);

/** Which checks judge a parsed message under --direction auto (the rule in the usage text). */
export function autoDirection(body: unknown): "in" | "out" {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "in";
  const message = body as Record<string, unknown>;
  if (Object.hasOwn(message, "method")) return typeof message.method === "string" && SERVER_ONLY_METHODS.has(message.method) ? "out" : "in";
  return isResponse(message) ? "out" : "in";
}

/** Whether a verdict came from validateMcpResponse (a line not judged under --direction out did not). */
export function judgedOut(verdict: Verdict): verdict is OutboundVerdict {
  return verdict.direction === "out" && verdict.outcome !== "reject";
}

/**
 * The legacy revision a request of the capture was judged by, for its response: the one its verdict names (a method
 * of that revision), else the one its header or its own `initialize` names, as inbound.
 */
export function requestRevision(verdict: Verdict, body: unknown, options: JudgeOptions, context?: JudgeContext): string | undefined {
  if (verdict.era !== "legacy") return undefined;
  if ("revision" in verdict && verdict.revision !== undefined) return verdict.revision;
  const headers = exchangeHeaders(options, context);
  return legacyRevisionOf(body, headers["mcp-protocol-version"] ?? sessionRevision(headers, body, context)?.revision).revision;
}

/** The exchange's request headers over the --headers (only read, never written). */
function exchangeHeaders(options: JudgeOptions, context: JudgeContext | undefined): Record<string, string> {
  if (!context?.headers) return options.headers;
  // No --headers (the live feed's case, and most of check's): the exchange's own, not a copy made per message.
  for (const _ in options.headers) return { ...options.headers, ...context.headers };
  return context.headers;
}

/**
 * The revision the message's session negotiated, when that is what judges it: the message's exchange has no
 * MCP-Protocol-Version header, and it is no `initialize` (which opens a session of its own and names its revision).
 */
function sessionRevision(headers: Record<string, string>, body: unknown, context: JudgeContext | undefined): Negotiated | undefined {
  if (context?.negotiated === undefined || headers["mcp-protocol-version"] !== undefined || methodIs(body, "initialize")) return undefined;
  return context.negotiated;
}

function methodIs(body: unknown, method: string): boolean {
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === method;
}

/**
 * The verdict on one message's bytes (`undefined`: longer than --max-body-bytes) and the body parsed: the gates' stage
 * after the method check, the media type when a Content-Type header was given (a HAR entry's own, for its request
 * body). A response of the capture takes the method and era of the request it answers (`context.pair`).
 */
export function judge({ source, line, bytes, context }: CapturedBytes, options: JudgeOptions): { verdict: Verdict; body: unknown } {
  const fromServer = context?.from === "server";
  const refusedAs = options.direction === "out" || (options.direction === "auto" && fromServer) ? "out" : "in";
  // A gate that admitted these bytes read them as below (its media type, size, UTF-8 and JSON passed): its body is theirs.
  const given =
    context?.admitted !== undefined && !fromServer && bytes !== undefined && noHeadersGiven(options) ? context.admitted : undefined;
  const headers = exchangeHeaders(options, context);
  const at: Judging = { source, line, part: context?.part, options, context, headers, fromServer, given, refusedAs };
  // Refused before its body was read: the verdict is the refusal the face gave, not a judging of bytes it never had.
  if (bytes === undefined && context?.refused !== undefined) return refusedVerdict(at, context.refused);
  // A HAR entry's headers are its HTTP request's: they say nothing of the media type of what the server sent.
  const contentType = fromServer ? options.headers["content-type"] : headers["content-type"];
  // Else the gates' pipeline: the media type (when one was given), the size, strict UTF-8 and JSON, then the judging below.
  const read = given !== undefined ? { ok: true as const, body: given.body } : readMessage(bytes, contentType, options.settings);
  if (!read.ok) return refusedVerdict(at, read);
  // wymcp's own answer: the face says so (the live feed), or the record's mark does, which is no part of the message.
  const mark = fromServer || options.direction !== "in" ? ownMark(read.body) : undefined;
  const marked = mark !== undefined && isResponse(read.body) ? mark : undefined;
  const body = marked === undefined ? read.body : withoutMark(read.body as Record<string, unknown>);
  const own = context?.own ?? marked;
  if (own !== undefined) return owned(judgeBody(at, body), own);
  return judgeBody(at, body);
}

/** The verdict on a message refused before it was judged as one (media type, size, not JSON, too deep). */
function refusedVerdict(at: Judging, refusal: RefusalFacts): { verdict: Verdict; body: unknown } {
  const rule = refusal.rule ?? ruleOfReason(refusal.reason);
  const state = at.options.settings.rules?.[rule] ?? "enforce";
  // The face refused it already (the live feed): that is its row, whatever this judging's states.
  if (state === "enforce" || at.context?.refused !== undefined)
    return labelled(at.options, refusalVerdict(at, at.refusedAs, { ...refusal, rule }));
  // A rule not enforced hands the body on as sent, unjudged; in report it says what enforcing would have answered.
  const { source, line, part } = at;
  const verdict: InboundVerdict = {
    source,
    line,
    part,
    direction: at.refusedAs,
    era: null,
    eraSignal: null,
    outcome: "pass",
    kind: null,
    definition: null,
    reason: refusal.reason,
  };
  if (state === "report") verdict.reported = [{ rule, status: refusal.status, response: refusal.response }];
  return labelled(at.options, verdict);
}

/** The rule a refusal before judging falls under, by its reason (a refusal the live feed carries names no rule). */
function ruleOfReason(reason: RejectReason): RuleName {
  return reason === "forbidden-host" || reason === "forbidden-origin" ? "origin" : reason === "invalid-message" ? "framing" : "limits";
}

/** The verdict marked as wymcp's own answer. */
function owned(judged: { verdict: Verdict; body: unknown }, own: OwnAnswer): { verdict: Verdict; body: unknown } {
  judged.verdict.own = own;
  return judged;
}

/** `judge` past the reading: a parsed body judged as the gates judge a client's, or as wymcp/outbound a server's. */
function judgeBody(at: Judging, body: unknown): { verdict: Verdict; body: unknown } {
  const { options, context, given, headers, fromServer } = at;
  // A response takes its request's method and era; the request is looked up only for a body that is one.
  const answered = context?.pair && isResponse(body) ? context.pair((body as { id?: unknown }).id) : undefined;
  const direction = options.direction !== "auto" ? options.direction : fromServer ? "out" : autoDirection(body);
  if (direction === "out") return judgeOut(at, body, answered);
  const negotiated = sessionRevision(headers, body, context);
  let signal: CheckSignal = "flag";
  const era =
    options.era !== "auto"
      ? options.era
      : answered
        ? ((signal = "request"), answered.era)
        : (parsed: unknown) => {
            // The era from the headers and body alone, as wymcp stdio reads it: a negotiated revision is legacy anyway.
            const classified = classifyEra(headers, parsed);
            signal = negotiated && classified.signal === "default" ? "session" : classified.signal;
            return classified.era;
          };
  // Header names are lower-cased when --header is read; the version decides whether a legacy batch is judged.
  // A HAR entry carries its HTTP request's headers: a modern request is held to them as a gate holds it. A message
  // with none (a file, a line) has no headers to judge.
  const exchange = context?.headers !== undefined ? headers : undefined;
  const admission =
    (given !== undefined && typeof era === "function" && negotiated === undefined && gateAdmission(given, era(body), exchange)) ||
    judgeMessage(
      body,
      { era, protocolVersion: headers["mcp-protocol-version"] ?? negotiated?.revision, headers: exchange },
      options.settings,
    );
  if (!admission.ok && admission.reason !== "invalid-message") return refusedVerdict(at, admission);
  // Only the legacy lane reads a revision; a modern message is judged by the one its _meta names.
  const session = negotiated && admission.era === "legacy" ? negotiated : undefined;
  return labelled(options, admissionVerdict(at, signal, session, admission), body, answered);
}

/** No --headers, no --era, no --direction: what a gate judging the same request knows, nothing more. */
function noHeadersGiven(options: JudgeOptions): boolean {
  if (options.era !== "auto" || options.direction !== "auto") return false;
  for (const _ in options.headers) return false;
  return true;
}

/**
 * The gate's admission as the one `judgeMessage` would make here, or undefined when they may differ. They are the same
 * function of the same body, settings, era, protocol version and headers: the caller has seen to the protocol version
 * (the header's alone, no session's revision); here the era must be the one read here, and the headers the same values
 * (the gate reads an MCP header holding a comma as its values apart, the capture keeps it whole; the rules read no other).
 */
function gateAdmission(given: GateAdmitted, era: Era, headers: Record<string, string> | undefined): Admission | undefined {
  if (given.era !== era || headers === undefined) return undefined;
  for (const name in headers) if (name.startsWith("mcp-") && headers[name]!.includes(",")) return undefined;
  return { ok: true, body: given.body, era: given.era, result: given.result };
}

/**
 * The inbound verdict on a message the gates judged: its pass, its bypass, or its refusal as an invalid message.
 * Verdicts are written out whole, not spread from parts: object spread made this the CLI's hottest line
 * (docs/performance.md#figures-behind-code-comments).
 */
function admissionVerdict(
  { source, line, part }: Judging,
  signal: CheckSignal,
  session: Negotiated | undefined,
  admission: Admission,
): InboundVerdict {
  if (!admission.ok) {
    return {
      source,
      line,
      part,
      direction: "in",
      era: admission.era ?? null,
      eraSignal: signal,
      negotiated: session,
      outcome: "reject",
      kind: admission.kind ?? null,
      definition: admission.definition ?? null,
      revision: admission.revision,
      reason: "invalid-message",
      rule: admission.rule,
      status: admission.status,
      response: admission.response,
    };
  }
  if (admission.result.outcome === "pass") {
    const { kind, definition, revision, reported } = admission.result;
    return {
      source,
      line,
      part,
      direction: "in",
      era: admission.era,
      eraSignal: signal,
      negotiated: session,
      outcome: "pass",
      kind,
      definition,
      revision,
      reported,
    };
  }
  const { kind, reason } = admission.result;
  return {
    source,
    line,
    part,
    direction: "in",
    era: admission.era,
    eraSignal: signal,
    negotiated: session,
    outcome: "bypass",
    kind,
    reason,
  };
}

/** A body the gates refuse before judging it as a message (media type, size, not JSON, too deep). */
function refusalVerdict(
  { source, line, part }: Judging,
  direction: "in" | "out",
  refusal: RefusalFacts & { rule: RuleName },
): InboundVerdict {
  return {
    source,
    line,
    part,
    direction,
    era: null,
    eraSignal: null,
    outcome: "reject",
    kind: null,
    definition: null,
    reason: refusal.reason,
    rule: refusal.rule,
    status: refusal.status,
    response: refusal.response,
  };
}

function labelled(
  options: JudgeOptions,
  verdict: InboundVerdict,
  body?: unknown,
  answered?: PendingRequest,
): { verdict: Verdict; body: unknown } {
  // Only a response lacks a method of its own; on anything else the label would contradict the message. The
  // request it answers in the capture names it; --method does for a response the capture has no request for.
  if (verdict.kind === "response") {
    if (answered) {
      verdict.method = answered.method;
      verdict.answers = answeredAt(answered);
    } else if (options.method !== undefined) verdict.method = options.method;
  }
  return { verdict, body };
}

function answeredAt(request: PendingRequest): Answered {
  return request.part === undefined
    ? { line: request.line, from: request.from }
    : { line: request.line, part: request.part, from: request.from };
}

/**
 * The verdict of validateMcpResponse on a parsed message, in the era of the flag, of the request it answers (or whose
 * HTTP exchange carried it), or of the headers alone.
 */
function judgeOut(at: Judging, body: unknown, answered: PendingRequest | undefined): { verdict: Verdict; body: unknown } {
  const { source, line, options, headers, context } = at;
  // The session's revision for a server's own message: its request or notification has no answered request.
  const session = answered ? undefined : sessionRevision(headers, body, context);
  const { era, signal } = outboundEra(at, answered, session);
  const method = answered?.method ?? options.method;
  const revision = outboundRevision(era, headers, answered, session);
  const result = validateMcpResponse(body, {
    era,
    method,
    protocolVersion: revision,
    formats: options.settings.rules?.formats === "enforce" ? "strict" : undefined,
  });
  const answers = result.kind === "result" || result.kind === "error";
  const { part } = at;
  // The outbound rule in report: a violation is handed on and reported, not counted as a rejection.
  const reportsOnly = options.settings.rules?.outbound === "report";
  const answering = answers && answered ? answeredAt(answered) : undefined;
  const negotiated = session && era === "legacy" ? session : undefined;
  // Written out whole, as admissionVerdict writes its verdicts, in the key order a spread of the common part gave.
  const verdict: OutboundVerdict =
    result.outcome === "pass"
      ? {
          source,
          line,
          part,
          answers: answering,
          direction: "out",
          era,
          eraSignal: signal,
          revision,
          negotiated,
          method: answers ? method : undefined,
          kind: result.kind,
          definition: result.definition,
          outcome: "pass",
        }
      : {
          source,
          line,
          part,
          answers: answering,
          direction: "out",
          era,
          eraSignal: signal,
          revision,
          negotiated,
          method: answers ? method : undefined,
          kind: result.kind,
          definition: result.definition,
          outcome: "violation",
          violations: result.violations,
        };
  if (reportsOnly && verdict.outcome === "violation") {
    verdict.outcome = "pass";
    verdict.reported = verdict.violations;
    delete verdict.violations;
  }
  // An undefined method is left out of --json by JSON.stringify; deleting the key would cost a slower object shape.
  return { verdict, body };
}

/** A server's message's era: the flag's, its request's, its exchange's, or its headers' (a body carries no era signal). */
function outboundEra(
  { options, headers, context }: Judging,
  answered: PendingRequest | undefined,
  session: Negotiated | undefined,
): { era: Era; signal: CheckSignal } {
  // A body-read era would let a modern-only field pick its own lane.
  if (options.era !== "auto") return { era: options.era, signal: "flag" };
  if (answered) return { era: answered.era, signal: "request" };
  if (context?.exchangeEra) return { era: context.exchangeEra.era, signal: context.exchangeEra.eraSignal };
  return sessionSignal(classifyEra(headers, undefined), session);
}

/**
 * As report mode does: the revision its request was judged by; for a lone message the header's legacy revision, else
 * its session's, else the one a server assumes without either.
 */
function outboundRevision(
  era: Era,
  headers: Record<string, string>,
  answered: PendingRequest | undefined,
  session: Negotiated | undefined,
): string {
  if (era !== "legacy") return MODERN_REVISION;
  return answered?.revision ?? legacyRevisionOf(undefined, headers["mcp-protocol-version"] ?? session?.revision).revision;
}

/** A legacy era of no signal, told instead by the session the message belongs to. */
function sessionSignal(classified: { era: Era; signal: EraSignal }, session: Negotiated | undefined): { era: Era; signal: CheckSignal } {
  return session && classified.signal === "default" ? { era: classified.era, signal: "session" } : classified;
}
