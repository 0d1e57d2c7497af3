/**
 * @module fetch: the entry `wymcp/fetch`, wymcp as middleware for Fetch API hosts (Hono, Workers, Deno, Bun, the official
 * SDK's `createMcpHandler(...).fetch`): `Request` in, `Response` out, or `undefined` to go on.
 */
import { admit, checkMaxDepth, DEFAULT_MAX_BODY_BYTES, type GateOptions, type WymcpInfo } from "./admit.js";
import type { Era } from "../core/era.js";
import { checkLegacyChecks } from "../core/legacy-checks.js";
import { createTap, reportSettings, type OutboundOptions } from "./outbound-tap.js";
import { eraCallback, type AuthInfoOf, type EraOption, type McpFetchHandler } from "./sdk-handler.js";

export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH } from "./admit.js";
export type { GateOptions, RejectInfo, RejectReason, WymcpInfo, Admitted } from "./admit.js";
export type { OutboundCheck, OutboundOptions, OutboundViolationInfo, OutboundViolations } from "./outbound-tap.js";
export type { McpFetchHandler, McpFetchOptions, EraOption } from "./sdk-handler.js";

/** Options of `wymcpFetch`; `era` receives the `Request` and the parsed body (`undefined` for `report` on a GET). */
export type FetchOptions = GateOptions<Request> & OutboundOptions;

/** What `wymcpFetch` returns: the gate, and `report` for the next handler's `Response`. */
export interface FetchGuard {
  (request: Request): Promise<Response | undefined>;
  /**
   * In report mode, the response to send instead of `response`: same status, headers and bytes, its body
   * read through a tap that checks every JSON-RPC message in it. Otherwise `response` itself.
   */
  report(request: Request, response: Response): Response;
}

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
 * @example report mode: return (await guard(request)) ?? guard.report(request, await handler.fetch(request));
 */
export const wymcpFetch = (options: FetchOptions = {}): FetchGuard => guardOf(options, "clone");

/** The guard; `read` says whether the body is read from a clone (left for the next handler) or from the request itself. */
function guardOf(
  { maxBodyBytes = DEFAULT_MAX_BODY_BYTES, maxDepth, era, onReject, legacyChecks, onLegacyReport, ...outbound }: FetchOptions,
  read: "clone" | "own",
): FetchGuard {
  checkMaxDepth(maxDepth);
  checkLegacyChecks(legacyChecks);
  const settings = reportSettings(outbound);
  const eraOf = (request: Request): Era => {
    const info = admitted.get(request);
    if (info) return info.era;
    try {
      return era?.(request, undefined) ?? "legacy";
    } catch {
      return "legacy";
    }
  };
  /** The body passes through unchanged, chunk by chunk; each chunk is tapped after it is handed on. */
  const report = (request: Request, response: Response): Response => {
    if (!settings || !response.body) return response;
    const header = (name: string) => response.headers.get(name);
    const tap = createTap(
      eraOf(request),
      admitted.get(request)?.body,
      header,
      settings,
      undefined,
      request.headers.get("mcp-protocol-version"),
    );
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          controller.enqueue(chunk);
          quietly(() => tap.push(chunk));
        },
        flush() {
          quietly(() => tap.end());
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return Object.assign(
    async function wymcpFetchMiddleware(request: Request): Promise<Response | undefined> {
      if (request.method !== "POST") return undefined;
      const verdict = await admit(
        {
          contentType: request.headers.get("content-type"),
          contentLength: request.headers.get("content-length"),
          protocolVersion: request.headers.get("mcp-protocol-version"),
          // A clone, so the original body is still there for the next handler; gateFetch hands the SDK the parsed body instead.
          chunks: () => chunksOf(read === "clone" ? request.clone().body : request.body),
          era: (body) => era?.(request, body),
        },
        { maxBodyBytes, maxDepth, onReject, legacyChecks, onLegacyReport },
      );
      if (!verdict.ok) {
        return new Response(JSON.stringify(verdict.response), {
          status: verdict.status,
          headers: { "Content-Type": "application/json" },
        });
      }
      admitted.set(request, { ...verdict.info, body: verdict.body });
      return undefined;
    },
    { report },
  );
}

/** Options of `gateFetch`: those of `wymcpFetch`, the era defaulting to the SDK's routing, and the caller's identity. */
export interface GateFetchOptions<A = unknown> extends Omit<FetchOptions, "era"> {
  /** A fixed lane (`"modern"` for a `legacy: "reject"` handler) or a function of the request and parsed body. */
  era?: EraOption<Request>;
  /**
   * The verified caller, handed to the handler as `authInfo`; runs first, before the body is read. A `Response`
   * (a 401 challenge, as the SDK's `requireBearerAuth(...)` for Fetch resolves to) is sent as it is.
   * `host` is what the runtime passed after the request (Workers: `env`, `ctx`).
   */
  authInfo?: (request: Request, ...host: unknown[]) => A | Response | undefined | Promise<A | Response | undefined>;
}

/**
 * The SDK's handler behind the gate, for Fetch hosts: POSTs are validated, and what passes reaches `handler.fetch`
 * with the body wymcp parsed (the request's own body is read once, by wymcp); other methods go straight through.
 * @example export default { fetch: gateFetch(createMcpHandler(buildServer)) };
 * @example app.all("/mcp", (c) => gated(c.req.raw)); // Hono
 */
export function gateFetch<H extends McpFetchHandler>(
  handler: H,
  { era, authInfo, ...options }: GateFetchOptions<AuthInfoOf<H>> = {},
): (request: Request, ...host: unknown[]) => Promise<Response> {
  const guard = guardOf({ ...options, era: eraCallback(era) }, "own");
  return async function gateFetchHandler(request, ...host) {
    const caller = await authInfo?.(request, ...host);
    if (caller instanceof Response) return caller;
    const refused = await guard(request);
    if (refused) return refused;
    const info = admitted.get(request);
    // JSON-RPC forbids answering a notification with an error: 202 whatever it holds, as the SDK answers an accepted one.
    if (info?.result.outcome === "bypass" && info.result.reason === "modern-notification") return new Response(null, { status: 202 });
    const response = await handler.fetch(request, {
      ...(caller !== undefined && { authInfo: caller }),
      ...(info && { parsedBody: info.body }),
    });
    return guard.report(request, response);
  };
}

/** A tap failure must not error the stream: the client would see a broken response the handler never sent. */
function quietly(tap: () => void): void {
  try {
    tap();
  } catch {
    // The chunk has already been handed on.
  }
}

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
