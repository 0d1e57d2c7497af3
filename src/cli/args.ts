/**
 * @module args: the one reader of every command's arguments. A command declares its flags in a table (a switch, a
 * value, or a value that may repeat) and reads them with `readArgs`: `--name VALUE` or `--name=VALUE`, a switch as
 * `--name` and switched off as `--no-name`, `--` ending the flags. An unknown flag names the nearest known one. One
 * `UsageError` (the command prints it with a pointer to `--help` and exits 2), and one rule for a number flag, the
 * gates' own: digits only, or `Infinity` where the limit may be off, checked by the faces' option checks.
 */
import { didYouMean } from "../core/nearest-name.js";
import { positiveInteger as checkedInteger, WymcpOptionError } from "../options/options.js";

/** A wrong flag: the command prints it with a pointer to --help and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A flag that is on or off: `--name` on, `--no-name` off. */
export const SWITCH = { kind: "switch" } as const;
/** A flag that takes a value, once. */
export const VALUE = { kind: "value" } as const;
/** A flag that takes a value and may be repeated. */
export const LIST = { kind: "value", multiple: true } as const;

export type Flag =
  | { readonly kind: "switch"; readonly short?: string }
  | { readonly kind: "value"; readonly multiple?: true; readonly short?: string };
export type FlagTable = { readonly [name: string]: Flag };

/** What `readArgs` read, by flag: a switch's boolean, a value's text, a repeatable value's list; absent when not given. */
export type FlagValues<T extends FlagTable> = {
  -readonly [K in keyof T]?: T[K] extends { kind: "switch" } ? boolean : T[K] extends { multiple: true } ? string[] : string;
};

/** Every command's `-h`, `--help`. */
export const HELP = { help: { kind: "switch", short: "h" } } as const;

/**
 * Reads `argv` by `table`: the flags' values, the arguments that are no flag, and what follows the first `--`
 * (`undefined` when there is none). Throws `UsageError` on an unknown flag (naming the nearest), a value missing, a
 * switch given a value, or a flag given twice that does not repeat.
 * @example readArgs({ listen: VALUE, json: SWITCH }, ["--listen=:0", "--no-json", "a"]) // { values: { listen: ":0", json: false }, positionals: ["a"], tail: undefined }
 */
export function readArgs<T extends FlagTable>(
  table: T,
  argv: readonly string[],
): { values: FlagValues<T>; positionals: string[]; tail: string[] | undefined } {
  const values: Record<string, boolean | string | string[]> = {};
  const positionals: string[] = [];
  const shorts = new Map<string, string>();
  for (const [name, flag] of Object.entries(table)) if (flag.short) shorts.set(`-${flag.short}`, name);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") return { values: values as FlagValues<T>, positionals, tail: argv.slice(i + 1) };
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const typed = eq > 0 ? arg.slice(0, eq) : arg;
    const name = shorts.get(typed) ?? (typed.startsWith("--") ? typed.slice(2) : undefined);
    const flag = name === undefined ? undefined : Object.hasOwn(table, name) ? table[name] : undefined;
    const negated = flag === undefined && name?.startsWith("no-") ? name.slice(3) : undefined;
    const key = flag ? name! : negated !== undefined && table[negated]?.kind === "switch" ? negated : undefined;
    if (key === undefined) throw new UsageError(`unknown flag ${typed}${didYouMean(typed, flagNames(table))}`);
    if (Object.hasOwn(values, key) && !(table[key]!.kind === "value" && table[key]!.multiple))
      throw new UsageError(`--${key} is given twice`);
    if (table[key]!.kind === "switch") {
      if (eq > 0) throw new UsageError(`${typed} takes no value`);
      values[key] = flag !== undefined;
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[i + 1];
    // A next argument that is itself a flag is no value (as node's parseArgs reads it): --flag=-x says otherwise.
    if (value === undefined || (eq < 0 && value.startsWith("-") && value !== "-"))
      throw new UsageError(`--${key} takes a value${value === undefined ? "" : ` (write --${key}=${value} for one that begins with "-")`}`);
    if (eq < 0) i++;
    if (table[key]!.kind === "value" && (table[key] as { multiple?: true }).multiple) ((values[key] ??= []) as string[]).push(value);
    else values[key] = value;
  }
  return { values: values as FlagValues<T>, positionals, tail: undefined };
}

