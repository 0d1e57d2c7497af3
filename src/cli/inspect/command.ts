/**
 * @module command: `wymcp inspect`: judges the inputs with `wymcp check`'s own judging (check/command.ts), keeps each
 * judged message in a ring, and serves the page that shows them until interrupted.
 */
import { type CheckOptions, checkFiles } from "../../check/check-files.js";
import { HELP, hostPort, positiveInteger, readArgs, UsageError, usageProblem, VALUE } from "../args.js";
import { commandArgs } from "../command-start.js";
import { CHECK_FLAGS, checkOptions } from "../check/options.js";
import { isLoopback, type Listener, listen, PageMissingError } from "../../inspect/listener.js";
import { DEFAULT_MAX_ROWS, RowRing } from "../../inspect/ring.js";
import { INSPECT_USAGE } from "./usage.js";

/** `wymcp inspect`'s flags: `wymcp check`'s judging ones (the page is its output), and its own. */
const { json: _json, quiet: _quiet, ...JUDGING_FLAGS } = CHECK_FLAGS;
export const INSPECT_FLAGS = { ...JUDGING_FLAGS, listen: VALUE, "ui-token": VALUE, "max-rows": VALUE, ...HELP } as const;

/** What `wymcp inspect` was told: where to listen, with what token, how many rows, and `wymcp check`'s options and files. */
export interface InspectArgs {
  host: string;
  port: number;
  token: string | undefined;
  maxRows: number;
  options: CheckOptions;
  files: string[];
  help: boolean;
}

/**
 * Reads `wymcp inspect`'s arguments. The token may come from `WYMCP_UI_TOKEN` instead of the command line, where other
 * users of the machine can read it in the process list.
 */
export function parseInspectArgs(argv: string[], env: Record<string, string | undefined> = process.env): InspectArgs {
  const { values, positionals, tail } = readArgs(INSPECT_FLAGS, argv);
  const { host, port } = hostPort("--listen", values.listen ?? "127.0.0.1:0");
  const token = values["ui-token"] ?? (env.WYMCP_UI_TOKEN || undefined);
  const maxRows = positiveInteger("--max-rows", values["max-rows"], DEFAULT_MAX_ROWS);
  if (maxRows > 1_000_000)
    throw new UsageError(`--max-rows takes a whole number from 1 to 1000000, not ${JSON.stringify(values["max-rows"])}`);
  if (!isLoopback(host) && token === undefined)
    throw new UsageError(`--listen ${host} is not a loopback address: the page would be open to the network; give --ui-token TOKEN`);
  if (token !== undefined && token.length < 16) throw new UsageError("--ui-token takes at least 16 characters");
  const files = [...positionals, ...(tail ?? [])];
  return { host, port, token, maxRows, options: checkOptions(values), files, help: values.help === true };
}

/** Judged messages and problems (to stderr, as `wymcp inspect`'s), nothing else printed: the page shows them. */
const QUIET_SINK = { write: () => true, warn: (problem: string) => void process.stderr.write(`wymcp inspect: ${problem}\n`) };

/**
 * Judges the files into a new ring and starts the listener (what the command does before it waits). A run that could
 * read no message at all throws: there would be nothing to show.
 * @example const { listener } = await startInspect(["capture.jsonl"]); console.log(listener.url)
 */
export async function startInspect(argv: string[]): Promise<{ listener: Listener; ring: RowRing; exitCode: number }> {
  const args = parseInspectArgs(argv);
  const { options, files } = args;
  if (files.length === 0) throw new UsageError("name the capture files to inspect");
  if (files.includes("-")) throw new UsageError('wymcp inspect reads files, not standard input ("-")');
  const ring = new RowRing(args.maxRows);
  const { exitCode } = await checkFiles(files, options, QUIET_SINK, (message) => ring.push(message));
  if (ring.rows().length === 0) throw new NothingToShowError("nothing to show: the page is not served");
  const listener = await listen({ ring, host: args.host, port: args.port, token: args.token });
  return { listener, ring, exitCode };
}

/** The inputs held no message that could be read: `wymcp inspect` says so and exits 2 instead of serving an empty page. */
export class NothingToShowError extends Error {
  override name = "NothingToShowError";
}

/** Runs `wymcp inspect <argv>`; resolves to the exit code once interrupted. */
export async function runInspectCommand(argv: string[]): Promise<number> {
  const read = commandArgs("inspect", argv, parseInspectArgs, INSPECT_USAGE);
  if ("exit" in read) return read.exit;
  let started: Awaited<ReturnType<typeof startInspect>>;
  try {
    started = await startInspect(argv);
  } catch (error) {
    // Bad arguments, nothing to show, a page not built, an address it cannot listen on: exit 2, said.
    if (error instanceof UsageError) {
      process.stderr.write(usageProblem("inspect", error));
      return 2;
    }
    const known =
      error instanceof NothingToShowError || error instanceof PageMissingError || typeof (error as NodeJS.ErrnoException).code === "string";
    if (!known) throw error;
    process.stderr.write(`wymcp inspect: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const { listener, ring, exitCode } = started;
  const rows = ring.rows().length;
  process.stdout.write(`wymcp inspect: ${rows} message${rows === 1 ? "" : "s"} judged; the page is at ${listener.url}\n`);
  if (exitCode === 2) process.stderr.write("wymcp inspect: some inputs could not be read (the page shows the others)\n");
  await new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      done();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await listener.close();
  return 0;
}
