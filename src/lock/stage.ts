/**
 * @module stage (lock): the tools lock as the chain's first stage. A call to a tool the lock keeps out is answered here
 * (the lock enforced; reported with it in "report"), as the spec answers an unknown tool, before any other stage or the server sees it; the answer to a
 * `tools/list` goes through the lock's rewriter (tool-lock-stream.ts): judged, its drift reported, and with the lock enforced without the
 * changed and new tools, so that every stage after it reads the list the client sees.
 */
import type { Stage } from "../core/chain.js";
import type { Report } from "../core/rules.js";
import { lockRewriter } from "./tool-lock-stream.js";
import { type ToolLockWatch, toolsListRequests } from "./tool-lock.js";

/** The `tools/list` requests of an exchange (id → asked with a cursor), kept from its start to its answer. */
type ListRequests = ReadonlyMap<string | number, boolean>;

/** The stage of a face's watch over its lock. */
export function lockStage(watch: ToolLockWatch): Stage<ListRequests> {
  return {
    name: "lock",
    rewrites: true,
    begin(exchange) {
      const { body } = exchange;
      // Most bodies ask for no list: told apart without a map.
      if (body === undefined || (!Array.isArray(body) && (body as { method?: unknown }).method !== "tools/list")) return undefined;
      const requests = toolsListRequests(body);
      return requests.size > 0 ? requests : undefined;
    },
    reads: (_exchange, requests) => requests !== undefined,
    request(exchange) {
      const { trace } = exchange;
      // A call reported (the lock in "report") is an attribute of the exchange's span too.
      const onReport = trace && ((report: Report) => (watch.report(report), trace.report?.(report)));
      const refusal = watch.refusal(exchange.body, exchange.era, onReport);
      // In band, as the SDKs answer an unknown tool: the JSON-RPC error is the payload, not an HTTP failure.
      return refusal && { status: 200, body: refusal, reason: "tool-locked" };
    },
    answer: (_exchange, head, requests) =>
      requests && !head.own ? lockRewriter(watch, requests, head.header("content-type"), head.header("content-encoding")) : undefined,
  };
}
