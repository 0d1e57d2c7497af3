/**
 * @module check-files: the capture checker: reads the inputs, judges each message (a response against the request it
 * answers in the same capture) through the gate pipeline, and writes the verdicts, the table per method and the summary
 * to a sink. `wymcp check` gives it standard output; `wymcp inspect` and the tests give it their own.
 */
import { statSync } from "node:fs";
import { extname } from "node:path";
import { readLimited } from "../core/admission.js";
import { MethodTally, methodRow, ownRow, recordRow } from "./by-method.js";
import { RuleTally } from "./by-rule.js";
import { defaultRules } from "../core/rules.js";
import { harMessageContext, judgeInCapture, type RequestEra } from "./capture.js";
import { Exchange } from "./exchange.js";
import { type GateLogRecord, gateLogRecord, recordOutcome } from "./gate-log-record.js";
import { HarError, type HarMessages, harMessages } from "./har.js";
import { bufferOf, fileChunks, trimLine } from "./input.js";
import { cannotRead, fileReason } from "../log/file-problem.js";
import { type Line, LineSplitter } from "../wire/lines.js";
import type { JudgeContext, JudgeOptions, Verdict } from "./judge.js";
import { Negotiations } from "./negotiation.js";
import { type Paint, printable, recordView, renderHuman, renderRecord, summary, type Tally } from "./render.js";

/** Everything `wymcp check` was told. */
export interface CheckOptions extends JudgeOptions {
  format: "auto" | "json" | "jsonl" | "har";
  json: boolean;
  quiet: boolean;
  colour: boolean;
}

/** Where the verdicts' text goes: stdout for `wymcp check`; `false` means wait for a drain. */
export interface CheckSink {
  write(text: string): boolean | Promise<void>;
  /** A problem with an input, one line (the command prefixes its name); standard error by default. */
  warn?(problem: string): void;
  /** Text for standard error as it is (the summary under `--json`); standard error by default. */
  note?(text: string): void;
}

/** One judged message, as an observer of the judging sees it (`wymcp inspect` keeps them). */
export interface JudgedMessage {
  verdict: Verdict;
  body: unknown;
  /** The message's text as the capture held it (undefined when over --max-body-bytes). */
  text: string | undefined;
}

/** Buffered output: one write per 64 KiB, waiting for the pipe to drain, so a huge input stays in bounded memory. */
class Output {
  constructor(private readonly sink: CheckSink) {}
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
    const written = this.sink.write(text);
    if (written !== true && written !== false) await written;
  }
}

/** The most of a HAR file read (each message in it is bounded by --max-body-bytes as a line is). */
export const HAR_MAX_BYTES = 256 * 1024 * 1024;

/**
 * A HAR input read whole (bounded by HAR_MAX_BYTES; a file of known size into one buffer of that size) and parsed from
 * its bytes: a long body or event stream stays in them, read in pieces as its messages are judged (lazy-json.ts).
 */
async function readHarInput(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  maxBodyBytes: number,
  size: number | undefined,
): Promise<HarMessages> {
  const bytes = await readLimited(chunks, HAR_MAX_BYTES, size);
  if (!bytes) throw new HarError(`larger than ${HAR_MAX_BYTES} bytes, the most a HAR file is read`);
  return harMessages(bytes, maxBodyBytes);
}

/**
 * Judges the inputs (`-` is standard input) as `wymcp check` does, writing its report to `sink`; `observe` sees each
 * judged message (not a gate log's lines, which hold no body). Resolves to the exit code and the counts.
 */
export async function checkFiles(
  files: string[],
  options: CheckOptions,
  sink: CheckSink,
  observe?: (message: JudgedMessage) => void,
): Promise<{ exitCode: number; tally: Tally }> {
  const run = new CheckRun(options, sink, observe);
  for (const file of files) await run.input(file);
  return run.finish();
}

/** One run of the checker over its inputs: the counts, the table per method and the report so far. */
class CheckRun {
  private readonly paint: Paint;
  private readonly out: Output;
  private readonly tally: Tally = { pass: 0, reject: 0, bypass: 0, reported: 0, refused: 0, failed: 0 };
  private readonly methods = new MethodTally();
  private readonly rules: RuleTally;
  /** Lines of a gate's JSON log met in the inputs, by what they count as. */
  private readonly logged = { refused: 0, reported: 0, violation: 0, event: 0 };
  private unreadable = false;
  /** Messages and log lines read from every input so far: none at the end means the run read nothing. */
  private read = 0;
  private readonly warn: (problem: string) => void;
  private readonly note: (text: string) => void;

