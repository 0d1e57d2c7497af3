/**
 * @module fetch: the entry `wymcp/fetch`, wymcp as middleware for Fetch API hosts (Hono, Workers, Deno, Bun, the official
 * SDK's `createMcpHandler(...).fetch`): `Request` in, `Response` out, or `undefined` to go on.
 */
import { admit, checkMaxDepth, DEFAULT_MAX_BODY_BYTES, type GateOptions, type WymcpInfo } from "./admit.js";

export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH } from "./admit.js";
export type { GateOptions, RejectInfo, RejectReason, WymcpInfo, Admitted } from "./admit.js";

/** Options of `wymcpFetch`; `era` receives the `Request` and the parsed body. */
export type FetchOptions = GateOptions<Request>;

/** What `wymcpOf` returns for an admitted POST: era, outcome, and the body already parsed. */
export interface FetchWymcpInfo extends WymcpInfo {
  body: unknown;
}

// Keyed by the Request itself, so the entry lives exactly as long as the request does.
const admitted = new WeakMap<Request, FetchWymcpInfo>();

/** The era, outcome and parsed body of a request `wymcpFetch` handed on; `undefined` for any other. */
export function wymcpOf(request: Request): FetchWymcpInfo | undefined {
  return admitted.get(request);
}

/**
 * Validates POSTed MCP messages; resolves to the answer for a rejected one, or to `undefined` with the
 * request's body left unread for the next handler.
 * @example const guard = wymcpFetch(); return (await guard(request)) ?? handler.fetch(request);
 */
export const wymcpFetch = ({ maxBodyBytes = DEFAULT_MAX_BODY_BYTES, maxDepth, era, onReject }: FetchOptions = {}) => {
  checkMaxDepth(maxDepth);
  return async function wymcpFetchMiddleware(request: Request): Promise<Response | undefined> {
    if (request.method !== "POST") return undefined;
    const verdict = await admit(
      {
        contentType: request.headers.get("content-type"),
        contentLength: request.headers.get("content-length"),
        protocolVersion: request.headers.get("mcp-protocol-version"),
        // A clone, so the original body is still there for the next handler.
        chunks: () => chunksOf(request.clone().body),
        era: (body) => era?.(request, body),
      },
      { maxBodyBytes, maxDepth, onReject },
    );
    if (!verdict.ok) {
      return new Response(JSON.stringify(verdict.response), {
        status: verdict.status,
        headers: { "Content-Type": "application/json" },
      });
    }
    admitted.set(request, { ...verdict.info, body: verdict.body });
    return undefined;
  };
};

async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Past the limit this stops the clone's branch from pulling more. Not awaited: cancelling one branch
    // of a tee settles only once the other branch (the original, left for the next handler) is cancelled too.
    reader.cancel().catch(() => undefined);
  }
}
