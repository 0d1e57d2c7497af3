/**
 * @module tool-lock-log: the tools lock of `wymcp proxy` and `wymcp stdio`, its drifts and refused calls written to the
 * face's log, one line each.
 */
import type { GateLog } from "../log/gate-log.js";
import type { Telemetry } from "../core/telemetry.js";
import type { ToolLockWatch } from "./tool-lock.js";
import { driftLines, type ToolLockFlags, toolLockOption } from "./lock-option.js";

/** The face's watch over the lock, its drifts logged as `tool-drift` lines (and told to the telemetry); none without a lock. */
export function loggedToolLock(flags: ToolLockFlags, log: GateLog, telemetry?: Telemetry): ToolLockWatch | undefined {
  if (flags.toolsLock === undefined) return undefined;
  return toolLockOption(
    {
      toolsLock: flags.toolsLock,
      toolsLockMode: flags.toolsLockMode,
      onToolDrift: (report) => {
        const lines = driftLines(report);
        report.drifts.forEach((drift, i) =>
          log.line("tool-drift", { mode: report.mode, tool: drift.tool, change: drift.change, fields: drift.fields }, lines[i]!),
        );
        if (report.omitted > 0) log.line("tool-drift", { mode: report.mode, omitted: report.omitted }, lines[report.drifts.length]!);
        if (report.dropped > 0) log.line("tools-dropped", { mode: report.mode, dropped: report.dropped }, lines[lines.length - 1]!);
      },
    },
    telemetry,
    (tools) => {
      for (const tool of tools)
        log.line(
          "tool-call-refused",
          { tool },
          `refused a call of tool ${JSON.stringify(tool)}: not approved in the tools lock (answered -32602)`,
        );
    },
  );
}
