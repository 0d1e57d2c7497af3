/**
 * @module cli: `wymcp check`, the command line for a person holding captured MCP traffic (a proxy log, an
 * Inspector export, a bug report). Node-only; the build bundles it into `dist/cli.js`, the package's `bin`.
 */
import { isUtf8 } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync, realpathSync } from "node:fs";
import { extname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { runCompileCommand } from "./compile/entry.js";
import { DEFAULT_MAX_BODY_BYTES, readLimited } from "../hosts/admit.js";
import { errorResponse, INVALID_REQUEST, PARSE_ERROR, type JsonRpcErrorResponse } from "../core/envelope.js";
import { cutEscaped } from "../core/log-safe.js";
import { classifyEra, type Era, type EraSignal } from "../core/era.js";
// The era revisions from the outbound modules the CLI loads anyway: generated/index.js would bundle the inbound validators again.
import { outbound as eras } from "../../generated/outbound.js";
import { validateMcpResponse, type OutboundKind, type OutboundViolations } from "../outbound/validate-response.js";
import { validateMcpRequest, type ValidationResult } from "../core/validate.js";
import { MethodTally } from "./check/by-method.js";
import { Exchange, type PendingRequest } from "./check/exchange.js";
import { HarError, readHar } from "./check/har.js";

export const USAGE = `Usage: wymcp check [options] [file ...]
       wymcp compile <input>... (--out <dir> [--check] | --lint)    see wymcp compile --help

Checks captured MCP messages the way wymcp judges them (a client's as the middleware does, a server's as
wymcp/outbound does), and prints where each one fails, what each was judged against, and a count per method.

Input
  file            a .json file holds one message; a .har file is a browser's or the Inspector's network export
                  (every POST to an MCP endpoint: its body, headers and response, event streams split); a .jsonl,
                  .ndjson or any other name holds one message per line. "-" or no file with piped input reads
                  standard input, one message per line.
  --format F      auto (by extension, the default), json (each input is one message), jsonl (one per line), har
  --max-bytes N   largest message (or line) judged, in bytes (default ${DEFAULT_MAX_BODY_BYTES}, the middleware's
                  body limit); a longer one is reported as too large and the run goes on

Each input is one capture: a response is judged against the method of the request with its id earlier in it
(per Mcp-Session-Id where the capture has headers), in that request's era; a request against its own method.

Judging
  --direction D   in, out or auto (default). in: as the middleware judges what a client sends
                  (validateMcpRequest). out: as wymcp/outbound judges what a server sends (validateMcpResponse).
                  auto, per message: a result or an error response is judged out (a server's, or a legacy
                  client's answer to sampling, roots or elicitation, which the outbound checks cover too); a
                  request or notification is judged out when a HAR file says the server sent it, or when its
                  method is one no client sends (sampling/createMessage, notifications/message, ...); else in.
  --era E         legacy, modern or auto (default). auto: each message's era signals (classifyEra) with the
                  headers of its HTTP exchange (a HAR file) or the --headers; a response takes its request's era;
                  a server's other messages the era of the request whose exchange carried them, or of the headers
                  alone (a server's body carries no era signal), else legacy
  --header H      "Name: value", a request header of the exchange, for --era auto
                  (e.g. "MCP-Protocol-Version: 2026-07-28"); may be repeated; a HAR entry's own headers win
  --method M      the method a response answers when the capture has no request with its id (a lone response).
                  Outbound, a result is judged against that method's result (CallToolResult, ...); without a
                  method only its JSON-RPC framing is, and the output says so. Inbound, it labels responses

Output
  --json          one JSON object per message (the middleware's answer for a rejection, validateMcpResponse's
                  for a message judged out); summary on stderr
  -q, --quiet     print only rejected messages and the summary
  -h, --help      this text
  Colour only on a terminal; NO_COLOR turns it off, FORCE_COLOR on.

An outbound message with violations is printed and counted as rejected; --json gives its outcome as
validateMcpResponse does ("violation", with its violations).

Exit codes: 0 every message passed or was bypassed, 1 some message was rejected, 2 usage error or unreadable input.

wymcp compile: a server's own JSON Schemas (tool inputSchema and outputSchema) precompiled into a standalone
module for the SDK (no Ajv, no eval at run time), and linted for what MCP clients refuse. Examples:
  wymcp compile tools.json --out src/mcp-tools                       compile a saved tools/list
  wymcp compile tools.json --out src/mcp-tools --check               in CI: exit 1 when the output is stale
  wymcp compile tools.json --lint                                    what VS Code, OpenAI, Anthropic, Gemini refuse
  wymcp compile --from http://127.0.0.1:3000/mcp --lint              ask a running server for its tools
  wymcp compile --from-stdio --out mcp-tools -- node server.js       start a stdio server and ask it
Run "wymcp compile --help" for every option.
`;

/** What one message came to, with its place; `--json` prints these as they are. */
export type Verdict = InboundVerdict | OutboundVerdict;

/** A message judged as the middleware judges what a client sends, or one that could not be judged at all. */
export type InboundVerdict = {
  source: string;
  line: number;
  /** In a HAR file: `request`, `response` or `event N` of entry `line`. */
  part?: string;
  /** For a response: the request of the capture it answers (its method is `method`). */
  answers?: Answered;
  era: Era | null;
  /** How the era was chosen: `flag` for --era legacy|modern, `request` for its request's, otherwise classifyEra's signal. */
  eraSignal: EraSignal | "flag" | "request" | null;
  /** `out` only on a line not judged (not JSON, too large) under --direction out. */
  direction: "in" | "out";
  /** The --method label, for a response. */
  method?: string;
} & (
  | Extract<ValidationResult, { outcome: "pass" | "bypass" }>
  | {
      outcome: "reject";
      kind: ValidationResult["kind"] | null;
      /** The definition it failed; null when it was not judged (not JSON, too large). */
      definition: string | null;
      /** The middleware's own words for why it answered (RejectReason in admit.ts). */
      reason: "invalid-message" | "parse-error" | "body-too-large";
      status: 400 | 413;
      response: JsonRpcErrorResponse;
    }
);

/** A message judged by validateMcpResponse, the outcome and violations as it returns them. */
export type OutboundVerdict = {
  source: string;
  line: number;
  /** In a HAR file: `request`, `response` or `event N` of entry `line`. */
  part?: string;
  /** For a result or an error response: the request of the capture it answers. */
  answers?: Answered;
  direction: "out";
  era: Era;
  /**
   * `flag` for --era legacy|modern; `request` for the era of the request it answers (or, in a HAR file, of the
   * request whose HTTP exchange carried it); otherwise classifyEra's signal from the headers alone.
   */
  eraSignal: EraSignal | "flag" | "request";
  /** The --method a result or error response was judged by. */
  method?: string;
  outcome: "pass" | "violation";
  kind: OutboundKind;
  definition: string;
  violations?: OutboundViolations;
};

/** Where the request a response answers was in the capture. */
export interface Answered {
  line: number;
  part?: string;
}

/** What the capture says about one message beyond its bytes (check/exchange.ts, check/har.ts). */
export interface JudgeContext {
  /** The HTTP exchange's request headers (a HAR entry's); the --headers fill what they lack. */
  headers?: Record<string, string>;
  /** Who sent it, when the capture says (a HAR file): a server's message is judged as wymcp/outbound judges. */
  from?: "client" | "server";
  part?: string;
  /** The request a response answers, looked up once the body is parsed and found to be a response. */
  pair?: (id: unknown) => PendingRequest | undefined;
  /** The era of the request whose HTTP exchange carried a server's message (a HAR file). */
  exchangeEra?: { era: Era; eraSignal: EraSignal | "flag" | "request" };
}

/**
 * Methods only a server sends, in either era (test/cli.test.ts derives them from the schemas' Server* and
 * Client* unions): under --direction auto, a request or notification of one of these is judged outbound.
 */
export const SERVER_ONLY_METHODS: ReadonlySet<string> = new Set([
  "sampling/createMessage",
  "roots/list",
  "elicitation/create",
  "notifications/message",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/prompts/list_changed",
  "notifications/tools/list_changed",
  "notifications/elicitation/complete",
  "notifications/subscriptions/acknowledged",
]);

/** Which checks judge a parsed message under --direction auto (the rule in USAGE). */
export function autoDirection(body: unknown): "in" | "out" {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "in";
  const message = body as Record<string, unknown>;
  if (Object.hasOwn(message, "method")) return typeof message.method === "string" && SERVER_ONLY_METHODS.has(message.method) ? "out" : "in";
  return Object.hasOwn(message, "result") || Object.hasOwn(message, "error") ? "out" : "in";
}

/** Whether a verdict came from validateMcpResponse (a line not judged under --direction out did not). */
export function judgedOut(verdict: Verdict): verdict is OutboundVerdict {
  return verdict.direction === "out" && verdict.outcome !== "reject";
}

interface Options {
  era: Era | "auto";
  direction: "in" | "out" | "auto";
  headers: Record<string, string>;
  method: string | undefined;
  format: "auto" | "json" | "jsonl" | "har";
  maxBytes: number;
  json: boolean;
  quiet: boolean;
  colour: boolean;
}

class UsageError extends Error {}

/** Colour as Node's own tty does it: FORCE_COLOR wins ("0"/"false" turn it off), then NO_COLOR, then a terminal. */
export function colourEnabled(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force !== "false";
  if (env.NO_COLOR) return false;
  return isTTY && env.TERM !== "dumb";
}

// C0, DEL, C1, line separators, bidirectional marks and lone surrogates: a captured message must not be able
// to drive the terminal or split a line (the set of log-safe.ts; locations arrive escaped by it already).
const UNPRINTABLE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text from the message (keys, method names) made safe to print: control characters escaped, length bounded. */
export function printable(text: string, max = 200): string {
  const safe = text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return cutEscaped(safe, max);
}

/** Splits a byte stream into lines without ever holding more than `max` bytes of one line. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private number = 0;

  constructor(
    private readonly max: number,
    private readonly onLine: (line: number, bytes: Buffer | undefined) => void,
  ) {}

  /** `bytes` is undefined for a line over the limit, which is skipped to its end unread. */
  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      this.take(chunk, start, end);
      this.emit();
      start = end + 1;
    }
    if (start < chunk.length) this.take(chunk, start, chunk.length);
  }

  end(): void {
    if (this.size > 0 || this.skipping) this.emit();
  }

  private take(chunk: Buffer, start: number, end: number): void {
    if (this.skipping || start === end) return;
    if (this.size + (end - start) > this.max) {
      this.skipping = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(chunk.subarray(start, end));
    this.size += end - start;
  }

  private emit(): void {
    this.number++;
    if (this.skipping) this.onLine(this.number, undefined);
    else this.onLine(this.number, this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size));
    this.parts = [];
    this.size = 0;
    this.skipping = false;
  }
}

