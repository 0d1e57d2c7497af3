/**
 * @module gate-flags: the options `wymcp proxy` and `wymcp stdio` take (grouped as the library faces group theirs:
 * `limits`, `rules`, `mode`, `allow`, `tools`), and how they become a face's checked options (`resolveGate`), by the
 * same checks as `wymcp/node`'s.
 */
import type { HeadersLike } from "../../core/era.js";
import type { LogFormat } from "../../log/gate-log.js";
import { type AllowOptions, type LimitOptions, type ResolvedOptions, resolveOptions } from "../../options/options.js";
import type { Mode, Rules } from "../../core/rules.js";
import type { Report, RuleStates } from "../../core/rules.js";
import type { GateLog } from "../../log/gate-log.js";
import { loggedRejections, loggedToolLock } from "../../lock/lock-log.js";
import type { ToolLockWatch } from "../../lock/tool-lock.js";
import { type ToolsAtEdge, type ToolsOptions, toolsOption } from "../../tools/tools-at-edge.js";

/** The options both command-line faces take. */
export interface GateFlags {
  /** The bounds on a message: `{ maxBodyBytes, maxDepth }`; unset ones take the gates' defaults. */
  limits: LimitOptions;
  /**
   * The rules' states; unset ones take the gates' defaults. `outbound` given a state other than `"off"` turns the
   * check of the server's messages on (`validateMcpResponse`, which these faces carry).
   */
  rules?: Rules | undefined;
  /** `"report"` (`--report`): every enforced rule reports, nothing is refused. */
  mode?: Mode | undefined;
  /** The hosts and origins allowed (the proxy), and the server's modern versions. */
  allow?: AllowOptions | undefined;
  /** The server's tools, given (`--tools`) or learned, and the tools lock (`--tools-lock`). */
  tools?: ToolsOptions | undefined;
  log: LogFormat;
  /** Forward everything unjudged: the same process with the gate taken out, to measure or rule out the gate. */
  passThrough: boolean;
  /** OpenTelemetry spans and metrics for every judged message, the SDK set up from the `OTEL_*` environment variables. */
  otel: boolean;
}

/**
 * A face's options from its flags, checked as `wymcpNode` and `wymcpFetch` check theirs (`resolveOptions`): the limits,
 * the rules and mode (unset: the gates' defaults), `allow`, and the era by the SDK's own routing (`classifyEra` on
 * `headersOf` and the body). `hosts`: the face sets a host policy itself (the proxy on a loopback address). `clock`
 * (telemetry's) times the validation.
 */
export function resolveGate<R>(
  flags: GateFlags,
  face: { headersOf: (request: R) => HeadersLike | undefined; hosts?: boolean; clock?: (() => number) | undefined },
): ResolvedOptions<R> {
  const { limits, rules, mode, allow, tools } = flags;
  const resolved = resolveOptions<R>(
    { limits, rules, mode, allow },
    {
      keys: [],
      headersOf: face.headersOf,
      // The command line carries the outbound check: a state given to the rule is what turns it on.
      context: { outbound: (rules?.outbound ?? "off") !== "off", lock: tools?.lock !== undefined, hosts: face.hosts === true },
    },
  );
  // With telemetry, the stage times the validation and keeps a refused body for the trace, as the gates' stage does.
  return face.clock ? { ...resolved, settings: { ...resolved.settings, clock: face.clock } } : resolved;
}

/**
 * The lock and the server's tools a command-line gate's flags turn on, by their rules' states, each refusal a log line
 * and each report to `onReport`; neither when the gate only relays (`--pass-through`).
 */
export function gateFeatures({
  flags,
  rules,
  log,
  onReport,
}: {
  flags: GateFlags;
  rules: RuleStates;
  log: GateLog;
  onReport: (report: Report) => void;
}): { toolLock: ToolLockWatch | undefined; tools: ToolsAtEdge | undefined } {
  if (flags.passThrough) return { toolLock: undefined, tools: undefined };
  const onReject = loggedRejections(log);
  return {
    toolLock: loggedToolLock(flags.tools?.lock, rules.lock, onReject, onReport),
    tools: toolsOption(flags.tools, {
      paramHeaders: rules.paramHeaders,
      toolArguments: rules.toolArguments,
      onReject,
      onReport,
    }),
  };
}
