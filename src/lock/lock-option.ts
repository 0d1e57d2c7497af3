/**
 * @module lock-option: the options every face takes for a tools lock (and the command line's flags for it), checked
 * when the face is built into its watch over the lock, and the lines a drift is told in by default.
 */
import type { Telemetry } from "../core/telemetry.js";
import { type ToolDriftReport, ToolLockWatch, type ToolsLockFile, type ToolsLockMode, toolsLockOption } from "./tool-lock.js";
import { optionalFunction } from "../core/options.js";

/** The options every face takes for a tools lock. */
export interface ToolLockOptions {
  /**
   * The tools a person approved: the parsed JSON of what `wymcp compile --lock` wrote; each `tools/list` answer that
   * drifts from it is reported (docs/security.md#pinning-the-servers-tools).
   * @default none
   */
  toolsLock?: ToolsLockFile;
  /**
   * `"report"` reports each drift; `"enforce"` also drops changed and new tools from the list the client sees and answers
   * calls to them `-32602`.
   * @default `"report"`
   */
  toolsLockMode?: ToolsLockMode;
  /**
   * Called once per `tools/list` result that drifted from the lock; it must not throw.
   * @default one `console.warn` line per drift
   */
  onToolDrift?: (report: ToolDriftReport) => void;
}

/** The option names, for a face's list of the options it knows. */
export const TOOL_LOCK_OPTIONS = ["toolsLock", "toolsLockMode", "onToolDrift"] as const;

/** The face's watch over its lock, checked when the face is built; `undefined` without a lock. */
export function toolLockOption(
  options: ToolLockOptions,
  telemetry?: Telemetry,
  onRefused?: (tools: string[]) => void,
): ToolLockWatch | undefined {
  const lock = toolsLockOption(options.toolsLock, options.toolsLockMode);
  if (!lock) return undefined;
  const hook = optionalFunction<ToolLockOptions["onToolDrift"]>("onToolDrift", options.onToolDrift) ?? warnDrift;
  return new ToolLockWatch(
    lock,
    (report) => {
      hook(report);
      telemetry?.toolDrift?.(report);
    },
    onRefused,
  );
}

/** One line per drift; the tool's name is already escaped and bounded (a server's text never writes a line of its own). */
export function driftLines(report: ToolDriftReport): string[] {
  const lines = report.drifts.map(
    ({ tool, change, fields }) => `tool ${JSON.stringify(tool)} ${change}${fields ? ` (${fields.join(", ")})` : ""} against the tools lock`,
  );
  if (report.omitted > 0) lines.push(`${report.omitted} more tools drifted from the tools lock`);
  if (report.dropped > 0) lines.push(`${report.dropped} tools left out of the list the client sees (tools lock enforced)`);
  return lines;
}

function warnDrift(report: ToolDriftReport): void {
  for (const line of driftLines(report)) console.warn(`wymcp: ${line}`);
}

/** The lock flags of `wymcp proxy` and `wymcp stdio`, checked: the parsed lock and the mode, as the options of the same names take them. */
export interface ToolLockFlags {
  toolsLock?: ToolsLockFile | undefined;
  toolsLockMode?: ToolsLockMode | undefined;
}
