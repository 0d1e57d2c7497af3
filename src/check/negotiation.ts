/**
 * @module negotiation: the legacy revision each session of a capture negotiated, for the messages that carry no
 * `MCP-Protocol-Version` header (a JSONL log, a stdio session, a HAR entry without it). A client names the negotiated
 * revision in that header from its `initialize` on, and a server may rely on the negotiation instead; a capture without
 * headers still holds the negotiation itself. The server's answer to `initialize` names the revision; until the capture
 * shows that answer (or when it never does), the revision the `initialize` asked for stands, since a server that
 * supports it answers with the same one. An answer that names no legacy revision, or an error, leaves the rule without
 * a header (2025-03-26) in force, as `wymcp stdio` does.
 */
import { legacyRevisionOf } from "../core/legacy-revision.js";
import { negotiatedRevision } from "../outbound/negotiated-revision.js";

/** Where a session's revision came from: the server's answer to `initialize` (`result`), or the request alone. */
export interface Negotiated {
  revision: string;
  by: "result" | "request";
  /** The line (or HAR entry) of that message, and in a HAR file its part. */
  line: number;
  part?: string;
}

/** Sessions remembered at most: a capture of endless sessions cannot grow this without bound. */
export const MAX_SESSIONS = 10_000;

export class Negotiations {
  // session → its revision; in insertion order, so the oldest is forgotten first.
  private readonly sessions = new Map<string, Negotiated>();

  /** The revision `session` negotiated, if the capture has shown one. */
  of(session: string): Negotiated | undefined {
    return this.sessions.get(session);
  }

  /** A legacy `initialize` request that passed: a new session, judged by the revision it asks for until answered. */
  asked(session: string, body: unknown, line: number, part?: string): void {
    this.set(session, {
      revision: legacyRevisionOf(body, undefined).revision,
      by: "request",
      line,
      ...(part === undefined ? {} : { part }),
    });
  }

  /** The answer to the session's `initialize`: its result's `protocolVersion`, read as the header would be read. */
  answered(session: string, body: unknown, line: number, part?: string): void {
    const revision = negotiatedRevision(body);
    if (revision === undefined) {
      this.sessions.delete(session);
      return;
    }
    this.set(session, { revision, by: "result", line, ...(part === undefined ? {} : { part }) });
  }

  private set(session: string, negotiated: Negotiated): void {
    this.sessions.delete(session);
    this.sessions.set(session, negotiated);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
  }
}