  constructor(
    private readonly options: CheckOptions,
    sink: CheckSink,
    private readonly observe: ((message: JudgedMessage) => void) | undefined,
  ) {
    this.rules = new RuleTally(options.settings.rules ?? defaultRules({ hosts: false, versions: false, outbound: true, lock: false }));
    this.paint = options.colour ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;
    this.out = new Output(sink);
    this.warn = sink.warn ? sink.warn.bind(sink) : (problem) => void process.stderr.write(`wymcp: ${problem}\n`);
    this.note = sink.note ? sink.note.bind(sink) : (text) => void process.stderr.write(text);
  }

  /** One input, as one capture: its requests answer its responses, and its sessions are its own. */
  async input(file: string): Promise<void> {
    const { options } = this;
    const source = file === "-" ? "<stdin>" : file;
    const name = printable(source); // once per input, not per message
    const extension = file === "-" ? "" : extname(file).toLowerCase();
    const har = options.format === "har" || (options.format === "auto" && extension === ".har");
    const whole = options.format === "json" || (options.format === "auto" && extension === ".json");
    const exchange = new Exchange();
    const negotiated = new Negotiations();
    const session = options.headers["mcp-session-id"] ?? "";
    const context: JudgeContext = { pair: (id) => exchange.answer(session, id) };
    // Positions of one stream line up to line 99,999.
    const at: Place = { source, name, exchange, negotiated, width: whole ? 0 : name.length + 6 };
    const before = this.read;
    try {
      const chunks = file === "-" ? (process.stdin as AsyncIterable<Buffer>) : fileChunks(file);
      if (har) {
        await this.reportHar(at, chunks, file === "-" ? undefined : statSync(file).size);
      } else if (whole) {
        // The gates' own bounded reader: it stops holding bytes as soon as the limit is passed.
        const bytes = await readLimited(chunks, options.settings.maxBodyBytes);
        const message = bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        this.report(at, { line: 1, bytes: message, context, session, negotiation: session });
      } else {
        const splitter = new LineSplitter(options.settings.maxBodyBytes);
        const report = (line: Line) =>
          this.report(at, { line: line.number, bytes: bufferOf(line), context, session, negotiation: session });
        for await (const chunk of chunks) {
          splitter.push(chunk);
          for (let line = splitter.next(); line; line = splitter.next()) report(line);
          await this.out.settle();
        }
        const last = splitter.end();
        if (last) report(last);
      }
    } catch (error) {
      this.unreadable = true;
      await this.out.flush();
      this.warn(file === "-" ? `cannot read standard input: ${fileReason(error)}` : cannotRead(file, error));
      return;
    }
    if (this.read === before) {
      await this.out.flush();
      this.warn(`${file === "-" ? "standard input" : JSON.stringify(file)} holds no message`);
    }
  }

  /**
   * One message: judged, counted, printed; a request is kept for the response that will answer it, and a legacy
   * `initialize` and its answer set the revision of the session (`negotiated`, under the key `negotiation`; none for a
   * message of a HAR file that belongs to no session). A line of a gate's own log is shown as the gate judged it.
   */
  private report(at: Place, message: PlacedMessage): Verdict | undefined {
    const { options } = this;
    const { line, context, session, negotiation } = message;
    let { bytes } = message;
    if (bytes !== undefined) {
      const trimmed = trimLine(bytes, line);
      if (trimmed === null) return undefined;
      bytes = trimmed;
      this.read++;
      const record = gateLogRecord(bytes);
      if (record) return this.reportRecord(record, at, message);
    } else this.read++;
    const { exchange, negotiated } = at;
    const { verdict, body } = judgeInCapture({ source: at.source, line, bytes, context }, options, {
      exchange,
      session,
      negotiated,
      negotiation,
    });
    const outcome = verdict.outcome === "violation" ? "reject" : verdict.outcome;
    const { own } = verdict;
    if (own === undefined) {
      this.tally[outcome]++;
      if ("reported" in verdict && verdict.reported) this.tally.reported++;
      this.methods.add(methodRow(verdict, body), outcome);
    } else {
      // wymcp answered in the server's place: the call it answers was not served, whatever the answer's own verdict.
      this.tally[own.answer]++;
      this.methods.add(ownRow(verdict, body, own), "reject");
    }
    this.rules.add(verdict);
    this.observe?.({ verdict, body, text: bytes?.toString("utf8") });
    // --quiet keeps what was not served: a rejection, and wymcp's own answer whatever its verdict.
    if (options.quiet && own === undefined && (verdict.outcome === "pass" || verdict.outcome === "bypass")) return verdict;
    this.out.add(
      options.json ? `${JSON.stringify(verdict)}\n` : renderHuman(verdict, body, { paint: this.paint, name: at.name, width: at.width }),
    );
    return verdict;
  }

