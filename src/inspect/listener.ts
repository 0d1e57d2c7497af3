/**
 * @module listener: the inspector's HTTP listener. It answers its own paths alone (404 otherwise): the page, its style
 * and its modules (the built page and the modules it imports, read once at start), `/rows` (a page of the ring's rows
 * as JSON, after a cursor) and `/events` (each row pushed from then on, as Server-Sent Events: the row's JSON, or for
 * the live feed's rows the JSON of all but the text on the first `data:` line and the text as it is on the lines
 * after). Every answer carries a Content-Security-Policy that lets the page load nothing but its own origin's files and
 * run no inline script. A request another site's page made is refused before anything else (its `Sec-Fetch-Site`, its
 * `Origin`), a request whose Host is not the listener's own too (a page of another site reaching it through DNS
 * rebinding), and with a token (the Host then free: a non-loopback listener is reached by names of its own) the rows
 * and their stream need it: the page sends it (`Authorization: Bearer` for `/rows`, `?token=` for `/events`, which an
 * EventSource cannot give a header). No cookie carries it: a cookie goes to every port of the host, the proxy's
 * included, and so on upstream. What readers cost the face watched is bounded: pages of rows, answers in flight, event
 * streams, and a reader that does not read is let go.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { RowSource } from "./ring.js";

/** The page's module in dist/; the modules it imports sit beside it. */
export const PAGE_MODULE = "inspect-page.js";
/** The page's HTML and style, in dist/inspect/. */
const PAGE_DIR = "inspect";

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The most event streams open at once; one more is answered 503. */
const MAX_STREAMS = 16;
/** How long a row waits to go out with the next ones on an event stream, and the most text a batch gathers first. */
const FLUSH_MS = 50;
const FLUSH_CHARS = 64 * 1024;
/** Rows gathered for a stream whose socket is full, at most (UTF-16 units): past it the reader is let go. */
const MAX_PENDING_CHARS = 4 * 1024 * 1024;

/** What one answer of `/rows` holds and what its readers may hold at once (`ListenerOptions.limits`). */
export interface ListenerLimits {
  /** Rows in one answer, at most (and when `limit` is not given). */
  pageRows: number;
  /** Bytes of rows in one answer, at most (one row at least, whatever its size: no larger than the size limit let through). */
  pageBytes: number;
  /**
   * Answers of `/rows` in flight at once; one more is 503. An answer is in flight from its request until its reader
   * asks for the next page on the same connection, or goes, or `sendMs` pass.
   */
  reads: number;
  /** Their bytes: while those in flight hold this many, a new one is 503. */
  readBytes: number;
  /**
   * How long a read holds its place at most when its reader neither asks again nor goes; an answer its reader's
   * socket has not taken by then is cut: a reader that does not read is let go.
   */
  sendMs: number;
}

export const DEFAULT_LIMITS: ListenerLimits = {
  pageRows: 1000,
  pageBytes: 64 * 1024,
  reads: 4,
  readBytes: 8 * 1024 * 1024,
  sendMs: 10_000,
};

export interface ListenerOptions {
  ring: RowSource;
  /** What the page calls itself (`wymcp inspect` by default; the live page names its face). */
  title?: string;
  host: string;
  port: number;
  /** Required on every path when set (a listener on a non-loopback address must have one). */
  token?: string;
  /** The built package's dist/ folder (the page's files); found beside this module by default. */
  dist?: string;
  /** The bounds on reading `/rows` (`DEFAULT_LIMITS` for what is not given). */
  limits?: Partial<ListenerLimits>;
}

export interface Listener {
  server: Server;
  /** The page's address (with the token when there is one). */
  url: string;
  close(): Promise<void>;
}

export class PageMissingError extends Error {
  override name = "PageMissingError";
}

/** Whether `host` is a loopback address (or `localhost`). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** The dist/ folder: this module's own when it runs built, the repository's when it runs from src/. */
function defaultDist(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return basename(here) === "dist" ? here : resolve(here, "../../dist");
}

