/**
 * @module check-files: the capture checker: reads the inputs, judges each message (a response against the request it
 * answers in the same capture) through the gate pipeline, and writes the verdicts, the table per method and the summary
 * to a sink. `wymcp check` gives it standard output; `wymcp inspect` and the tests give it their own.
 */
import { statSync } from "node:fs";
import { extname } from "node:path";
import { readLimited } from "../core/admission.js";
import { MethodTally, methodRow, ownRow, recordRow } from "./by-method.js";
import { harMessageContext, judgeInCapture, type RequestEra } from "./capture.js";
import { Exchange } from "./exchange.js";
import { type GateLogRecord, gateLogRecord, recordOutcome } from "./gate-log-record.js";
import { HarError, type HarMessages, harMessages } from "./har.js";
import { bufferOf, describeError, fileChunks, trimLine } from "./input.js";
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
  /** Lines of a gate's JSON log met in the inputs, by what they count as. */
  private readonly logged = { refused: 0, reported: 0, violation: 0, event: 0 };
  private unreadable = false;

  constructor(
    private readonly options: CheckOptions,
    sink: CheckSink,
    private readonly observe: ((message: JudgedMessage) => void) | undefined,
  ) {
    this.paint = options.colour ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;
    this.out = new Output(sink);
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
    const at: Place = { source, name, exchange, negotiated };
    try {
      const chunks = file === "-" ? (process.stdin as AsyncIterable<Buffer>) : fileChunks(file);
      if (har) {
        await this.reportHar(at, chunks, file === "-" ? undefined : statSync(file).size);
      } else if (whole) {
        // The gates' own bounded reader: it stops holding bytes as soon as the limit is passed.
        const bytes = await readLimited(chunks, options.settings.maxBodyBytes);
        const message = bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        this.report(at, 1, message, 0, context, session, session);
      } else {
        // Positions of one stream line up to line 99,999.
        const width = name.length + 6;
        const splitter = new LineSplitter(options.settings.maxBodyBytes);
        const report = (line: Line) => this.report(at, line.number, bufferOf(line), width, context, session, session);
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
      process.stderr.write(`wymcp: cannot read ${name}: ${describeError(error)}\n`);
    }
  }

  /**
   * One message: judged, counted, printed; a request is kept for the response that will answer it, and a legacy
   * `initialize` and its answer set the revision of the session (`negotiated`, under the key `negotiation`; none for a
   * message of a HAR file that belongs to no session). A line of a gate's own log is shown as the gate judged it.
   */
  private report(
    at: Place,
    line: number,
    bytes: Buffer | undefined,
    positionWidth: number,
    context: JudgeContext,
    session: string,
    negotiation: string | undefined,
  ): Verdict | undefined {
    const { options } = this;
    if (bytes !== undefined) {
      const trimmed = trimLine(bytes, line);
      if (trimmed === null) return undefined;
      bytes = trimmed;
      const record = gateLogRecord(bytes);
      if (record) return this.reportRecord(record, at, line, positionWidth, context);
    }
    const { exchange, negotiated } = at;
    const { verdict, body } = judgeInCapture(at.source, line, bytes, options, context, { exchange, session, negotiated, negotiation });
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
    this.observe?.({ verdict, body, text: bytes?.toString("utf8") });
    // --quiet keeps what was not served: a rejection, and wymcp's own answer whatever its verdict.
    if (options.quiet && own === undefined && (verdict.outcome === "pass" || verdict.outcome === "bypass")) return verdict;
    this.out.add(options.json ? `${JSON.stringify(verdict)}\n` : renderHuman(verdict, body, this.paint, at.name, positionWidth));
    return verdict;
  }

  /** The gate's own verdict: counted as it judged, shown in its words; the log holds no body to judge again. */
  private reportRecord(record: GateLogRecord, at: Place, line: number, positionWidth: number, context: JudgeContext): undefined {
    const { options, tally, methods } = this;
    const view = recordView(record);
    const outcome = recordOutcome(record);
    this.logged[outcome]++;
    if (outcome === "reported") {
      // Handed on by the gate, as --legacy-checks report passes it here.
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
        : renderRecord(record, view, this.paint, position, positionWidth),
    );
    return undefined;
  }

  /** A HAR file's MCP messages (har.ts), each with its HTTP exchange's headers, sender and request's era. */
  private async reportHar(at: Place, chunks: AsyncIterable<Buffer> | Iterable<Buffer>, size: number | undefined): Promise<void> {
    const { options, out } = this;
    const { name } = at;
    const reading = await readHarInput(chunks, options.settings.maxBodyBytes, size);
    const width = reading.lastEntry === undefined ? 0 : name.length + String(reading.lastEntry).length + " event 999".length + 1;
    let requestEra: RequestEra;
    // One message at a time, judged before the next is made: memory is bounded by a message, not by their count.
    for (const message of reading.messages) {
      const { context, session, negotiation } = harMessageContext(message, options, at.exchange, requestEra);
      const bytes = message.bytes && Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
      const verdict = this.report(at, message.entry, bytes, width, context, session, negotiation);
      if (message.part === "request")
        requestEra = verdict?.era ? { entry: message.entry, era: verdict.era, eraSignal: "request" } : undefined;
      await out.settle();
    }
    const { withoutBody, undecodable } = reading;
    if (withoutBody > 0) {
      await out.flush();
      process.stderr.write(
        `wymcp: ${name}: ${withoutBody} POST${withoutBody === 1 ? "" : "s"} to the MCP endpoint kept no body in the capture\n`,
      );
    }
    if (undecodable > 0) {
      await out.flush();
      process.stderr.write(
        `wymcp: ${name}: ${undecodable} response${undecodable === 1 ? "" : "s"} on the MCP endpoint held base64 content that does not decode, so no message of ${undecodable === 1 ? "it" : "them"} was judged\n`,
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
      // Machines count from the objects; stderr keeps its lines.
      await out.flush();
      process.stderr.write(`${summary(tally)}\n${logLine}`);
    } else {
      // --quiet: the rejections and the summary alone.
      out.add(`${options.quiet ? "" : methods.render()}${summary(tally)}\n${logLine}`);
      await out.flush();
    }
    return { exitCode: this.unreadable ? 2 : tally.reject + tally.refused + tally.failed > 0 ? 1 : 0, tally };
  }
}

/** Where a message was read: its input, its name as printed, and the capture's requests and sessions. */
interface Place {
  source: string;
  name: string;
  exchange: Exchange;
  negotiated: Negotiations;
}
