/**
 * @module face: the options every library face takes (`gateNode`, `wymcpNode`, `gateFetch`, `wymcpFetch`), checked
 * once when the face is built, and what they become: the admission stage's settings and rule states, the hooks, the
 * outbound check, the telemetry, the server's tools and the tools lock, each told the states of its own rules.
 */
import type { HeadersLike } from "../../core/era.js";
import { type GateOptions, objectOption, type ResolvedOptions, resolveOptions, telemetryOption } from "../../options/options.js";
import { deliverReport, type Report, type RuleStates } from "../../core/rules.js";
import type { Telemetry } from "../../telemetry/telemetry.js";
import type { ExchangeTracer } from "../../core/trace.js";
import { ToolLockWatch, toolsLockOption } from "../../lock/tool-lock.js";
import { type ToolSchemaCompiler, type ToolsAtEdge, type ToolsOptions, toolsOption, toolsOptions } from "../../tools/tools-at-edge.js";
import { now, tracerOf } from "../../telemetry/traced.js";
import { type OutboundCheck, outboundSettings, type ReportSettings } from "../../outbound/tap.js";
import type { Formats } from "../../core/formats.js";

/** The options of every library face beyond the core's: the server's tools, the outbound check, the telemetry. */
export interface FaceOptions<R> extends GateOptions<R> {
  /**
   * The server's tools: `{ given, learn, compile, lock, callerHeaders, onEvent }`, or a `tools/list` result or compiled
   * module alone (as `given`). A `tools/call` is then judged by its tool's `x-mcp-header` annotations (rule
   * `paramHeaders`) and `inputSchema` (rule `toolArguments`) before the server sees it; tools are learned from the
   * `tools/list` answers the face relays (`wymcpFetch`: the responses handed to its `report`)
   * (docs/security.md#the-servers-own-tools-at-the-edge).
   * @default none
   */
  tools?: ToolsOptions | object;
  /**
   * The check of the server's messages, `validateMcpResponse` from `wymcp/outbound`: given, every JSON-RPC message sent
   * back through the face is checked and each violation reported (rule `outbound`); nothing is altered or delayed
   * (docs/outbound.md).
   * @default none
   */
  outbound?: OutboundCheck;
  /**
   * Spans and metrics for every POST judged, by the MCP semantic conventions: `mcpTelemetry()` from `wymcp/otel`
   * (docs/observability.md). A report is an attribute of the span and the metric, not an error.
   * @default none
   */
  telemetry?: Telemetry;
}

/** A library face's options, checked. */
export interface Face<R> extends ResolvedOptions<R> {
  settings: ResolvedOptions<R>["settings"];
  rules: RuleStates;
  /** The outbound check's settings; `undefined` when the rule is off. */
  report: ReportSettings | undefined;
  telemetry: Telemetry | undefined;
  /** The gate pipeline's tracer, made of `telemetry`. */
  tracer: ExchangeTracer | undefined;
  tools: ToolsAtEdge | undefined;
  toolLock: ToolLockWatch | undefined;
}

/** The top-level keys every library face takes beyond the core's. */
export const FACE_KEYS = ["tools", "outbound", "telemetry"] as const;

/**
 * Checks a library face's options. `keys`: the face's own beyond `FaceOptions` (`onError`, `authInfo`); `limits`: the
 * `limits` it takes beyond `maxBodyBytes` and `maxDepth` (`discardTimeoutMs` on Node); `loadCompiler`: the compiler
 * of the tools' schemas when `tools.compile` is not given, or why there is none.
 */
export function resolveFace<R>(
  options: unknown,
  face: {
    keys: readonly string[];
    limits?: readonly string[];
    headersOf: (request: R) => HeadersLike | undefined;
    loadCompiler: (formats: Formats) => Promise<ToolSchemaCompiler | { missing: string }>;
  },
): Face<R> {
  const given = objectOption("options", options === undefined ? {} : options) as FaceOptions<R> & Record<string, unknown>;
  const tools = toolsOptions(given.tools);
  const resolved = resolveOptions<R>(given, {
    keys: [...FACE_KEYS, ...face.keys],
    limits: face.limits,
    headersOf: face.headersOf,
    context: { outbound: given.outbound !== undefined, lock: tools?.lock !== undefined },
  });
  const telemetry = telemetryOption(given.telemetry);
  const rules = resolved.settings.rules;
  // What comes after admission is reported to the hook and counted by the telemetry (admission's reports go with its span).
  const onReport = reportsAfterAdmission(resolved.onReport, telemetry);
  const lock = toolsLockOption(tools?.lock, rules.lock);
  return {
    ...resolved,
    // With telemetry, the stage times the validation and keeps a refused body for the trace.
    settings: telemetry ? { ...resolved.settings, clock: now } : resolved.settings,
    rules,
    report: outboundSettings(given.outbound, rules.outbound, onReport, rules.formats === "off" ? "annotation" : "strict"),
    telemetry,
    tracer: tracerOf(telemetry),
    tools: toolsOption(tools, {
      paramHeaders: rules.paramHeaders,
      toolArguments: rules.toolArguments,
      onReject: resolved.onReject,
      onReport,
      // A tool's formats are read as the face reads the protocol's: asserted unless the `formats` rule is off.
      loadCompiler: () => face.loadCompiler(rules.formats === "off" ? "annotation" : "strict"),
    }),
    toolLock:
      lock &&
      new ToolLockWatch(lock, {
        onReject: resolved.onReject,
        onReport: resolved.onReport ? onReport : reportsAfterAdmission(warnDrift, telemetry),
      }),
  };
}

/**
 * The hook for the reports made after admission (the tools, the lock, the outbound check): the face's `onReport`, and
 * the telemetry's count of reports; `undefined` when neither is there.
 */
export function reportsAfterAdmission(
  onReport: ((report: Report) => void) | undefined,
  telemetry: Telemetry | undefined,
): ((report: Report) => void) | undefined {
  const counted = telemetry?.report && ((report: Report) => telemetry.report?.(report));
  if (!counted) return onReport;
  if (!onReport) return (report) => deliverReport(counted, report);
  return (report) => {
    deliverReport(onReport, report);
    deliverReport(counted, report);
  };
}

/** With no `onReport`, a lock's drift is still written: one line each, as the lock always did. */
function warnDrift(report: Report): void {
  if (report.rule === "lock" && report.direction === "out") console.warn(`wymcp: ${report.message}`);
}
