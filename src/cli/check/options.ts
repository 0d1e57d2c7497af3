/** @module options: the arguments of `wymcp check`, read and checked. */
import { parseArgs } from "node:util";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, resolveLimits } from "../../core/options.js";
import { resolveRules } from "../../core/rules.js";
import type { CheckOptions } from "../../check/check-files.js";
import { positiveInteger, UsageError } from "../args.js";
import { formatsFlag, legacyChecksFlag } from "../gate-options.js";

/** Colour as Node's own tty does it: FORCE_COLOR wins ("0"/"false" turn it off), then NO_COLOR, then a terminal. */
export function colourEnabled(env: Record<string, string | undefined>, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force !== "false";
  if (env.NO_COLOR) return false;
  return isTTY && env.TERM !== "dumb";
}

/** `parseArgs` declarations of `wymcp check`'s flags. */
export const CHECK_FLAG_SPECS = {
  era: { type: "string", default: "auto" },
  header: { type: "string", multiple: true, default: [] as string[] },
  direction: { type: "string", default: "auto" },
  method: { type: "string" },
  format: { type: "string", default: "auto" },
  "max-body-bytes": { type: "string" },
  // The name this limit had here before it had one name in every command: kept, so that scripts keep working.
  "max-bytes": { type: "string" },
  "max-depth": { type: "string" },
  "legacy-checks": { type: "string" },
  formats: { type: "string" },
  json: { type: "boolean", default: false },
  quiet: { type: "boolean", short: "q", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** Reads `wymcp check`'s arguments; throws UsageError (or parseArgs' TypeError) with a readable message. */
export function parseCheckOptions(argv: string[]): { options: CheckOptions; files: string[]; help: boolean } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: CHECK_FLAG_SPECS,
  });
  const era = oneOf("era", values.era!, ["legacy", "modern", "auto"] as const);
  const direction = oneOf("direction", values.direction!, ["in", "out", "auto"] as const);
  const headers = headersOf(values.header!);
  if (values.method === "") throw new UsageError("--method takes a method name, e.g. tools/call");
  if (values["max-body-bytes"] !== undefined && values["max-bytes"] !== undefined)
    throw new UsageError("--max-bytes is another name of --max-body-bytes: give one");
  const sizeFlag = values["max-bytes"] !== undefined ? "--max-bytes" : "--max-body-bytes";
  const maxBytes = positiveInteger(sizeFlag, values["max-body-bytes"] ?? values["max-bytes"], DEFAULT_MAX_BODY_BYTES);
  const maxDepth = positiveInteger("--max-depth", values["max-depth"], DEFAULT_MAX_DEPTH, { infinity: true });
  const options: CheckOptions = {
    era,
    direction,
    headers,
    method: values.method,
    // The gates' own check of their limits, which cannot fail on what positiveInteger let through.
    settings: {
      ...resolveLimits({ maxBodyBytes: maxBytes, maxDepth }),
      // The flags as wymcp proxy and wymcp stdio read them, then the gates' defaults when they are absent.
      rules: resolveRules({ params: legacyChecksFlag(values["legacy-checks"]), formats: formatsFlag(values.formats) }, undefined, {
        hosts: false,
        versions: false,
        outbound: false,
        lock: false,
      }),
    },
    format: oneOf("format", values.format!, ["auto", "json", "jsonl", "har"] as const),
    json: values.json!,
    quiet: values.quiet!,
    colour: false,
  };
  return { options, files: positionals, help: values.help! };
}

/** `value` when it is one of `allowed`; otherwise the flag's usage error. */
function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}`);
  return value as T;
}

/** The --header lines ("Name: value") as a record, names lower-cased. */
function headersOf(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of lines) {
    const colon = header.indexOf(":");
    if (colon <= 0) throw new UsageError(`--header takes "Name: value", not ${JSON.stringify(header)}`);
    headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
  }
  return headers;
}
