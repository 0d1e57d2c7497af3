/**
 * @module gate-log: what `wymcp proxy` and `wymcp stdio` report per message, and their log. Each face calls two hooks:
 * `onVerdict` once per judged message, `onAnswer` when the answer to a request id is written to the client (the
 * server's, handed back, or wymcp's own). The log is one subscriber (telemetry reads the admission verdict itself,
 * through telemetry/traced.ts, since these events carry nothing of the body). Log lines are built from
 * wymcp's answer and the verdict, and take of the message only what says which it was: the id, echoed under the
 * answers' rules; the method, and a tool's or prompt's name, escaped and bounded as the answers escape a client's
 * keys. Never a value of its arguments.
 */
import type { Refusal, RejectReason } from "../core/admission.js";
import type { Admitted, OwnAnswer, Stage } from "../core/chain.js";
import { answerId, type JsonRpcErrorResponse, type JsonRpcId } from "../core/envelope.js";
import type { Era } from "../core/era.js";
import { escapeText } from "../core/log-safe.js";
import { type GateRefuse, type GateUnjudged, parsedAgain } from "../core/pipeline.js";
import type { Report, RuleName } from "../core/rules.js";
import type { JudgedKind } from "../core/validate.js";

export type LogFormat = "text" | "json";
export type Face = "proxy" | "stdio";

/** Why a message was not handed on: the gates' reasons, one list in the core. */
export type RefusalReason = RejectReason;

/** One judged message. */
export interface VerdictEvent {
  /**
   * `pass` and `bypass`: handed on to the server. `reported`: handed on, though it fails a rule in `"report"` (`rule`;
   * `code` and `message` are the answer enforcing it would have sent), or could not be judged at all. `refused`:
   * answered by wymcp, never handed on. `dropped`: neither handed on nor answered (a refused notification or response,
   * or a parse error within a second of the last answered one).
   */
  outcome: "pass" | "bypass" | "reported" | "refused" | "dropped";
  /** The era it was judged in; unset when it was refused before (not JSON, too large). */
  era: Era | undefined;
  kind: JudgedKind | undefined;
  /** The id wymcp answers with (the client's only when a valid, bounded, log-safe one); unset when there is none. */
  id: JsonRpcId | undefined;
  /**
   * The method, escaped and bounded (log-safe), when the message parsed and names one as a string; for a batch, that
   * of the item a refusal's first error locates, else of its first item ({@link namesOf}).
   */
  method: string | undefined;
  /** For `tools/call` and `prompts/get`: the tool's or prompt's name (`params.name`), escaped and bounded likewise. */
  name?: string | undefined;
  reason?: RefusalReason;
  /** The rule that refused it, or (`reported`) that would have. */
  rule?: RuleName;
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
  /** Every would-be refusal and violation, by rule (the log writes each as one line). */
  onReport?(report: Report): void;
  /** Each message's bytes as they pass, for the live page and `--record` (src/inspect/live/); nothing of it is logged. */
  observer?: MessageObserver;
}

/** The live page's reader of a face's messages: the proxy runs its `stage` in its chain; the stdio gate calls `chunk`. */
export interface MessageObserver {
  /** The chain's `feed` stage: each exchange's request and its answer, as the client receives it. */
  stage?: Stage;
  /** Bytes from the client, the server, or wymcp's own answers to the client, as they pass. */
  chunk?(from: "client" | "server" | "wymcp", data: Uint8Array | string): void;
}

/** An answer wymcp writes itself instead of the server's (core/chain.ts): the page, `--record` and `wymcp check` tell it from a served one. */
export type { OwnAnswer };

/** A body the gate admitted: the body it parsed, the era it judged it in, and what the validation returned. */
export type GateAdmitted = Admitted;

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

/** Longest tool or prompt name logged; a longer one is cut and ends in `…`. */
const NAME_LENGTH = 64;

/** Methods whose `params.name` is what a reader of the log asks about first: which tool, which prompt. */
const NAMED_METHODS: ReadonlySet<string> = new Set(["tools/call", "prompts/get"]);

/** What a log line names of a parsed message: its method, and for a tool call or a prompt, the name. */
export interface LoggedNames {
  method: string | undefined;
  name: string | undefined;
}

