/**
 * @module gate-flags: the options `wymcp proxy` and `wymcp stdio` take (the gates' options, as their flags spell
 * them), and how they become a face's checked options (`resolveGate`), by the same checks as `wymcp/node`'s.
 */
import type { HeadersLike } from "../../core/era.js";
import type { Formats } from "../../core/formats.js";
import type { LogFormat } from "../../log/gate-log.js";
import type { LegacyChecks } from "../../core/legacy-checks.js";
import { type ResolvedOptions, resolveOptions } from "../../core/options.js";
import type { ToolLockFlags } from "../../lock/lock-option.js";

export type { ToolLockFlags };

/** The shared options, checked. */
export interface GateFlags extends ToolLockFlags {
  maxBodyBytes: number;
  maxDepth: number;
  /** Unset: the gates' own default. */
  legacyChecks: LegacyChecks | undefined;
  /** Unset: the gates' own default (formats are annotations). */
  formats: Formats | undefined;
  outbound: "off" | "report";
  log: LogFormat;
  /** Forward everything unjudged: the same process with the gate taken out, to measure or rule out the gate. */
  passThrough: boolean;
  /** OpenTelemetry spans and metrics for every judged message, the SDK set up from the `OTEL_*` environment variables. */
  otel: boolean;
}

/** The flags of the HTTP face (`wymcp proxy`) beyond the shared ones, as the gates' options of the same names. */
export interface HttpGateFlags {
  allowedHosts?: readonly string[] | undefined;
  allowedOrigins?: readonly string[] | undefined;
  headerChecks?: boolean | undefined;
  supportedVersions?: readonly string[] | undefined;
}

/**
 * A face's options from its flags, checked as `wymcpNode` and `wymcpFetch` check theirs (`resolveOptions`): the limits,
 * `--legacy-checks` and `--formats` (unset: the gates' defaults) and the era by the SDK's own routing (`classifyEra` on `headersOf` and
 * the body). `clock` (telemetry's) times the validation.
 */
export function resolveGate<R>(
  flags: GateFlags & HttpGateFlags,
  headersOf: (request: R) => HeadersLike | undefined,
  clock?: () => number,
): ResolvedOptions<R> {
  const { maxBodyBytes, maxDepth, legacyChecks, formats, allowedHosts, allowedOrigins, headerChecks, supportedVersions } = flags;
  const resolved = resolveOptions<R>(
    { maxBodyBytes, maxDepth, legacyChecks, formats, allowedHosts, allowedOrigins, headerChecks, supportedVersions },
    [],
    headersOf,
  );
  // With telemetry, the stage times the validation and keeps a refused body for the trace, as the gates' stage does.
  return clock ? { ...resolved, settings: { ...resolved.settings, clock } } : resolved;
}
