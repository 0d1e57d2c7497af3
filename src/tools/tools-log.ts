/**
 * @module tools-log: the lines `wymcp proxy` and `wymcp stdio` write about the server's tools at the edge: tools
 * learned (for whom never said: the caller's key stays out of the log), a schema not compiled, no compiler at all (a
 * call refused is a refusal's line, a call reported a report's).
 */
import type { GateLog } from "../log/gate-log.js";
import type { ToolsEvent } from "./tools-at-edge.js";

/** One log line per event of the tools at the edge. */
export function logToolsEvent(log: GateLog, event: ToolsEvent): void {
  if (event.kind === "tools-learned")
    log.line(
      "tools-learned",
      { tools: event.tools, replaced: event.replaced, callers: event.callers },
      `learned ${event.tools} tool(s) from tools/list${event.replaced ? "" : " (a further page)"} for the caller who asked (${event.callers} caller(s) remembered)`,
    );
  else if (event.kind === "no-compiler") log.line("tools-no-compiler", { reason: event.reason }, event.reason);
  else
    log.line(
      "schema-not-compiled",
      { tool: event.tool, reason: event.reason },
      `the inputSchema of tool ${JSON.stringify(event.tool)} is not compiled (${event.reason}): its calls pass unjudged`,
    );
}
