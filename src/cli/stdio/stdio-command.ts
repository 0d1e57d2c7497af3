/**
 * @module stdio/stdio-command: `wymcp stdio -- command [args...]`, the flags and the process.
 */
import type { LiveArgs } from "../../inspect/live/start.js";
import { positiveInteger, readArgs, UsageError, VALUE } from "../args.js";
import { commandArgs } from "../command-start.js";
import { startFace } from "../face-start.js";
import { GATE_FLAGS, sharedFlags, type ToolsFlags } from "../gate-options.js";
import { DEFAULT_STOP_TIMEOUT_MS, runStdioGate, type StdioOptions } from "../../hosts/stdio/gate.js";
import { STDIO_USAGE } from "./usage.js";

/** The stdio gate's flags: the faces' shared ones, and its own. */
export const STDIO_FLAGS = { ...GATE_FLAGS, "stop-timeout": VALUE } as const;

/** The gate's options from its command line: the flags before "--", the server's command after it. */
export function parseStdioArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): { options: StdioOptions; toolFlags: ToolsFlags; live: LiveArgs; help: boolean } {
  const { values, positionals, tail } = readArgs(STDIO_FLAGS, argv);
  if (values.help) return { help: true } as ReturnType<typeof parseStdioArgs>;
  if (positionals.length > 0 || tail === undefined)
    throw new UsageError(`the server's command goes after "--": wymcp stdio [options] -- ${positionals.join(" ") || "command [args...]"}`);
  const [command, ...args] = tail;
  if (command === undefined || command === "") throw new UsageError('no command after "--": name the server to run');
  const stopTimeoutMs = positiveInteger("--stop-timeout", values["stop-timeout"], DEFAULT_STOP_TIMEOUT_MS);
  // A line carries no Host: the stdio gate sets no host policy, and --rule origin names what it would need.
  const shared = sharedFlags(values, { hosts: false, env });
  return { options: { ...shared.options, command, args, stopTimeoutMs }, toolFlags: shared.tools, live: shared.live, help: false };
}

/** Runs `wymcp stdio <argv>`; resolves to the server's exit code (2 for a usage error). */
export async function runStdioCommand(argv: string[]): Promise<number> {
  const read = commandArgs("stdio", argv, parseStdioArgs, STDIO_USAGE);
  if ("exit" in read) return read.exit;
  const parsed = read.args;
  // Nothing the server could be started with failed: a file or address that cannot be opened exits 2 before it starts.
  const started = await startFace("stdio", { options: parsed.options, tools: parsed.toolFlags, live: parsed.live });
  if ("exit" in started) return 2;
  const { log, otel, tools, hooks } = started;
  const code = await runStdioGate(
    { ...parsed.options, telemetry: otel?.telemetry, tools },
    { input: process.stdin, output: process.stdout },
    log,
    hooks,
  );
  // The server has exited: the page closes, and the last spans and the metrics go out before wymcp does, within the bound.
  if ((await started.close()) === "late") process.exit(code);
  return code;
}
