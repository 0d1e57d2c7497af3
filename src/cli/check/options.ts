/** @module options: the arguments of `wymcp check` (and `wymcp inspect`, which judges as it does), read and checked. */
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, resolveLimits, WymcpOptionError } from "../../options/options.js";
import { type RuleName, resolveRules } from "../../core/rules.js";
import type { CheckOptions } from "../../check/check-files.js";
import { CHECKED_RULES } from "../../check/by-rule.js";
import { type FlagValues, HELP, headerLines, LIST, oneOf, positiveInteger, readArgs, SWITCH, UsageError, VALUE } from "../args.js";
import { RULE_FLAGS, ruleFlags, ruleProblem } from "../rule-flags.js";

/** Colour as Node's own tty does it: FORCE_COLOR wins ("0"/"false" turn it off), then NO_COLOR, then a terminal. */
export function colourEnabled(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force !== "false";
  if (env.NO_COLOR) return false;
  return isTTY && env.TERM !== "dumb";
}

/** `wymcp check`'s flags. */
export const CHECK_FLAGS = {
  era: VALUE,
  header: LIST,
  direction: VALUE,
  method: VALUE,
  format: VALUE,
  "max-body-bytes": VALUE,
  "max-depth": VALUE,
  ...RULE_FLAGS,
  json: SWITCH,
  quiet: { kind: "switch", short: "q" },
  ...HELP,
} as const;

/** Reads `wymcp check`'s arguments; throws UsageError with a readable message. */
export function parseCheckOptions(argv: string[]): { options: CheckOptions; files: string[]; help: boolean } {
  const { values, positionals, tail } = readArgs(CHECK_FLAGS, argv);
  return { options: checkOptions(values), files: [...positionals, ...(tail ?? [])], help: values.help === true };
}

/** The judging and output options from the flags read (`wymcp inspect` reads the same with its own beside them). */
export function checkOptions(values: FlagValues<typeof CHECK_FLAGS>): CheckOptions {
  if (values.method === "") throw new UsageError("--method takes a method name, e.g. tools/call");
  const maxBodyBytes = positiveInteger("--max-body-bytes", values["max-body-bytes"], DEFAULT_MAX_BODY_BYTES);
  const maxDepth = positiveInteger("--max-depth", values["max-depth"], DEFAULT_MAX_DEPTH, { infinity: true });
  const { rules, mode } = ruleFlags(values);
  const unapplied = Object.keys(rules).find((rule) => !CHECKED_RULES.includes(rule as RuleName));
  if (unapplied !== undefined)
    throw new UsageError(`--rule ${unapplied}: wymcp check applies ${CHECKED_RULES.join(", ")} (a capture has no tools, lock or listener)`);
  if (rules.outbound === "off")
    throw new UsageError("--rule outbound=off: wymcp check judges every server message; give --direction in to judge them as a client's");
  let states: ReturnType<typeof resolveRules>;
  try {
    // A server's message is judged as wymcp/outbound judges it, and a violation counts as a rejection, unless reported.
    states = resolveRules({ outbound: "enforce", ...rules }, mode, { hosts: false, versions: false, outbound: true, lock: false });
  } catch (error) {
    if (error instanceof WymcpOptionError) throw new UsageError(ruleProblem(error));
    throw error;
  }
  return {
    era: oneOf("era", values.era ?? "auto", ["legacy", "modern", "auto"] as const),
    direction: oneOf("direction", values.direction ?? "auto", ["in", "out", "auto"] as const),
    headers: headerLines(values.header, true),
    method: values.method,
    // The gates' own check of their limits, which cannot fail on what positiveInteger let through.
    settings: { ...resolveLimits({ maxBodyBytes, maxDepth }), rules: states },
    format: oneOf("format", values.format ?? "auto", ["auto", "json", "jsonl", "har"] as const),
    json: values.json === true,
    quiet: values.quiet === true,
    colour: false,
  };
}
