/**
 * @module pending: the requests `wymcp stdio` handed on, until the server answers them: what an answer is matched
 * with (its request's era, method and revision, for the outbound check, `onAnswer` and the spans), bounded.
 */
import { answerId, type JsonRpcId } from "../../core/envelope.js";
import type { Era } from "../../core/era.js";
import { legacyRevisionOf } from "../../core/legacy-revision.js";
import type { ExchangeTrace } from "../../core/trace.js";

/** Requests remembered until the server answers them (for outbound checks, `onAnswer` and spans); the oldest is forgotten past this. */
const MAX_PENDING = 4_096;

/** The requests of passing bodies the server has not answered yet, bounded by `MAX_PENDING`. */
export class PendingRequests {
  private readonly pending = new Map<string, Pending>();

  /**
   * Remembers the requests of a passing body until the server answers them; returns how many are waited for. A legacy
   * request is remembered with the revision it was judged by (its own initialize's, else the session's).
   */
  remember(body: unknown, era: Era, trace: ExchangeTrace | undefined, sessionRevision: string | undefined): number {
    const { pending } = this;
    const traced: Traced | undefined = trace && { trace, waiting: 0 };
    let waiting = 0;
    for (const item of Array.isArray(body) ? body : [body]) {
      const key = keyOf(item);
      const method = (item as { method?: unknown }).method;
      if (key === undefined || typeof method !== "string") continue;
      // A request forgotten (its id used again, or the oldest past the bound) is never matched with an answer here.
      const forgotten = pending.get(key) ?? (pending.size >= MAX_PENDING ? pending.values().next().value : undefined);
      if (forgotten) {
        pending.delete(forgotten.key);
        if (forgotten.traced === traced) waiting--;
        else if (forgotten.traced) answerTraced(forgotten.traced, undefined);
      }
      const revision = era === "legacy" ? legacyRevisionOf(item, sessionRevision).revision : undefined;
      pending.set(key, { era, method, id: answerId(item), key, traced, revision });
      waiting++;
    }
    if (traced) traced.waiting = waiting;
    return waiting;
  }

  /** The pending request `item` answers, if it is a response to one; forgotten once answered. */
  answered(item: unknown): Pending | undefined {
    if (!isObject(item) || Object.hasOwn(item, "method")) return undefined;
    const key = keyOf(item);
    const request = key === undefined ? undefined : this.pending.get(key);
    if (request) this.pending.delete(key!);
    return request;
  }

  /** Ends the spans of the requests never answered (the server has exited). */
  close(): void {
    const open = new Set<Traced>();
    for (const { traced } of this.pending.values()) if (traced) open.add(traced);
    this.pending.clear();
    for (const traced of open) traced.trace.end();
  }
}

/** One request of a traced body answered (`undefined`: given up on); the trace ends with the last. */
export function answerTraced(traced: Traced, item: unknown): void {
  if (item !== undefined) traced.trace.answered(item);
  if (--traced.waiting <= 0) traced.trace.end();
}

/** A request waiting for the server's answer. */
export interface Pending {
  era: Era;
  method: string;
  /** The id as wymcp would echo it. */
  id: JsonRpcId;
  key: string;
  traced: Traced | undefined;
  /** Legacy: the revision it was judged by (its session's, or its own initialize's), which judges its answer too. */
  revision: string | undefined;
}

/** The trace of one passing body, and how many of its requests are still unanswered. */
export interface Traced {
  trace: ExchangeTrace;
  waiting: number;
}

/** The id of a message as a map key (a string id and a number id are different ids). */
export function keyOf(item: unknown): string | undefined {
  if (!isObject(item)) return undefined;
  const id = item.id;
  return typeof id === "string" ? `s${id}` : typeof id === "number" ? `n${id}` : undefined;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
