/**
 * @module gate-options: the flags `wymcp proxy` and `wymcp stdio` share (the gates' options, spelled as flags) and
 * their checks, made once when the command starts: a wrong value is a usage error, never a limit that quietly goes away.
 */
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, resolveLimits } from "../core/options.js";
import type { RuleState, Rules } from "../core/rules.js";
import type { GateFlags } from "../hosts/shared/gate-flags.js";
import { asFlags, flagNumber, UsageError } from "./args.js";
import { TOOL_LOCK_FLAG_SPECS, TOOL_LOCK_FLAGS_USAGE, toolLockFlags } from "./tool-lock-flags.js";

/** `parseArgs` declarations of the shared flags. */
export const GATE_FLAG_SPECS = {
  "max-body-bytes": { type: "string" },
  "max-depth": { type: "string" },
  "legacy-checks": { type: "string" },
  formats: { type: "string" },
  outbound: { type: "string" },
  log: { type: "string" },
  "pass-through": { type: "boolean", default: false },
  otel: { type: "boolean", default: false },
  ...TOOL_LOCK_FLAG_SPECS,
  help: { type: "boolean", short: "h", default: false },
} as const;

/** Help text of the shared flags, for each command's usage. */
export const GATE_FLAGS_USAGE = `  --max-body-bytes N  largest message accepted, in bytes (default ${DEFAULT_MAX_BODY_BYTES}, as the gates)
  --max-depth N       deepest nesting of arrays and objects accepted (default ${DEFAULT_MAX_DEPTH}); Infinity turns it off
  --legacy-checks M   params (default), report or framing, as the gates' legacyChecks: params answers a legacy
                      message whose params fail its revision's definition -32602, report hands it on and logs it,
                      framing checks the JSON-RPC framing only
  --formats strict    assert every format of the schemas (uri, uri-template, byte), inbound and outbound; by
                      default (annotation) a format refuses nothing, as the official SDKs accept any string there
  --outbound report   also check every message the server sends back; violations are logged, nothing is altered
  --log F             text (default) or json: one line per refusal on stderr, never anything of the message
  --pass-through      judge nothing, forward everything: the same path without the gate (to measure it)
  --otel              OpenTelemetry traces and metrics of every judged message, exported as the OTEL_*
                      environment variables say (OTLP to localhost:4318 by default); needs the optional
                      peers @opentelemetry/api and @opentelemetry/sdk-node
${TOOL_LOCK_FLAGS_USAGE}
  -h, --help          this text`;

/** The shared flags from `parseArgs` values. */
export function gateFlags(values: Record<string, string | boolean | undefined>): GateFlags {
  // The gates' own check of the mode (legacyChecksOption): an unknown name is a usage error, never a mode that goes away.
  const legacyChecks = legacyChecksFlag(values["legacy-checks"]);
  const formats = formatsFlag(values.formats);
  const outbound = values.outbound ?? "off";
  if (outbound !== "off" && outbound !== "report")
    throw new UsageError(`--outbound must be report (or off), not ${JSON.stringify(outbound)}`);
  const log = values.log ?? "text";
  if (log !== "text" && log !== "json") throw new UsageError(`--log must be text or json, not ${JSON.stringify(log)}`);
  // The limits go through the gates' own check (resolveLimits), so a flag can never switch one off where an option could not.
  const { maxBodyBytes, maxDepth } = asFlags(
    () => resolveLimits({ maxBodyBytes: flagNumber(values["max-body-bytes"]), maxDepth: flagNumber(values["max-depth"]) }),
    values,
  );
  const passThrough = values["pass-through"] === true;
  const otel = values.otel === true;
  if (otel && passThrough) throw new UsageError("--otel records what the gate judges, and --pass-through judges nothing: use one");
  const lock = toolLockFlags(values, (message) => new UsageError(message));
  const rules: { -readonly [R in keyof Rules]: Rules[R] } = {};
  if (legacyChecks !== undefined) rules.params = legacyChecks;
  if (formats !== undefined) rules.formats = formats;
  if (outbound === "report") rules.outbound = "report";
  if (lock.state !== undefined) rules.lock = lock.state;
  return {
    limits: { maxBodyBytes, maxDepth },
    rules,
    ...(lock.lock === undefined ? {} : { tools: { lock: lock.lock } }),
    log,
    passThrough,
    otel,
  };
}

/** The `params` rule's state a `--legacy-checks` mode names (params, report, framing); unset stays unset. */
const LEGACY_CHECKS: Readonly<Record<string, RuleState>> = { params: "enforce", report: "report", framing: "off" };

/**
 * `--legacy-checks` as typed, as the `params` rule's state: unset stays unset (the face's default), an unknown name is
 * a usage error. Every command with the flag reads it here.
 */
export function legacyChecksFlag(value: string | boolean | undefined): RuleState | undefined {
  if (value === undefined) return undefined;
  const state = typeof value === "string" && Object.hasOwn(LEGACY_CHECKS, value) ? LEGACY_CHECKS[value] : undefined;
  if (state === undefined)
    throw new UsageError(`--legacy-checks must be one of "params", "report", "framing", not ${JSON.stringify(value)}`);
  return state;
}

/** `--formats` as typed, as the `formats` rule's state: `strict` enforces it, `annotation` is off; unset stays unset. */
export function formatsFlag(value: string | boolean | undefined): RuleState | undefined {
  if (value === undefined) return undefined;
  if (value === "strict") return "enforce";
  if (value === "annotation") return "off";
  throw new UsageError(`--formats must be one of "annotation", "strict", not ${JSON.stringify(value)}`);
}
