/**
 * @module http-tap: `wymcp proxy`'s messages for the live feed. The proxy hands over each exchange (its request's
 * bytes as read, and its response); the request's body is one message, and what goes back (the upstream's answer, an
 * event stream's events as they go out, or wymcp's own refusal) is read after each write, never delaying a byte.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StringDecoder } from "node:string_decoder";
import type { Capture } from "./feed.js";

/** An event stream's event, or a JSON answer, longer than this is captured as over the limit (its text not kept). */
export interface HttpTapOptions {
  maxBytes: number;
}

function text(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length === 0 ? undefined : String(value[0]);
  return value === undefined || value === null ? undefined : String(value);
}

/** One header among `writeHead`'s: an object, or a flat `[name, value, ...]` array. */
function headerOf(headers: unknown, wanted: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === wanted) return text(headers[i + 1]);
    return undefined;
  }
  if (headers && typeof headers === "object")
    for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === wanted) return text(value);
  return undefined;
}

/**
 * The request's headers as a capture keeps them: lower-cased names, the first of a repeated one, MCP's and the media type
 * only. The same as the last request's, the last request's object is handed on (captures never change it): one object
 * for a client's run of like requests, which the feed keeps once.
 */
function requestHeaders(req: IncomingMessage, last: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const { headers } = req;
  let count = 0;
  let same = last !== undefined;
  // A loop over the names: this runs for every exchange, and Object.entries built an array per header.
  for (const name in headers) {
    if (!(name === "content-type" || name.startsWith("mcp-"))) continue;
    const first = text(headers[name]);
    if (first === undefined) continue;
    out[name] = first;
    count++;
    if (same && last![name] !== first) same = false;
  }
  if (!same) return out;
  for (const _ in last) count--;
  return count === 0 ? last! : out;
}

/** Whether a JSON answer's bytes are blank (nothing but whitespace), as its text trimmed would be. */
function blank(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    // Other whitespace is not ASCII: decoded and trimmed, as the text was read before (rare).
    return byte < 0x80 ? false : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8").trim() === "";
  }
  return true;
}

/**
 * The observer the proxy calls once per exchange it serves (a POST judged or refused, a GET's stream): it captures
 * the request's body and taps the response.
 */
export function httpTap(capture: (message: Capture) => void, { maxBytes }: HttpTapOptions) {
  let entries = 0;
  let last: Record<string, string> | undefined;
  return function exchange(req: IncomingMessage, res: ServerResponse, body: Uint8Array | undefined): void {
    const entry = ++entries;
    const headers = requestHeaders(req, last);
    last = headers;
    if (req.method === "POST") {
      // The bytes as read: decoded only if a page or --record reads them (undefined: over the limit, or not read).
      const bytes = body === undefined || body.length > maxBytes ? undefined : body;
      capture({ entry, part: "request", from: "client", text: undefined, bytes, headers, time: Date.now() });
    }
    tapAnswer(res, entry, headers, capture, maxBytes);
  };
}

/** A tapped response's reader: the answer its writes are read by. */
const ANSWER = Symbol("wymcp.liveAnswer");
type Tapped = ServerResponse & { [ANSWER]: AnswerTap };

/*
 * The tapped response's writeHead, write and end: one function each for every response, each finding its response's
 * tap on it. Three closures made per response instead kept a busy proxy's exchanges alive through scavenges: the young
 * generation's survivors per request doubled, and they died in the old one (GC time per request nearly doubled).
 */
function liveWriteHead(this: Tapped, ...args: unknown[]): ServerResponse {
  const answer = this[ANSWER];
  for (const arg of args)
    if (typeof arg === "object" && arg !== null) {
      answer.given = arg;
      break;
    }
  return answer.writeHead.apply(this, args);
}

function liveWrite(this: Tapped, chunk: unknown, ...rest: unknown[]): boolean {
  const answer = this[ANSWER];
  const ok = answer.write.call(this, chunk, ...rest);
  answer.seen(chunk, rest[0]);
  return ok;
}

function liveEnd(this: Tapped, ...args: unknown[]): ServerResponse {
  const answer = this[ANSWER];
  const out = answer.end.apply(this, args);
  if (typeof args[0] !== "function" && args[0] !== undefined && args[0] !== null) answer.seen(args[0], args[1]);
  answer.finish();
  return out;
}

function tapAnswer(
  res: ServerResponse,
  entry: number,
  headers: Record<string, string>,
  capture: (message: Capture) => void,
  maxBytes: number,
): void {
  (res as Tapped)[ANSWER] = new AnswerTap(res, entry, headers, capture, maxBytes);
  res.writeHead = liveWriteHead as unknown as ServerResponse["writeHead"];
  res.write = liveWrite as unknown as ServerResponse["write"];
  res.end = liveEnd as unknown as ServerResponse["end"];
}

/**
 * One answer, read after each write: a JSON body held up to the bound and captured at its end, or an event stream's
 * events captured as each ends. Not the reader of core/sse.ts, on purpose: the feed shows every event, so one past the
 * bound is captured without its text, and one whose data is empty is captured as "".
 */
