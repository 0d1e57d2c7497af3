/**
 * @module stage (outbound): the `outbound` rule's check as a stage of the chain: every message the server sends back on an
 * exchange (never wymcp's own answer) is checked as the client receives it, after the lock.
 */
import type { Stage } from "../core/chain.js";
import type { Report } from "../core/rules.js";
import { checkOf, type ReportSettings } from "./tap.js";

/** The stage of a face's report settings. */
export function outboundStage(report: ReportSettings): Stage {
  return {
    name: "outbound",
    answer(exchange, head) {
      if (head.own) return undefined;
      const { trace } = exchange;
      // A violation is an attribute of the exchange's span too (never an error).
      const settings = trace ? { ...report, onReport: (found: Report) => (report.onReport(found), trace.report?.(found)) } : report;
      return { message: checkOf(exchange.era, exchange.body, exchange.protocolVersion, settings) };
    },
  };
}