const PARSE_ERROR_MESSAGE = "Parse error: the body is not valid JSON"; // the middleware's words (admit.ts)

/** The verdict on one message's bytes (the middleware's POST pipeline after the headers), and the body parsed. */
export function judge(
  source: string,
  line: number,
  bytes: Buffer | undefined,
  options: Options,
  context?: JudgeContext,
): { verdict: Verdict; body: unknown } {
  // Verdicts are written out whole, not spread from parts: object spread made this the CLI's hottest line (~3× the validation).
  const unjudged = options.direction === "out" || (options.direction === "auto" && context?.from === "server") ? "out" : "in";
  if (bytes === undefined) {
    const message = `Payload Too Large: the body exceeds the limit of ${options.maxBytes} bytes`;
    return labelled(options, context, {
      source,
      line,
      part: context?.part,
      direction: unjudged,
      era: null,
      eraSignal: null,
      outcome: "reject",
      kind: null,
      definition: null,
      reason: "body-too-large",
      status: 413,
      response: errorResponse(null, INVALID_REQUEST, message),
    });
  }
  let body: unknown;
  try {
    // Bytes that are not UTF-8 are a parse error, as in the middleware (its decoder is fatal).
    if (!isUtf8(bytes)) throw new SyntaxError("not UTF-8");
    body = JSON.parse(bytes.toString("utf8"));
  } catch {
    return labelled(options, context, {
      source,
      line,
      part: context?.part,
      direction: unjudged,
      era: null,
      eraSignal: null,
      outcome: "reject",
      kind: null,
      definition: null,
      reason: "parse-error",
      status: 400,
      response: errorResponse(null, PARSE_ERROR, PARSE_ERROR_MESSAGE),
    });
  }
  // A response takes its request's method and era; it is looked up only for a body that is one.
  const answered = context?.pair && isResponse(body) ? context.pair((body as { id?: unknown }).id) : undefined;
  const direction = options.direction !== "auto" ? options.direction : context?.from === "server" ? "out" : autoDirection(body);
  if (direction === "out") return judgeOut(source, line, body, options, context, answered);
  const headers = context?.headers ? { ...options.headers, ...context.headers } : options.headers;
  const { era, signal } =
    options.era !== "auto"
      ? { era: options.era, signal: "flag" as const }
      : answered
        ? { era: answered.era, signal: "request" as const }
        : classifyEra(headers, body);
  // Header names are lower-cased when --header is read; the version decides whether a legacy batch is judged.
  const result = validateMcpRequest(body, era, { protocolVersion: headers["mcp-protocol-version"] });
  let verdict: Verdict;
  switch (result.outcome) {
    case "pass":
      verdict = {
        source,
        line,
        part: context?.part,
        direction: "in",
        era,
        eraSignal: signal,
        outcome: "pass",
        kind: result.kind,
        definition: result.definition,
      };
      break;
    case "bypass":
      verdict = {
        source,
        line,
        part: context?.part,
        direction: "in",
        era,
        eraSignal: signal,
        outcome: "bypass",
        kind: result.kind,
        reason: result.reason,
      };
      break;
    case "reject":
      verdict = {
        source,
        line,
        part: context?.part,
        direction: "in",
        era,
        eraSignal: signal,
        outcome: "reject",
        kind: result.kind,
        definition: result.definition,
        reason: "invalid-message",
        status: result.status,
        response: result.response,
      };
  }
  return labelled(options, context, verdict, body, answered);
}

