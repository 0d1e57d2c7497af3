/**
 * @module judge: one captured message, judged as the gates judge what a client sends (the core's admission stage,
 * so the same status, code and words) or as `wymcp/outbound` judges what a server sends.
 */
import {
  bodyTooLarge,
  checkMediaType,
  judgeBody,
  parseBody,
  type RefusalStatus,
  type Refusal,
  type RejectReason,
} from "../../core/admission.js";
import type { JsonRpcErrorResponse } from "../../core/envelope.js";
import { classifyEra, type Era, type EraSignal } from "../../core/era.js";
import { legacyRevisionOf } from "../../core/legacy-revision.js";
// The revision from the outbound modules the CLI loads anyway: generated/index.js would bundle the inbound validators again.
import { outbound } from "../../../generated/outbound.js";
import type { ValidationResult } from "../../core/validate.js";
import { type OutboundKind, type OutboundViolations, validateMcpResponse } from "../../outbound/validate-response.js";
import type { JudgeOptions } from "./options.js";

const MODERN_REVISION = outbound.modern.revision;

/** What one message came to, with its place; `--json` prints these as they are. */
export type Verdict = InboundVerdict | OutboundVerdict;

/** A message judged as the gates judge what a client sends, or one they refuse before judging it. */
export type InboundVerdict = {
  source: string;
  line: number;
  era: Era | null;
  /** How the era was chosen: `flag` for --era legacy|modern, otherwise classifyEra's signal. */
  eraSignal: EraSignal | "flag" | null;
  /** `out` only on a line not judged (not JSON, too large) under --direction out. */
  direction: "in" | "out";
  /** The --method label, for a response. */
  method?: string;
} & (
  | Extract<ValidationResult, { outcome: "pass" | "bypass" }>
  | {
      outcome: "reject";
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
  direction: "out";
  era: Era;
  /** `flag` for --era legacy|modern, otherwise classifyEra's signal from the --headers alone. */
  eraSignal: EraSignal | "flag";
  /** The revision whose definitions judged it: legacy, the MCP-Protocol-Version header's, else 2025-03-26. */
  revision: string;
  /** The --method a result or error response was judged by. */
  method?: string;
  outcome: "pass" | "violation";
  kind: OutboundKind;
  definition: string;
  violations?: OutboundViolations;
};

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
  return Object.hasOwn(message, "result") || Object.hasOwn(message, "error") ? "out" : "in";
}

/** Whether a verdict came from validateMcpResponse (a line not judged under --direction out did not). */
export function judgedOut(verdict: Verdict): verdict is OutboundVerdict {
  return verdict.direction === "out" && verdict.outcome !== "reject";
}

/**
 * The verdict on one message's bytes (`undefined`: longer than --max-bytes) and the body parsed: the gates' stage
 * after the method check, the media type when a Content-Type header was given.
 */
export function judge(
  source: string,
  line: number,
  bytes: Uint8Array | undefined,
  options: JudgeOptions,
): { verdict: Verdict; body: unknown } {
  const refused = (refusal: Refusal) =>
    labelled(options, refusalVerdict(source, line, options.direction === "out" ? "out" : "in", refusal));
  const contentType = options.headers["content-type"];
  const wrongType = contentType === undefined ? undefined : checkMediaType(contentType);
  if (wrongType) return refused(wrongType);
  if (bytes === undefined) return refused(bodyTooLarge(options.settings.maxBodyBytes));
  const parsed = parseBody(bytes, options.settings);
  if (!parsed.ok) return refused(parsed);
  const body = parsed.body;
  if (options.direction === "out" || (options.direction === "auto" && autoDirection(body) === "out"))
    return judgeOut(source, line, body, options);
  let signal: EraSignal | "flag" = "flag";
  const era =
    options.era === "auto"
      ? (parsed: unknown) => {
          const classified = classifyEra(options.headers, parsed);
          signal = classified.signal;
          return classified.era;
        }
      : options.era;
  // Header names are lower-cased when --header is read; the version decides whether a legacy batch is judged.
  const admission = judgeBody(body, { era, protocolVersion: options.headers["mcp-protocol-version"] }, options.settings);
  // Verdicts are written out whole, not spread from parts: object spread made this the CLI's hottest line (~3× the validation).
  let verdict: InboundVerdict;
  if (!admission.ok) {
    if (admission.reason !== "invalid-message") return refused(admission);
    verdict = {
      source,
      line,
      direction: "in",
      era: admission.era ?? null,
      eraSignal: signal,
      outcome: "reject",
      kind: admission.kind ?? null,
      definition: admission.definition ?? null,
      revision: admission.revision,
      reason: "invalid-message",
      status: admission.status,
      response: admission.response,
    };
  } else if (admission.result.outcome === "pass") {
    const { kind, definition, revision, reported } = admission.result;
    verdict = {
      source,
      line,
      direction: "in",
      era: admission.era,
      eraSignal: signal,
      outcome: "pass",
      kind,
      definition,
      revision,
      reported,
    };
  } else {
    const { kind, reason } = admission.result;
    verdict = { source, line, direction: "in", era: admission.era, eraSignal: signal, outcome: "bypass", kind, reason };
  }
  return labelled(options, verdict, body);
}

/** A body the gates refuse before judging it as a message (media type, size, not JSON, too deep). */
function refusalVerdict(source: string, line: number, direction: "in" | "out", refusal: Refusal): InboundVerdict {
  return {
    source,
    line,
    direction,
    era: null,
    eraSignal: null,
    outcome: "reject",
    kind: null,
    definition: null,
    reason: refusal.reason,
    status: refusal.status,
    response: refusal.response,
  };
}

function labelled(options: JudgeOptions, verdict: InboundVerdict, body?: unknown): { verdict: Verdict; body: unknown } {
  // Only a response lacks a method of its own; on anything else the label would contradict the message.
  if (options.method !== undefined && verdict.kind === "response") verdict.method = options.method;
  return { verdict, body };
}

/** The verdict of validateMcpResponse on a parsed message, in the era of the flag or of the --headers alone. */
function judgeOut(source: string, line: number, body: unknown, options: JudgeOptions): { verdict: Verdict; body: unknown } {
  // A server's body carries no era signal, and a body-read era would let a modern-only field pick its own lane.
  const { era, signal } = options.era === "auto" ? classifyEra(options.headers, undefined) : { era: options.era, signal: "flag" as const };
  // As inbound: the header's legacy revision, else the one a server assumes without it (there is no request body here).
  const revision = era === "legacy" ? legacyRevisionOf(undefined, options.headers["mcp-protocol-version"]).revision : MODERN_REVISION;
  const result = validateMcpResponse(body, { era, method: options.method, protocolVersion: revision });
  const answers = result.kind === "result" || result.kind === "error";
  const method = answers ? options.method : undefined;
  const verdict: OutboundVerdict =
    result.outcome === "pass"
      ? {
          source,
          line,
          direction: "out",
          era,
          eraSignal: signal,
          revision,
          method,
          outcome: "pass",
          kind: result.kind,
          definition: result.definition,
        }
      : {
          source,
          line,
          direction: "out",
          era,
          eraSignal: signal,
          revision,
          method,
          outcome: "violation",
          kind: result.kind,
          definition: result.definition,
          violations: result.violations,
        };
  // An undefined method is left out of --json by JSON.stringify; deleting the key would cost a slower object shape.
  return { verdict, body };
}