/** The page's files by path, read once: the HTML, the style, the page module and every module it imports, transitively. */
export function readPage(dist: string): Map<string, { type: string; body: Buffer }> {
  const html = join(dist, PAGE_DIR, "index.html");
  if (!existsSync(html) || !existsSync(join(dist, PAGE_MODULE)))
    throw new PageMissingError(`the inspector's page is not built in ${dist} (run npm run build)`);
  const files = new Map<string, { type: string; body: Buffer }>();
  files.set("/", { type: "text/html; charset=utf-8", body: readFileSync(html) });
  files.set("/page.css", { type: "text/css; charset=utf-8", body: readFileSync(join(dist, PAGE_DIR, "page.css")) });
  const pending = [PAGE_MODULE];
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (files.has(`/${name}`)) continue;
    const body = readFileSync(join(dist, name));
    files.set(`/${name}`, { type: "text/javascript; charset=utf-8", body });
    // esbuild's output names its imports `./<name>.js`, side by side in dist/.
    for (const match of body.toString("utf8").matchAll(/\bfrom\s*"\.\/([\w-]+\.js)"|\bimport\s*"\.\/([\w-]+\.js)"/g))
      pending.push((match[1] ?? match[2])!);
  }
  return files;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** The token of an `Authorization: Bearer` header. */
function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer (\S+)$/i.exec(header ?? "");
  return match === null ? undefined : match[1];
}

/** Headers on every answer: the page loads only its own origin's files, and nothing is sniffed, sent on or cached. */
function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cache-Control", "no-store");
}

function answerPlain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" }).end(`${text}\n`);
}

/**
 * Whether a browser says another site's page made the request: a `Sec-Fetch-Site` other than `same-origin` or `none`
 * (the user's own navigation), or an `Origin` that is not this listener's own (`http://` and the request's Host, which
 * the Host check or the token holds to the listener's). Clients that are not browsers send neither, and pass. A link
 * another site shows to the page itself may open it: that navigation reads no rows, and the page's own requests are
 * same-origin.
 */
function crossSite(req: IncomingMessage): boolean {
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    const target = req.url ?? "";
    const opensPage =
      req.headers["sec-fetch-mode"] === "navigate" &&
      req.headers["sec-fetch-dest"] === "document" &&
      (target === "/" || target.startsWith("/?"));
    if (!opensPage) return true;
  }
  const origin = req.headers.origin;
  return origin !== undefined && origin.toLowerCase() !== `http://${(req.headers.host ?? "").toLowerCase()}`;
}

/**
 * The request's target when it may be served (without a token: its Host is the listener's own; with one: a request
 * for rows carries it, and the page's own files need none); otherwise the refusal is answered and the result is
 * undefined.
 */
function admittedTarget(
  req: IncomingMessage,
  res: ServerResponse,
  { hosts, expected, files }: { hosts: Set<string>; expected: Buffer | undefined; files: ReadonlyMap<string, unknown> },
): URL | undefined {
  // Without a token the Host is what keeps another site's page out (DNS rebinding); with one, the token does.
  if (!expected && !hosts.has((req.headers.host ?? "").toLowerCase())) {
    answerPlain(res, 421, "this listener answers its own address only");
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(req.url ?? "/", "http://inspect.invalid");
  } catch {
    answerPlain(res, 400, "bad request target");
    return undefined;
  }
  // The page and its modules are the package's own files, the same for everyone: the traffic is what the token guards.
  if (expected && !files.has(url.pathname)) {
    const given = url.searchParams.get("token") ?? bearerToken(req.headers.authorization);
    if (given === null || given === undefined || !timingSafeEqual(digest(given), expected)) {
      answerPlain(res, 401, "this page needs its token");
      return undefined;
    }
  }
  return url;
}

