/**
 * @module node-gate: `gateNode`, wymcp in front of the official SDK on Node `http`, Connect and Express in one call.
 * It owns what hosts used to copy: the era, the modern-notification 202, handing the parsed body to the SDK's `fetch`,
 * streaming the answer back, and the caller's identity (`req.auth`).
 */
import { once } from "node:events";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { Readable } from "node:stream";
import { answerId } from "../core/envelope.js";
import { wymcpNode, type NextFunction, type NodeOptions } from "./node-http.js";
import { eraCallback, type EraOption, type McpFetchHandler } from "./sdk-handler.js";

/** Options of `gateNode`: those of `wymcpNode`, with the era defaulting to the SDK's routing (`classifyEra`). */
export interface GateNodeOptions extends Omit<NodeOptions, "era"> {
  /** A fixed lane (`"modern"` for a `legacy: "reject"` handler) or a function of the request and parsed body. */
  era?: EraOption<IncomingMessage>;
}

/** A Node request listener that is also Connect/Express middleware: with `next`, a handler error goes to `next(error)`. */
export type GateNodeListener = (req: IncomingMessage, res: ServerResponse, next?: NextFunction) => void;

/**
 * The SDK's handler behind the gate, for Node: POSTs are validated, and what passes reaches `handler.fetch` with the
 * body wymcp parsed and `req.auth` as `authInfo`; other methods go straight through.
 * @example http.createServer(gateNode(createMcpHandler(buildServer))).listen(3000);
 * @example app.all("/mcp", requireBearerAuth({ verifier }), gateNode(handler));
 */
export function gateNode<H extends McpFetchHandler>(handler: H, { era, ...options }: GateNodeOptions = {}): GateNodeListener {
  const guard = wymcpNode({ ...options, era: eraCallback(era) });
  return function gateNodeListener(req, res, next) {
    const fail = (error: unknown) => (typeof next === "function" ? next(error) : internalError(req, res));
    void guard(req, res, (error?: unknown) => {
      if (error !== undefined) return fail(error);
      const result = req.wymcp?.result;
      // JSON-RPC forbids answering a notification with an error: 202 whatever it holds, as the SDK answers an accepted one.
      if (result?.outcome === "bypass" && result.reason === "modern-notification") return void res.writeHead(202).end();
      serveFetch(handler, req, res).catch(fail);
    });
  };
}

/**
 * Serves one request with a `fetch`-shaped handler: a body-less `Request` whose headers are built as the SDK's own
 * `toWebRequest` builds them, the parsed body beside it (nothing serialized again), and the `Response` written back.
 * Rejects only when `handler.fetch` does (or the request cannot become a `Request`), before anything was written.
 */
export async function serveFetch(
  handler: McpFetchHandler,
  req: IncomingMessage & { body?: unknown; auth?: unknown },
  res: ServerResponse,
): Promise<void> {
  let finished = false;
  const abort = new AbortController();
  // The SDK ends a stream (subscriptions/listen, a call in flight) when its client goes away.
  res.once("close", () => finished || abort.abort());
  if (res.destroyed) abort.abort();
  const { body: parsedBody, auth } = req;
  const init: RequestInit & { duplex?: "half" } = { method: req.method, headers: headersOf(req), signal: abort.signal };
  // A body-carrying GET, DELETE or other method no parser has read goes on as it came, unread.
  if (parsedBody === undefined && req.method !== "GET" && req.method !== "HEAD" && hasBody(req)) {
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
  res.writeHead(response.status, headers);
  if (response.body === null) {
    finished = true;
    return void res.end();
  }
  // A reader loop, not Readable.fromWeb + pipeline, which cost 3× as much per answer (measured).
  const reader = response.body.getReader();
  try {
    for (let read = await reader.read(); !read.done && !abort.signal.aborted; read = await reader.read()) {
      // Backpressure while an SSE stream is written; the wait ends if the client goes away.
      if (!res.write(read.value)) await once(res, "drain", { signal: abort.signal });
    }
  } catch {
    // The client went away mid-wait, or the handler's stream failed: either way the answer ends here.
  }
  if (abort.signal.aborted) void reader.cancel().catch(() => undefined);
  finished = true;
  res.end();
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

/** What the SDK answers when a handler throws: 500, `-32603`, the request's id when the gate parsed one it may echo. */
function internalError(req: IncomingMessage & { body?: unknown }, res: ServerResponse): void {
  if (res.headersSent) return void res.end();
  const id = typeof (req.body as { method?: unknown } | undefined)?.method === "string" ? answerId(req.body) : null;
  const text = JSON.stringify({ jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id });
  res.writeHead(500, { "content-type": "application/json" }).end(text);
}

/**
 * Answers what Node's HTTP parser refuses before any listener runs (a lying `Content-Length`, bad chunking, headers
 * too large) with a JSON-RPC error, as every other refusal, instead of Node's empty `400`. Per server, not per request.
 * @example answerClientErrors(http.createServer(gateNode(handler))).listen(3000);
 */
export function answerClientErrors<S extends http.Server>(server: S): S {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || answering?.headersSent) return void socket.destroy();
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const reason = http.STATUS_CODES[status];
    // The request never parsed, so its id cannot be determined: JSON-RPC 2.0 §5 asks for null.
    const text = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `${reason}: the HTTP request is malformed` } });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  });
  return server;
}
