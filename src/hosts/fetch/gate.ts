/**
 * @module gate: `gateFetch`, wymcp in front of the official SDK on Fetch API hosts in one call: POSTs are validated, and
 * what passes reaches `handler.fetch` with the body wymcp parsed; the caller's identity comes from `authInfo`, an error
 * of the handler goes to `onError`.
 */
import { type Admission, isAcceptedNotification } from "../../core/admission.js";
import { internalErrorResponse } from "../../core/envelope.js";
import type { Era } from "../../core/era.js";
import { optionalFunction, eraWithoutBody } from "../../core/options.js";
import { type ExchangeTrace, errorTypeOf } from "../../core/telemetry.js";
import { type OnError, onErrorOption, reportHandlerError } from "../shared/handler-error.js";
import type { AuthInfoOf, McpFetchHandler } from "../shared/sdk-handler.js";
import { now } from "../shared/traced.js";
import { admitRequest, type FetchOptions, refusalResponse, reported, resolveFetchFace, traceRequest } from "./guard.js";

/** Options of `gateFetch`: those of `wymcpFetch`, the caller's identity, and what to do with an error of the handler. */
export interface GateFetchOptions<A = unknown> extends FetchOptions {
  /**
   * The verified caller, handed to the handler as `authInfo`; runs first, before the body is read. A `Response`
   * (a 401 challenge, as the SDK's `requireBearerAuth(...)` for Fetch resolves to) is sent as it is.
   * `host` is what the runtime passed after the request (Workers: `env`, `ctx`).
   */
  authInfo?: (request: Request, ...host: unknown[]) => A | Response | undefined | Promise<A | Response | undefined>;
  /**
   * Called once per error thrown by `handler.fetch` (or by `authInfo` or an `era` callback), before the `500`/-32603
   * answer. Without it, the error is logged with `console.error`.
   */
  onError?: OnError<Request>;
}

/**
 * The SDK's handler behind the gate, for Fetch hosts: POSTs are validated, and what passes reaches `handler.fetch`
 * with the body wymcp parsed (the request's own body is read once, by wymcp); other methods go straight through.
 * @example export default { fetch: gateFetch(createMcpHandler(buildServer)) };
 * @example app.all("/mcp", (c) => gated(c.req.raw)); // Hono
 */
export function gateFetch<H extends McpFetchHandler>(
  handler: H,
  options: GateFetchOptions<AuthInfoOf<H>> = {},
): (request: Request, ...host: unknown[]) => Promise<Response> {
  const face = resolveFetchFace(options, ["authInfo", "onError"]);
  const authInfo = optionalFunction<GateFetchOptions<AuthInfoOf<H>>["authInfo"]>("authInfo", options.authInfo);
  const onError = onErrorOption<Request>(options.onError);
  return async function gateFetchHandler(request, ...host) {
    let body: unknown;
    let trace: ExchangeTrace | undefined;
    try {
      const caller = await authInfo?.(request, ...host);
      if (caller instanceof Response) return caller;
      let era: Era;
      if (request.method === "POST") {
        const began = face.telemetry ? now() : 0;
        const verdict: Admission = await admitRequest(request, face, "own");
        trace = face.telemetry && traceRequest(face.telemetry, request, verdict, began);
        // The host writes a refusal or a 202 next: a Fetch handler sees no later moment to end the trace.
        if (!verdict.ok) {
          const refusal = refusalResponse(verdict, face);
          trace?.end();
          return refusal;
        }
        // JSON-RPC forbids answering a notification with an error: 202 whatever it holds, as the SDK answers an accepted one.
        if (isAcceptedNotification(verdict.result)) {
          trace?.end();
          return new Response(null, { status: 202 });
        }
        body = verdict.body;
        era = verdict.era;
      } else {
        era = face.report ? eraWithoutBody(face.era, request) : "legacy";
      }
      const serve = () =>
        handler.fetch(request, {
          ...(caller !== undefined && { authInfo: caller }),
          ...(body !== undefined && { parsedBody: body }),
        });
      // With a trace, the handler runs in its context, so that the spans it makes nest under the request's.
      const response = await (trace ? trace.run(serve) : serve());
      return reported(face, era, body, response, request, trace);
    } catch (error) {
      // The trace ends with the type of what was thrown (the answer is the 500 below, or the host's).
      trace?.end(errorTypeOf(error));
      // A client that went away mid-read is no handler's error; its request is over.
      if (request.signal?.aborted) throw error;
      reportHandlerError(onError, error, request, false);
      return Response.json(internalErrorResponse(body), { status: 500 });
    }
  };
}
