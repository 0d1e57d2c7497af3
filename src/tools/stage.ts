/**
 * @module stage (tools): the server's tools as two stages of the chain. `tools` judges a `tools/call` before the server
 * sees it (its `Mcp-Param-{Name}` headers, its arguments) and answers one that fails a rule enforced as the revision says (one that fails a rule in "report" is reported and passes); `learn` reads
 * the answer to a `tools/list` (after the lock, so only what the lock lets through is learned) and teaches the caller
 * who asked.
 */
import type { ChainExchange, Stage } from "../core/chain.js";
import type { Report } from "../core/rules.js";
import { type CallerKey, ONE_CALLER } from "./caller-key.js";
import type { ToolsAtEdge, ToolsRefusal } from "./tools-at-edge.js";

/** Who asks: a stream face's one client, or the caller its request names. */
function callerOf(tools: ToolsAtEdge, exchange: ChainExchange): CallerKey {
  const { caller } = exchange;
  return caller ? tools.callerOf(caller, caller.sha256) : ONE_CALLER;
}

function answerOf(refusal: ToolsRefusal | undefined) {
  return refusal && { status: refusal.status, body: refusal.response, reason: `tool-${refusal.check}` };
}

/** The stage that judges calls by the known tools. */
export function toolsStage(tools: ToolsAtEdge): Stage {
  return {
    name: "tools",
    request(exchange) {
      const { trace } = exchange;
      // A failure of a rule in "report" is an attribute of the exchange's span too.
      const onReport = trace && ((report: Report) => (tools.report(report), trace.report?.(report)));
      const judged = tools.judge({
        body: exchange.body,
        era: exchange.era,
        protocolVersion: exchange.protocolVersion,
        headers: exchange.headers,
        caller: callerOf(tools, exchange),
        onReport,
      });
      return judged instanceof Promise ? judged.then(answerOf) : answerOf(judged);
    },
  };
}

/** The stage that learns the tools from the `tools/list` answers the client receives. */
export function learnStage(tools: ToolsAtEdge): Stage<(message: unknown) => void> {
  return {
    name: "learn",
    // The key is taken from the request: the answer teaches the caller who asked.
    begin: (exchange) => (exchange.body === undefined ? undefined : tools.watch(exchange.body, callerOf(tools, exchange))),
    reads: (_exchange, learn) => learn !== undefined,
    answer: (_exchange, head, learn) => (learn && !head.own ? { message: learn } : undefined),
  };
}
