/**
 * @module forward: one request sent on to the upstream server and its answer streamed back, with Node's own `http`:
 * the client's headers but the hop-by-hop ones, backpressure both ways, the upstream request cancelled when the client
 * goes away, and a JSON-RPC error (502, or 504 past the timeout) when the upstream cannot answer.
 */
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import https from "node:https";
import { isIP, Socket } from "node:net";
import type { Duplex, Readable } from "node:stream";
import { errorResponse, INTERNAL_ERROR, type JsonRpcId } from "../../core/envelope.js";
import { mediaType } from "../../core/header-value.js";
import type { NodeAnswer, NodeOut } from "../shared/node-chain.js";

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1), plus `Expect`, which the proxy answers itself. */
export const HOP_BY_HOP = new Set([
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
  /** Longest wait for a new connection to the upstream (TCP, and TLS for https), in ms; then 502. */
  connectTimeoutMs: number;
  /** Largest answer (not an event stream) relayed, in bytes; past it the answer is cut. */
  maxAnswerBytes: number;
  /** Send the upstream's own host in `Host` instead of the client's. */
  rewriteHost: boolean;
  /** Take the client's `X-Forwarded-*` and `Forwarded` as a trusted proxy in front wrote them. */
  trustProxy: boolean;
  agent: http.Agent;
}

/** How long a pooled socket may stay idle when the upstream names no keep-alive timeout (most servers' is 5 s). */
const DEFAULT_IDLE_MS = 4_000;
/** Longest idle time taken from an upstream's `Keep-Alive: timeout=` hint. */
const MAX_IDLE_MS = 60_000;

/**
 * A keep-alive agent for the upstream's scheme. A pooled socket is closed a second before the upstream's own idle
 * timeout, as its `Keep-Alive: timeout=N` answer header announces it (4 s when it names none), so that a request is
 * rarely sent on a socket the upstream is closing; a request sent on one is retried only when that is safe.
 */
export function upstreamAgent(url: URL): http.Agent {
  const options = { keepAlive: true, timeout: DEFAULT_IDLE_MS, scheduling: "lifo" as const };
  const agent = url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
  agent.keepSocketAlive = (socket: Duplex) => {
    if (!(socket instanceof Socket)) return false;
    // Node's own agent reads the hint from the same place (the answer of the request the socket last carried).
    const hint = (socket as { _httpMessage?: { res?: IncomingMessage } })._httpMessage?.res?.headers["keep-alive"];
    const idle = idleMs(Array.isArray(hint) ? hint[0] : hint);
    if (idle <= 0) return false;
    socket.setKeepAlive(true, 1_000);
    socket.unref();
    socket.setTimeout(idle);
    return true;
  };
  return agent;
}

/** The idle time a `Keep-Alive` answer header allows (RFC 9112 §9.3 leaves the parameter to the server), in ms. */
export function idleMs(hint: string | undefined): number {
  const seconds = hint === undefined ? undefined : /(?:^|[,;\s])timeout\s*=\s*"?(\d{1,6})"?/i.exec(hint)?.[1];
  if (seconds === undefined) return DEFAULT_IDLE_MS;
  return Math.min(Number(seconds) * 1_000 - 1_000, MAX_IDLE_MS);
}

/** How a forwarded exchange ended, for the log and the hooks. */
export type Outcome =
  | { kind: "answered"; status: number }
  | { kind: "unreachable" | "timeout" | "malformed" | "too-large"; status: 502 | 504; error: string }
  | { kind: "client-gone" }
  /** A GET the upstream had not answered yet when the proxy drained: answered with an empty event stream. */
  | { kind: "drained"; status: 200 }
  | { kind: "upstream-broke"; error?: string };

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The judged body, forwarded as it is; `undefined` streams the request's own body through. */
  body: Uint8Array | undefined;
  /** The id wymcp answers a 502/504 with. */
  id: JsonRpcId;
  /** Trace context headers (`traceparent`, `tracestate`, `baggage`) of the proxy's span, in place of the client's. */
  traceContext?: Record<string, string>;
  /**
   * Aborted when the proxy drains: an event stream then ends as a finished answer does (see {@link attempt}), so that
   * neither the client nor a reverse proxy in front reads it as a failure. Answers of other kinds still finish.
   */
  drain?: AbortSignal;
  /**
   * The chain's answer on `res` (node-chain.ts), when the face's chain reads or rewrites this exchange's answer: the
   * relay writes through it, and tells it before it writes a 502 or 504 of its own in place of the upstream's, why.
   */
  answer?: NodeAnswer | undefined;
}

