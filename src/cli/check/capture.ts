/**
 * @module capture: one message judged within its capture, the sequence `wymcp check` and the inspector's page share: a
 * response takes the request it answers, a request is kept for its response, and a legacy `initialize` and its answer
 * set the revision of the session. No host type: the page bundles it.
 */
import { type Exchange, type PendingRequest, requestIdOf } from "./exchange.js";
import { autoDirection, type JudgeContext, judge, requestRevision, type Verdict } from "./judge.js";
import type { Negotiations } from "./negotiation.js";
import type { JudgeOptions } from "./options.js";
import { methodOf } from "./render.js";

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
 * @example judgeInCapture("log.jsonl", 1, bytes, options, {}, { exchange, session: "", negotiated, negotiation: "" })
 */
export function judgeInCapture(
  source: string,
  line: number,
  bytes: Uint8Array | undefined,
  options: JudgeOptions,
  context: JudgeContext,
  { exchange, session, negotiated, negotiation }: CaptureState,
): { verdict: Verdict; body: unknown } {
  context.negotiated = negotiation === undefined ? undefined : negotiated.of(negotiation);
  const { verdict, body } = judge(source, line, bytes, options, context);
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