  /** The gate's own verdict: counted as it judged, shown in its words; the log holds no body to judge again. */
  private reportRecord(record: GateLogRecord, at: Place, { line, context }: PlacedMessage): undefined {
    const { options, tally, methods } = this;
    const view = recordView(record);
    const outcome = recordOutcome(record);
    this.logged[outcome]++;
    this.rules.addRecord(record, outcome);
    if (outcome === "reported") {
      // Handed on by the gate, as --rule params=report passes it here.
      tally.pass++;
      tally.reported++;
      methods.add(recordRow(view, false), "pass");
      if (options.quiet) return undefined;
    } else if (outcome !== "event") {
      tally.reject++;
      methods.add(recordRow(view, outcome === "violation"), "reject");
    } else if (options.quiet) return undefined;
    const position = context.part === undefined ? `${at.name}:${line}` : `${at.name}:${line} ${context.part}`;
    this.out.add(
      options.json
        ? `${JSON.stringify({ source: at.source, line, part: context.part, log: view })}\n`
        : renderRecord(record, view, { paint: this.paint, position, width: at.width }),
    );
    return undefined;
  }

  /** A HAR file's MCP messages (har.ts), each with its HTTP exchange's headers, sender and request's era. */
  private async reportHar(at: Place, chunks: AsyncIterable<Buffer> | Iterable<Buffer>, size: number | undefined): Promise<void> {
    const { options, out } = this;
    const { name } = at;
    const reading = await readHarInput(chunks, options.settings.maxBodyBytes, size);
    at.width = reading.lastEntry === undefined ? 0 : name.length + String(reading.lastEntry).length + " event 999".length + 1;
    let requestEra: RequestEra;
    // One message at a time, judged before the next is made: memory is bounded by a message, not by their count.
    for (const message of reading.messages) {
      const { context, session, negotiation } = harMessageContext(message, options, at.exchange, requestEra);
      const bytes = message.bytes && Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
      const verdict = this.report(at, { line: message.entry, bytes, context, session, negotiation });
      if (message.part === "request")
        requestEra = verdict?.era ? { entry: message.entry, era: verdict.era, eraSignal: "request" } : undefined;
      await out.settle();
    }
    const { withoutBody, undecodable } = reading;
    if (withoutBody > 0) {
      await out.flush();
      this.warn(`${name}: ${withoutBody} POST${withoutBody === 1 ? "" : "s"} to the MCP endpoint kept no body in the capture`);
    }
    if (undecodable > 0) {
      await out.flush();
      this.warn(
        `${name}: ${undecodable} response${undecodable === 1 ? "" : "s"} on the MCP endpoint held base64 content that does not decode, so no message of ${undecodable === 1 ? "it" : "them"} was judged`,
      );
    }
  }

  /**
   * The summary and the count of a gate log's lines; the exit code: 2 for an unreadable input, 1 for a rejection or a
   * call wymcp answered itself.
   */
  async finish(): Promise<{ exitCode: number; tally: Tally }> {
    const { logged, tally, options, out, methods } = this;
    const records = logged.refused + logged.reported + logged.violation + logged.event;
    const logLine =
      records === 0
        ? ""
        : `${records} line${records === 1 ? "" : "s"} of a wymcp gate log (the gate's verdicts, counted above; the log holds no bodies to judge again): ${logged.refused} refused or dropped, ${logged.reported > 0 ? `${logged.reported} reported, ` : ""}${logged.violation} outbound violation${logged.violation === 1 ? "" : "s"}, ${logged.event} other event${logged.event === 1 ? "" : "s"}\n`;
    if (options.json) {
      // The counts close the output as one object (each rule's by state); stderr keeps its lines.
      out.add(`${JSON.stringify({ summary: { ...tally, rules: this.rules.json() } })}\n`);
      await out.flush();
      this.note(`${summary(tally)}\n${logLine}`);
    } else {
      // --quiet: the rejections, what each rule found, and the summary.
      out.add(`${options.quiet ? "" : methods.render()}${this.rules.render()}${summary(tally)}\n${logLine}`);
      await out.flush();
    }
    // A run that could read nothing at all (every input missing, empty, or a HAR file of no message) says so, and fails.
    if (this.read === 0) this.warn("no message read: nothing was judged");
    const failed = this.unreadable || this.read === 0;
    return { exitCode: failed ? 2 : tally.reject + tally.refused + tally.failed > 0 ? 1 : 0, tally };
  }
}

/** Where a message was read: its input, its name as printed, and the capture's requests and sessions. */
interface Place {
  source: string;
  name: string;
  exchange: Exchange;
  negotiated: Negotiations;
  /** The width its positions are padded to, so that the columns of one input line up. */
  width: number;
}

/** One message's bytes at its place in the input: its line (a HAR entry), what the capture says, and its session's keys. */
interface PlacedMessage {
  line: number;
  bytes: Buffer | undefined;
  context: JudgeContext;
  /** The key its requests and responses pair under. */
  session: string;
  /** The key of its session's negotiation; none for a message of a HAR file that belongs to no session. */
  negotiation: string | undefined;
}