/** Methods a client may repeat with the same effect (RFC 9110 §9.2.2): only these are sent again on a new socket. */
const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);

/** A reason phrase as RFC 9112 §4 allows it: tabs, spaces, visible ASCII and obs-text. */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A header name (a token, RFC 9110 §5.6.2) and a header value as Node writes them. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Sends `exchange` upstream and streams the answer back; resolves once the exchange is over, however it ended.
 * A reused keep-alive socket that the upstream had already closed (`ECONNRESET` before any answer) is retried once on
 * a fresh one, as Node's documentation advises, but only when that cannot repeat an effect or lose a body: the
 * request was not sent at all, or it is idempotent and carries no body streamed from the client (which is consumed).
 */
export function forward(upstream: Upstream, exchange: Exchange): Promise<Outcome> {
  return new Promise((resolve) => attempt(upstream, exchange, true, resolve));
}

/** One try at `exchange`: `retry` says whether a reset reused socket may still be given a second one. */
function attempt(upstream: Upstream, exchange: Exchange, retry: boolean, done: (outcome: Outcome) => void): void {
  new Attempt(upstream, exchange, retry, done).start();
}

/**
 * One try's state and its steps, one method each: the upstream request's listeners call them, and the try ends once,
 * with an outcome for `done` or with a second try. One instance per try holds what the listeners share.
 */
class Attempt {
  private readonly out: http.ClientRequest;
  /** The bound on the upstream's answer headers (`timeoutMs`), connecting included. */
  private readonly timer: NodeJS.Timeout;
  private connectTimer: NodeJS.Timeout | undefined = undefined;
  private settled = false;
  private timedOut = false;
  /** What the socket had written when the request got it: an error before this request wrote anything means unsent. */
  private writtenBefore = -1;
  /** Whether the answer's head went out to the client; then whether it is an event stream, and its status. */
  private answering = false;
  private stream = false;
  private status = 0;
  /** Set once a drain ends the exchange: what the upstream still sends is dropped. */
  private ending = false;
  /** The bytes of the answer relayed so far. */
  private size = 0;