/** Every spelling a table accepts: `--name`, `--no-name` for a switch, and the short ones. */
export function flagNames(table: FlagTable): string[] {
  return Object.entries(table).flatMap(([name, flag]) => [
    `--${name}`,
    ...(flag.kind === "switch" ? [`--no-${name}`] : []),
    ...(flag.short ? [`-${flag.short}`] : []),
  ]);
}

/** A flag's value as a positive safe integer (`Infinity` where `infinity` allows it), or its default when it is absent. */
export function positiveInteger(flag: string, value: string | undefined, fallback: number, { infinity = false } = {}): number {
  return asFlags(() => checkedInteger(flag, flagNumber(value), fallback, { infinity }), { [flag]: value });
}

/** The number a flag's text spells: digits only (no `1e3`, no sign, no blank), or `Infinity`; anything else is `NaN`. */
export function flagNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (value === "Infinity") return Number.POSITIVE_INFINITY;
  return /^\d+$/.test(value) ? Number(value) : Number.NaN;
}

/** The flags each option of the core's checks is spelled as. */
const FLAG_OF: Record<string, string> = {
  maxBodyBytes: "--max-body-bytes",
  maxDepth: "--max-depth",
  "limits.maxBodyBytes": "--max-body-bytes",
  "limits.maxDepth": "--max-depth",
};

/** Runs a core check; its `WymcpOptionError` becomes a usage error naming the flag and the text as it was typed. */
export function asFlags<T>(check: () => T, values: { readonly [flag: string]: unknown }): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof WymcpOptionError)) throw error;
    const flag = FLAG_OF[error.option] ?? error.option;
    const typed = values[flag.replace(/^--/, "")] ?? values[flag];
    // The core's words ("must be a positive integer", "or Infinity") with the flag's name and the value as typed.
    const rule = error.message.replace(/^wymcp: \S+ /, "").replace(/, not [\s\S]*$/, "");
    throw new UsageError(`${flag} ${rule}, not ${JSON.stringify(typed)}`);
  }
}

/** `value` when it is one of `allowed`; otherwise the flag's usage error, naming the nearest. */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${flag} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}${didYouMean(value, allowed)}`);
}

/**
 * `HOST:PORT` as every listening flag takes it (`--listen`, `--ui`): an IPv6 host in brackets, an empty host meaning
 * `127.0.0.1`, a port from 0 to 65535.
 * @example hostPort("--listen", "[::1]:8080") // { host: "::1", port: 8080 }
 */
export function hostPort(flag: string, value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) throw new UsageError(`${flag} takes HOST:PORT (e.g. 127.0.0.1:0), not ${JSON.stringify(value)}`);
  return { host: match[1] ?? (match[2] || "127.0.0.1"), port };
}

/** `--header "Name: value"` lines as a record; `lower` lower-cases the names. */
export function headerLines(lines: readonly string[] | undefined, lower: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const header of lines ?? []) {
    const colon = header.indexOf(":");
    if (colon <= 0) throw new UsageError(`--header takes "Name: value", not ${JSON.stringify(header)}`);
    const name = header.slice(0, colon).trim();
    headers[lower ? name.toLowerCase() : name] = header.slice(colon + 1).trim();
  }
  return headers;
}

/** What every command prints for a usage error: the problem, then where the options are. */
export function usageProblem(command: string, error: unknown): string {
  return `wymcp ${command}: ${error instanceof Error ? error.message : String(error)}\nRun "wymcp ${command} --help" for the options.\n`;
}
