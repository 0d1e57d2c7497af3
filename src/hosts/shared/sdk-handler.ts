/**
 * @module sdk-handler: what the gates need of the official SDK's `createMcpHandler(...)` result, typed
 * structurally so that wymcp carries no dependency on the SDK, not even a type import.
 */

/** The options the SDK's `fetch` face takes beside the request. */
export interface McpFetchOptions<A = unknown> {
  /** A body already parsed: the SDK classifies and serves it without reading the request's own body. */
  parsedBody?: unknown;
  /** The verified caller, handed to tools as `ctx.http.authInfo`; the SDK never derives it itself. */
  authInfo?: A;
}

/** Anything with the SDK's `fetch(request, { parsedBody, authInfo })`: `createMcpHandler(...)` or a composition of it. */
export interface McpFetchHandler {
  // Method syntax on purpose: it lets a handler whose options name a narrower `authInfo` type fit.
  fetch(request: Request, options?: McpFetchOptions): Promise<Response>;
}

/** The `authInfo` type a handler's `fetch` accepts (the SDK's `AuthInfo` for `createMcpHandler`). */
export type AuthInfoOf<H> = H extends { fetch(request: Request, options?: infer O): Promise<Response> }
  ? O extends { authInfo?: infer A }
    ? A
    : unknown
  : unknown;

/**
 * `H` when its `fetch` takes the SDK's `{ parsedBody }` (or takes no request at all, so reads no body); otherwise a type
 * no handler has, whose one property names the fix. An object whose `fetch` reads the request but ignores `parsedBody`
 * (`{ fetch: (r) => handler(r) }`, a Hono app) would find the body already read and fail every request; a plain
 * function is the shape for it.
 */
export type TakesParsedBody<H> = H extends { fetch(): Promise<Response> }
  ? H
  : H extends { fetch(request: Request, options?: infer O): Promise<Response> }
    ? "parsedBody" extends keyof NonNullable<O>
      ? H
      : {
          "wymcp: this fetch ignores { parsedBody }, so it would find the body already read; pass a plain (request) => Response function": never;
        }
    : never;
