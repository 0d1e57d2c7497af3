/** @module command: `wymcp check`: reads the inputs, judges each message, prints the verdicts and the summary. */
import { extname } from "node:path";
import { readLimited } from "../../core/admission.js";
import { describeError, fileChunks, LineSplitter, trimLine } from "./input.js";
import { judge } from "./judge.js";
import { colourEnabled, parseCheckOptions } from "./options.js";
import { type Paint, printable, renderHuman, summary, type Tally } from "./render.js";
import { CHECK_USAGE } from "./usage.js";

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

/** Runs `wymcp check <argv>`; resolves to the exit code. */
export async function runCheck(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCheckOptions>;
  try {
    parsed = parseCheckOptions(argv);
  } catch (error) {
    // parseArgs throws TypeErrors with a readable message for unknown or malformed options.
    process.stderr.write(`wymcp: ${error instanceof Error ? error.message : String(error)}\nRun "wymcp check --help" for the options.\n`);
    return 2;
  }
  const { options, files, help } = parsed;
  if (help) {
    process.stdout.write(CHECK_USAGE);
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
    if (bytes !== undefined) {
      const trimmed = trimLine(bytes, line);
      if (trimmed === null) return;
      bytes = trimmed;
    }
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
        // The gates' own bounded reader: it stops holding bytes as soon as the limit is passed.
        const bytes = await readLimited(chunks, options.settings.maxBodyBytes);
        report(source, name, 1, bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      } else {
        // Positions of one stream line up to line 99,999.
        const width = name.length + 6;
        const splitter = new LineSplitter(options.settings.maxBodyBytes, (line, bytes) => report(source, name, line, bytes, width));
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
