/**
 * @module options: every face's options, checked once when the face is built. A bad value throws `WymcpOptionError`
 * naming the option and the value's type; no limit is ever silently switched off (every comparison with `NaN` is false,
 * so an unchecked `maxBodyBytes: NaN` would let any body through).
 */
import { DEFAULT_MAX_DEPTH } from "./depth.js";
import type { AdmissionSettings, RejectInfo } from "./admission.js";
import { classifyEra, type Era, type HeadersLike } from "./era.js";
import { DEFAULT_FORMATS, FORMATS, type Formats } from "./formats.js";
import type { HostPolicy } from "./host-origin.js";
import { DEFAULT_LEGACY_CHECKS, LEGACY_CHECKS, type LegacyChecks } from "./legacy-checks.js";
import { WymcpOptionError } from "./option-error.js";
import type { Telemetry } from "./telemetry.js";

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

/** The `legacyChecks` option: one of its three names; `undefined` gives the default, `"params"`. */
export function legacyChecksOption(value: unknown): LegacyChecks {
  if (value === undefined) return DEFAULT_LEGACY_CHECKS;
  if ((LEGACY_CHECKS as readonly unknown[]).includes(value)) return value as LegacyChecks;
  const names = LEGACY_CHECKS.map((name) => JSON.stringify(name)).join(", ");
  throw new WymcpOptionError("legacyChecks", `legacyChecks must be one of ${names}, not ${describeValue(value)}`);
}

/** The `formats` option: `"annotation"` or `"strict"`; `undefined` gives the default, `"annotation"`. */
export function formatsOption(value: unknown): Formats {
  if (value === undefined) return DEFAULT_FORMATS;
  if ((FORMATS as readonly unknown[]).includes(value)) return value as Formats;
  const names = FORMATS.map((name) => JSON.stringify(name)).join(", ");
  throw new WymcpOptionError("formats", `formats must be one of ${names}, not ${describeValue(value)}`);
}