  constructor(
    private readonly upstream: Upstream,
    private readonly exchange: Exchange,
    private readonly retry: boolean,
    private readonly done: (outcome: Outcome) => void,
  ) {
    this.out = upstreamRequest(upstream, exchange);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.out.destroy();
    }, upstream.timeoutMs);
  }

  /** Listens to the client and to the upstream request, then sends the body. */
  start(): void {
    const { out, exchange } = this;
    const { req, res, body, drain } = exchange;
    out.once("socket", (socket) => this.onSocket(socket));
    res.once("close", this.clientGone);
    if (req.socket?.readableEnded) this.finished();
    else req.socket?.once("end", this.finished);
    out.once("error", (error: NodeJS.ErrnoException) => this.onError(error));
    // A 101 answers an upgrade the proxy never asks for (Upgrade is hop-by-hop): the socket then speaks something else.
    out.once("upgrade", (_answer: IncomingMessage, socket: Socket) => {
      socket.destroy();
      this.fail("malformed", "unsolicited 101 Switching Protocols");
    });
    // Whatever ends the request with no answer and no error (Node is silent in a few such cases) still gets one.
    out.once("close", () => {
      if (!this.settled && !(out as { res?: IncomingMessage }).res)
        this.fail("malformed", "the upstream closed the exchange without an answer");
    });
    out.once("response", (answer) => this.onResponse(answer));
    if (body !== undefined) out.end(body);
    else if (hasBody(req)) pipeBody(req, out);
    else out.end();
    if (drain?.aborted) this.drained();
    else drain?.addEventListener("abort", this.drained, { once: true });
  }

  /** Ends the try with `outcome`, once: the timers and the listeners on the client go. */
  private settle(outcome: Outcome): void {
    if (this.settled) return;
    this.settled = true;
    this.release();
    this.done(outcome);
  }

  /** Clears the timers and takes the listeners off the client's response, socket and the drain signal. */
  private release(): void {
    const { req, res, drain } = this.exchange;
    clearTimeout(this.timer);
    clearTimeout(this.connectTimer);
    res.off("close", this.clientGone);
    req.socket?.off("end", this.finished);
    drain?.removeEventListener("abort", this.drained);
  }

  /** Before any answer: the client gets a JSON-RPC error of the proxy's; after its headers, its answer breaks off. */
  private fail(kind: "unreachable" | "malformed" | "too-large", error: string): void {
    const { res, id } = this.exchange;
    if (res.headersSent) {
      res.destroy();
      return this.settle({ kind: "upstream-broke", error });
    }
    const message =
      kind === "unreachable"
        ? "Bad Gateway: the upstream server could not be reached"
        : kind === "too-large"
          ? `Bad Gateway: the upstream server's answer is larger than ${this.upstream.maxAnswerBytes} bytes`
          : "Bad Gateway: the upstream server's answer is not valid HTTP";
    this.exchange.answer?.own({ answer: "failed", status: 502, reason: `upstream-${kind}` });
    sendJson(this.exchange.answer ?? res, 502, errorResponse(id, INTERNAL_ERROR, message));
    this.settle({ kind, status: 502, error });
  }

  /** The socket the request got: what it had written so far, and a bound on connecting when it is a new one. */
  private onSocket(socket: Socket): void {
    this.writtenBefore = socket.bytesWritten;
    if (!socket.connecting) return;
    this.connectTimer = setTimeout(
      () => this.out.destroy(Object.assign(new Error("connect timeout"), { code: "ECONNECTTIMEOUT" })),
      this.upstream.connectTimeoutMs,
    );
    socket.once(this.upstream.url.protocol === "https:" ? "secureConnect" : "connect", () => clearTimeout(this.connectTimer));
  }

  /** The client went away: the upstream request (and the stream it may be answering with) is cancelled. */
  private readonly clientGone = (): void => {
    if (this.exchange.res.writableFinished) return;
    this.out.destroy();
    this.settle({ kind: "client-gone" });
  };

  /**
   * The client's FIN: its connection may be only half-closed (proxy.ts allows it), so a request's answer still goes
   * out; but a GET's stream of server messages has no end to wait for, and a FIN ends it as a client gone does.
   */
  private readonly finished = (): void => {
    if (this.exchange.req.method === "GET") this.exchange.res.destroy();
  };

  /**
   * Draining: an event stream ends cleanly. Its headers out, the response ends (a chunked answer's last chunk; an
   * event cut mid-way is dropped by the client's parser, as the end of a stream asks). No headers yet, the client gets
   * an empty event stream (docs/decisions/drained-stream-ends-clean.md): a stream that ends, which it reopens, through a live instance.
   */
  private readonly drained = (): void => {
    if (this.settled || this.ending) return;
    const { req, res } = this.exchange;
    if (this.answering) {
      if (!this.stream) return;
      this.ending = true;
      this.out.destroy();
      (this.exchange.answer ?? res).end();
      return this.settle({ kind: "answered", status: this.status });
    }
    if (!acceptsEventStream(req.headers.accept)) return;
    this.ending = true;
    this.out.destroy();
    const headers = { "content-type": "text/event-stream", "cache-control": "no-cache" };
    const out = this.exchange.answer ?? res;
    out.writeHead(200, headers);
    out.end();
    this.settle({ kind: "drained", status: 200 });
  };

  /** The upstream request failed: a second try when that is safe, else a 504, a 502 or a broken-off answer. */
  private onError(error: NodeJS.ErrnoException): void {
    if (this.settled) return;
    const { exchange, upstream } = this;
    const { res, id } = exchange;
    if (this.retries(error)) {
      this.settled = true;
      this.release();
      return attempt(upstream, exchange, false, this.done);
    }
    if (res.headersSent) {
      res.destroy();
      return this.settle({ kind: "upstream-broke" });
    }
    if (this.timedOut) {
      exchange.answer?.own({ answer: "failed", status: 504, reason: "upstream-timeout" });
      sendJson(
        exchange.answer ?? res,
        504,
        errorResponse(id, INTERNAL_ERROR, `Gateway Timeout: the upstream server did not answer within ${upstream.timeoutMs} ms`),
      );
      return this.settle({ kind: "timeout", status: 504, error: "timeout" });
    }
    // Node's parser refuses what is not HTTP (a bad status line, header or framing): the upstream's fault, not its absence.
    const code = error.code ?? error.message;
    this.fail(code.startsWith("HPE_") ? "malformed" : "unreachable", code);
  }

  /** Whether this failure gets a second try: a reused socket reset before any answer, when a replay repeats no effect and loses no body. */
  private retries(error: NodeJS.ErrnoException): boolean {
    const { out } = this;
    const { req, res, body } = this.exchange;
    const unsent = out.socket !== null && out.socket.bytesWritten === this.writtenBefore;
    const replayable = unsent || (IDEMPOTENT.has(req.method ?? "") && !(body === undefined && hasBody(req)));
    return (
      this.retry && replayable && !this.timedOut && out.reusedSocket && error.code === "ECONNRESET" && !res.headersSent && !res.destroyed
    );
  }

  /** The upstream's answer: its head written to the client (or refused), its body relayed, its end or cut passed on. */
  private onResponse(answer: IncomingMessage): void {
    clearTimeout(this.timer);
    const { res, drain } = this.exchange;
    const out = this.exchange.answer ?? res;
    const status = answer.statusCode ?? 0;
    const stream = mediaType(answer.headers["content-type"]) === "text/event-stream";
    const problem = writeAnswerHead(answer, out, status, stream, this.upstream.maxAnswerBytes);
    if (problem) {
      answer.destroy();
      this.out.destroy();
      return this.fail(problem.kind, problem.error);
    }
    // A stream's headers go out at once: a client waits for them before it reads any event, and the first may be far off.
    if (stream) res.flushHeaders();
    this.answering = true;
    this.stream = stream;
    this.status = status;
    if (stream && drain?.aborted) return this.drained();
    answer.on("data", (chunk: Buffer) => this.relay(answer, chunk));
    res.on("drain", () => answer.resume());
    answer.once("end", () => {
      out.end();
      this.settle({ kind: "answered", status });
    });
    // An answer cut off mid-stream: the client's must end the same way, not as if it were complete.
    const broke = () => this.broke(answer);
    answer.once("close", broke);
    answer.once("error", broke);
  }

  /** One chunk of the answer on to the client, counted against the bound unless the answer is an event stream. */
  private relay(answer: IncomingMessage, chunk: Buffer): void {
    if (this.ending) return;
    this.size += chunk.length;
    // An event stream lives as long as the session; any other answer is one message, and bounded.
    if (!this.stream && this.size > this.upstream.maxAnswerBytes) {
      answer.destroy();
      return this.fail("too-large", `more than ${this.upstream.maxAnswerBytes} bytes`);
    }
    const written = (this.exchange.answer ?? this.exchange.res).write(chunk);
    // Backpressure: a slow client pauses the upstream's answer, and so the upstream itself.
    if (!written) answer.pause();
  }

  /** The answer closed or failed: when it was not complete (and no drain ended it), the client's breaks off too. */
  private broke(answer: IncomingMessage): void {
    if (answer.complete || this.ending) return;
    this.exchange.res.destroy();
    this.settle({ kind: "upstream-broke" });
  }
}

