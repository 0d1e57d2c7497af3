/**
 * @module command: `wymcp inspect`: judges the inputs with `wymcp check`'s own judging (check/command.ts), keeps each
 * judged message in a ring, and serves the page that shows them until interrupted.
 */
import { checkFiles } from "../../check/check-files.js";
import { hostPort, positiveInteger, UsageError } from "../args.js";
import { parseCheckOptions } from "../check/options.js";
import { isLoopback, type Listener, listen, PageMissingError } from "../../inspect/listener.js";
import { DEFAULT_MAX_ROWS, RowRing } from "../../inspect/ring.js";
import { INSPECT_USAGE } from "./usage.js";

/** The options `wymcp inspect` adds to `wymcp check`'s. */
export interface InspectArgs {
  host: string;
  port: number;
  token: string | undefined;
  maxRows: number;
  /** Everything else, read as `wymcp check`'s arguments. */
  check: string[];
}

/**
 * Reads the options of its own and leaves the rest for `wymcp check`'s parser. The token may come from
 * `WYMCP_UI_TOKEN` instead of the command line, where other users of the machine can read it in the process list.
 */
export function parseInspectArgs(argv: string[], env: Record<string, string | undefined> = process.env): InspectArgs {
  const fromEnv = env.WYMCP_UI_TOKEN === "" ? undefined : env.WYMCP_UI_TOKEN;
  const args: InspectArgs = { host: "127.0.0.1", port: 0, token: fromEnv, maxRows: DEFAULT_MAX_ROWS, check: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const name = arg.startsWith("--") && eq > 0 ? arg.slice(0, eq) : arg;
    if (name !== "--listen" && name !== "--ui-token" && name !== "--max-rows") {
      args.check.push(arg);
      continue;
    }
    const value = eq > 0 && arg.startsWith("--") ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`${name} takes a value`);
    if (name === "--listen") Object.assign(args, hostPort("--listen", value));
    else if (name === "--ui-token") args.token = value;
    else {
      const rows = positiveInteger("--max-rows", value, DEFAULT_MAX_ROWS);
      if (rows > 1_000_000) throw new UsageError(`--max-rows takes a whole number from 1 to 1000000, not ${JSON.stringify(value)}`);
      args.maxRows = rows;
    }
  }
  if (!isLoopback(args.host) && args.token === undefined)
    throw new UsageError(`--listen ${args.host} is not a loopback address: the page would be open to the network; give --ui-token TOKEN`);
  if (args.token !== undefined && args.token.length < 16) throw new UsageError("--ui-token takes at least 16 characters");
  return args;
}

/**
 * Judges the files into a new ring and starts the listener (what the command does before it waits).
 * @example const { listener } = await startInspect(["capture.jsonl"]); console.log(listener.url)
 */
export async function startInspect(argv: string[]): Promise<{ listener: Listener; ring: RowRing; exitCode: number }> {
  const args = parseInspectArgs(argv);
  const { options, files } = parseCheckOptions(args.check);
  if (files.length === 0) throw new UsageError("name the capture files to inspect");
  if (files.includes("-")) throw new UsageError('wymcp inspect reads files, not standard input ("-")');
  const ring = new RowRing(args.maxRows);
  const { exitCode } = await checkFiles(files, options, { write: () => true }, (message) => ring.push(message));
  const listener = await listen({ ring, host: args.host, port: args.port, token: args.token });
  return { listener, ring, exitCode };
}

/** Runs `wymcp inspect <argv>`; resolves to the exit code once interrupted. */
export async function runInspectCommand(argv: string[]): Promise<number> {
  if (argv.includes("-h") || argv.includes("--help")) {
    process.stdout.write(INSPECT_USAGE);
    return 0;
  }
  let started: Awaited<ReturnType<typeof startInspect>>;
  try {
    started = await startInspect(argv);
  } catch (error) {
    // Bad arguments (parseArgs throws TypeErrors), a page not built, an address it cannot listen on: exit 2, said.
    const known =
      error instanceof UsageError ||
      error instanceof TypeError ||
      error instanceof RangeError ||
      error instanceof PageMissingError ||
      typeof (error as NodeJS.ErrnoException).code === "string";
    if (!known) throw error;
    process.stderr.write(`wymcp: ${error instanceof Error ? error.message : String(error)}\nRun "wymcp inspect --help" for the options.\n`);
    return 2;
  }
  const { listener, ring, exitCode } = started;
  const rows = ring.rows().length;
  process.stdout.write(`wymcp inspect: ${rows} message${rows === 1 ? "" : "s"} judged; the page is at ${listener.url}\n`);
  if (exitCode === 2) process.stderr.write("wymcp: some inputs could not be read (the page shows the others)\n");
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
