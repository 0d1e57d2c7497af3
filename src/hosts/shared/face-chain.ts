/**
 * @module face-chain: the chain a face runs, built once from what its options gave. Every face builds it here, so none
 * names a stage: the order is the core's (core/chain.ts), and the answer's messages are read once for every tap that
 * reads them (wire/messages.ts).
 */
import { Chain, type MessageReader, type Stage } from "../../core/chain.js";
import type { Telemetry } from "../../telemetry/telemetry.js";
import { lockStage } from "../../lock/stage.js";
import type { ToolLockWatch } from "../../lock/tool-lock.js";
import { outboundStage } from "../../outbound/stage.js";
import type { ReportSettings } from "../../outbound/tap.js";
import { learnStage, toolsStage } from "../../tools/stage.js";
import type { ToolsAtEdge } from "../../tools/tools-at-edge.js";
import { readMessages } from "../../wire/messages.js";

/** What a face's options made of the features after admission. */
export interface ChainParts {
  toolLock?: ToolLockWatch | undefined;
  tools?: ToolsAtEdge | undefined;
  report?: ReportSettings | undefined;
  telemetry?: Telemetry | undefined;
  /** The page's feed, a stage its own module makes (the proxy's live page). */
  feed?: Stage | undefined;
}

/**
 * The chain's last stage: each answer's session and messages, as the client receives them, told to the exchange's
 * trace; the trace ends with the exchange (core/chain.ts).
 */
const TELEMETRY_STAGE: Stage = {
  name: "telemetry",
  reads: (exchange) => exchange.trace !== undefined,
  answer(exchange, head) {
    const { trace } = exchange;
    if (!trace) return undefined;
    const session = head.header("mcp-session-id");
    if (session) trace.session(session);
    return { message: (message) => trace.answered(message) };
  },
};

const messages: MessageReader = (head, onMessage) => readMessages((name) => head.header(name), onMessage);

/** The face's chain: each feature its options turned on, as a stage. */
export function chainOf({ toolLock, tools, report, telemetry, feed }: ChainParts): Chain {
  const judging = tools?.active === true ? tools : undefined;
  return new Chain(
    [
      toolLock && lockStage(toolLock),
      judging && toolsStage(judging),
      report && outboundStage(report),
      judging?.learns ? learnStage(judging) : undefined,
      feed,
      telemetry && TELEMETRY_STAGE,
    ],
    messages,
  );
}
