/**
 * @module capture: one message judged within its capture, the sequence `wymcp check` and the inspector's page share: a
 * response takes the request it answers, a request is kept for its response, and a legacy `initialize` and its answer
 * set the revision of the session. No host type: the page bundles it.
 */
import type { Era } from "../core/era.js";
import { type Exchange, type PendingRequest, requestIdOf } from "./exchange.js";
import { autoDirection, type CapturedBytes, type JudgeContext, judge, requestRevision, type Verdict } from "./judge.js";
import type { CapturedMessage } from "./har.js";
import type { Negotiations } from "./negotiation.js";
import type { JudgeOptions } from "./judge.js";

/** The capture's state a message is judged against, and the keys of its session. */
export interface CaptureState {
  exchange: Exchange;
  /** The key its requests and responses pair under. */
  session: string;
  negotiated: Negotiations;
  /** The key of its negotiation; none for a message of a HAR file that belongs to no session. */
  negotiation: string | undefined;
}

/**
 * Judges one message (`bytes` undefined: over the limit) and records what later messages of the capture need of it.
 * @example judgeInCapture({ source: "log.jsonl", line: 1, bytes, context: {} }, options, { exchange, session: "", negotiated, negotiation: "" })
 */
export function judgeInCapture(
  message: CapturedBytes & { context: JudgeContext },
  options: JudgeOptions,
  { exchange, session, negotiated, negotiation }: CaptureState,
): { verdict: Verdict; body: unknown } {
  const { line, context } = message;
  context.negotiated = negotiation === undefined ? undefined : negotiated.of(negotiation);
  const { verdict, body } = judge(message, options);
  const id = requestIdOf(body);
  if (id !== undefined && verdict.era !== null) {
    const request: PendingRequest = {
      method: (body as { method: string }).method,
      era: verdict.era,
      eraSignal: verdict.eraSignal!,
      line,
      // The sender: as the capture says (a HAR file), else as judged, else by a method only a server sends.
      from: context.from ?? (verdict.direction === "out" || autoDirection(body) === "out" ? "server" : "client"),
    };
    if (context.part !== undefined) request.part = context.part;
    const revision = requestRevision(verdict, body, options, context);
    if (revision !== undefined) request.revision = revision;
    exchange.sent(session, id, request);
    if (
      negotiation !== undefined &&
      verdict.outcome === "pass" &&
      verdict.era === "legacy" &&
      request.from === "client" &&
      request.method === "initialize"
    )
      negotiated.asked(negotiation, body, line, context.part);
  } else if (
    negotiation !== undefined &&
    verdict.method === "initialize" &&
    verdict.answers?.from === "client" &&
    methodOf(body) === undefined
  ) {
    negotiated.answered(negotiation, body, line, context.part);
  }
  return { verdict, body };
}

/** The request of a HAR entry, as judged: its server's messages in the same entry take its era. */
export type RequestEra = { entry: number; era: Era; eraSignal: "request" } | undefined;

/**
 * What a HAR file's message is judged with: its exchange's headers and sender, the session its requests and responses
 * pair under, the session whose negotiation it reads, and the era of its entry's request for a server's message.
 */
export function harMessageContext(
  message: CapturedMessage,
  options: JudgeOptions,
  exchange: Exchange,
  requestEra: RequestEra,
): { context: JudgeContext; session: string; negotiation: string | undefined } {
  const session = message.headers["mcp-session-id"] ?? options.headers["mcp-session-id"] ?? "";
  // An initialize's POST has no session id yet: the server's answer assigns the one its negotiation is for. A
  // message with neither belongs to no session (a stateless server's clients name the revision in every header).
  const negotiation = message.headers["mcp-session-id"] ?? message.session ?? options.headers["mcp-session-id"];
  const context: JudgeContext = {
    headers: message.headers,
    from: message.from,
    part: message.part,
    pair: (id) => exchange.answer(session, id, message.from),
    ...(requestEra?.entry === message.entry && message.from === "server"
      ? { exchangeEra: { era: requestEra.era, eraSignal: requestEra.eraSignal } }
      : {}),
  };
  return { context, session, negotiation };
}

/** A parsed message's `method` as it is (a batch or a non-object has none). */
export function methodOf(body: unknown): unknown {
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as { method?: unknown }).method : undefined;
}
