/**
 * @module options: every face's options, checked once when the face is built. A bad value throws `WymcpOptionError`
 * naming the option and the value's type; no limit is ever silently switched off (every comparison with `NaN` is false,
 * so an unchecked `maxBodyBytes: NaN` would let any body through).
 */
import { DEFAULT_MAX_DEPTH } from "../core/depth.js";
import type { AdmissionSettings, RejectInfo } from "../core/admission.js";
import { classifyEra, type Era, type HeadersLike } from "../core/era.js";
import type { HostPolicy } from "../core/host-origin.js";
import { didYouMean } from "../core/nearest-name.js";
import { WymcpOptionError } from "../core/option-error.js";
import { isRevision } from "../core/routing-shapes.js";
import { type Mode, type Report, type RuleContext, type Rules, type RuleStates, resolveRules } from "../core/rules.js";
import type { Telemetry } from "../telemetry/telemetry.js";

export { DEFAULT_MAX_DEPTH, WymcpOptionError };

/** Default largest body read, in bytes (4 MiB, the official SDK's own default). */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The value as the error message shows it: its type, and a number or a short string itself (never an object's content). */
export function describeValue(value: unknown): string {
  if (typeof value === "number") return `${String(value)} (a number)`;
  if (typeof value === "string") return `${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)} (a string)`;
  if (value === null) return "null";
  return Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * A positive whole number (a safe integer ≥ 1), or `Infinity` when `infinity` allows it; `undefined` gives `fallback`.
 * @example positiveInteger("maxDepth", 32, 64, { infinity: true }) === 32
 */
export function positiveInteger(name: string, value: unknown, fallback: number, { infinity = false } = {}): number {
  if (value === undefined) return fallback;
  if (typeof value === "number" && ((Number.isSafeInteger(value) && value >= 1) || (infinity && value === Number.POSITIVE_INFINITY)))
    return value;
  throw new WymcpOptionError(name, `${name} must be a positive integer${infinity ? " or Infinity" : ""}, not ${describeValue(value)}`);
}

/** A callback option: a function or `undefined`. */
export function optionalFunction<F>(name: string, value: unknown): F | undefined {
  if (value === undefined || typeof value === "function") return value as F | undefined;
  throw new WymcpOptionError(name, `${name} must be a function, not ${describeValue(value)}`);
}

/**
 * The `telemetry` option of the HTTP faces: `undefined`, or an observer with a `judged` method (`mcpTelemetry()` from
 * `wymcp/otel`). Anything else throws, as a misspelt option does: a user who asked for traces must not get none in silence.
 */
export function telemetryOption(value: unknown): Telemetry | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "object" && value !== null && typeof (value as Partial<Telemetry>).judged === "function") {
    const { recording } = value as Partial<Telemetry>;
    if (recording !== undefined && typeof recording !== "function")
      throw new WymcpOptionError("telemetry", `telemetry's recording must be a method, not ${describeValue(recording)}`);
    return value as Telemetry;
  }
  throw new WymcpOptionError(
    "telemetry",
    `telemetry must be an object with a judged method (mcpTelemetry() from "wymcp/otel"), not ${describeValue(value)}`,
  );
}

/** The `era` option of every face: a fixed lane, or a function of the request and the parsed body (`undefined`: legacy). */
export type EraOption<R> = Era | ((request: R, body: unknown) => Era | undefined);

/**
 * The era of each POST: the option as given, or by default the SDK's own routing (`classifyEra` on the request's
 * headers and the body), which every face shares; a request with no signal is legacy either way.
 */
export function eraOption<R>(
  value: unknown,
  headersOf: (request: R) => HeadersLike | undefined,
): (request: R, body: unknown) => Era | undefined {
  if (value === undefined) return (request, body) => classifyEra(headersOf(request), body).era;
  if (typeof value === "function") return value as (request: R, body: unknown) => Era | undefined;
  if (value === "legacy" || value === "modern") return () => value;
  throw new WymcpOptionError("era", `era must be "legacy", "modern" or a function, not ${describeValue(value)}`);
}

/** The limits every face takes (`limits`), as a user writes them. */
export interface LimitOptions {
  /**
   * Largest body accepted, in bytes; a larger one is answered `413`. A positive integer. The bound holds in every mode:
   * it is what wymcp holds of a body at most (docs/decisions/report-mode-unjudged-bodies.md).
   * @default `4194304` (4 MiB, the official SDK's own)
   */
  maxBodyBytes?: number;
  /**
   * Deepest nesting of arrays and objects accepted (`{}` is 1); a deeper body is answered `400`/-32600. A positive
   * integer, or `Infinity` to turn the bound off.
   * @default `64`
   */
  maxDepth?: number;
}

