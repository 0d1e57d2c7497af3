/**
 * @module gate: `gateFetch`, wymcp in front of a Fetch handler in one call: POSTs are validated, and what passes reaches
 * the official SDK's `handler.fetch` with the body wymcp parsed (the caller's identity from `authInfo`), or a plain
 * `(request) => Response` handler with the client's own request, its body unread; an error of either goes to `onError`.
 */
import type { ChainRun } from "../../core/chain.js";
import { internalErrorResponse } from "../../core/envelope.js";
import { optionalFunction, eraWithoutBody, WymcpOptionError } from "../../options/options.js";
import { errorTypeOf } from "../../telemetry/telemetry.js";
import { type OnError, onErrorOption, reportHandlerError } from "../shared/handler-error.js";
import type { AuthInfoOf, McpFetchHandler, TakesParsedBody } from "../shared/sdk-handler.js";
import { chainResponse } from "./answer.js";
import { type FetchOptions, judgeRequest, refusalResponse, resolveFetchFace, runOf, screenRequest, stageResponse } from "./guard.js";

/** Options of `gateFetch`: those of `wymcpFetch`, the caller's identity, and what to do with an error of the handler. */
export interface GateFetchOptions<A = unknown> extends FetchOptions {
  /**
   * The verified caller, handed to the handler as `authInfo`; runs first, before the body is read. A `Response`
   * (a 401 challenge, as the SDK's `requireBearerAuth(...)` for Fetch resolves to) is sent as it is.
   * `host` is what the runtime passed after the request (Workers: `env`, `ctx`). Not with a plain handler.
   * @default none
   */
  authInfo?: (request: Request, ...host: unknown[]) => A | Response | undefined | Promise<A | Response | undefined>;
  /**
   * Called once per error thrown by `handler.fetch` or by a callback option (`era`; `authInfo` on Fetch), before the
   * `500`/-32603 answer (as Express middleware, before `next(error)`).
   * @default `console.error`, once per error (as middleware: none, `next(error)` hands it on)
   */
  onError?: OnError<Request>;
}

/**
 * A handler that reads its own request: `mcp-handler`'s, tmcp's `transport.respond`, Hono's `app.fetch`, a Workers
 * `fetch`. Behind `gateFetch` it receives the client's own `Request`, its body unread, and whatever the host passed after it.
 */
export type PlainFetchHandler<A extends unknown[] = unknown[]> = (request: Request, ...host: A) => Response | Promise<Response>;

/** Options of `gateFetch` for a plain handler: those of the SDK's shape but `authInfo`, which such a handler has no place for. */
export type PlainGateFetchOptions = Omit<GateFetchOptions, "authInfo">;

/**
 * wymcp in front of a Fetch handler: POSTs are validated, and what passes reaches the handler; other methods go straight
 * through. Two shapes: the SDK's handler (`createMcpHandler(...)`), which gets the body wymcp parsed and `authInfo`; or a
 * plain `(request) => Response` function, which gets the client's own `Request`, its body unread (wymcp reads a clone).
 * @example export default { fetch: gateFetch(createMcpHandler(buildServer)) };
 * @example app.all("/mcp", (c) => gated(c.req.raw)); // Hono
 * @example export const POST = gateFetch(createMcpHandler(setup)); // mcp-handler: a plain function
 */