function labelled(
  options: Options,
  _context: JudgeContext | undefined,
  verdict: InboundVerdict,
  body?: unknown,
  answered?: PendingRequest,
): { verdict: Verdict; body: unknown } {
  // Only a response lacks a method of its own; on anything else the label would contradict the message. The
  // request it answers in the capture names it; --method does for a response the capture has no request for.
  if (verdict.kind === "response") {
    if (answered) {
      verdict.method = answered.method;
      verdict.answers = answeredAt(answered);
    } else if (options.method !== undefined) verdict.method = options.method;
  }
  return { verdict, body };
}

function answeredAt(request: PendingRequest): Answered {
  return request.part === undefined ? { line: request.line } : { line: request.line, part: request.part };
}

function isResponse(body: unknown): boolean {
  return (
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    !Object.hasOwn(body, "method") &&
    (Object.hasOwn(body, "result") || Object.hasOwn(body, "error"))
  );
}

/**
 * The verdict of validateMcpResponse on a parsed message, in the era of the flag, of the request it answers (or that
 * carried it), or of the headers alone.
 */
function judgeOut(
  source: string,
  line: number,
  body: unknown,
  options: Options,
  context?: JudgeContext,
  answered?: PendingRequest,
): { verdict: Verdict; body: unknown } {
  // A server's body carries no era signal, and a body-read era would let a modern-only field pick its own lane.
  const { era, signal } =
    options.era !== "auto"
      ? { era: options.era, signal: "flag" as const }
      : answered
        ? { era: answered.era, signal: "request" as const }
        : context?.exchangeEra
          ? { era: context.exchangeEra.era, signal: context.exchangeEra.eraSignal }
          : classifyEra(context?.headers ? { ...options.headers, ...context.headers } : options.headers, undefined);
  const result = validateMcpResponse(body, { era, method: answered?.method ?? options.method });
  const answers = result.kind === "result" || result.kind === "error";
  const method = answers ? (answered?.method ?? options.method) : undefined;
  const verdict: OutboundVerdict =
    result.outcome === "pass"
      ? {
          source,
          line,
          part: context?.part,
          answers: answers && answered ? answeredAt(answered) : undefined,
          direction: "out",
          era,
          eraSignal: signal,
          method,
          outcome: "pass",
          kind: result.kind,
          definition: result.definition,
        }
      : {
          source,
          line,
          part: context?.part,
          answers: answers && answered ? answeredAt(answered) : undefined,
          direction: "out",
          era,
          eraSignal: signal,
          method,
          outcome: "violation",
          kind: result.kind,
          definition: result.definition,
          violations: result.violations,
        };
  // An undefined method is left out of --json by JSON.stringify; deleting the key would cost a slower object shape.
  return { verdict, body };
}