/**
 * Answers `/events`: every row the ring takes from now on, as Server-Sent Events, until the reader goes.
 * Rows go out together every FLUSH_MS (or once a batch is large): one write for many rows on a busy proxy. While the
 * socket has not taken the last write, rows gather up to MAX_PENDING_CHARS; a reader still behind past that is let go
 * (the page reconnects and reads /rows again), so a slow page never costs more than the bound.
 */
function streamRows(res: ServerResponse, ring: RowSource, streams: Set<ServerResponse>): void {
  if (streams.size >= MAX_STREAMS) return answerPlain(res, 503, "too many open event streams");
  res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", Connection: "keep-alive" });
  res.write(": rows follow\n\n");
  streams.add(res);
  let batch = "";
  let timer: NodeJS.Timeout | undefined;
  let blocked = false;
  const flush = () => {
    timer = undefined;
    if (blocked || batch === "") return;
    const text = batch;
    batch = "";
    if (!res.write(text)) blocked = true;
  };
  res.on("drain", () => {
    blocked = false;
    flush();
  });
  const stop = ring.subscribe((row, event) => {
    if (res.destroyed) return;
    batch += event ?? `data: ${JSON.stringify(row)}\n\n`;
    if (blocked) {
      if (batch.length > MAX_PENDING_CHARS) res.destroy();
    } else if (batch.length >= FLUSH_CHARS) {
      clearTimeout(timer);
      flush();
    } else timer ??= setTimeout(flush, FLUSH_MS);
  });
  res.on("close", () => {
    clearTimeout(timer);
    stop();
    streams.delete(res);
  });
}

/** The answers of `/rows` in flight, and their bytes. */
interface Reads {
  count: number;
  bytes: number;
  /** What frees the place a connection's last read holds: its reader asking for the next page frees it. */
  held: WeakMap<Socket, () => void>;
}

/** A cursor or a count from the query: a whole number in `[min, max]`, the fallback when absent; undefined: not one. */
function whole(value: string | null, fallback: number, min: number, max: number): number | undefined {
  if (value === null) return fallback;
  if (!/^\d{1,16}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}

/**
 * Answers `/rows?after=N&limit=M`: at most M rows (the page's bound by default and at most) numbered after N (0 by
 * default: from the oldest), at most `pageBytes` of them, as `{capacity, title, first, dropped, next, more, rows}`:
 * `first` the oldest row held, `dropped` how many rows after N are no longer held, `next` the cursor to read on from,
 * `more` whether rows after it are held or wait to be judged. Past `reads` answers in flight, or `readBytes` of them,
 * 503; an answer its reader's socket has not taken within `sendMs` is cut.
 */
async function answerRows(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  { ring, title, limits, reads }: { ring: RowSource; title: string | undefined; limits: ListenerLimits; reads: Reads },
): Promise<void> {
  const after = whole(url.searchParams.get("after"), 0, 0, Number.MAX_SAFE_INTEGER);
  const limit = whole(url.searchParams.get("limit"), limits.pageRows, 1, limits.pageRows);
  if (after === undefined || limit === undefined)
    return answerPlain(res, 400, `after takes a row's number (0 or more), limit a count from 1 to ${limits.pageRows}`);
  // A reader asking for the next page on its connection has taken the last one: that one's place is this one's.
  const socket = req.socket;
  reads.held.get(socket)?.();
  if (reads.count >= limits.reads || reads.bytes >= limits.readBytes) return answerPlain(res, 503, "too many reads of /rows at once");
  if (req.method === "HEAD") {
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" });
    return void res.end();
  }
  // The place is held until the reader asks again on this connection, or goes, or `sendMs` pass: a reader that does
  // not read (whose answer its socket's buffers may have taken whole) holds one place, not one each time it asks.
  reads.count++;
  let held = 0;
  let gone = false;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearTimeout(timer);
    socket.off("close", release);
    reads.held.delete(socket);
    reads.count--;
    reads.bytes -= held;
  };
  const timer = setTimeout(() => {
    // An answer its reader's socket has not taken by now is cut.
    if (!res.writableFinished) res.destroy();
    release();
  }, limits.sendMs);
  reads.held.set(socket, release);
  socket.once("close", release);
  res.once("close", () => (gone = true));
  const page = await ring.page(after, limit, limits.pageBytes, () => gone);
  if (gone) return;
  const head = JSON.stringify({
    capacity: ring.capacity,
    title,
    first: page.first,
    dropped: Math.max(0, page.first - 1 - after),
    next: page.next,
    more: page.more,
  });
  // The object as it reads otherwise (`{"capacity":…,"rows":[…]}`), the rows' bytes written as the source made them.
  const start = Buffer.from(`${head.slice(0, -1)},"rows":`);
  held = start.length + page.json.length + 1;
  reads.bytes += held;
  res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": held });
  res.cork();
  res.write(start);
  res.write(page.json);
  res.end("}");
}

