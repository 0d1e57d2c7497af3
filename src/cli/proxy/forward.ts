/**
 * @module forward: one request sent on to the upstream server and its answer streamed back, with Node's own `http`:
 * the client's headers but the hop-by-hop ones, backpressure both ways, the upstream request cancelled when the client
 * goes away, and a JSON-RPC error (502, or 504 past the timeout) when the upstream cannot answer.
 */
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import { errorResponse, INTERNAL_ERROR, type JsonRpcId } from "../../core/envelope.js";

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1), plus `Expect`, which the proxy answers itself. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "expect",
]);

/** Where requests go and how long the upstream has to start answering. */
export interface Upstream {
  url: URL;
  /** Longest wait for the upstream's response headers (connecting included), in ms; then 504. */
  timeoutMs: number;
  /** Send the upstream's own host in `Host` instead of the client's. */
  rewriteHost: boolean;
  agent: http.Agent;
}

/** A keep-alive agent for the upstream's scheme. Idle sockets close before a typical server's keep-alive timeout (5 s). */
export function upstreamAgent(url: URL): http.Agent {
  const options = { keepAlive: true, timeout: 4_000, scheduling: "lifo" as const };
  return url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
}

/** How a forwarded exchange ended, for the log and the hooks. */
export type Outcome =
  | { kind: "answered"; status: number }
  | { kind: "unreachable" | "timeout"; status: 502 | 504; error: string }
  | { kind: "client-gone" }
  | { kind: "upstream-broke" };

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The judged body, forwarded as it is; `undefined` streams the request's own body through. */
  body: Uint8Array | undefined;
  /** The id wymcp answers a 502/504 with. */
  id: JsonRpcId;
  /** Trace context headers (`traceparent`, `tracestate`, `baggage`) of the proxy's span, in place of the client's. */
  traceContext?: Record<string, string>;
}

/**
 * Sends `exchange` upstream and streams the answer back; resolves once the exchange is over, however it ended.
 * A reused keep-alive socket that the upstream had already closed (`ECONNRESET` before any answer) is retried once on
 * a fresh one, as Node's documentation advises: the upstream never saw that request.
 */
export function forward(upstream: Upstream, exchange: Exchange): Promise<Outcome> {
  return new Promise((resolve) => attempt(upstream, exchange, true, resolve));
}

function attempt(upstream: Upstream, exchange: Exchange, retry: boolean, done: (outcome: Outcome) => void): void {
  const { req, res, body, id, traceContext } = exchange;
  const { url } = upstream;
  let settled = false;
  const settle = (outcome: Outcome) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    res.off("close", clientGone);
    done(outcome);
  };
  const out = (url.protocol === "https:" ? https : http).request({
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port || undefined,
    method: req.method,
    path: originForm(req.url),
    headers: forwardedHeaders(req, upstream, body, traceContext),
    agent: upstream.agent,
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    out.destroy();
  }, upstream.timeoutMs);
  // The client went away: the upstream request (and the stream it may be answering with) is cancelled.
  const clientGone = () => {
    if (res.writableFinished) return;
    out.destroy();
    settle({ kind: "client-gone" });
  };
  res.once("close", clientGone);

  out.once("error", (error: NodeJS.ErrnoException) => {
    if (settled) return;
    if (retry && !timedOut && out.reusedSocket && error.code === "ECONNRESET" && !res.headersSent && !res.destroyed) {
      settled = true;
      clearTimeout(timer);
      res.off("close", clientGone);
      return attempt(upstream, exchange, false, done);
    }
    if (res.headersSent) {
      res.destroy();
      return settle({ kind: "upstream-broke" });
    }
    const status = timedOut ? 504 : 502;
    const message = timedOut
      ? `Gateway Timeout: the upstream server did not answer within ${upstream.timeoutMs} ms`
      : "Bad Gateway: the upstream server could not be reached";
    sendJson(res, status, errorResponse(id, INTERNAL_ERROR, message));
    settle({ kind: timedOut ? "timeout" : "unreachable", status, error: timedOut ? "timeout" : (error.code ?? error.message) });
  });

  out.once("response", (answer) => {
    clearTimeout(timer);
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders(answer.rawHeaders));
    // A stream's headers go out at once: a client waits for them before it reads any event, and the first may be far off.
    if (String(answer.headers["content-type"]).startsWith("text/event-stream")) res.flushHeaders();
    answer.on("data", (chunk: Buffer) => {
      // Backpressure: a slow client pauses the upstream's answer, and so the upstream itself.
      if (!res.write(chunk)) answer.pause();
    });
    res.on("drain", () => answer.resume());
    answer.once("end", () => {
      res.end();
      settle({ kind: "answered", status: answer.statusCode ?? 502 });
    });
    // An answer cut off mid-stream: the client's must end the same way, not as if it were complete.
    const broke = () => {
      if (answer.complete) return;
      res.destroy();
      settle({ kind: "upstream-broke" });
    };
    answer.once("close", broke);
    answer.once("error", broke);
  });

  if (body !== undefined) out.end(body);
  else if (hasBody(req)) pipeBody(req, out);
  else out.end();
}

