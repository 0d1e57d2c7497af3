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
import { DEFAULT_LEGACY_CHECKS, LEGACY_CHECKS, type LegacyChecks } from "../core/legacy-checks.js";
import { legacyRevisionOf } from "../core/legacy-revision.js";

export const USAGE = `Usage: wymcp check [options] [file ...]

Checks captured MCP messages the way wymcp judges them (a client's as the middleware does, a server's as
wymcp/outbound does), and prints where each one fails.

Input
  file            a .json file holds one message; a .jsonl or .ndjson file (or any other name) holds one
                  message per line. "-" or no file with piped input reads standard input, one message per line.
  --format F      auto (by extension, the default), json (each input is one message), jsonl (one per line)
  --max-bytes N   largest message (or line) judged, in bytes (default ${DEFAULT_MAX_BODY_BYTES}, the middleware's
                  body limit); a longer one is reported as too large and the run goes on

Judging
  --direction D   in, out or auto (default). in: as the middleware judges what a client sends
                  (validateMcpRequest). out: as wymcp/outbound judges what a server sends (validateMcpResponse).
                  auto, per message: a result or an error response is judged out (a server's, or a legacy
                  client's answer to sampling, roots or elicitation, which the outbound checks cover too); a
                  request or notification is judged out only when its method is one no client sends
                  (sampling/createMessage, notifications/message, ...); everything else in.
  --era E         legacy, modern or auto (default). auto, inbound: each message's era signals (classifyEra).
                  auto, outbound: the --headers only (MCP-Protocol-Version, then Mcp-Session-Id), else legacy:
                  a server's body carries no era signal, and its era-only fields are what the check is for
  --header H      "Name: value", a request header of the exchange, for --era auto
                  (e.g. "MCP-Protocol-Version: 2026-07-28"); may be repeated
  --method M      the method of the request a response answers (a response does not name it). Outbound, a
                  result is judged against that method's result (CallToolResult, ...); without --method only its
                  JSON-RPC framing is, and the output says so. Inbound, it labels responses
  --legacy-checks M
                  params (the default), report or framing: what the legacy lane checks, as the middleware's
                  legacyChecks option. params: a known method's params against the revision the message names
                  (MCP-Protocol-Version, an initialize's protocolVersion, else 2025-03-26); report: the same, but
                  a params failure passes and is printed as reported; framing: the JSON-RPC framing alone.
                  Outbound, a legacy message is judged by the revision of the MCP-Protocol-Version header, else
                  2025-03-26; the output names the revision

Output
  --json          one JSON object per message (the middleware's answer for a rejection, validateMcpResponse's
                  for a message judged out); summary on stderr
  -q, --quiet     print only rejected messages and the summary
  -h, --help      this text
  Colour only on a terminal; NO_COLOR turns it off, FORCE_COLOR on.

An outbound message with violations is printed and counted as rejected; --json gives its outcome as
validateMcpResponse does ("violation", with its violations).

Exit codes: 0 every message passed or was bypassed, 1 some message was rejected, 2 usage error or unreadable input.

wymcp compile --help: precompile a server's own JSON Schemas (tool input/output schemas) into a module.
`;

/** What one message came to, with its place; `--json` prints these as they are. */
export type Verdict = InboundVerdict | OutboundVerdict;

/** A message judged as the middleware judges what a client sends, or one that could not be judged at all. */
export type InboundVerdict = {
  source: string;
  line: number;
  era: Era | null;
  /** How the era was chosen: `flag` for --era legacy|modern, otherwise classifyEra's signal. */
  eraSignal: EraSignal | "flag" | null;
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
      /** The legacy revision whose definition it failed. */
      revision?: string;
      /** The middleware's own words for why it answered (RejectReason in admit.ts). */
      reason: "invalid-message" | "parse-error" | "body-too-large";
      status: 200 | 400 | 413;
      response: JsonRpcErrorResponse;
    }
);

