/**
 * @module entry: what the CLI loads for `wymcp compile`, lightly: the compiler and its dependencies (optional peer
 * dependencies of wymcp) are imported only when the command runs, with a clear message when they are missing.
 */
import { COMPILE_USAGE } from "./usage.js";

const PEERS = ["ajv", "ajv-formats", "json-schema-to-typescript"];

export async function runCompileCommand(argv: string[]): Promise<number> {
  // Help needs none of the peers (everything after "--" is a stdio server's own command line).
  const own = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (own.includes("--help") || own.includes("-h")) {
    process.stdout.write(COMPILE_USAGE);
    return 0;
  }
  let command: typeof import("./command.js");
  try {
    command = await import("./command.js");
  } catch (error) {
    const missing = PEERS.find((name) => String((error as Error).message).includes(`'${name}'`));
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND" || !missing) throw error;
    process.stderr.write(
      `wymcp compile needs ${PEERS.join(", ")} (optional peer dependencies of wymcp, used at build time only); ` +
        `${missing} is not installed.\nInstall them beside wymcp: npm install --save-dev ajv@^8.18.0 ajv-formats@^3.0.1 json-schema-to-typescript@^16\n`,
    );
    return 2;
  }
  return command.runCompile(argv);
}
