/** @module render: verdicts in human words, aligned, escaped with the core's one set of unsafe characters. */
import { escapeText } from "../core/log-safe.js";
// The era revisions from the outbound modules the CLI loads anyway: generated/index.js would bundle the inbound validators again.
import { outbound as eras } from "../../generated/outbound.js";
import { methodOf } from "./capture.js";
import { type GateLogRecord, recordOutcome } from "./gate-log-record.js";
import { type Answered, type CheckSignal, type InboundVerdict, judgedOut, type OutboundVerdict, type Verdict } from "./judge.js";
import type { Negotiated } from "./negotiation.js";
import type { OwnAnswer } from "../log/gate-log.js";

/** Wraps text in an SGR colour code, or leaves it as it is when colour is off. */
export type Paint = (code: string, text: string) => string;

/**
 * Text from the message (keys, method names, a file name) made safe to print: every unit the core escapes in an
 * answer (control characters, line separators, bidirectional marks, lone surrogates; `\` doubled) as the core
 * escapes it, so that a captured message cannot drive the terminal or split a line; cut after `max` characters.
 */
export function printable(text: string, max = 200): string {
  return escapeText(text, max);
}

const SIGNAL_LABELS: Record<CheckSignal, string> = {
  flag: "--era",
  request: "its request",
  session: "its session",
  batch: "batch",
  response: "response",
  "not-json-rpc": "malformed",
  initialize: "initialize",
  "body-meta": "_meta",
  "header-protocol-version": "header",
  "header-session-id": "session id",
  default: "no signal",
};
const ERA_WIDTH = "legacy (its request)".length;

/** What a refusal before judging is called: the body was never judged as a message. */
const UNJUDGED: Record<string, string> = {
  "parse-error": "not JSON",
  "body-too-large": "too large to judge",
  "nested-too-deeply": "nested too deeply to judge",
  "unsupported-media-type": "not application/json",
};

/** What the message was judged as, in words: `tools/call request (CallToolRequest)`. */
function judgedAs(verdict: Verdict, body: unknown): string {
  if (judgedOut(verdict)) return judgedOutAs(verdict, body);
  if (verdict.outcome === "reject" && verdict.reason !== "invalid-message") return UNJUDGED[verdict.reason]!;
  // A body a rule not enforced let through unjudged (limits in report or off): handed on as sent.
  if (verdict.outcome === "pass" && verdict.kind === null) return `${UNJUDGED[verdict.reason] ?? verdict.reason}, handed on unjudged`;
  const name = methodOf(body);
  const method = typeof name === "string" ? `${methodLabel(name)} ` : "";
  switch (verdict.outcome) {
    case "pass":
      // A modern request of no known method passes on framing alone; a typo in the method lands here too.
      if (verdict.era === "modern" && verdict.definition === "JSONRPCRequest")
        return `${method}request (JSONRPCRequest; not a method of ${eras.modern.revision}: framing only)`;
      // A legacy message of a method its revision defines names the revision; any other is judged on its framing alone.
      if (verdict.revision)
        return `${method}${verdict.kind} (${verdict.definition}, ${revisionText(verdict.revision, verdict.negotiated)})`;
      if (verdict.era === "legacy") return `${method}${verdict.kind} (${verdict.definition}; framing only)`;
      return `${method}${verdict.kind} (${verdict.definition})`;
    case "bypass":
      if (verdict.reason === "modern-notification") return `${method}notification, not validated in the modern era`;
      return verdict.answers?.from === "server"
        ? `client answer to ${printable(verdict.method!, 60)}, not validated in the legacy era (handed to its session)${answering(verdict.answers)}`
        : `${verdict.method ? `${printable(verdict.method, 60)} ` : ""}response, not validated in the legacy era (handed to its session)${answering(verdict.answers)}`;
    case "reject":
      return `${method}${verdict.kind === "other" ? "message of no kind" : verdict.kind} (${definitionOf(verdict)})`;
  }
}

// Logs repeat a handful of methods: their printable labels are made once (bounded, so junk methods cannot grow it).
const methodLabels = new Map<string, string>();
export function methodLabel(method: string): string {
  let label = methodLabels.get(method);
  if (label === undefined) {
    label = printable(method, 60);
    if (methodLabels.size < 1000) methodLabels.set(method, label);
  }
  return label;
}

/**
 * An outbound verdict in words: `out: tools/call result (CallToolResult, revision 2025-06-18)`, saying when only the
 * framing was judged; a client's answer to a server's request as `client answer to elicitation/create: result (...)`.
 */
