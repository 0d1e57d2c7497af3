/**
 * @module command-start: how every command reads its arguments before it does anything: `--help` prints the command's
 * usage and exits 0, a usage error prints the problem with a pointer to `--help` and exits 2.
 */
import { usageProblem } from "./args.js";

/** What a command's reader gives back: its arguments, or `"help"` (or arguments with `help: true`) for `--help`. */
type Read = "help" | object;

/** The arguments `parse` reads of `argv`; or, for `--help` and for a usage error, the exit code, the text written. */
export function commandArgs<T extends Read>(
  command: string,
  argv: string[],
  parse: (argv: string[]) => T,
  usage: string,
): { args: Exclude<T, "help"> } | { exit: 0 | 2 } {
  let read: T;
  try {
    read = parse(argv);
  } catch (error) {
    process.stderr.write(usageProblem(command, error));
    return { exit: 2 };
  }
  if (read === "help" || (read as { help?: boolean }).help === true) {
    process.stdout.write(usage);
    return { exit: 0 };
  }
  return { args: read as Exclude<T, "help"> };
}
