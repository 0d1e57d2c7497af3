/**
 * Every command starts the same way (src/cli/command-start.ts): `--help` prints its usage on standard output and exits
 * 0; a usage error prints the problem and the pointer to `--help` on standard error and exits 2, with nothing on
 * standard output. The commands run in-process; their writes are caught while the arguments are read.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runCheck } from "../src/cli/check/command.js";
import { CHECK_USAGE } from "../src/cli/check/usage.js";
import { runCompile } from "../src/cli/compile/command.js";
import { COMPILE_USAGE } from "../src/cli/compile/usage.js";
import { runInspectCommand } from "../src/cli/inspect/command.js";
import { INSPECT_USAGE } from "../src/cli/inspect/usage.js";
import { runProxyCommand } from "../src/cli/proxy/proxy-command.js";
import { PROXY_USAGE } from "../src/cli/proxy/usage.js";
import { runStdioCommand } from "../src/cli/stdio/stdio-command.js";
import { STDIO_USAGE } from "../src/cli/stdio/usage.js";

/**
 * Runs a command, catching what it writes before its first await (the arguments are read synchronously, so the help
 * and a usage error are written by then); the exit code once it resolves.
 */
async function started(run: (argv: string[]) => Promise<number>, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const { stdout, stderr } = process;
  const writeOut = stdout.write;
  const writeErr = stderr.write;
  stdout.write = ((chunk: string) => ((out += chunk), true)) as typeof stdout.write;
  stderr.write = ((chunk: string) => ((err += chunk), true)) as typeof stderr.write;
  let running: Promise<number>;
  try {
    running = run(argv);
  } finally {
    stdout.write = writeOut;
    stderr.write = writeErr;
  }
  return { code: await running, out, err };
}

const COMMANDS: Array<[string, (argv: string[]) => Promise<number>, string]> = [
  ["check", runCheck, CHECK_USAGE],
  ["compile", runCompile, COMPILE_USAGE],
  ["inspect", runInspectCommand, INSPECT_USAGE],
  ["proxy", runProxyCommand, PROXY_USAGE],
  ["stdio", runStdioCommand, STDIO_USAGE],
];

for (const [command, run, usage] of COMMANDS) {
  test(`wymcp ${command} --help: its usage on standard output, nothing on standard error, exit 0`, async () => {
    assert.deepEqual(await started(run, ["--help"]), { code: 0, out: usage, err: "" });
  });

  test(`wymcp ${command} with an unknown flag: the problem and the pointer to --help on standard error, exit 2`, async () => {
    const { code, out, err } = await started(run, ["--no-such-flag"]);
    assert.deepEqual([code, out], [2, ""]);
    assert.match(err, new RegExp(`^wymcp ${command}: .*--no-such-flag.*\\nRun "wymcp ${command} --help" for the options\\.\\n$`));
  });
}