export function gateFetch<H extends McpFetchHandler>(
  handler: H & TakesParsedBody<H>,
  options?: GateFetchOptions<AuthInfoOf<H>>,
): (request: Request, ...host: unknown[]) => Promise<Response>;
export function gateFetch<A extends unknown[]>(
  handler: PlainFetchHandler<A>,
  options?: PlainGateFetchOptions,
): (request: Request, ...host: A) => Promise<Response>;
export function gateFetch(
  handler: McpFetchHandler | PlainFetchHandler,
  options: GateFetchOptions = {},
): (request: Request, ...host: unknown[]) => Promise<Response> {
  if (typeof handler !== "function" && typeof (handler as McpFetchHandler | undefined)?.fetch !== "function")
    throw new WymcpOptionError(
      "handler",
      "gateFetch needs a handler: the SDK's (what createMcpHandler returns, with a fetch method) or a (request) => Response function",
    );
  const face = resolveFetchFace(options, ["authInfo", "onError"]);
  const authInfo = optionalFunction<GateFetchOptions["authInfo"]>("authInfo", options.authInfo);
  const onError = onErrorOption<Request>(options.onError);
  // A plain handler reads the body itself: wymcp judges a clone, so the request goes on with the client's bytes unread.
  const plain = typeof handler === "function" ? handler : undefined;
  if (plain && authInfo)
    throw new WymcpOptionError("authInfo", "gateFetch's authInfo is handed to the SDK's handler; a plain handler does its own auth");
  return async function gateFetchHandler(request, ...host) {
    let body: unknown;
    let run: ChainRun | undefined;
    const screened = screenRequest(request, face);
    if (screened?.action === "refuse") return refusalResponse(screened.refusal);
    try {
      const caller = await authInfo?.(request, ...host);
      if (caller instanceof Response) return caller;
      if (!screened) {
        const judged = await judgeRequest(request, face, plain ? "clone" : "own");
        if (judged.action === "refuse") return refusalResponse(judged.refusal, judged.trace, face, request);
        if (judged.action === "unjudged") {
          // Handed on as the client sent it, no parsed body: the handler reads it and answers it as it would alone.
          run = runOf(face, request, { era: eraWithoutBody(face.era, request), trace: judged.trace, auth: caller });
          const forwarded = asSent(request, judged.bytes);
          const serve = () => handOn(handler, plain, forwarded, host, caller, undefined);
          const trace = judged.trace;
          return chainResponse(await (trace ? trace.run(serve) : serve()), run);
        }
        body = judged.body;
        run = runOf(face, request, { body, era: judged.era, trace: judged.trace, auth: caller });
        // JSON-RPC forbids answering a notification with an error: 202 whatever it holds, as the SDK answers an accepted one.
        if (judged.action === "accept") return chainResponse(new Response(null, { status: 202 }), run);
        // A call the lock keeps out, or that the server's tools refuse, is answered here; the handler never sees it.
        const asked = run?.request();
        const answer = asked instanceof Promise ? await asked : asked;
        if (answer) return stageResponse(run!, answer);
      } else if (!face.chain.empty) run = runOf(face, request, { era: eraWithoutBody(face.era, request), auth: caller });
      const serve = () => handOn(handler, plain, request, host, caller, body);
      // With a trace, the handler runs in its context, so that the spans it makes nest under the request's.
      const trace = run?.exchange.trace;
      return chainResponse(await (trace ? trace.run(serve) : serve()), run);
    } catch (error) {
      // The trace ends with the type of what was thrown (the answer is the 500 below, or the host's).
      run?.exchange.trace?.end(errorTypeOf(error));
      run?.close();
      // A client that went away mid-read is no handler's error; its request is over.
      if (request.signal?.aborted) throw error;
      reportHandlerError(onError, error, request, false);
      return Response.json(internalErrorResponse(body), { status: 500 });
    }
  };
}

/** Calls the handler: a plain one with the client's request as it came, the SDK's with the parsed body and the caller. */
function handOn(
  handler: McpFetchHandler | PlainFetchHandler,
  plain: PlainFetchHandler | undefined,
  request: Request,
  host: unknown[],
  caller: unknown,
  body: unknown,
): Response | Promise<Response> {
  return plain
    ? plain(request, ...host)
    : (handler as McpFetchHandler).fetch(request, {
        ...(caller !== undefined && { authInfo: caller }),
        ...(body !== undefined && { parsedBody: body }),
      });
}

/**
 * The request as the client sent it: itself when its body is still unread (a clone was read, or nothing was), else
 * one carrying the bytes the face read and could not judge.
 */
function asSent(request: Request, bytes: Uint8Array | undefined): Request {
  if (!request.bodyUsed) return request;
  const init: RequestInit & { duplex?: "half" } = { method: request.method, headers: request.headers, signal: request.signal };
  if (bytes !== undefined) init.body = bytes as Uint8Array<ArrayBuffer>;
  return new Request(request.url, init);
}