class AnswerTap {
  /** The headers object `writeHead` was given, if any: read before those set on the response. */
  given: unknown;
  private mode: "json" | "sse" | "ignore" | undefined;
  private session: string | undefined;
  // JSON: the chunks as written, whole at its end (not decoded here). SSE: a decoder across chunks, and the event so far.
  private chunks: Buffer[] | undefined;
  private size = 0;
  private decoder: StringDecoder | undefined;
  private over = false;
  private line = "";
  private data: string[] | undefined;
  private dataUnits = 0;
  private events = 0;
  // A CR that ended the last chunk ended its line; an LF opening this one is the rest of that CRLF, not a blank line.
  private crEnded = false;
  private finished = false;
  /** The response's own writeHead, write and end, as they were before the tap: what the tapped ones call. */
  readonly writeHead: (...args: unknown[]) => ServerResponse;
  readonly write: (...args: unknown[]) => boolean;
  readonly end: (...args: unknown[]) => ServerResponse;

  constructor(
    private readonly res: ServerResponse,
    private readonly entry: number,
    private readonly headers: Record<string, string>,
    private readonly capture: (message: Capture) => void,
    private readonly maxBytes: number,
  ) {
    this.writeHead = res.writeHead as AnswerTap["writeHead"];
    this.write = res.write as AnswerTap["write"];
    this.end = res.end as AnswerTap["end"];
  }

  /** A chunk the response has just written. */
  seen(chunk: unknown, encoding: unknown): void {
    try {
      this.decide();
      if (this.mode === "ignore") return;
      const named = typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8";
      if (this.mode === "json") {
        // The caller's buffer itself until the answer ends, as the socket's own queue holds it: copied once, at the end.
        if (typeof chunk === "string") this.json(Buffer.from(chunk, named));
        else if (chunk instanceof Uint8Array)
          this.json(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      } else if (typeof chunk === "string") this.sse(/^utf-?8$/i.test(named) ? chunk : Buffer.from(chunk, named).toString("utf8"));
      else if (chunk instanceof Uint8Array)
        this.sse(
          (this.decoder ??= new StringDecoder("utf8")).write(
            Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
          ),
        );
    } catch {
      // What the tap cannot read has gone out as written all the same.
    }
  }

  /** The response has ended: the JSON body, or the stream's last event, is captured (once). */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    try {
      this.decide();
      if (this.mode === "json") {
        const { over, chunks, size } = this;
        this.chunks = undefined;
        // An empty or blank body is no message; the bytes are not decoded here (a page or --record does).
        if (over) this.emit("response", undefined);
        else if (chunks !== undefined) {
          const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
          if (!blank(bytes)) this.emit("response", undefined, bytes);
        }
      } else if (this.mode === "sse") {
        if (this.line !== "") this.sseLine(this.line);
        this.endEvent();
      }
    } catch {
      // As above.
    }
  }

  /** At the first write (or the end): what the answer is, from its headers. */
  private decide(): void {
    if (this.mode !== undefined) return;
    const { given, res } = this;
    const type = (headerOf(given, "content-type") ?? text(res.getHeader("content-type")) ?? "").toLowerCase();
    const encoded = headerOf(given, "content-encoding") ?? text(res.getHeader("content-encoding"));
    this.session = headerOf(given, "mcp-session-id") ?? text(res.getHeader("mcp-session-id"));
    if (encoded && encoded !== "identity") this.mode = "ignore";
    else this.mode = type.startsWith("text/event-stream") ? "sse" : type.startsWith("application/json") ? "json" : "ignore";
  }

  private emit(part: string, message: string | undefined, bytes?: Uint8Array): void {
    const { entry, headers, session, capture } = this;
    const captured: Capture = { entry, part, from: "server", text: message, bytes, headers, time: Date.now() };
    if (session) captured.session = session;
    capture(captured);
  }

  private json(bytes: Buffer): void {
    if (this.over) return;
    this.size += bytes.length;
    if (this.size > this.maxBytes) {
      this.over = true;
      this.chunks = undefined;
    } else (this.chunks ??= []).push(bytes);
  }

  /** An event stream's text, decoded: each line it ends is read, and the start of the next kept. */
  private sse(chunk: string): void {
    let start = this.crEnded && chunk.startsWith("\n") ? 1 : 0;
    this.crEnded = false;
    if (start === 1 && chunk.length === 1) return;
    const ends = /\r\n|\r|\n/g;
    ends.lastIndex = start;
    for (let found = ends.exec(chunk); found; found = ends.exec(chunk)) {
      const piece = chunk.slice(start, found.index);
      start = ends.lastIndex;
      const whole = this.line === "" ? piece : this.line + piece;
      this.line = "";
      this.sseLine(whole);
      this.crEnded = start === chunk.length && found[0] === "\r";
    }
    const rest = chunk.slice(start);
    // A line past the bound marks its event as over and is not kept.
    if (this.line.length + rest.length > this.maxBytes) {
      this.over = true;
      this.line = "";
    } else this.line += rest;
  }

  private sseLine(raw: string): void {
    if (raw === "") return this.endEvent();
    if (raw.startsWith(":") || this.over) return;
    const colon = raw.indexOf(":");
    if ((colon < 0 ? raw : raw.slice(0, colon)) !== "data") return;
    let value = colon < 0 ? "" : raw.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    this.dataUnits += value.length;
    if (this.dataUnits > this.maxBytes) {
      this.over = true;
      this.data = undefined;
      return;
    }
    (this.data ??= []).push(value);
  }

  private endEvent(): void {
    if (this.data === undefined && !this.over) return;
    this.events++;
    this.emit(`event ${this.events}`, this.over ? undefined : this.data!.join("\n"));
    this.data = undefined;
    this.dataUnits = 0;
    this.over = false;
  }
}
