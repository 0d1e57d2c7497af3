/**
 * @module stdio/stdio-command: `wymcp stdio -- command [args...]`, the flags and the process.
 */
import { parseArgs } from "node:util";
import { createLog } from "../../log/gate-log.js";
import { positiveInteger, UsageError } from "../args.js";
import { GATE_FLAG_SPECS, gateFlags } from "../gate-options.js";
import { type Live, startLive, takeLiveArgs } from "../live/live.js";
import { commandTelemetry } from "../otel/start.js";
import { DEFAULT_STOP_TIMEOUT_MS, runStdioGate, type StdioOptions } from "../../hosts/stdio/gate.js";
import { STDIO_USAGE } from "./usage.js";
import { TOOLS_FLAG_SPECS, type ToolsFlags, toolsFlags, toolsFromFlags } from "../tools-flags.js";

/** `parseArgs` declarations of the stdio gate's flags: the gates' shared ones, its own, and the tools'. */
export const STDIO_FLAG_SPECS = { ...GATE_FLAG_SPECS, "stop-timeout": { type: "string" }, ...TOOLS_FLAG_SPECS } as const;

/** The gate's options from its command line: the flags before "--", the server's command after it. */
export function parseStdioArgs(argv: string[]): { options: StdioOptions; toolFlags: ToolsFlags; help: boolean } {
  const split = argv.indexOf("--");
  const own = split < 0 ? argv : argv.slice(0, split);
  const { values, positionals } = parseArgs({
    args: own,
    options: STDIO_FLAG_SPECS,
    allowPositionals: true,
    strict: true,
  });
  const flags = gateFlags(values);
  const toolFlags = toolsFlags(values);
  if (values.help) return { options: { ...flags, command: "", args: [] }, toolFlags, help: true };
  if (positionals.length > 0 || split < 0) {
    throw new UsageError(`the server's command goes after "--": wymcp stdio [options] -- ${positionals.join(" ") || "command [args...]"}`);
  }
  const [command, ...args] = argv.slice(split + 1);
  if (command === undefined || command === "") throw new UsageError('no command after "--": name the server to run');
  const stopTimeoutMs = positiveInteger("--stop-timeout", values["stop-timeout"], DEFAULT_STOP_TIMEOUT_MS);
  return { options: { ...flags, command, args, stopTimeoutMs }, toolFlags, help: false };
}

/** Runs `wymcp stdio <argv>`; resolves to the server's exit code (2 for a usage error). */
export async function runStdioCommand(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseStdioArgs>;
  let liveArgs: ReturnType<typeof takeLiveArgs>["live"];
  try {
    const split = takeLiveArgs(argv);
    liveArgs = split.live;
    parsed = parseStdioArgs(split.rest);
  } catch (error) {
    process.stderr.write(
      `wymcp stdio: ${error instanceof Error ? error.message : String(error)}\nRun "wymcp stdio --help" for the options.\n`,
    );
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(STDIO_USAGE);
    return 0;
  }
  const log = createLog("stdio", parsed.options.log, process.stderr);
  const otel = parsed.options.otel ? await commandTelemetry("stdio", log) : undefined;
  if (parsed.options.otel && !otel) return 2;
  let tools;
  let live: Live | undefined;
  try {
    tools = parsed.options.passThrough ? undefined : await toolsFromFlags(parsed.toolFlags, log, parsed.options.formats);
  } catch (error) {
    process.stderr.write(`wymcp stdio: ${(error as Error).message}\n`);
    await otel?.shutdown();
    return 2;
  }
  try {
    live = await startLive("stdio", liveArgs, parsed.options, log);
  } catch (error) {
    process.stderr.write(`wymcp stdio: --ui or --record: ${(error as Error).message}\n`);
    await otel?.shutdown();
    return 2;
  }
  const code = await runStdioGate(
    { ...parsed.options, telemetry: otel?.telemetry, tools },
    { input: process.stdin, output: process.stdout },
    log,
    live && { observer: live.observer },
  );
  await live?.close();
  // The server has exited: the last spans and the metrics go out before wymcp does, within the bound.
  if ((await otel?.shutdown()) === "late") process.exit(code);
  return code;
}