/** An error of the listener's own: 500 when nothing was answered yet, else the connection is closed. */
function failed(res: ServerResponse, error: unknown): void {
  if (!res.headersSent) answerPlain(res, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
  else res.destroy();
}

/** The limits given, each checked, over the defaults. */
function checkedLimits(given: Partial<ListenerLimits> = {}): ListenerLimits {
  const limits = { ...DEFAULT_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits))
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`the listener's ${name} takes a whole number of 1 or more, not ${value}`);
  return limits;
}

/** Resolves once `server` listens on `host`:`port`; rejects with the error that kept it from listening. */
function listenOn(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((done, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      done();
    });
  });
}

/** The Host values that name this listener (lower case): its own address, and on loopback the usual loopback names. */
function ownHosts(shown: string, host: string, bound: number): Set<string> {
  const hosts = new Set([`${shown}:${bound}`.toLowerCase()]);
  if (isLoopback(host)) for (const name of ["localhost", "127.0.0.1", "[::1]"]) hosts.add(`${name}:${bound}`);
  return hosts;
}

/**
 * Starts the listener; resolves once it listens (port 0: the system's choice, in `url`).
 * @example const { url } = await listen({ ring, host: "127.0.0.1", port: 0 })
 */
export async function listen({ ring, host, port, token, title, dist = defaultDist(), limits: given }: ListenerOptions): Promise<Listener> {
  if (!isLoopback(host) && !token) throw new RangeError(`a listener on ${host}, not a loopback address, needs --ui-token`);
  if (token !== undefined && token.length < 16) throw new RangeError("--ui-token takes at least 16 characters");
  const limits = checkedLimits(given);
  const reads: Reads = { count: 0, bytes: 0, held: new WeakMap() };
  const files = readPage(dist);
  const expected = token === undefined ? undefined : digest(token);
  const streams = new Set<ServerResponse>();
  let hosts: Set<string> = new Set();

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    setSecurityHeaders(res);
    if (crossSite(req)) return answerPlain(res, 403, "this listener answers its own page only, not another site's");
    const url = admittedTarget(req, res, { hosts, expected, files });
    if (url === undefined) return;
    const path = url.pathname;
    const known = files.has(path) || path === "/rows" || path === "/events";
    if (!known) return answerPlain(res, 404, "not found");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD");
      return answerPlain(res, 405, "this listener answers GET only");
    }
    if (path === "/rows")
      return void answerRows(req, res, url, { ring, title, limits, reads }).catch((error: unknown) => failed(res, error));
    if (path === "/events") return streamRows(res, ring, streams);
    const file = files.get(path)!;
    res.writeHead(200, { "Content-Type": file.type, "Content-Length": file.body.length });
    res.end(req.method === "HEAD" ? undefined : file.body);
  };

  const server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (error) {
      failed(res, error);
    }
  });
  await listenOn(server, port, host);
  const { port: bound } = server.address() as AddressInfo;
  const shown = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  hosts = ownHosts(shown, host, bound);
  const url = `http://${shown}:${bound}/${token === undefined ? "" : `?token=${encodeURIComponent(token)}`}`;
  return {
    server,
    url,
    close: () =>
      new Promise<void>((done) => {
        for (const stream of streams) stream.destroy();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