/** The limits every face takes, as a user writes them. */
export interface LimitOptions {
  /**
   * Largest body accepted, in bytes; a larger one is answered `413`. A positive integer.
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
export function resolveLimits({ maxBodyBytes, maxDepth }: LimitOptions): AdmissionSettings {
  return {
    maxBodyBytes: positiveInteger("maxBodyBytes", maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    maxDepth: positiveInteger("maxDepth", maxDepth, DEFAULT_MAX_DEPTH, { infinity: true }),
  };
}

/** The options every face takes; `R` is the face's request (a Node request, a Fetch `Request`). */
export interface GateOptions<R> extends LimitOptions {
  /**
   * The lane each POST is judged in: `"legacy"`, `"modern"` (e.g. for a `legacy: "reject"` handler), or a function of
   * the request and the parsed body.
   * @default the SDK's own routing: `classifyEra(headers, body).era`
   */
  era?: EraOption<R>;
  /**
   * Called once per refused request, for logging or metrics, with `{ status, response, reason, era, kind }` and nothing
   * of the body; a throw is ignored.
   * @default none
   */
  onReject?: (info: RejectInfo) => void;
  /**
   * What the legacy lane checks: `"params"` the framing and a known method's params against the revision
   * the request names, `"report"` the same but a params failure is passed on and given to `onLegacyReport`,
   * `"framing"` the JSON-RPC framing alone (docs/validation.md#three-modes-legacychecks).
   * @default `"params"`
   */
  legacyChecks?: LegacyChecks;
  /**
   * With `legacyChecks: "report"`: called once per legacy message whose params fail, with what `onReject` would have
   * received; also, whatever `legacyChecks` says, once per modern request naming a protocol version this library does
   * not know (handed on, judged on its framing), with the -32022 answer `supportedVersions` would have sent.
   * @default none
   */
  onLegacyReport?: (info: RejectInfo) => void;
  /**
   * Whether a schema's `format` is asserted: `"annotation"` refuses no string for its format, as the official
   * SDKs do not; `"strict"` asserts `uri` (RFC 3986), `uri-template` (RFC 6570) and `byte` (base64), inbound and in
   * the outbound report (docs/validation.md#formats-annotations-by-default).
   * @default `"annotation"`
   */
  formats?: Formats;
  /**
   * DNS rebinding protection: the hosts a request's `Host` may name (`"localhost:3000"` that port, `"localhost"` any
   * port). Given (or `allowedOrigins` given), a request of any method whose `Host` is not listed, or whose `Origin` is
   * neither listed in `allowedOrigins` nor of a listed host, is answered `403`. An absent `Origin` is allowed
   * (docs/security.md#the-transports-letter-host-origin-and-headers).
   * @default none: no check (a gate cannot know where it listens)
   */
  allowedHosts?: readonly string[];
  /**
   * Origins a request's `Origin` may name exactly (`"https://app.example"`, `"null"` for an opaque one); see `allowedHosts`.
   * @default none: no check
   */
  allowedOrigins?: readonly string[];
  /**
   * The modern lane's header rules (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` present and matching the body,
   * else `400`/-32020); `false` hands on a request whose headers disagree with its body.
   * @default `true`
   */
  headerChecks?: boolean;
  /**
   * The modern protocol versions the server behind serves (`["2026-07-28"]`). Given, a modern request naming another is
   * answered `400`/-32022. Unset, a version this library does not know is judged on its framing and reported to
   * `onLegacyReport`.
   * @default none
   */
  supportedVersions?: readonly string[];
}

/** A face's options, checked and with their defaults. */
export interface ResolvedOptions<R> {
  settings: AdmissionSettings;
  era: (request: R, body: unknown) => Era | undefined;
  onReject: ((info: RejectInfo) => void) | undefined;
  onLegacyReport: ((info: RejectInfo) => void) | undefined;
  /** The hosts and origins allowed; `undefined`: not checked. */
  hosts: HostPolicy | undefined;
}

/**
 * Checks a face's options once, when it is built: the limits, the era, the hooks, and that every key is one the face
 * knows (a misspelt `maxBodyByte` would otherwise leave the default limit in place without a word).
 * `known` lists the face's own options beyond `GateOptions`; `headersOf` reads a request's headers for the default era.
 */
export function resolveOptions<R>(
  options: unknown,
  known: readonly string[],
  headersOf: (request: R) => HeadersLike | undefined,
): ResolvedOptions<R> {
  if (options === undefined) options = {};
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new WymcpOptionError("options", `the options must be an object, not ${describeValue(options)}`);
  const given = options as GateOptions<R> & Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!GATE_OPTION_KEYS.includes(key) && !known.includes(key)) {
      const names = [...GATE_OPTION_KEYS, ...known].join(", ");
      throw new WymcpOptionError(key, `unknown option ${JSON.stringify(key)}; this face takes ${names}`);
    }
  }
  const validate: NonNullable<AdmissionSettings["validate"]> = {
    legacyChecks: legacyChecksOption(given.legacyChecks),
    formats: formatsOption(given.formats),
  };
  if (headerChecksOption(given.headerChecks) === false) validate.headerChecks = false;
  const supportedVersions = supportedVersionsOption(given.supportedVersions);
  if (supportedVersions) validate.supportedVersions = supportedVersions;
  return {
    settings: { ...resolveLimits(given), validate },
    era: eraOption(given.era, headersOf),
    onReject: optionalFunction("onReject", given.onReject),
    onLegacyReport: optionalFunction("onLegacyReport", given.onLegacyReport),
    hosts: hostPolicyOption(given.allowedHosts, given.allowedOrigins),
  };
}

const GATE_OPTION_KEYS: readonly string[] = [
  "maxBodyBytes",
  "maxDepth",
  "era",
  "onReject",
  "legacyChecks",
  "onLegacyReport",
  "allowedHosts",
  "allowedOrigins",
  "headerChecks",
  "supportedVersions",
  "formats",
];

/** The `headerChecks` option: a boolean or `undefined` (on). */
export function headerChecksOption(value: unknown): boolean {
  if (value === undefined || typeof value === "boolean") return value !== false;
  throw new WymcpOptionError("headerChecks", `headerChecks must be true or false, not ${describeValue(value)}`);
}

/** The `supportedVersions` option: unset, or a non-empty array of `YYYY-MM-DD` revisions. */
export function supportedVersionsOption(value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  // Checked here, not where the versions are used: that module loads the generated validators, which options must not.
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string" && /^\d{4}-\d{2}-\d{2}$/.test(item)))
    return Object.freeze([...(value as string[])]);
  throw new WymcpOptionError(
    "supportedVersions",
    `supportedVersions must be a non-empty array of YYYY-MM-DD revisions, not ${describeValue(value)}`,
  );
}

/**
 * The `allowedHosts` and `allowedOrigins` options: arrays of non-empty strings, lower-cased; both unset turns the
 * check off (`undefined`).
 */
export function hostPolicyOption(allowedHosts: unknown, allowedOrigins: unknown): HostPolicy | undefined {
  if (allowedHosts === undefined && allowedOrigins === undefined) return undefined;
  return { hosts: nonEmptyStrings("allowedHosts", allowedHosts), origins: nonEmptyStrings("allowedOrigins", allowedOrigins) };
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