const NO_NAMES: LoggedNames = Object.freeze({ method: undefined, name: undefined });

/**
 * The method and the tool's or prompt's name of a parsed body, log-safe. A batch names one item: the one the answer's
 * first error locates (its pointer begins `/N/`), else the first; an answer whose error points nowhere in it, or no
 * answer, names the first item's.
 */
export function namesOf(body: unknown, response?: JsonRpcErrorResponse): LoggedNames {
  const item = Array.isArray(body) ? body[locatedItem(response) ?? 0] : body;
  const method = safeMethod(item);
  if (method === undefined) return NO_NAMES;
  const raw = (item as { method: string }).method;
  const params = (item as { params?: unknown }).params;
  const name =
    NAMED_METHODS.has(raw) && typeof params === "object" && params !== null && typeof (params as { name?: unknown }).name === "string"
      ? escapeText((params as { name: string }).name, NAME_LENGTH)
      : undefined;
  return { method, name };
}

/** The batch item an answer's first error points into (`/3/params/name` → 3), if any. */
function locatedItem(response: JsonRpcErrorResponse | undefined): number | undefined {
  const data = response?.error.data as { errors?: Array<{ instancePath?: unknown }> } | undefined;
  const pointer = Array.isArray(data?.errors) ? data.errors[0]?.instancePath : undefined;
  const index = typeof pointer === "string" ? /^\/(0|[1-9]\d{0,8})(?:\/|$)/.exec(pointer)?.[1] : undefined;
  return index === undefined ? undefined : Number(index);
}

/** The log of one face: one line per event on `write` (stderr), as text or JSON lines. */
export interface GateLog {
  /** A refused or dropped message (passes are not logged, and a reported one is the report's line). */
  verdict(event: VerdictEvent): void;
  /** One would-be refusal or violation: one line naming the rule. */
  report(report: Report): void;
  /** Anything else worth a line: a failing upstream, an outbound violation, start and stop. */
  line(event: string, fields: Record<string, unknown>, text: string): void;
}

/**
 * A stream a log is written to (Node's standard error is one): `write` says whether the stream took the line without
 * waiting (false: its buffer is full), and `drain` when it has caught up.
 */
export interface LogStream {
  write(text: string): boolean;
  once(event: "drain", listener: () => void): unknown;
}

/**
 * The log of one face, written to `out`: a function, or a stream whose backpressure the log keeps to. While the stream
 * is full (from a `write` that returned false to its `drain`), lines are dropped and counted, and the count is logged
 * once it drains: a reader of stderr that does not keep up loses lines, never grows the face's memory, and never
 * holds the face back.
 */
export function createLog(face: Face, format: LogFormat, out: ((line: string) => void) | LogStream): GateLog {
  const write =
    typeof out === "function"
      ? out
      : keptUp(out, (lines) =>
          line("log-dropped", { lines }, `${lines} log line${lines === 1 ? "" : "s"} dropped: stderr did not keep up`),
        );
  const line = (event: string, fields: Record<string, unknown>, text: string) => {
    if (format === "json") write(`${JSON.stringify({ time: new Date().toISOString(), face, event, ...fields })}\n`);
    else write(`wymcp ${face}: ${text}\n`);
  };
  return {
    verdict(event) {
      if (event.outcome === "pass" || event.outcome === "bypass" || event.outcome === "reported") return;
      const { outcome, ...fields } = event;
      const parts = [
        outcome === "refused" ? "refused" : "dropped (not answered)",
        event.status,
        event.code,
        event.reason,
        event.rule && `rule=${event.rule}`,
        event.era && `era=${event.era}`,
        event.kind && `kind=${event.kind}`,
        event.method !== undefined && `method=${JSON.stringify(event.method)}`,
        event.name !== undefined && `name=${JSON.stringify(event.name)}`,
        event.id !== undefined && `id=${JSON.stringify(event.id)}`,
        event.remote && `from=${event.remote}`,
      ].filter((part) => part !== undefined && part !== false && part !== "");
      line(outcome, fields, `${parts.join(" ")}${event.message ? `: ${event.message}` : ""}`);
    },
    report(report) {
      const parts = [
        `report rule=${report.rule}`,
        report.direction === "out" ? "(the server's message)" : "(handed on)",
        report.status,
        report.code,
        report.era && `era=${report.era}`,
        report.method !== undefined && `method=${JSON.stringify(report.method)}`,
        report.tool !== undefined && `tool=${JSON.stringify(report.tool)}`,
        report.id !== undefined && `id=${JSON.stringify(report.id)}`,
        report.client !== undefined && `client=${JSON.stringify(report.client)}`,
      ].filter((part) => part !== undefined && part !== false && part !== "");
      line("report", { ...report }, `${parts.join(" ")}: ${report.message}`);
    },
    line,
  };
}

