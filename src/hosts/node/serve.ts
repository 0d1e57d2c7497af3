/**
 * @module serve: a `fetch`-shaped handler (the SDK's `createMcpHandler(...)`) served on Node: the `Request` built as the
 * SDK's own `toWebRequest` builds it, the parsed body beside it, the `Response` streamed back with backpressure.
 */
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { NodeOut } from "../shared/node-chain.js";
import type { McpFetchHandler } from "../shared/sdk-handler.js";

/**
 * Serves one request with a `fetch`-shaped handler: a body-less `Request` whose headers are built as the SDK's own
 * `toWebRequest` builds them, the parsed body beside it (nothing serialized again), and the `Response` written back.
 * Takes the body from `req.body` (as `wymcpNode` or a body parser leaves it) and the caller from `req.auth`.
 * Rejects only when `handler.fetch` does (or the request cannot become a `Request`), before anything was written.
 */
export function serveFetch(
  handler: McpFetchHandler,
  req: IncomingMessage & { body?: unknown; auth?: unknown },
  res: ServerResponse,
): Promise<void> {
  return serveParsed(handler, req, res, req.body);
}

/**
 * The bytes of a body the face could not judge and handed on as the client sent it (`limits` in `"report"` or
 * `"off"`), by request: `serveFetch` hands them to the SDK as the request's body, so that the SDK answers them as it
 * would alone. Keyed by the request itself, so an entry lives exactly as long as the request does.
 */
export const unjudgedBodies = new WeakMap<IncomingMessage, Uint8Array>();

/**
 * `serveFetch` with the parsed body given, not read from the request: what `gateNode` hands on. The answer is written
 * to `out` (the chain's answer on `res`, node-chain.ts) when the face's chain reads it, else to `res` itself.
 */
export async function serveParsed(
  handler: McpFetchHandler,
  req: IncomingMessage & { auth?: unknown },
  res: ServerResponse,
  parsedBody: unknown,
  out: NodeOut = res,
): Promise<void> {
  let finished = false;
  const abort = new AbortController();
  // The SDK ends a stream (subscriptions/listen, a call in flight) when its client goes away.
  res.once("close", () => finished || abort.abort());
  if (res.destroyed) abort.abort();
  const { auth } = req;
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers: headersOf(req), signal: abort.signal };
  const unjudged = parsedBody === undefined ? unjudgedBodies.get(req) : undefined;
  if (unjudged !== undefined) {
    // The bytes the face read and could not judge: the SDK reads them as it would have read the stream.
    init.body = unjudged as Uint8Array<ArrayBuffer>;
  } else if (parsedBody === undefined && req.method !== "GET" && req.method !== "HEAD" && hasBody(req)) {
    // A body-carrying GET, DELETE or other method no parser has read goes on as it came, unread (or given back).
    init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
    init.duplex = "half";
  }
  const host = single(req.headers.host) ?? single(req.headers[":authority"]) ?? "localhost";
  const response = await handler.fetch(new Request(`http://${host}${req.url ?? "/"}`, init), {
    ...(auth !== undefined && { authInfo: auth }),
    ...(parsedBody !== undefined && { parsedBody }),
  });
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  out.writeHead(response.status, headers);
  if (response.body === null) {
    finished = true;
    return void out.end();
  }
  // A reader loop, not Readable.fromWeb + pipeline, which costs more per answer (docs/performance.md#the-parsed-body-handed-on).
  const reader = response.body.getReader();
  try {
    for (let read = await reader.read(); !read.done && !abort.signal.aborted; read = await reader.read()) {
      // Backpressure while an SSE stream is written; the wait ends if the client goes away.
      if (!out.write(read.value)) await once(res, "drain", { signal: abort.signal });
    }
  } catch {
    // The client went away mid-wait, or the handler's stream failed: either way the answer ends here.
  }
  if (abort.signal.aborted) void reader.cancel().catch(() => undefined);
  finished = true;
  out.end();
}

/**
 * The request's headers as the SDK's `toWebRequest` builds them, from Node's `req.headers`: a header Node keeps
 * once (`Content-Type`, `Authorization`) keeps its first value, others are joined with `, ` (`Set-Cookie` appended).
 * So a duplicated header means to the SDK behind the gate what it means to the SDK alone.
 */
export function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(":")) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
