/**
 * @module args: what every command reads its arguments with: one `UsageError` (the command prints its message with a
 * pointer to `--help` and exits 2), and one rule for a number flag, the gates' own: digits only, or `Infinity` where
 * the limit may be off, checked by the core's option checks (so a flag can never switch off a limit an option could not).
 */
import { positiveInteger as checkedInteger, WymcpOptionError } from "../core/options.js";

/** A wrong flag: the command prints it with a pointer to --help and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A flag's value as a positive safe integer (`Infinity` where `infinity` allows it), or its default when it is absent. */
export function positiveInteger(
  flag: string,
  value: string | boolean | undefined,
  fallback: number,
  { infinity = false }: { infinity?: boolean } = {},
): number {
  return asFlags(() => checkedInteger(flag, flagNumber(value), fallback, { infinity }), { [flag]: value });
}

/** The number a flag's text spells: digits only (no `1e3`, no sign, no blank), or `Infinity`; anything else is `NaN`. */
export function flagNumber(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (value === "Infinity") return Number.POSITIVE_INFINITY;
  return typeof value === "string" && /^\d+$/.test(value) ? Number(value) : Number.NaN;
}

/** The flags each option of the core's checks is spelled as. */
const FLAG_OF: Record<string, string> = {
  "limits.maxBodyBytes": "--max-body-bytes",
  "limits.maxDepth": "--max-depth",
  "rules.params": "--legacy-checks",
  "rules.formats": "--formats",
};

/** Runs a core check; its `WymcpOptionError` becomes a usage error naming the flag and the text as it was typed. */
export function asFlags<T>(check: () => T, values: Record<string, string | boolean | undefined>): T {
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