/** A writer to `stream` that drops lines while it is full; `dropped(n)` is called once it drains, with how many were. */
function keptUp(stream: LogStream, dropped: (lines: number) => void): (line: string) => void {
  let full = false;
  let lost = 0;
  const drained = () => {
    full = false;
    if (lost === 0) return;
    const lines = lost;
    lost = 0;
    dropped(lines);
  };
  return (line) => {
    if (full) {
      lost++;
      return;
    }
    if (stream.write(line)) return;
    full = true;
    stream.once("drain", drained);
  };
}

/** Where a face's verdict events say the message came from: the proxy's client address, and whether it answers with HTTP. */
export interface EventPlace {
  /** The HTTP status of the answer, for a face that answers with one (the proxy). */
  status?: boolean;
  remote?: string | undefined;
}

/**
 * The log's event for a refusal: `refused` when wymcp answered it, `dropped` when it did not (a notification, a
 * response, a flood of junk). `body` is the refused body, when it parsed (for its method and name).
 */
export function refusalEvent(
  refusal: Refusal,
  body: unknown,
  outcome: "refused" | "dropped" | "reported",
  place: EventPlace = {},
): VerdictEvent {
  const { response } = refusal;
  const event: VerdictEvent = {
    outcome,
    era: refusal.era,
    kind: refusal.kind,
    // A `403` carries no id: its event says `null`, as a refusal before any id was read.
    id: response.id ?? null,
    ...namesOf(body, response),
    reason: refusal.reason,
    rule: refusal.rule,
  };
  if (place.status) event.status = refusal.status;
  event.code = response.error.code;
  event.message = response.error.message;
  if (place.remote !== undefined) event.remote = place.remote;
  return event;
}

/** The log's event for a body handed on unjudged (`limits` in `"report"` or `"off"`): `reported`, with what enforcing would have answered. */
export function unjudgedEvent(unjudged: GateUnjudged, place: EventPlace = {}): VerdictEvent {
  const event = refusalEvent(unjudged.refusal, parsedAgain(unjudged.bytes, unjudged.refusal.reason), "reported", place);
  event.rule = unjudged.refusal.rule;
  return event;
}

/** A refused body parsed again for its log line, when it parsed at all (`GateRefuse.bytes`). */
export function refusedBody(refused: GateRefuse): unknown {
  return parsedAgain(refused.bytes, refused.refusal.reason);
}

/**
 * The log's event for an admitted body: `reported` for a message that fails a rule in `"report"` (the first such rule),
 * handed on all the same, with the answer enforcing would have sent; otherwise its pass or bypass, built only when
 * `subscribed` (the log writes nothing for a pass).
 */
export function admittedEvent(admitted: Admitted, subscribed: boolean, place: EventPlace = {}): VerdictEvent | undefined {
  const { body, era, result } = admitted;
  const reported = result.outcome === "pass" ? result.reported?.[0] : undefined;
  let event: VerdictEvent;
  if (reported) {
    const { code, message } = reported.response.error;
    event = {
      outcome: "reported",
      era,
      kind: result.kind,
      id: answerId(body),
      ...namesOf(body, reported.response),
      reason: "invalid-message",
      rule: reported.rule,
      code,
      message,
    };
  } else if (subscribed) event = { outcome: result.outcome, era, kind: result.kind, id: answerId(body), method: safeMethod(body) };
  else return undefined;
  if (place.remote !== undefined) event.remote = place.remote;
  return event;
}