/** The request to the upstream for one exchange: the origin-form target, the forwarded headers, the pool, TLS's name. */
function upstreamRequest(upstream: Upstream, { req, body, traceContext }: Exchange): http.ClientRequest {
  const { url } = upstream;
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const request = (url.protocol === "https:" ? https : http).request({
    protocol: url.protocol,
    hostname,
    port: url.port || undefined,
    method: req.method,
    path: originForm(req.url),
    headers: forwardedHeaders(req, upstream, body, traceContext),
    agent: upstream.agent,
    // TLS names the upstream (SNI, the certificate's check, the pool's key), never the Host the client sent; an IP
    // address is no server name (RFC 6066 §3), and its certificate is checked against the address.
    ...(url.protocol === "https:" ? { servername: isIP(hostname) ? "" : hostname } : {}),
  });
  // No `Connection: keep-alive` of Node's: HTTP/1.1 keeps the connection without it (RFC 9112 §9.3), and a head the
  // client sent at the bound, without one, would not fit with it ({@link HeadRoom}).
  request.removeHeader("connection");
  return request;
}

/**
 * Writes the upstream's status and headers to the client, or says why its answer cannot go on: a status no final
 * answer has, a header Node cannot write, a declared length past the bound (not for an event stream, which lives as
 * long as the session).
 */