/** The limits, checked: `maxBodyBytes` a positive integer, `maxDepth` a positive integer or `Infinity`. */
export function resolveLimits({ maxBodyBytes, maxDepth }: LimitOptions): { maxBodyBytes: number; maxDepth: number } {
  return {
    maxBodyBytes: positiveInteger("limits.maxBodyBytes", maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    maxDepth: positiveInteger("limits.maxDepth", maxDepth, DEFAULT_MAX_DEPTH, { infinity: true }),
  };
}

/** What a face lets in by name (`allow`): the hosts and origins of DNS rebinding protection, and the server's protocol versions. */
export interface AllowOptions {
  /**
   * The hosts a request's `Host` may name (`"localhost:3000"` that port, `"localhost"` any port). Given (or `origins`
   * given), the `origin` rule is enforced by default: a request of any method whose `Host` is not listed, or whose
   * `Origin` is neither listed in `origins` nor of a listed host, is answered `403`. An absent `Origin` is allowed
   * (docs/security.md#the-transports-letter-host-origin-and-headers).
   * @default none: no check (a gate cannot know where it listens)
   */
  hosts?: readonly string[];
  /**
   * Origins a request's `Origin` may name exactly (`"https://app.example"`, `"null"` for an opaque one); see `hosts`.
   * @default none: no check
   */
  origins?: readonly string[];
  /**
   * The modern protocol versions the server behind serves (`["2026-07-28"]`). Given, the `versions` rule is enforced by
   * default: a modern request naming another is answered `400`/-32022. Unset, the versions this library knows are the
   * list, and the rule reports by default.
   * @default none: the versions this library knows
   */
  versions?: readonly string[];
}

/** The options every face takes; `R` is the face's request (a Node request, a Fetch `Request`). */
export interface GateOptions<R> {
  /**
   * The lane each POST is judged in: `"legacy"`, `"modern"` (e.g. for a `legacy: "reject"` handler), or a function of
   * the request and the parsed body.
   * @default the SDK's own routing: `classifyEra(headers, body).era`
   */
  era?: EraOption<R>;
  /**
   * The bounds on a body: `{ maxBodyBytes, maxDepth }`, and `discardTimeoutMs` on Node.
   * @default `{ maxBodyBytes: 4194304, maxDepth: 64 }` (and `discardTimeoutMs: 5000` on Node)
   */
  limits?: LimitOptions;
  /**
   * `"report"` turns every enforced rule to report: nothing is refused, every message reaches the server, and each
   * would-be refusal goes to `onReport` (the shadow mode to run before enforcing; docs/guides/report-mode.md).
   * @default `"enforce"`
   */
  mode?: Mode;
  /**
   * A state per rule, `"enforce"`, `"report"` or `"off"`: `origin`, `limits`, `framing`, `params`, `formats`,
   * `headers`, `versions`, `lock`, `paramHeaders`, `toolArguments`, `outbound` (docs/validation.md#the-rules).
   * @default every check enforced but `formats` (off), `versions` (report; enforce with `allow.versions`), `lock` (report), `origin` and `outbound` (on when given what they judge by)
   */
  rules?: Rules;
  /**
   * What the face lets in by name: `{ hosts, origins, versions }`.
   * @default none
   */
  allow?: AllowOptions;
  /**
   * Called once per refused request, for logging or metrics, with `{ status, response, reason, rule, era, kind }` and
   * nothing of the body; a throw is ignored.
   * @default none
   */
  onReject?: (info: RejectInfo) => void;
  /**
   * Called once per would-be refusal of a rule in `"report"`, and per violation of a rule that refuses nothing (the
   * outbound check, a tools lock's drift), with `{ rule, direction, era, method, id, client, status, code, message }`
   * and nothing of the body; a throw is ignored.
   * @default none (a lock's drift: one `console.warn` line each)
   */
  onReport?: (report: Report) => void;
}

/** A face's options, checked and with their defaults. */
export interface ResolvedOptions<R> {
  settings: AdmissionSettings & { readonly rules: RuleStates };
  era: (request: R, body: unknown) => Era | undefined;
  onReject: ((info: RejectInfo) => void) | undefined;
  onReport: ((report: Report) => void) | undefined;
  /** The hosts and origins allowed; `undefined`: not checked. */
  hosts: HostPolicy | undefined;
}

/** What a face tells `resolveOptions` of itself. */
export interface FaceKeys<R> {
  /** The face's own top-level options beyond `GateOptions`. */
  keys: readonly string[];
  /** The `limits` it takes beyond `maxBodyBytes` and `maxDepth`. */
  limits?: readonly string[];
  /** Reads a request's headers, for the default era. */
  headersOf: (request: R) => HeadersLike | undefined;
  /** What the rules' defaults depend on beyond `allow`: an outbound check, a tools lock, a host policy the face sets itself. */
  context?: Partial<RuleContext>;
}

const GATE_OPTION_KEYS: readonly string[] = ["era", "limits", "mode", "rules", "allow", "onReject", "onReport"];
const LIMIT_KEYS: readonly string[] = ["maxBodyBytes", "maxDepth"];
const ALLOW_KEYS: readonly string[] = ["hosts", "origins", "versions"];

/**
 * Checks a face's options once, when it is built: the limits, the rules and mode, the era, the hooks, and that every
 * key is one the face knows (a misspelt `maxBodyByte` would otherwise leave the default limit in place without a word:
 * the error names the nearest known key).
 */
export function resolveOptions<R>(options: unknown, face: FaceKeys<R>): ResolvedOptions<R> {
  const given = objectOption("options", options === undefined ? {} : options) as GateOptions<R> & Record<string, unknown>;
  knownKeys("", given, [...GATE_OPTION_KEYS, ...face.keys]);
  const limits = objectOption("limits", given.limits ?? {}) as LimitOptions & Record<string, unknown>;
  knownKeys("limits.", limits, [...LIMIT_KEYS, ...(face.limits ?? [])]);
  const allow = objectOption("allow", given.allow ?? {}) as AllowOptions;
  knownKeys("allow.", allow as Record<string, unknown>, ALLOW_KEYS);
  const hosts = hostPolicyOption(allow.hosts, allow.origins);
  const versions = versionsOption(allow.versions);
  const rules = resolveRules(given.rules, given.mode, {
    hosts: hosts !== undefined || face.context?.hosts === true,
    versions: versions !== undefined,
    outbound: face.context?.outbound === true,
    lock: face.context?.lock === true,
  });
  const settings: AdmissionSettings & { rules: RuleStates } = versions
    ? { ...resolveLimits(limits), rules, versions }
    : { ...resolveLimits(limits), rules };
  return {
    settings,
    era: eraOption(given.era, face.headersOf),
    onReject: optionalFunction("onReject", given.onReject),
    onReport: optionalFunction("onReport", given.onReport),
    hosts,
  };
}

/** An option that is an object of options (the face's, `limits`, `allow`, `tools`): anything else throws. */
export function objectOption(name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new WymcpOptionError(name, `${name === "options" ? "the options" : name} must be an object, not ${describeValue(value)}`);
  return value as Record<string, unknown>;
}

/** The flat options the faces took before the groups, and where each is now (CHANGELOG.md has the table). */
const MOVED_OPTIONS: Readonly<Record<string, string>> = {
  maxBodyBytes: "limits.maxBodyBytes",
  maxDepth: "limits.maxDepth",
  discardTimeoutMs: "limits.discardTimeoutMs",
  legacyChecks: "rules.params",
  onLegacyReport: "onReport",
  formats: "rules.formats",
  allowedHosts: "allow.hosts",
  allowedOrigins: "allow.origins",
  headerChecks: "rules.headers",
  supportedVersions: "allow.versions",
  outboundCheck: "outbound",
  onOutboundViolation: "onReport",
  toolsLock: "tools.lock",
  toolsLockMode: "rules.lock",
  onToolDrift: "onReport",
};

/** Throws on a key `known` lacks, naming where an old flat option went, else the nearest known one; `prefix` is the group's (`"limits."`). */
export function knownKeys(prefix: string, given: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(given)) {
    if (known.includes(key)) continue;
    const moved = prefix === "" && Object.hasOwn(MOVED_OPTIONS, key) ? ` (now ${MOVED_OPTIONS[key]})` : undefined;
    throw new WymcpOptionError(
      `${prefix}${key}`,
      `unknown option ${JSON.stringify(`${prefix}${key}`.slice(0, 80))}${moved ?? didYouMean(key, known)}; ${prefix === "" ? "this face takes" : `${prefix.slice(0, -1)} takes`} ${known.join(", ")}`,
    );
  }
}