function judgedOutAs(verdict: OutboundVerdict, body: unknown): string {
  const { revision } = verdict;
  const own = verdict.kind === "request" || verdict.kind === "notification" ? methodOf(body) : verdict.method;
  const method = typeof own === "string" ? `${methodLabel(own)} ` : "";
  const kind = verdict.kind === "other" ? "message of no kind" : verdict.kind === "error" ? "error response" : verdict.kind;
  // Legacy has four revisions, each judging by its own definitions: the line names the one used.
  let definition = verdict.era === "legacy" ? `${verdict.definition}, ${revisionText(revision, verdict.negotiated)}` : verdict.definition;
  if (verdict.kind === "result" && verdict.definition === "JSONRPCResultResponse") {
    definition +=
      verdict.method === undefined ? "; framing only: give --method to judge the result" : `; not a method of ${revision}: framing only`;
  } else if (verdict.kind === "notification" && verdict.definition === "JSONRPCNotification") {
    definition += `; not a server notification of ${revision}: framing only`;
  } else if (verdict.kind === "request" && verdict.definition === "JSONRPCRequest" && verdict.era === "legacy") {
    definition += `; not a server request of ${revision}: framing only`;
  }
  // The outbound checks judge a client's answers to a server's requests too; the line says whose answer it is.
  if (verdict.answers?.from === "server" && typeof own === "string")
    return `client answer to ${methodLabel(own)}: ${kind} (${definition})${answering(verdict.answers)}`;
  return `out: ${method}${kind} (${definition})${answering(verdict.answers)}`;
}

/**
 * `revision 2025-11-25`, and where a capture without headers told it: `, negotiated on line 2` (the server's answer to
 * the session's initialize), or `, asked on line 1` (the initialize itself, its answer not in the capture before it).
 */
function revisionText(revision: string, negotiated: Negotiated | undefined): string {
  if (negotiated === undefined || negotiated.revision !== revision) return `revision ${revision}`;
  const at = negotiated.part === undefined ? `line ${negotiated.line}` : `entry ${negotiated.line} ${negotiated.part}`;
  return `revision ${revision}, ${negotiated.by === "result" ? "negotiated" : "asked"} on ${at}`;
}

/** `, answering line 3` (or `entry 3 request` in a HAR file): which request of the capture a response answers. */
function answering(answers: Answered | undefined): string {
  if (!answers) return "";
  return answers.part === undefined ? `, answering line ${answers.line}` : `, answering entry ${answers.line} ${answers.part}`;
}

/** The definition a rejected message was checked against, as validateMcpRequest names it. */
function definitionOf(verdict: Extract<InboundVerdict, { outcome: "reject" }>): string {
  if (verdict.kind !== "response")
    return `${verdict.definition ?? "JSONRPCMessage"}${verdict.revision ? `, ${revisionText(verdict.revision, verdict.negotiated)}` : ""}`;
  return verdict.method ? `response to ${printable(verdict.method, 60)}: modern clients send none` : "modern clients send none";
}

/** One message in human words: a header line, then for a rejection its locations, aligned. */
export function renderHuman(
  verdict: Verdict,
  body: unknown,
  { paint, name = printable(verdict.source), width: positionWidth = 0 }: { paint: Paint; name?: string; width?: number },
): string {
  // A violation reads as a rejection: one word per verdict keeps the columns of mixed input aligned. wymcp's own
  // answer reads as such, whatever its verdict: it says the call was not served.
  const outcome =
    verdict.own !== undefined
      ? paint("35", "wymcp ")
      : verdict.outcome === "pass"
        ? paint("32", "pass  ")
        : verdict.outcome === "bypass"
          ? paint("33", "bypass")
          : paint("31", "reject");
  const era =
    verdict.era === null ? "-" : verdict.eraSignal === "flag" ? verdict.era : `${verdict.era} (${SIGNAL_LABELS[verdict.eraSignal!]})`;
  const position = verdict.part === undefined ? `${name}:${verdict.line}` : `${name}:${verdict.line} ${verdict.part}`;
  const gap = positionWidth > position.length ? " ".repeat(positionWidth - position.length) : "";
  let text = `${paint("1", position)}${gap}  ${outcome}  ${era.padEnd(ERA_WIDTH)}  ${judgedAs(verdict, body)}${ownText(verdict.own)}`;
  let data: { errors: { instancePath: string; messages: string[] }[]; omitted?: number } | undefined;
  if (verdict.outcome === "violation") {
    text += "\n";
    data = verdict.violations;
  } else if (verdict.outcome === "pass" && judgedOut(verdict) && verdict.reported) {
    // The outbound rule in report: the server's message went on; what the check found is printed as reported.
    text += `  ${paint("2", "reported outbound")}\n`;
    data = verdict.reported;
  } else if (verdict.outcome === "pass" && !judgedOut(verdict) && verdict.reported?.[0]) {
    // A rule in report: the message passes; each rule it fails is printed with the code enforcing it would answer.
    const shown = verdict.reported.map((r) => `${r.rule} ${r.response.error.code}`).join(", ");
    text += `  ${paint("2", `reported ${shown}`)}\n`;
    data = verdict.reported[0].response.error.data;
  } else if (verdict.outcome === "reject") {
    text += `  ${paint("2", String(verdict.response.error.code))}\n`;
    data = verdict.response.error.data;
    // A refusal that names a limit says which (the size or the nesting), in the gates' words.
    if (!data)
      return verdict.reason === "body-too-large" || verdict.reason === "nested-too-deeply"
        ? `${text}  ${verdict.response.error.message}\n`
        : text;
  } else {
    return `${text}\n`;
  }
  return data ? text + locationLines(data.errors, data.omitted, paint) : text;
}

