/**
 * @module exchange: which request each response of a capture answers. JSON-RPC ids are the sender's own: a client's
 * requests and a server's are two id spaces, and a response answers a request of the other side; with an
 * `Mcp-Session-Id` they are per session. A response takes its request's method, era and signal, and the request is
 * then answered (a second response with its id finds nothing).
 */
import type { Era, EraSignal } from "../core/era.js";

/** A request of the capture that no response has answered yet. */
export interface PendingRequest {
  method: string;
  era: Era;
  /** How its era was told (`request`: from the request it answered or that carried it; `session`: its session's). */
  eraSignal: EraSignal | "flag" | "request" | "session";
  /** Who sent it: a client's answer to a server's request is told apart from a server's answer. */
  from: "client" | "server";
  /** Where it was: the line (or HAR entry) and, in a HAR file, the part. */
  line: number;
  part?: string;
  /** Legacy: the revision it was judged by, which judges its response too (as report mode does). */
  revision?: string;
}

/** Pending requests kept at most: a log of requests never answered cannot grow this without bound. */
export const MAX_PENDING = 10_000;

export class Exchange {
  // sender, session and id → the request; in insertion order, so the oldest is dropped first.
  private readonly pending = new Map<string, PendingRequest>();

  /** A request sent by `request.from` (the client, or the server), with an id the other side will answer. */
  sent(session: string, id: unknown, request: PendingRequest): void {
    const key = keyOf(request.from, session, id);
    if (key === undefined) return;
    this.pending.delete(key);
    this.pending.set(key, request);
    if (this.pending.size > MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
  }

  /**
   * The request a response with `id` answers, and it is answered. `from`: who sent the response, when the capture
   * says (a HAR file does); otherwise the most recent request of either side with that id.
   */
  answer(session: string, id: unknown, from?: "client" | "server"): PendingRequest | undefined {
    const senders = from === "server" ? ["client"] : from === "client" ? ["server"] : ["client", "server"];
    let found: { key: string; request: PendingRequest; at: number } | undefined;
    for (const sender of senders) {
      const key = keyOf(sender as "client" | "server", session, id);
      const request = key === undefined ? undefined : this.pending.get(key);
      if (key !== undefined && request && (!found || request.line > found.at)) found = { key, request, at: request.line };
    }
    if (!found) return undefined;
    this.pending.delete(found.key);
    return found.request;
  }
}

/** The key of a valid JSON-RPC id (a string or a number; 1 and "1" are two ids), or undefined for anything else. */
function keyOf(from: "client" | "server", session: string, id: unknown): string | undefined {
  if (typeof id === "string") return `${from}\u0000${session}\u0000s${id}`;
  if (typeof id === "number" && Number.isFinite(id)) return `${from}\u0000${session}\u0000n${id}`;
  return undefined;
}

/** The id of a request (a method and a valid JSON-RPC id), which a later response may answer; else undefined. */
export function requestIdOf(body: unknown): string | number | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== "string") return undefined;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : undefined;
}
