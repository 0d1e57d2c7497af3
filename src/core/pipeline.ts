/**
 * @module pipeline: the one sequence every face runs on what a client sends, whatever carries it. A request is screened
 * (the `Host`/`Origin` policy's `403`, or a method that goes straight through), its body admitted (admission.ts), the
 * verdict traced (the face's tracer, trace.ts) and told (`onReject` for a refusal, `onReport` for each rule in `"report"` it fails), and
 * the modern-notification `202` decided. A body the `limits` rule would refuse, with the rule in `"report"` or `"off"`,
 * is handed on unjudged, as the client sent it.
 * A face gets back an action and applies it with its own I/O: nothing here writes an answer.
 */
import {
  type Acceptance,
  type Admission,
  type AdmissionSettings,
  type Admitted,
  admit,
  admitBytes,
  bodyTooLarge,
  checkHost,
  checkMediaType,
  type Exchange,
  isAcceptedNotification,
  type JudgeContext,
  judgeBody,
  parseBody,
  type Refusal,
  type RejectInfo,
  reportRefusal,
} from "./admission.js";
import type { Era } from "./era.js";
import type { HostPolicy } from "./host-origin.js";
import { deliverReport, inboundReport, type Report, type RuleName } from "./rules.js";
import type { ExchangeTrace, ExchangeTracer, TracedHeaders, TransportFacts } from "./trace.js";

/** What the pipeline needs of a face, its options checked once. */
export interface GateFace {
  readonly settings: AdmissionSettings;
  /** The `Host`/`Origin` policy; unset: no check. */
  readonly hosts?: HostPolicy | undefined;
  /** Spans and metrics for every body judged (the `telemetry` option's); the settings' `clock` then starts each trace. */
  readonly tracer?: ExchangeTracer | undefined;
  readonly onReject?: ((info: RejectInfo) => void) | undefined;
  readonly onReport?: ((report: Report) => void) | undefined;
}

/** What the trace of one body records of its transport, read only when there is a tracer. */
export interface TraceFacts {
  transport: TransportFacts;
  headers: TracedHeaders;
}

/** A body and what the host knows around it: the admission stage's exchange, and the trace's facts. */
export interface GateInput extends Exchange {
  facts: () => TraceFacts;
}

/** Refuse: send `refusal.status` and `refusal.response` (already told to `onReject`); the trace ends with the answer. */
export interface GateRefuse {
  action: "refuse";
  refusal: Refusal;
  trace: ExchangeTrace | undefined;
  /** The body's bytes, when the host's source gave them whole (for the log's names of a refused body). */
  bytes?: Uint8Array | undefined;
}

/**
 * `accept`: a modern notification, answered `202` with no body whatever it holds (JSON-RPC forbids an error answer
 * to a notification; the SDK answers an accepted one so); a guard that hands on instead may treat it as `hand-on`.
 * `hand-on`: the parsed body goes on to the next handler, inside the trace.
 */
export interface GateAdmit {
  action: "accept" | "hand-on";
  body: unknown;
  era: Era;
  result: Admitted;
  trace: ExchangeTrace | undefined;
  /** The very bytes judged, when the host's source gave them whole (a proxy forwards them, never serialized again). */
  bytes?: Uint8Array | undefined;
}

/**
 * A body the face cannot judge (not JSON, not UTF-8, the wrong media type, too large, too deep) with the `limits` rule
 * in `"report"` (reported) or `"off"`: handed on as the client sent it, so that the server answers it as it would
 * alone. `bytes`: the body, read whole; unset when the request's own body is still there to read (never read, or given
 * back to the stream), or when the host parsed it (`body`).
 */
export interface GateUnjudged {
  action: "unjudged";
  /** What enforcing `limits` would have answered. */
  refusal: Refusal;
  trace: ExchangeTrace | undefined;
  bytes?: Uint8Array | undefined;
}

/** A method the gates do not judge (anything but a POST), or a face judging nothing: straight through. */
export interface GateBypass {
  action: "bypass";
}

/** What a face does with one judged body. */
export type GateAction = GateRefuse | GateAdmit | GateUnjudged;

const BYPASS: GateBypass = Object.freeze({ action: "bypass" });

/**
 * Before anything is read: the `403` for a `Host` or `Origin` the face does not allow (told to `onReject`), `bypass`
 * for a method other than POST (or with `passThrough`), else `undefined`: the body is to be judged.
 */
export function screen(
  face: GateFace,
  request: { host: string | null | undefined; origin: string | null | undefined; method: string | undefined; passThrough?: boolean },
): GateRefuse | GateBypass | undefined {
  const origin = face.settings.rules?.origin ?? "enforce";
  const forbidden = face.hosts && origin !== "off" && checkHost(face.hosts, request.host, request.origin);
  if (forbidden) {
    if (origin === "enforce") {
      reportRefusal(face.onReject, forbidden);
      return { action: "refuse", refusal: forbidden, trace: undefined };
    }
    deliverReport(face.onReport, refusalReport(forbidden, undefined));
  }
  return request.method !== "POST" || request.passThrough ? BYPASS : undefined;
}

/**
 * A POSTed body, read from the host's source: the admission stage, the trace, the reports and the `202` rule.
 * Rejects only when the source fails or an `era` callback throws.
 */