const SIGNAL_LABELS: Record<EraSignal | "flag" | "request", string> = {
  flag: "--era",
  request: "its request",
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

type Paint = (code: string, text: string) => string;

/** What the message was judged as, in words: `tools/call request (CallToolRequest)`. */
function judgedAs(verdict: Verdict, body: unknown): string {
  if (judgedOut(verdict)) return judgedOutAs(verdict, body);
  if (verdict.outcome === "reject" && verdict.reason === "parse-error") return "not JSON";
  if (verdict.outcome === "reject" && verdict.reason === "body-too-large") return "too large to judge";
  const name = methodOf(body);
  const method = typeof name === "string" ? `${methodLabel(name)} ` : "";
  switch (verdict.outcome) {
    case "pass":
      // A modern request of no known method passes on framing alone; a typo in the method lands here too.
      if (verdict.era === "modern" && verdict.definition === "JSONRPCRequest")
        return `${method}request (JSONRPCRequest; not a method of ${eras.modern.revision}: framing only)`;
      // The legacy lane judges the JSON-RPC framing, whatever the method (DESIGN's legacy row).
      if (verdict.era === "legacy") return `${method}${verdict.kind} (${verdict.definition}; framing only in the legacy era)`;
      return `${method}${verdict.kind} (${verdict.definition})`;
    case "bypass":
      return verdict.reason === "modern-notification"
        ? `${method}notification, not validated in the modern era`
        : `${verdict.method ? `${printable(verdict.method, 60)} ` : ""}response, not validated in the legacy era (handed to its session)${answering(verdict.answers)}`;
    case "reject":
      return `${method}${verdict.kind === "other" ? "message of no kind" : verdict.kind} (${definitionOf(verdict)})`;
  }
}

// Logs repeat a handful of methods: their printable labels are made once (bounded, so junk methods cannot grow it).
const methodLabels = new Map<string, string>();
function methodLabel(method: string): string {
  let label = methodLabels.get(method);
  if (label === undefined) {
    label = printable(method, 60);
    if (methodLabels.size < 1000) methodLabels.set(method, label);
  }
  return label;
}

/** An outbound verdict in words: `out: tools/call result (CallToolResult)`, saying when only the framing was judged. */
function judgedOutAs(verdict: OutboundVerdict, body: unknown): string {
  const revision = eras[verdict.era].revision;
  const own = verdict.kind === "request" || verdict.kind === "notification" ? methodOf(body) : verdict.method;
  const method = typeof own === "string" ? `${methodLabel(own)} ` : "";
  const kind = verdict.kind === "other" ? "message of no kind" : verdict.kind === "error" ? "error response" : verdict.kind;
  let definition = verdict.definition;
  if (verdict.kind === "result" && definition === "JSONRPCResultResponse") {
    definition +=
      verdict.method === undefined ? "; framing only: give --method to judge the result" : `; not a method of ${revision}: framing only`;
  } else if (verdict.kind === "notification" && definition === "JSONRPCNotification") {
    definition += `; not a server notification of ${revision}: framing only`;
  } else if (verdict.kind === "request" && definition === "JSONRPCRequest" && verdict.era === "legacy") {
    definition += `; not a server request of ${revision}: framing only`;
  }
  return `out: ${method}${kind} (${definition})${answering(verdict.answers)}`;
}

/** `, answering line 3` (or `entry 3 request` in a HAR file): which request of the capture a response answers. */
function answering(answers: Answered | undefined): string {
  if (!answers) return "";
  return answers.part === undefined ? `, answering line ${answers.line}` : `, answering entry ${answers.line} ${answers.part}`;
}

/** The definition a rejected message was checked against, as validateMcpRequest names it. */
function definitionOf(verdict: Extract<InboundVerdict, { outcome: "reject" }>): string {
  if (verdict.kind !== "response") return verdict.definition ?? "JSONRPCMessage";
  return verdict.method ? `response to ${printable(verdict.method, 60)}: modern clients send none` : "modern clients send none";
}

/** One message in human words: a header line, then for a rejection its locations, aligned. */
export function renderHuman(verdict: Verdict, body: unknown, paint: Paint, name = printable(verdict.source), positionWidth = 0): string {
  // A violation reads as a rejection: one word per verdict keeps the columns of mixed input aligned.
  const outcome =
    verdict.outcome === "pass" ? paint("32", "pass  ") : verdict.outcome === "bypass" ? paint("33", "bypass") : paint("31", "reject");
  const era =
    verdict.era === null ? "-" : verdict.eraSignal === "flag" ? verdict.era : `${verdict.era} (${SIGNAL_LABELS[verdict.eraSignal!]})`;
  const position = verdict.part === undefined ? `${name}:${verdict.line}` : `${name}:${verdict.line} ${verdict.part}`;
  const gap = positionWidth > position.length ? " ".repeat(positionWidth - position.length) : "";
  let text = `${paint("1", position)}${gap}  ${outcome}  ${era.padEnd(ERA_WIDTH)}  ${judgedAs(verdict, body)}`;
  let data: { errors: { instancePath: string; messages: string[] }[]; omitted?: number } | undefined;
  if (verdict.outcome === "violation") {
    text += "\n";
    data = verdict.violations;
  } else if (verdict.outcome === "reject") {
    text += `  ${paint("2", String(verdict.response.error.code))}\n`;
    data = verdict.response.error.data;
    if (!data) return verdict.reason === "body-too-large" ? `${text}  ${verdict.response.error.message}\n` : text;
  } else {
    return `${text}\n`;
  }
  if (!data) return text;
  const locations = data.errors.map((e) => (e.instancePath === "" ? "(the message)" : printable(e.instancePath)));
  const width = Math.max(...locations.map((l) => l.length));
  data.errors.forEach((entry, i) => {
    text += `  ${paint("36", locations[i]!.padEnd(width))}  ${entry.messages.join("; ")}\n`;
  });
  if (data.omitted) text += `  … ${data.omitted} more problem${data.omitted === 1 ? "" : "s"} not listed\n`;
  return text;
}

interface Tally {
  pass: number;
  reject: number;
  bypass: number;
}

function summary({ pass, reject, bypass }: Tally): string {
  const total = pass + reject + bypass;
  return `${total} message${total === 1 ? "" : "s"}: ${pass} pass, ${reject} rejected, ${bypass} bypassed`;
}

/** Buffered stdout: one write per 64 KiB, waiting for the pipe to drain, so a huge input stays in bounded memory. */
class Output {
  private text = "";
  add(text: string): void {
    this.text += text;
  }
  /** Called between chunks of input: writes once enough has gathered. */
  async settle(): Promise<void> {
    if (this.text.length >= 65536) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.text === "") return;
    const text = this.text;
    this.text = "";
    if (!process.stdout.write(text)) await new Promise<void>((resolve) => process.stdout.once("drain", resolve));
  }
}

