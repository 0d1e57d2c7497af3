/**
 * @module tool-lock (hosts): a tools lock on a Fetch exchange. Before the handler, a call to a tool the lock keeps out
 * is answered here (or reported); after it, the answer to a `tools/list` goes back through the lock's rewriter
 * (outbound/tool-lock-stream.ts): judged, its drift reported, and with the lock enforced without the changed and new tools.
 */
import type { Era } from "../../core/era.js";
import type { ExchangeTrace } from "../../core/telemetry.js";
import { type ToolLockWatch, toolsListRequests } from "../../core/tool-lock.js";
import { lockRewriter } from "../../outbound/tool-lock-stream.js";
import type { McpFetchHandler, McpFetchOptions } from "./sdk-handler.js";

/**
 * The `200` answer to a body calling a tool the lock keeps out (enforced: told to `onReject`), or `undefined` to hand
 * the body on (reported, with the lock in `"report"`: its span told too).
 */
export function lockedCallResponse(watch: ToolLockWatch | undefined, body: unknown, era: Era, trace?: ExchangeTrace): Response | undefined {
  const refusal = watch?.refusal(body, era, trace && ((report) => (watch.report(report), trace.report?.(report))));
  // In band, as the SDKs answer an unknown tool: the JSON-RPC error is the payload, not an HTTP failure.
  return refusal && Response.json(refusal, { status: 200 });
}

/** `response` to a request with `body`, through the lock when the body asks for `tools/list`; itself otherwise. */
export function lockedResponse(watch: ToolLockWatch | undefined, body: unknown, response: Response): Response {
  if (!watch || !response.body) return response;
  const rewriter = lockRewriter(
    watch,
    toolsListRequests(body),
    response.headers.get("content-type"),
    response.headers.get("content-encoding"),
  );
  if (!rewriter) return response;
  const source = response.body.getReader();
  const headers = new Headers(response.headers);
  if (rewriter.resizes) headers.delete("content-length");
  const body$ = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const read = await source.read();
        if (read.done) {
          for (const out of rewriter.end()) controller.enqueue(out);
          return controller.close();
        }
        const out = rewriter.push(read.value);
        for (const piece of out) controller.enqueue(piece);
        if (out.length > 0) return;
      }
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
  return new Response(body$, { status: response.status, statusText: response.statusText, headers });
}

/** The SDK's handler behind a lock: what `gateNode` serves, so that the Response it writes is the locked one. */
export function lockedHandler<H extends McpFetchHandler>(handler: H, watch: ToolLockWatch | undefined): McpFetchHandler {
  if (!watch) return handler;
  return {
    async fetch(request: Request, options?: McpFetchOptions): Promise<Response> {
      return lockedResponse(watch, options?.parsedBody, await handler.fetch(request, options));
    },
  };
}
