/**
 * @module gate-log: what `wymcp proxy` and `wymcp stdio` report per message, and their log. Each face calls two hooks:
 * `onVerdict` once per judged message, `onAnswer` when the answer to a request id is written to the client (the
 * server's, handed back, or wymcp's own). The log is one subscriber (telemetry reads the admission verdict itself,
 * through hosts/shared/traced.ts, since these events carry nothing of the body). Log lines are built from
 * wymcp's answer and the verdict only, never from the message: the id is echoed under the answers' rules, and the
 * answers' messages escape what they take from a client's keys.
 */
import type { JsonRpcId } from "../core/envelope.js";
import type { Era } from "../core/era.js";
import { escapeText } from "../core/log-safe.js";
import type { JudgedKind } from "../core/validate.js";

export type LogFormat = "text" | "json";
export type Face = "proxy" | "stdio";

/** Why a message was not handed on: the gates' reasons, and the stdio gate's for a line it cannot judge. */
export type RefusalReason =
  | "body-too-large"
  | "unsupported-media-type"
  | "parse-error"
  | "nested-too-deeply"
  | "invalid-message"
  | "forbidden-host"
  | "forbidden-origin";

/** One judged message. */
export interface VerdictEvent {
  /**
   * `pass` and `bypass`: handed on to the server. `reported`: handed on, though its params fail its legacy revision's
   * definition (`--legacy-checks report`; `code` and `message` are the answer `params` would have sent). `refused`:
   * answered by wymcp, never handed on. `dropped`: neither handed on nor answered (a refused notification or response,
   * or a parse error within a second of the last answered one).
   */
  outcome: "pass" | "bypass" | "reported" | "refused" | "dropped";
  /** The era it was judged in; unset when it was refused before (not JSON, too large). */
  era: Era | undefined;
  kind: JudgedKind | undefined;
  /** The id wymcp answers with (the client's only when a valid, bounded, log-safe one); unset when there is none. */
  id: JsonRpcId | undefined;
  /** The method, escaped and bounded (log-safe), when the message names one as a string. */
  method: string | undefined;
  reason?: RefusalReason;
  /** The HTTP status wymcp answered with (proxy). */
  status?: number;
  /** The JSON-RPC error code of wymcp's answer. */
  code?: number;
  /** wymcp's answer's message. */
  message?: string;
  /** The client's address (proxy). */
  remote?: string;
}

/** The answer to one request, written to the client. */
export interface AnswerEvent {
  id: JsonRpcId;
  /** `server`: the server's answer, handed back; `wymcp`: a refusal, or the proxy's 502/504. */
  by: "server" | "wymcp";
  /** The HTTP status (proxy). */
  status?: number;
}

/** The per-message hooks of a face. They must not throw; a throw is ignored. */
export interface GateHooks {
  onVerdict?(event: VerdictEvent): void;
  onAnswer?(event: AnswerEvent): void;
}

/** Calls a hook, ignoring what it throws: a broken subscriber must not break a message on its way. */
export function notify<E>(hook: ((event: E) => void) | undefined, event: E): void {
  if (!hook) return;
  try {
    hook(event);
  } catch {
    // As with onReject: the message has been dealt with already.
  }
}

/** Longest method name logged; a longer one is cut and ends in `…`. */
const METHOD_LENGTH = 64;

/** A method name fit for a log line, or undefined when the message names none as a string. */
export function safeMethod(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const method = (body as { method?: unknown }).method;
  return typeof method === "string" ? escapeText(method, METHOD_LENGTH) : undefined;
}

/** The log of one face: one line per event on `write` (stderr), as text or JSON lines. */
export interface GateLog {
  /** A refused, dropped or reported message (passes are not logged). */
  verdict(event: VerdictEvent): void;
  /** Anything else worth a line: a failing upstream, an outbound violation, start and stop. */
  line(event: string, fields: Record<string, unknown>, text: string): void;
}

export function createLog(face: Face, format: LogFormat, write: (line: string) => void): GateLog {
  const line = (event: string, fields: Record<string, unknown>, text: string) => {
    if (format === "json") write(`${JSON.stringify({ time: new Date().toISOString(), face, event, ...fields })}\n`);
    else write(`wymcp ${face}: ${text}\n`);
  };
  return {
    verdict(event) {
      if (event.outcome === "pass" || event.outcome === "bypass") return;
      const { outcome, ...fields } = event;
      const parts = [
        outcome === "refused" ? "refused" : outcome === "reported" ? "reported (handed on)" : "dropped (not answered)",
        event.status,
        event.code,
        event.reason,
        event.era && `era=${event.era}`,
        event.kind && `kind=${event.kind}`,
        event.method !== undefined && `method=${JSON.stringify(event.method)}`,
        event.id !== undefined && `id=${JSON.stringify(event.id)}`,
        event.remote && `from=${event.remote}`,
      ].filter((part) => part !== undefined && part !== false && part !== "");
      line(outcome, fields, `${parts.join(" ")}${event.message ? `: ${event.message}` : ""}`);
    },
    line,
  };
}