function parseOptions(argv: string[]): { options: Options; files: string[]; help: boolean } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      era: { type: "string", default: "auto" },
      header: { type: "string", multiple: true, default: [] },
      direction: { type: "string", default: "auto" },
      method: { type: "string" },
      format: { type: "string", default: "auto" },
      "max-bytes": { type: "string" },
      json: { type: "boolean", default: false },
      quiet: { type: "boolean", short: "q", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const oneOf = <T extends string>(name: string, value: string, allowed: readonly T[]): T => {
    if (!(allowed as readonly string[]).includes(value))
      throw new UsageError(`--${name} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`);
    return value as T;
  };
  const era = oneOf("era", values.era!, ["legacy", "modern", "auto"] as const);
  const direction = oneOf("direction", values.direction!, ["in", "out", "auto"] as const);
  const headers: Record<string, string> = {};
  for (const header of values.header!) {
    const colon = header.indexOf(":");
    if (colon <= 0) throw new UsageError(`--header takes "Name: value", not ${JSON.stringify(header)}`);
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  if (values.method === "") throw new UsageError("--method takes a method name, e.g. tools/call");
  let maxBytes = DEFAULT_MAX_BODY_BYTES;
  if (values["max-bytes"] !== undefined) {
    maxBytes = Number(values["max-bytes"]);
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1)
      throw new UsageError(`--max-bytes takes a positive whole number of bytes, not ${JSON.stringify(values["max-bytes"])}`);
  }
  const options: Options = {
    era,
    direction,
    headers,
    method: values.method,
    format: oneOf("format", values.format!, ["auto", "json", "jsonl", "har"] as const),
    maxBytes,
    json: values.json!,
    quiet: values.quiet!,
    colour: false,
  };
  return { options, files: positionals, help: values.help! };
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Runs `wymcp <args>`; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "-h" || command === "--help" || command === "help") {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === "compile") return runCompileCommand(rest);
  let parsed: ReturnType<typeof parseOptions>;
  try {
    if (command !== "check")
      throw new UsageError(`unknown command ${JSON.stringify(command)}; the commands are "wymcp check" and "wymcp compile"`);
    parsed = parseOptions(rest);
  } catch (error) {
    // parseArgs throws TypeErrors with a readable message for unknown or malformed options.
    process.stderr.write(`wymcp: ${error instanceof Error ? error.message : String(error)}\nRun "wymcp check --help" for the options.\n`);
    return 2;
  }
  const { options, files, help } = parsed;
  if (help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (files.length === 0) {
    if (process.stdin.isTTY) {
      process.stderr.write(
        'wymcp: no input: name files to check, or pipe messages to standard input (one per line).\nRun "wymcp check --help" for the options.\n',
      );
      return 2;
    }
    files.push("-");
  }
  // A reader that closes the pipe early (`wymcp check log.jsonl | head`) is no error of ours.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  options.colour = !options.json && colourEnabled(process.env, process.stdout.isTTY === true);
  const paint: Paint = options.colour ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;

  const out = new Output();
  const tally: Tally = { pass: 0, reject: 0, bypass: 0 };
  const methods = new MethodTally();
  let unreadable = false;
  /** One message: judged, counted, printed; a request is kept for the response that will answer it. */
  const report = (
    source: string,
    name: string,
    line: number,
    bytes: Buffer | undefined,
    positionWidth: number,
    exchange: Exchange,
    context: JudgeContext,
    session: string,
  ): Verdict | undefined => {
    if (bytes && bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1); // CRLF logs
    if (line === 1 && bytes && bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
    if (bytes && isBlank(bytes)) return undefined; // blank lines separate messages; they are none
    const { verdict, body } = judge(source, line, bytes, options, context);
    const id = requestId(body);
    if (id !== undefined && verdict.era !== null) {
      const from = context.from ?? (verdict.direction === "out" ? "server" : "client");
      const request: PendingRequest = {
        method: (body as { method: string }).method,
        era: verdict.era,
        eraSignal: verdict.eraSignal!,
        line,
      };
      if (context.part !== undefined) request.part = context.part;
      exchange.sent(from, session, id, request);
    }
    const outcome = verdict.outcome === "violation" ? "reject" : verdict.outcome;
    tally[outcome]++;
    methods.add(methodRow(verdict, body), outcome);
    if (options.quiet && (verdict.outcome === "pass" || verdict.outcome === "bypass")) return verdict;
    out.add(options.json ? `${JSON.stringify(verdict)}\n` : renderHuman(verdict, body, paint, name, positionWidth));
    return verdict;
  };

  for (const file of files) {
    const source = file === "-" ? "<stdin>" : file;
    const name = printable(source); // once per input, not per message
    const extension = file === "-" ? "" : extname(file).toLowerCase();
    const har = options.format === "har" || (options.format === "auto" && extension === ".har");
    const whole = options.format === "json" || (options.format === "auto" && extension === ".json");
    // Each input is one capture: its requests answer its responses, and no other input's.
    const exchange = new Exchange();
    const session = options.headers["mcp-session-id"] ?? "";
    try {
      const chunks = file === "-" ? (process.stdin as AsyncIterable<Buffer>) : fileChunks(file);
      if (har) {
        await reportHar(source, name, chunks, exchange);
      } else if (whole) {
        // The middleware's own bounded reader: it stops holding bytes as soon as the limit is passed.
        const bytes = await readLimited(chunks, options.maxBytes);
        report(
          source,
          name,
          1,
          bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
          0,
          exchange,
          pairing(exchange, session),
          session,
        );
      } else {
        // Positions of one stream line up to line 99,999.
        const width = name.length + 6;
        const context = pairing(exchange, session);
        const splitter = new LineSplitter(options.maxBytes, (line, bytes) =>
          report(source, name, line, bytes, width, exchange, context, session),
        );
        for await (const chunk of chunks) {
          splitter.push(chunk);
          await out.settle();
        }
        splitter.end();
      }
    } catch (error) {
      unreadable = true;
      await out.flush();
      process.stderr.write(`wymcp: cannot read ${name}: ${describeError(error)}\n`);
    }
  }

  /** A HAR file's MCP messages (check/har.ts), each with its HTTP exchange's headers, sender and request's era. */
  async function reportHar(
    source: string,
    name: string,
    chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
    exchange: Exchange,
  ): Promise<void> {
    const bytes = await readLimited(chunks, HAR_MAX_BYTES);
    if (!bytes) throw new HarError(`larger than ${HAR_MAX_BYTES} bytes, the most a HAR file is read`);
    const { messages, withoutBody } = readHar(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"),
      options.maxBytes,
    );
    const last = messages.at(-1);
    const width = last ? name.length + String(last.entry).length + " event 999".length + 1 : 0;
    let requestEra: { entry: number; era: Era; eraSignal: "request" } | undefined;
    for (const message of messages) {
      const session = message.headers["mcp-session-id"] ?? options.headers["mcp-session-id"] ?? "";
      const context: JudgeContext = {
        headers: message.headers,
        from: message.from,
        part: message.part,
        pair: (id) => exchange.answer(session, id, message.from),
        ...(requestEra?.entry === message.entry && message.from === "server"
          ? { exchangeEra: { era: requestEra.era, eraSignal: requestEra.eraSignal } }
          : {}),
      };
      const verdict = report(source, name, message.entry, message.bytes, width, exchange, context, session);
      if (message.part === "request")
        requestEra = verdict?.era ? { entry: message.entry, era: verdict.era, eraSignal: "request" } : undefined;
      await out.settle();
    }
    if (withoutBody > 0)
      process.stderr.write(
        `wymcp: ${name}: ${withoutBody} POST${withoutBody === 1 ? "" : "s"} to the MCP endpoint kept no body in the capture\n`,
      );
  }

  if (options.json) {
    // Machines count from the objects; stderr keeps its one line.
    await out.flush();
    process.stderr.write(`${summary(tally)}\n`);
  } else {
    out.add(`${methods.render()}${summary(tally)}\n`);
    await out.flush();
  }
  return unreadable ? 2 : tally.reject > 0 ? 1 : 0;
}

const CHUNK_BYTES = 256 * 1024;

/** The most of a HAR file read (each message in it is bounded by --max-bytes as a line is). */
export const HAR_MAX_BYTES = 256 * 1024 * 1024;

/** The context of a line of a JSONL or JSON capture: its responses find their requests in `exchange`. */
function pairing(exchange: Exchange, session: string): JudgeContext {
  return { pair: (id) => exchange.answer(session, id) };
}

/** The id of a request (a method and a valid JSON-RPC id), which a later response may answer; else undefined. */
function requestId(body: unknown): string | number | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (typeof method !== "string") return undefined;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : undefined;
}

