/**
 * @module command: `wymcp check`: its arguments, its help, and standard output for the checker's report (`checkFiles`,
 * src/check/check-files.ts).
 */
import { type CheckSink, checkFiles } from "../../check/check-files.js";
import { usageProblem } from "../args.js";
import { commandArgs } from "../command-start.js";
import { colourEnabled, parseCheckOptions } from "./options.js";
import { CHECK_USAGE } from "./usage.js";

const STDOUT: CheckSink = {
  write: (text) => process.stdout.write(text) || new Promise<void>((resolve) => process.stdout.once("drain", resolve)),
  warn: (problem) => void process.stderr.write(`wymcp check: ${problem}\n`),
};

/** Runs `wymcp check <argv>`; resolves to the exit code. */
export async function runCheck(argv: string[]): Promise<number> {
  const read = commandArgs("check", argv, parseCheckOptions, CHECK_USAGE);
  if ("exit" in read) return read.exit;
  const { options, files } = read.args;
  if (files.length === 0) {
    if (process.stdin.isTTY) {
      process.stderr.write(usageProblem("check", "no input: name files to check, or pipe messages to standard input (one per line)"));
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
  const { exitCode } = await checkFiles(files, options, STDOUT);
  return exitCode;
}
