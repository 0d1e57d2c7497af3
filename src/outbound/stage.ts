/**
 * @module stage (outbound): report mode's check as a stage of the chain: every message the server sends back on an
 * exchange (never wymcp's own answer) is checked as the client receives it, after the lock.
 */
import type { Stage } from "../core/chain.js";
import { checkOf, type ReportSettings } from "./tap.js";

/** The stage of a face's report settings. */
export function outboundStage(report: ReportSettings): Stage {
  return {
    name: "outbound",
    answer: (exchange, head) =>
      head.own ? undefined : { message: checkOf(exchange.era, exchange.body, exchange.protocolVersion, report) },
  };
}