/** The row of the by-method table a message counts in: its method, or for a response the method it answers. */
function methodRow(verdict: Verdict, body: unknown): string {
  if (verdict.outcome === "reject" && verdict.reason === "parse-error") return "(not JSON)";
  if (verdict.outcome === "reject" && verdict.reason === "body-too-large") return "(too large)";
  if (verdict.kind === "batch") return "(batch)";
  if (verdict.kind === "other") return "(no kind)";
  const own = methodOf(body);
  if (typeof own === "string") return methodLabel(own);
  const answer = verdict.kind === "error" || (body as { error?: unknown }).error !== undefined ? "error" : "result";
  return verdict.method === undefined ? `(${answer}, its request unknown)` : `${methodLabel(verdict.method)} ${answer}`;
}

/**
 * A file's bytes in chunks, read synchronously: a command has nothing else to do meanwhile, and a stream would cost
 * start-up time for its machinery. Opened at once, so a missing file fails before anything is judged.
 */
function fileChunks(file: string): Iterable<Buffer> {
  const fd = openSync(file, "r");
  if (fstatSync(fd).isDirectory()) {
    closeSync(fd);
    throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
  }
  return (function* () {
    try {
      for (;;) {
        // A fresh buffer each time: lines not yet judged may still point into the previous one.
        const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
        const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
        if (read === 0) return;
        yield read === CHUNK_BYTES ? chunk : chunk.subarray(0, read);
      }
    } finally {
      closeSync(fd);
    }
  })();
}

function describeError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "is a directory";
  if (code === "EACCES") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}

/** Only whitespace; a message's line starts with `{`, so this looks at one byte of nearly every line. */
function isBlank(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte !== 32 && byte !== 9 && byte !== 13) return false;
  }
  return true;
}

function methodOf(body: unknown): unknown {
  return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as { method?: unknown }).method : undefined;
}

function isMain(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isMain()) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    // A bug of ours must not read as a verdict: 1 means "rejected", so an internal failure exits 2 and says so.
    process.stderr.write(`wymcp: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 2;
  }
}