/**
 * The request target as an origin server expects it: a path and a query. A client that writes the absolute form
 * (`POST http://elsewhere/mcp`) meant this server all the same; the upstream gets the path, never another host.
 */
export function originForm(target: string | undefined): string {
  if (target === undefined || target === "") return "/";
  if (target.startsWith("/") || target === "*") return target;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return "/";
  }
}

/** Streams a request body not judged (DELETE, GET with a body, pass-through) to the upstream, with backpressure. */
function pipeBody(from: Readable, to: http.ClientRequest): void {
  from.pipe(to);
  from.once("error", () => to.destroy());
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

/**
 * The client's headers as sent (repeated ones kept), without the hop-by-hop ones and those named in `Connection`;
 * `Content-Length` exact for a judged body; the `X-Forwarded-*` trio; `Host` the client's unless told otherwise, so
 * that the upstream's own host checks (DNS rebinding protection) and absolute URLs see what the client used.
 */
export function forwardedHeaders(
  req: IncomingMessage,
  upstream: Pick<Upstream, "url" | "rewriteHost">,
  body: Uint8Array | undefined,
  traceContext?: Record<string, string>,
): OutgoingHttpHeaders {
  const named = new Set(
    String(req.headers.connection ?? "")
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
  const headers: OutgoingHttpHeaders = {};
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    if (body !== undefined && name === "content-length") continue;
    const value = raw[i + 1]!;
    const seen = headers[name];
    headers[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [String(seen), value];
  }
  if (body !== undefined) headers["content-length"] = body.byteLength;
  // A streamed body the client framed with chunks is framed with chunks upstream too. Node frames a DELETE's or a GET's
  // body with neither length nor chunks unless told, and an upstream would then read those bytes as a request of their
  // own, one the proxy never judged.
  else if (req.headers["transfer-encoding"] !== undefined && req.headers["content-length"] === undefined)
    headers["transfer-encoding"] = "chunked";
  const client = req.socket.remoteAddress;
  const forwardedFor = req.headers["x-forwarded-for"];
  if (client) headers["x-forwarded-for"] = forwardedFor ? `${forwardedFor}, ${client}` : client;
  // A TLS terminator in front has said what the client used; otherwise the client spoke plain HTTP to this proxy.
  headers["x-forwarded-proto"] ??= "http";
  if (req.headers.host !== undefined) headers["x-forwarded-host"] ??= req.headers.host;
  if (upstream.rewriteHost || req.headers.host === undefined) headers.host = upstream.url.host;
  // The proxy's span is the upstream's parent: its context replaces the client's (whose span is the proxy span's parent).
  if (traceContext) Object.assign(headers, traceContext);
  return headers;
}

/** The upstream's answer headers, repeated ones and their case kept, without the hop-by-hop ones. */
function answerHeaders(raw: string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") for (const token of raw[i + 1]!.split(",")) named.add(token.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** A JSON answer of the proxy's own (502, 504, a crash of ours). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}