function writeAnswerHead(
  answer: IncomingMessage,
  out: NodeOut,
  status: number,
  stream: boolean,
  maxAnswerBytes: number,
): { kind: "malformed" | "too-large"; error: string } | undefined {
  const headers = answerHeaders(answer.rawHeaders);
  // RFC 9110 §15: a status outside 100..599 is invalid, and a final answer is never 1xx: Node would throw writing it.
  const bad = status < 200 || status > 599 ? `status ${status}` : headers === undefined ? "an invalid header" : undefined;
  if (bad !== undefined) return { kind: "malformed", error: bad };
  const declared = Number(answer.headers["content-length"]);
  if (!stream && declared > maxAnswerBytes) return { kind: "too-large", error: `content-length ${declared}` };
  try {
    // A reason phrase Node cannot write (a control byte) gives way to the status's own: RFC 9112 §4 has clients
    // ignore it, and Node's own client reads such an answer.
    const reason = REASON_PHRASE.test(answer.statusMessage ?? "") ? answer.statusMessage : undefined;
    out.writeHead(status, reason, headers);
  } catch (error) {
    return { kind: "malformed", error: (error as NodeJS.ErrnoException).code ?? "an answer Node cannot write" };
  }
  return undefined;
}

/** Whether an `Accept` header admits an event stream (absent, `*\/*`, `text/*` or `text/event-stream`). */
function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  return accept
    .toLowerCase()
    .split(",")
    .some((range) => ["text/event-stream", "text/*", "*/*"].includes(range.split(";")[0]!.trim()));
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

/** Headers about earlier hops (every `X-Forwarded-*` too): taken as they are only from a proxy in front that is trusted. */
const FORWARDING = new Set(["forwarded", "x-real-ip"]);
const isForwarding = (name: string) => FORWARDING.has(name) || name.startsWith("x-forwarded-");

/** The header names a `Connection` header lists (RFC 9110 §7.6.1): they belong to this hop and are never forwarded. */
export function connectionNamed(connection: string | string[] | undefined): Set<string> {
  const named = new Set<string>();
  for (const value of Array.isArray(connection) ? connection : [connection ?? ""])
    for (const token of value.split(",")) {
      const name = token.trim().toLowerCase();
      if (name) named.add(name);
    }
  return named;
}

/**
 * The client's headers as sent (repeated ones kept), without the hop-by-hop ones and those named in `Connection`;
 * `Content-Length` exact for a judged body; the `X-Forwarded-*` trio, the proxy's own unless the client is a trusted
 * proxy (then it extends theirs), each added only within the head's bound ({@link HeadRoom}); `Host` the client's
 * unless told otherwise, so that the upstream's own host checks (DNS rebinding protection) and absolute URLs see what
 * the client used; the live page's old cookie never.
 */
