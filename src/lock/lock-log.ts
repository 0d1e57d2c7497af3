/**
 * @module lock-log: what `wymcp proxy` and `wymcp stdio` do with the reports and the refusals of the features
 * after admission (the server's tools, the tools lock, the outbound check): one log line each, the hooks told, and the
 * reports counted by the telemetry.
 */
import type { RejectInfo } from "../core/admission.js";
import { type GateHooks, type GateLog, notify } from "../log/gate-log.js";
import type { Report, RuleState } from "../core/rules.js";
import type { Telemetry } from "../telemetry/telemetry.js";
import { ToolLockWatch, toolsLockOption } from "./tool-lock.js";

/**
 * Where a command-line face's reports go: `admission`, the pipeline's (its trace records them); `after`, the features'
 * after admission, also counted by the telemetry. Both write one log line naming the rule and tell `hooks.onReport`.
 */
export function faceReports(
  log: GateLog,
  hooks: GateHooks,
  telemetry: Telemetry | undefined,
): { admission: (report: Report) => void; after: (report: Report) => void } {
  const admission = (report: Report) => {
    log.report(report);
    notify(hooks.onReport, report);
  };
  const after = (report: Report) => {
    admission(report);
    if (telemetry?.report) notify((found: Report) => telemetry.report?.(found), report);
  };
  return { admission, after };
}

/** A refusal of the tools or the lock, as a log line (the admission stage's refusals are the verdicts' lines). */
export function loggedRejections(log: GateLog): (info: RejectInfo) => void {
  return ({ status, response, reason, rule, era }) => {
    const id = response.id;
    const message = "error" in response ? response.error.message : response.result.content[0].text;
    log.line(
      "tool-call-refused",
      { rule, reason, era, id, status, message },
      `refused tools/call (${rule}) id=${JSON.stringify(id)}: ${message}`,
    );
  };
}

/** The face's watch over a lock (`tools.lock`) with the `lock` rule's state; none without a lock or with the rule off. */
export function loggedToolLock(
  lock: unknown,
  state: RuleState,
  onReject: (info: RejectInfo) => void,
  onReport: (report: Report) => void,
): ToolLockWatch | undefined {
  const checked = toolsLockOption(lock, state);
  return checked && new ToolLockWatch(checked, { onReject, onReport });
}