/** The `allow.versions` option: unset, or a non-empty array of `YYYY-MM-DD` revisions. */
export function versionsOption(value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  // Checked here, not where the versions are used: that module loads the generated validators, which options must not.
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string" && isRevision(item)))
    return Object.freeze([...(value as string[])]);
  throw new WymcpOptionError(
    "allow.versions",
    `allow.versions must be a non-empty array of YYYY-MM-DD revisions, not ${describeValue(value)}`,
  );
}

/**
 * The `allow.hosts` and `allow.origins` options: arrays of non-empty strings, lower-cased; both unset turns the
 * check off (`undefined`).
 */
export function hostPolicyOption(hosts: unknown, origins: unknown): HostPolicy | undefined {
  if (hosts === undefined && origins === undefined) return undefined;
  return { hosts: nonEmptyStrings("allow.hosts", hosts), origins: nonEmptyStrings("allow.origins", origins) };
}

function nonEmptyStrings(name: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item.trim() === ""))
    throw new WymcpOptionError(name, `${name} must be an array of non-empty strings, not ${describeValue(value)}`);
  return value.map((item: string) => item.trim().toLowerCase());
}

/**
 * The era of a request with no body to judge (a GET stream in report mode): the option's for no body, legacy when it
 * gives none or throws (nothing is refused on a stream, so a broken callback must not break it).
 */
export function eraWithoutBody<R>(era: (request: R, body: unknown) => Era | undefined, request: R): Era {
  try {
    return era(request, undefined) ?? "legacy";
  } catch {
    return "legacy";
  }
}