export function forwardedHeaders(
  req: IncomingMessage,
  upstream: Pick<Upstream, "url" | "rewriteHost" | "trustProxy">,
  body: Uint8Array | undefined,
  traceContext?: Record<string, string>,
): OutgoingHttpHeaders {
  const named = connectionNamed(req.headers.connection);
  const { trustProxy } = upstream;
  const headers: OutgoingHttpHeaders = {};
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    if (body !== undefined && name === "content-length") continue;
    if (!trustProxy && isForwarding(name)) continue;
    const value = name === "cookie" ? withoutPageCookie(raw[i + 1]!) : raw[i + 1]!;
    if (value === "") continue;
    const seen = headers[name];
    headers[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [String(seen), value];
  }
  if (body !== undefined) headers["content-length"] = body.byteLength;
  // A streamed body the client framed with chunks is framed with chunks upstream too. Node frames a DELETE's or a GET's
  // body with neither length nor chunks unless told, and an upstream would then read those bytes as a request of their
  // own, one the proxy never judged.
  else if (req.headers["transfer-encoding"] !== undefined && req.headers["content-length"] === undefined)
    headers["transfer-encoding"] = "chunked";
  if (upstream.rewriteHost || req.headers.host === undefined) headers.host = upstream.url.host;
  // What the proxy adds, in the order it matters to an upstream, each only if the head stays within the bound the
  // client's request was held to: an upstream with the same bound must not refuse what the client alone may send.
  const room = new HeadRoom(req.url, headers);
  const client = req.socket.remoteAddress;
  const forwardedFor = headers["x-forwarded-for"];
  if (client) room.set("x-forwarded-for", forwardedFor ? `${[forwardedFor].flat().join(", ")}, ${client}` : client);
  // A trusted TLS terminator in front has said what the client used; otherwise the client spoke plain HTTP to this proxy.
  if (headers["x-forwarded-proto"] === undefined) room.set("x-forwarded-proto", "http");
  // The proxy's span is the upstream's parent: its context replaces the client's (whose span is the proxy span's parent).
  if (traceContext) for (const [name, value] of Object.entries(traceContext)) room.set(name, value);
  const host = req.headers.host;
  if (host !== undefined && host.length <= MAX_FORWARDED_HOST && headers["x-forwarded-host"] === undefined)
    room.set("x-forwarded-host", host);
  return headers;
}

/** The cookie the live page of earlier versions kept its token in: cookies go to every port of a host, the proxy's too. */
const PAGE_COOKIE = "wymcp-ui=";

/** A `Cookie` header without the live page's cookie (its token is wymcp's, never the upstream's); as it is otherwise. */
export function withoutPageCookie(value: string): string {
  if (!value.includes(PAGE_COOKIE)) return value;
  return value
    .split(";")
    .filter((pair) => !pair.trimStart().startsWith(PAGE_COOKIE))
    .map((pair) => pair.trim())
    .join("; ");
}

/**
 * Longest `Host` copied into `X-Forwarded-Host`: a DNS name (253 characters at most), a colon and a port. A longer one
 * names no host the upstream can be reached by, and its copy alone could take a request past an upstream's bound.
 */
export const MAX_FORWARDED_HOST = 253 + 1 + 5;

/**
 * The room left in a request's head under Node's bound (`maxHeaderSize`, which the proxy's own listener held the client
 * to): the target and every header's name and value count, as Node's parser counts them, and the head must stay under it.
 */
class HeadRoom {
  private used: number;
  private readonly bound = http.maxHeaderSize - 1;

  constructor(
    target: string | undefined,
    private readonly headers: OutgoingHttpHeaders,
  ) {
    this.used = target?.length ?? 1;
    for (const name of Object.keys(headers)) this.used += fieldLength(name, headers[name]);
  }

  /** Sets a header the proxy adds (or replaces) when the head stays within the bound; otherwise leaves it as it was. */
  set(name: string, value: string): void {
    const grown = this.used - fieldLength(name, this.headers[name]) + name.length + value.length;
    if (grown > this.bound) return;
    this.headers[name] = value;
    this.used = grown;
  }
}

/** What a header counts toward Node's bound: its name and its value, once per value of a repeated one. */
function fieldLength(name: string, value: OutgoingHttpHeaders[string]): number {
  if (value === undefined) return 0;
  if (Array.isArray(value)) return value.reduce((sum, one) => sum + name.length + one.length, 0);
  return name.length + String(value).length;
}

/**
 * The upstream's answer headers, repeated ones and their case kept, without the hop-by-hop ones; `undefined` when one
 * is not a header Node can write (a name that is no token, a control character in a value).
 */
function answerHeaders(raw: string[]): string[] | undefined {
  const named = new Set<string>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") for (const token of raw[i + 1]!.split(",")) named.add(token.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    if (!TOKEN.test(raw[i]!) || !FIELD_VALUE.test(raw[i + 1]!)) return undefined;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** A JSON answer of the proxy's own (502, 504, a crash of ours), through the chain's answer when the exchange has one. */
export function sendJson(out: NodeOut, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  out.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  out.end(text);
}