export async function gateBody(face: GateFace, input: GateInput): Promise<GateAction> {
  const began = startOf(face);
  let reading: Promise<Uint8Array | undefined> | undefined;
  const source = input.chunks;
  // Every member spelled out (the type misses none), not a spread of `input` with `chunks` after it: less per request
  // (docs/performance.md#figures-behind-code-comments), and `facts` is not copied.
  const exchange: Exchange & Record<keyof Exchange, unknown> = {
    contentType: input.contentType,
    contentLength: input.contentLength,
    parsed: input.parsed,
    chunks: () => {
      const chunks = source();
      if (chunks instanceof Promise) reading = chunks;
      return chunks;
    },
    era: input.era,
    protocolVersion: input.protocolVersion,
    headers: input.headers,
  };
  const verdict = await admit(exchange, face.settings);
  return act(face, verdict, began, input.facts, reading && (await reading));
}

/**
 * A body already whole in memory (a stdio line): `gateBody` with no read to wait for, so a face judging many small
 * bodies pays no promise per body. `input` is read as it is, never copied.
 */
export function gateBytes(
  face: GateFace,
  bytes: Uint8Array,
  input: Pick<Exchange, "contentType" | "era" | "protocolVersion" | "headers">,
  facts: () => TraceFacts,
): GateAction {
  const began = startOf(face);
  return act(face, admitBytes(bytes, input, face.settings), began, facts, bytes);
}

function startOf(face: GateFace): number {
  return face.tracer && face.settings.clock ? face.settings.clock() : 0;
}

function act(face: GateFace, verdict: Admission, began: number, facts: () => TraceFacts, bytes: Uint8Array | undefined): GateAction {
  const unjudged = !verdict.ok && (face.settings.rules?.[verdict.rule] ?? "enforce") !== "enforce";
  const reports = verdict.ok
    ? reportsOf(verdict)
    : unjudged && face.settings.rules?.[verdict.rule] === "report"
      ? [refusalReport(verdict, bytes)]
      : undefined;
  if (reports) for (const report of reports) deliverReport(face.onReport, report);
  let trace: ExchangeTrace | undefined;
  if (face.tracer) {
    const { transport, headers } = facts();
    trace = face.tracer({ verdict, startTime: began, transport, headers, reported: reports && rulesOf(reports), unjudged });
  }
  if (!verdict.ok) {
    if (unjudged) return { action: "unjudged", refusal: verdict, trace, bytes };
    reportRefusal(face.onReject, verdict);
    return { action: "refuse", refusal: verdict, trace, bytes };
  }
  const { body, era, result } = verdict;
  return { action: isAcceptedNotification(result) ? "accept" : "hand-on", body, era, result, trace, bytes };
}

/** The reports of an admitted body: one per rule in `"report"` it fails; `undefined` (nothing built) for the usual pass. */
export function reportsOf(admitted: Pick<Acceptance, "body" | "era" | "result">): Report[] | undefined {
  const { result } = admitted;
  const reported = result.outcome === "pass" ? result.reported : undefined;
  if (reported === undefined) return undefined;
  return reported.map(({ rule, status, response: { error } }) =>
    inboundReport(rule, admitted.body, admitted.era, {
      status,
      code: error.code,
      message: error.message,
      errors: error.data?.errors,
      omitted: error.data?.omitted,
    }),
  );
}

/** The report of what a rule in `"report"` would have refused before the body was judged (`origin`, `limits`). */
export function refusalReport(refusal: Refusal, bytes: Uint8Array | undefined): Report {
  const body = refusal.body ?? parsedAgain(bytes, refusal.reason);
  const report = inboundReport(refusal.rule, body, refusal.era, {
    status: refusal.status,
    code: refusal.response.error.code,
    message: refusal.response.error.message,
  });
  // A refusal before any id was read answers with none: the report names none either.
  if (body === undefined) report.id = refusal.response.id ?? undefined;
  return report;
}

function rulesOf(reports: readonly Report[]): RuleName[] {
  return reports.map((report) => report.rule);
}

/**
 * One captured message's bytes (`undefined`: longer than the limit), as a gate reads a body: the media type (when one
 * is known), the size, strict UTF-8 and JSON. The parsed body, or the refusal a gate would answer.
 */
export function readMessage(
  bytes: Uint8Array | undefined,
  contentType: string | undefined,
  settings: AdmissionSettings,
): { ok: true; body: unknown } | Refusal {
  const wrongType = contentType === undefined ? undefined : checkMediaType(contentType);
  if (wrongType) return wrongType;
  if (bytes === undefined) return bodyTooLarge(settings.maxBodyBytes);
  return parseBody(bytes, settings);
}

/** A parsed message judged as a gate judges a body: the nesting bound, its era, and its validation. */
export function judgeMessage(body: unknown, context: JudgeContext, settings: AdmissionSettings): Admission {
  return judgeBody(body, context, settings);
}

/**
 * A refused body parsed again for its log line, when it parsed at all (the stage keeps no refused body): `undefined`
 * for one refused before or at parsing. Only the refusal path pays for it.
 */
export function parsedAgain(bytes: Uint8Array | undefined, reason: string): unknown {
  if (bytes === undefined || (reason !== "invalid-message" && reason !== "nested-too-deeply")) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
