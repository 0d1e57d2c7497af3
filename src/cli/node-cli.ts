/**
 * @module cli: the `wymcp` bin, a dispatcher: `wymcp check` (cli/check/), `wymcp compile` (cli/compile/, loaded only by
 * that command), `wymcp proxy` (cli/proxy/), `wymcp stdio` (cli/stdio/) and
 * `wymcp inspect` (cli/inspect/), each loaded only when named. Node-only; the
 * build bundles it into `dist/cli.js`, the package's `bin`.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runCheck } from "./check/command.js";
import { USAGE } from "./check/usage.js";
import { runCompileCommand } from "./compile/entry.js";

/** Runs `wymcp <args>`; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "-h" || command === "--help" || command === "help") {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === "check") return runCheck(rest);
  if (command === "compile") return runCompileCommand(rest);
  if (command === "proxy") return (await import("./proxy/proxy-command.js")).runProxyCommand(rest);
  if (command === "stdio") return (await import("./stdio/stdio-command.js")).runStdioCommand(rest);
  if (command === "inspect") return (await import("./inspect/command.js")).runInspectCommand(rest);
  process.stderr.write(
    `wymcp: unknown command ${JSON.stringify(command)}; the commands are check, compile, inspect, proxy and stdio\nRun "wymcp --help" for them.\n`,
  );
  return 2;
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