/** A message judged by validateMcpResponse, the outcome and violations as it returns them. */
export type OutboundVerdict = {
  source: string;
  line: number;
  direction: "out";
  era: Era;
  /** `flag` for --era legacy|modern, otherwise classifyEra's signal from the --headers alone. */
  eraSignal: EraSignal | "flag";
  /** The revision whose definitions judged it: legacy, the MCP-Protocol-Version header's, else 2025-03-26. */
  revision: string;
  /** The --method a result or error response was judged by. */
  method?: string;
  outcome: "pass" | "violation";
  kind: OutboundKind;
  definition: string;
  violations?: OutboundViolations;
};

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
  legacyChecks: LegacyChecks;
  format: "auto" | "json" | "jsonl";
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
export function judge(source: string, line: number, bytes: Buffer | undefined, options: Options): { verdict: Verdict; body: unknown } {
  // Verdicts are written out whole, not spread from parts: object spread made this the CLI's hottest line (~3× the validation).
  const unjudged = options.direction === "out" ? "out" : "in";
  if (bytes === undefined) {
    const message = `Payload Too Large: the body exceeds the limit of ${options.maxBytes} bytes`;
    return labelled(options, {
      source,
      line,
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
    return labelled(options, {
      source,
      line,
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
  if (options.direction === "out" || (options.direction === "auto" && autoDirection(body) === "out"))
    return judgeOut(source, line, body, options);
  const { era, signal } = options.era === "auto" ? classifyEra(options.headers, body) : { era: options.era, signal: "flag" as const };
  // Header names are lower-cased when --header is read; the version decides whether a legacy batch is judged.
  const result = validateMcpRequest(body, era, {
    protocolVersion: options.headers["mcp-protocol-version"],
    legacyChecks: options.legacyChecks,
  });
  let verdict: Verdict;
  switch (result.outcome) {
    case "pass":
      verdict = {
        source,
        line,
        direction: "in",
        era,
        eraSignal: signal,
        outcome: "pass",
        kind: result.kind,
        definition: result.definition,
        revision: result.revision,
        reported: result.reported,
      };
      break;
    case "bypass":
      verdict = { source, line, direction: "in", era, eraSignal: signal, outcome: "bypass", kind: result.kind, reason: result.reason };
      break;
    case "reject":
      verdict = {
        source,
        line,
        direction: "in",
        era,
        eraSignal: signal,
        outcome: "reject",
        kind: result.kind,
        definition: result.definition,
        revision: result.revision,
        reason: "invalid-message",
        status: result.status,
        response: result.response,
      };
  }
  return labelled(options, verdict, body);
}

function labelled(options: Options, verdict: InboundVerdict, body?: unknown): { verdict: Verdict; body: unknown } {
  // Only a response lacks a method of its own; on anything else the label would contradict the message.
  if (options.method !== undefined && verdict.kind === "response") verdict.method = options.method;
  return { verdict, body };
}

/** The verdict of validateMcpResponse on a parsed message, in the era of the flag or of the --headers alone. */
function judgeOut(source: string, line: number, body: unknown, options: Options): { verdict: Verdict; body: unknown } {
  // A server's body carries no era signal, and a body-read era would let a modern-only field pick its own lane.
  const { era, signal } = options.era === "auto" ? classifyEra(options.headers, undefined) : { era: options.era, signal: "flag" as const };
  // As inbound: the header's legacy revision, else the one a server assumes without it (there is no request body here).
  const revision = era === "legacy" ? legacyRevisionOf(undefined, options.headers["mcp-protocol-version"]).revision : eras.modern.revision;
  const result = validateMcpResponse(body, { era, method: options.method, protocolVersion: revision });
  const answers = result.kind === "result" || result.kind === "error";
  const method = answers ? options.method : undefined;
  const verdict: OutboundVerdict =
    result.outcome === "pass"
      ? {
          source,
          line,
          direction: "out",
          era,
          eraSignal: signal,
          revision,
          method,
          outcome: "pass",
          kind: result.kind,
          definition: result.definition,
        }
      : {
          source,
          line,
          direction: "out",
          era,
          eraSignal: signal,
          revision,
          method,
          outcome: "violation",
          kind: result.kind,
          definition: result.definition,
          violations: result.violations,
        };
  // An undefined method is left out of --json by JSON.stringify; deleting the key would cost a slower object shape.
  return { verdict, body };
}

const SIGNAL_LABELS: Record<EraSignal | "flag", string> = {
  flag: "--era",
  batch: "batch",
  response: "response",
  "not-json-rpc": "malformed",
  initialize: "initialize",
  "body-meta": "_meta",
  "header-protocol-version": "header",
  "header-session-id": "session id",
  default: "no signal",
};
const ERA_WIDTH = "legacy (initialize)".length;

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
      return `${method}${verdict.kind} (${verdict.definition}${verdict.revision ? `, revision ${verdict.revision}` : ""})`;
    case "bypass":
      return verdict.reason === "modern-notification"
        ? `${method}notification, not validated in the modern era`
        : `${verdict.method ? `${printable(verdict.method, 60)} ` : ""}response, not validated in the legacy era (handed to its session)`;
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

/** An outbound verdict in words: `out: tools/call result (CallToolResult, revision 2025-06-18)`, saying when only the framing was judged. */
function judgedOutAs(verdict: OutboundVerdict, body: unknown): string {
  const { revision } = verdict;
  const own = verdict.kind === "request" || verdict.kind === "notification" ? methodOf(body) : verdict.method;
  const method = typeof own === "string" ? `${methodLabel(own)} ` : "";
  const kind = verdict.kind === "other" ? "message of no kind" : verdict.kind === "error" ? "error response" : verdict.kind;
  // Legacy has four revisions, each judging by its own definitions: the line names the one used.
  let definition = verdict.era === "legacy" ? `${verdict.definition}, revision ${revision}` : verdict.definition;
  if (verdict.kind === "result" && verdict.definition === "JSONRPCResultResponse") {
    definition +=
      verdict.method === undefined ? "; framing only: give --method to judge the result" : `; not a method of ${revision}: framing only`;
  } else if (verdict.kind === "notification" && verdict.definition === "JSONRPCNotification") {
    definition += `; not a server notification of ${revision}: framing only`;
  } else if (verdict.kind === "request" && verdict.definition === "JSONRPCRequest" && verdict.era === "legacy") {
    definition += `; not a server request of ${revision}: framing only`;
  }
  return `out: ${method}${kind} (${definition})`;
}

/** The definition a rejected message was checked against, as validateMcpRequest names it. */
function definitionOf(verdict: Extract<InboundVerdict, { outcome: "reject" }>): string {
  if (verdict.kind !== "response")
    return `${verdict.definition ?? "JSONRPCMessage"}${verdict.revision ? `, revision ${verdict.revision}` : ""}`;
  return verdict.method ? `response to ${printable(verdict.method, 60)}: modern clients send none` : "modern clients send none";
}

/** One message in human words: a header line, then for a rejection its locations, aligned. */
export function renderHuman(verdict: Verdict, body: unknown, paint: Paint, name = printable(verdict.source), positionWidth = 0): string {
  // A violation reads as a rejection: one word per verdict keeps the columns of mixed input aligned.
  const outcome =
    verdict.outcome === "pass" ? paint("32", "pass  ") : verdict.outcome === "bypass" ? paint("33", "bypass") : paint("31", "reject");
  const era =
    verdict.era === null ? "-" : verdict.eraSignal === "flag" ? verdict.era : `${verdict.era} (${SIGNAL_LABELS[verdict.eraSignal!]})`;
  const position = `${name}:${verdict.line}`;
  const gap = positionWidth > position.length ? " ".repeat(positionWidth - position.length) : "";
  let text = `${paint("1", position)}${gap}  ${outcome}  ${era.padEnd(ERA_WIDTH)}  ${judgedAs(verdict, body)}`;
  let data: { errors: { instancePath: string; messages: string[] }[]; omitted?: number } | undefined;
  if (verdict.outcome === "violation") {
    text += "\n";
    data = verdict.violations;
  } else if (verdict.outcome === "pass" && "reported" in verdict && verdict.reported) {
    // legacyChecks "report": the message passes; what the params check found is printed as the gate reports it.
    text += `  ${paint("2", `reported ${verdict.reported.response.error.code}`)}\n`;
    data = verdict.reported.response.error.data;
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
  /** Passed under --legacy-checks report with a params failure. */
  reported: number;
}

function summary({ pass, reject, bypass, reported }: Tally): string {
  const total = pass + reject + bypass;
  const passed = reported > 0 ? `${pass} pass (${reported} reported)` : `${pass} pass`;
  return `${total} message${total === 1 ? "" : "s"}: ${passed}, ${reject} rejected, ${bypass} bypassed`;
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
      "legacy-checks": { type: "string", default: DEFAULT_LEGACY_CHECKS },
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
    legacyChecks: oneOf("legacy-checks", values["legacy-checks"]!, LEGACY_CHECKS),
    format: oneOf("format", values.format!, ["auto", "json", "jsonl"] as const),
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
  const tally: Tally = { pass: 0, reject: 0, bypass: 0, reported: 0 };
  let unreadable = false;
  const report = (source: string, name: string, line: number, bytes: Buffer | undefined, positionWidth = 0): void => {
    if (bytes && bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1); // CRLF logs
    if (line === 1 && bytes && bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
    if (bytes && isBlank(bytes)) return; // blank lines separate messages; they are none
    const { verdict, body } = judge(source, line, bytes, options);
    tally[verdict.outcome === "violation" ? "reject" : verdict.outcome]++;
    if ("reported" in verdict && verdict.reported) tally.reported++;
    if (options.quiet && (verdict.outcome === "pass" || verdict.outcome === "bypass")) return;
    out.add(options.json ? `${JSON.stringify(verdict)}\n` : renderHuman(verdict, body, paint, name, positionWidth));
  };

  for (const file of files) {
    const source = file === "-" ? "<stdin>" : file;
    const name = printable(source); // once per input, not per message
    const whole = options.format === "json" || (options.format === "auto" && file !== "-" && extname(file).toLowerCase() === ".json");
    try {
      const chunks = file === "-" ? (process.stdin as AsyncIterable<Buffer>) : fileChunks(file);
      if (whole) {
        // The middleware's own bounded reader: it stops holding bytes as soon as the limit is passed.
        const bytes = await readLimited(chunks, options.maxBytes);
        report(source, name, 1, bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      } else {
        // Positions of one stream line up to line 99,999.
        const width = name.length + 6;
        const splitter = new LineSplitter(options.maxBytes, (line, bytes) => report(source, name, line, bytes, width));
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
  if (options.json) {
    await out.flush();
    process.stderr.write(`${summary(tally)}\n`);
  } else {
    out.add(`${summary(tally)}\n`);
    await out.flush();
  }
  return unreadable ? 2 : tally.reject > 0 ? 1 : 0;
}

const CHUNK_BYTES = 256 * 1024;

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