/** `; refused by wymcp: 415 unsupported-media-type`: what a marked answer of wymcp's own says of itself. */
function ownText(own: OwnAnswer | undefined): string {
  if (own === undefined) return "";
  const facts = [own.status, own.reason === undefined ? undefined : printable(own.reason, 64)].filter((f) => f !== undefined).join(" ");
  return `; ${own.answer === "refused" ? "refused by wymcp" : "wymcp's answer for an upstream that failed"}${facts ? `: ${facts}` : ""}`;
}

/** A rejection's locations, aligned, one per line; `omitted` more not listed. */
function locationLines(
  errors: readonly { instancePath: string; messages: readonly string[] }[],
  omitted: number | undefined,
  paint: Paint,
): string {
  // Locations come from the core's distiller, escaped and bounded there already: escaping them again would double `\`.
  const locations = errors.map((e) => (e.instancePath === "" ? "(the message)" : e.instancePath));
  const width = Math.max(...locations.map((l) => l.length));
  let text = "";
  errors.forEach((entry, i) => {
    text += `  ${paint("36", locations[i]!.padEnd(width))}  ${entry.messages.join("; ")}\n`;
  });
  if (omitted) text += `  … ${omitted} more problem${omitted === 1 ? "" : "s"} not listed\n`;
  return text;
}

/** The fields of a gate's log record that `wymcp check` shows, escaped again: the file may not be what a gate wrote. */
export interface RecordView {
  face: string;
  event: string;
  /** When the gate wrote it (`time`, as the log holds it). */
  time?: string;
  /** The client's address (`remote`: the proxy's refusals, reports and failed upstreams). */
  remote?: string;
  era: "legacy" | "modern" | null;
  method?: string;
  /** The tool's or prompt's name of a `tools/call` or `prompts/get` (`name`). */
  name?: string;
  id?: string;
  reason?: string;
  /** The rule that refused it, or that reports it (a `report` line). */
  rule?: string;
  /** A `report` line's `out`: a server's message. */
  out?: boolean;
  status?: number;
  code?: number;
  message?: string;
  /** An outbound violation's locations, when the record holds them in the answers' shape. */
  errors?: { instancePath: string; messages: string[] }[];
  omitted?: number;
}

/** Fields of an event record not listed as `key=value`: the line shows them in words. */
const SHOWN_APART: ReadonlySet<string> = new Set(["time", "face", "event", "remote"]);

/** Most locations of one record shown, as an answer lists at most its error budget. */
const RECORD_LOCATIONS = 64;

export function recordView({ face, event, fields }: GateLogRecord): RecordView {
  const view: RecordView = {
    face,
    event: printable(event, 60),
    era: fields.era === "legacy" || fields.era === "modern" ? fields.era : null,
  };
  if (typeof fields.time === "string") view.time = printable(fields.time, 40);
  if (typeof fields.remote === "string") view.remote = printable(fields.remote, 80);
  if (typeof fields.method === "string") view.method = printable(fields.method, 60);
  if (typeof fields.name === "string") view.name = printable(fields.name, 64);
  else if (typeof fields.tool === "string") view.name = printable(fields.tool, 64);
  if (typeof fields.rule === "string") view.rule = printable(fields.rule, 40);
  if (fields.direction === "out") view.out = true;
  if (fields.id === null || typeof fields.id === "string" || (typeof fields.id === "number" && Number.isFinite(fields.id)))
    view.id = printable(JSON.stringify(fields.id), 60);
  if (typeof fields.reason === "string") view.reason = printable(fields.reason, 60);
  if (Number.isInteger(fields.status)) view.status = fields.status as number;
  if (Number.isInteger(fields.code)) view.code = fields.code as number;
  if (typeof fields.message === "string") view.message = printable(fields.message, 2000);
  if (Array.isArray(fields.errors)) {
    const errors = fields.errors.filter(
      (e): e is { instancePath: string; messages: unknown[] } =>
        typeof e === "object" && e !== null && typeof e.instancePath === "string" && Array.isArray(e.messages),
    );
    view.errors = errors.slice(0, RECORD_LOCATIONS).map((e) => ({
      instancePath: printable(e.instancePath),
      messages: e.messages.filter((m) => typeof m === "string").map((m) => printable(m as string, 500)),
    }));
    const omitted = errors.length - view.errors.length + (Number.isInteger(fields.omitted) ? (fields.omitted as number) : 0);
    if (omitted > 0) view.omitted = omitted;
  }
  return view;
}

