/**
 * @module own-answer: the mark a recorded answer of wymcp's own carries (`--record`, the page's export), read back.
 * A line of a JSONL record holds one message; wymcp's own answers (a refusal, its word for an upstream that failed)
 * carry one member more, `"wymcp"`, which says so. No host type: the page bundles it.
 */
import type { OwnAnswer } from "../log/gate-log.js";

/** The member of a recorded message that marks it as wymcp's own answer. */
export const OWN_MARK = "wymcp";

/** Longest reason read back from a mark (a file can say anything). */
const REASON_LENGTH = 64;

/**
 * The mark of wymcp's own answer on a parsed message, or undefined when it carries none (or one not of that shape).
 * @example ownMark({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "…" }, wymcp: { answer: "refused", status: 415 } })
 */
export function ownMark(body: unknown): OwnAnswer | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !Object.hasOwn(body, OWN_MARK)) return undefined;
  const mark = (body as Record<string, unknown>)[OWN_MARK];
  if (typeof mark !== "object" || mark === null) return undefined;
  const { answer, status, reason } = mark as Record<string, unknown>;
  if (answer !== "refused" && answer !== "failed") return undefined;
  const own: OwnAnswer = { answer };
  if (Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599) own.status = status as number;
  if (typeof reason === "string") own.reason = reason.slice(0, REASON_LENGTH);
  return own;
}

/** The message without the mark (a copy; the message itself is left as it is). */
export function withoutMark(body: Record<string, unknown>): Record<string, unknown> {
  const { [OWN_MARK]: _mark, ...message } = body;
  return message;
}
