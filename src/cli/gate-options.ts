/**
 * @module gate-options: the flags `wymcp proxy` and `wymcp stdio` share (the gates' options, spelled as flags) and
 * their checks, made once when the command starts: a wrong value is a usage error, never a limit that quietly goes away.
 */
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH } from "../hosts/admit.js";
import type { LogFormat } from "./gate-log.js";

/** How the legacy lane judges a known method's params (the gates' `legacyChecks` option). */
export type LegacyChecks = "params" | "report" | "framing";

/** The shared options, checked. */
export interface GateFlags {
  maxBodyBytes: number;
  maxDepth: number;
  /** Unset: the gates' own default. */
  legacyChecks: LegacyChecks | undefined;
  outbound: "off" | "report";
  log: LogFormat;
  /** Forward everything unjudged: the same process with the gate taken out, to measure or rule out the gate. */
  passThrough: boolean;
}

/** `parseArgs` declarations of the shared flags. */
export const GATE_FLAG_SPECS = {
  "max-body-bytes": { type: "string" },
  "max-depth": { type: "string" },
  "legacy-checks": { type: "string" },
  outbound: { type: "string" },
  log: { type: "string" },
  "pass-through": { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** Help text of the shared flags, for each command's usage. */
export const GATE_FLAGS_USAGE = `  --max-body-bytes N  largest message accepted, in bytes (default ${DEFAULT_MAX_BODY_BYTES}, as the gates)
  --max-depth N       deepest nesting of arrays and objects accepted (default ${DEFAULT_MAX_DEPTH}); Infinity turns it off
  --legacy-checks M   params, report or framing: how the legacy lane judges a known method's params
                      (default: the gates' own)
  --outbound report   also check every message the server sends back; violations are logged, nothing is altered
  --log F             text (default) or json: one line per refusal on stderr, never anything of the message
  --pass-through      judge nothing, forward everything: the same path without the gate (to measure it)
  -h, --help          this text`;

/** A wrong flag: the command prints it with a pointer to --help and exits 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The shared flags from `parseArgs` values. */
export function gateFlags(values: Record<string, string | boolean | undefined>): GateFlags {
  const legacyChecks = values["legacy-checks"];
  if (legacyChecks !== undefined && legacyChecks !== "params" && legacyChecks !== "report" && legacyChecks !== "framing") {
    throw new UsageError(`--legacy-checks must be params, report or framing, not ${JSON.stringify(legacyChecks)}`);
  }
  const outbound = values.outbound ?? "off";
  if (outbound !== "off" && outbound !== "report")
    throw new UsageError(`--outbound must be report (or off), not ${JSON.stringify(outbound)}`);
  const log = values.log ?? "text";
  if (log !== "text" && log !== "json") throw new UsageError(`--log must be text or json, not ${JSON.stringify(log)}`);
  return {
    maxBodyBytes: positiveInteger("--max-body-bytes", values["max-body-bytes"], DEFAULT_MAX_BODY_BYTES),
    maxDepth:
      values["max-depth"] === "Infinity"
        ? Number.POSITIVE_INFINITY
        : positiveInteger("--max-depth", values["max-depth"], DEFAULT_MAX_DEPTH),
    legacyChecks,
    outbound,
    log,
    passThrough: values["pass-through"] === true,
  };
}

/** A flag's value as a positive safe integer, or its default when it is absent. */
export function positiveInteger(flag: string, value: string | boolean | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer, not ${JSON.stringify(value)}`);
  return n;
}