/**
 * A record of a gate's JSON log in the columns of a verdict: a refusal or a violation reads as a rejection whose era
 * says `gate log` (the gate judged it; the log holds no body to judge again), a reported message as a pass with what
 * was reported (as `--rule params=report` prints one), any other event as a `log` line.
 */
export function renderRecord(
  record: GateLogRecord,
  view: RecordView,
  { paint, position, width: positionWidth }: { paint: Paint; position: string; width: number },
): string {
  const gap = positionWidth > position.length ? " ".repeat(positionWidth - position.length) : "";
  const head = `${paint("1", position)}${gap}  `;
  const outcome = recordOutcome(record);
  // When and from whom, as the log says: `at 2026-12-05T09:21:05.123Z from 127.0.0.1`.
  const when = `${view.time !== undefined ? ` at ${view.time}` : ""}${view.remote !== undefined ? ` from ${view.remote}` : ""}`;
  const whenAfter = when && `;${when}`;
  if (outcome === "event") {
    const facts = Object.entries(record.fields)
      .filter(([key, value]) => !SHOWN_APART.has(key) && (typeof value !== "object" || value === null))
      .slice(0, 8)
      .map(([key, value]) => `${printable(key, 40)}=${printable(JSON.stringify(value) ?? "", 200)}`);
    return `${head}${paint("2", "log   ")}  ${"-".padEnd(ERA_WIDTH)}  wymcp ${view.face} ${view.event}${facts.length ? ` ${facts.join(" ")}` : ""}${when && paint("2", when)}\n`;
  }
  const era = view.era ? `${view.era} (gate log)` : "- (gate log)";
  // `tools/call "search" message`: the tool or prompt after its method, quoted as the log quotes it.
  const method = view.method !== undefined ? `${view.method} ${view.name !== undefined ? `"${view.name}" ` : ""}` : "";
  const id = view.id !== undefined ? `, id ${view.id}` : "";
  if (outcome === "reported") {
    const what = [view.rule, view.code].filter((part) => part !== undefined).join(" ");
    const code = what ? `  ${paint("2", `reported ${what}`)}` : "";
    const message = view.out
      ? `out: ${method}message (reported by wymcp ${view.face}`
      : `${method}message (handed on and reported by wymcp ${view.face}`;
    const reported = `${head}${paint("32", "pass  ")}  ${era.padEnd(ERA_WIDTH)}  ${message}${id}${whenAfter})${code}\n`;
    if (view.errors) return reported + locationLines(view.errors, view.omitted, paint);
    return view.message !== undefined ? `${reported}  ${view.message}\n` : reported;
  }
  const what =
    outcome === "violation"
      ? `out: ${method}message (an outbound violation logged by wymcp ${view.face}${id}${whenAfter})`
      : `${method}message (${view.event === "dropped" ? "dropped, not answered," : "refused"} by wymcp ${view.face}${view.reason ? `: ${view.reason}` : ""}${id}${whenAfter})`;
  const answer = [view.status, view.code].filter((n) => n !== undefined).join(" ");
  let text = `${head}${paint("31", "reject")}  ${era.padEnd(ERA_WIDTH)}  ${what}${answer ? `  ${paint("2", answer)}` : ""}\n`;
  if (view.message !== undefined) text += `  ${view.message}\n`;
  if (view.errors?.length) text += locationLines(view.errors, view.omitted, paint);
  return text;
}

export interface Tally {
  pass: number;
  reject: number;
  bypass: number;
  /** Passed under --rule params=report with a params failure. */
  reported: number;
  /** wymcp's own answers (a record's marked lines): refusals, and its word for an upstream that failed. */
  refused: number;
  failed: number;
}

/** The last line: how many messages, and how each came out; wymcp's own answers apart, as calls not served. */
export function summary({ pass, reject, bypass, reported, refused, failed }: Tally): string {
  const total = pass + reject + bypass + refused + failed;
  const passed = reported > 0 ? `${pass} pass (${reported} reported)` : `${pass} pass`;
  const own =
    refused + failed === 0 ? "" : `; ${refused + failed} answered by wymcp, not served (${refused} refused, ${failed} upstream failed)`;
  return `${total} message${total === 1 ? "" : "s"}: ${passed}, ${reject} rejected, ${bypass} bypassed${own}`;
}
