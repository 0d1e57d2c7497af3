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

/** The request's headers as a capture keeps them: lower-cased names, the first of a repeated one, MCP's and the media type only. */
function requestHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  const { headers } = req;
  // A loop over the names: this runs for every exchange, and Object.entries built an array per header.
  for (const name in headers) {
    if (!(name === "content-type" || name.startsWith("mcp-"))) continue;
    const first = text(headers[name]);
    if (first !== undefined) out[name] = first;
  }
  return out;
}

/**
 * The bytes a text was decoded from, to judge instead of the text encoded again, when they say the same: bytes that are
 * not UTF-8 decode to U+FFFD, and the row is judged from that text whether a page followed as it passed or not.
 */
function sameAs(text: string | undefined, bytes: Uint8Array | undefined): Uint8Array | undefined {
  return text === undefined || bytes === undefined || text.includes("\uFFFD") ? undefined : bytes;
}

/**
 * The observer the proxy calls once per exchange it serves (a POST judged or refused, a GET's stream): it captures
 * the request's body and taps the response.
 */
export function httpTap(capture: (message: Capture) => void, { maxBytes }: HttpTapOptions) {
  let entries = 0;
  return function exchange(req: IncomingMessage, res: ServerResponse, body: Uint8Array | undefined): void {
    const entry = ++entries;
    const headers = requestHeaders(req);
    if (req.method === "POST") {
      const kept = body === undefined || body.length > maxBytes ? undefined : body;
      const message = kept && Buffer.from(kept.buffer, kept.byteOffset, kept.byteLength).toString("utf8");
      capture({
        entry,
        part: "request",
        from: "client",
        text: message,
        bytes: sameAs(message, kept),
        headers,
        time: Date.now(),
      });
    }
    tapAnswer(res, entry, headers, capture, maxBytes);
  };
}

function tapAnswer(
  res: ServerResponse,
  entry: number,
  headers: Record<string, string>,
  capture: (message: Capture) => void,
  maxBytes: number,
): void {
  let mode: "json" | "sse" | "ignore" | undefined;
  let session: string | undefined;
  let given: unknown;
  // JSON: the body's chunks, decoded once at its end. SSE: a decoder across chunks, and the event so far.
  let chunks: Buffer[] | undefined;
  let size = 0;
  let decoder: StringDecoder | undefined;
  let over = false;
  let line = "";
  let data: string[] | undefined;
  let dataUnits = 0;
  let events = 0;

  const emit = (part: string, message: string | undefined, bytes?: Uint8Array) => {
    const captured: Capture = { entry, part, from: "server", text: message, bytes, headers, time: Date.now() };
    if (session) captured.session = session;
    capture(captured);
  };
  const decide = () => {
    if (mode !== undefined) return;
    const type = (headerOf(given, "content-type") ?? text(res.getHeader("content-type")) ?? "").toLowerCase();
    const encoded = headerOf(given, "content-encoding") ?? text(res.getHeader("content-encoding"));
    session = headerOf(given, "mcp-session-id") ?? text(res.getHeader("mcp-session-id"));
    if (encoded && encoded !== "identity") mode = "ignore";
    else mode = type.startsWith("text/event-stream") ? "sse" : type.startsWith("application/json") ? "json" : "ignore";
  };
  const endEvent = () => {
    if (data === undefined && !over) return;
    events++;
    emit(`event ${events}`, over ? undefined : data!.join("\n"));
    data = undefined;
    dataUnits = 0;
    over = false;
  };
  const sseLine = (raw: string) => {
    if (raw === "") return endEvent();
    if (raw.startsWith(":") || over) return;
    const colon = raw.indexOf(":");
    if ((colon < 0 ? raw : raw.slice(0, colon)) !== "data") return;
    let value = colon < 0 ? "" : raw.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    dataUnits += value.length;
    if (dataUnits > maxBytes) {
      over = true;
      data = undefined;
      return;
    }
    (data ??= []).push(value);
  };
  // A CR that ended the last chunk ended its line; an LF opening this one is the rest of that CRLF, not a blank line.
  let crEnded = false;
  const sse = (chunk: string) => {
    let start = crEnded && chunk.startsWith("\n") ? 1 : 0;
    crEnded = false;
    if (start === 1 && chunk.length === 1) return;
    const ends = /\r\n|\r|\n/g;
    ends.lastIndex = start;
    for (let found = ends.exec(chunk); found; found = ends.exec(chunk)) {
      const piece = chunk.slice(start, found.index);
      start = ends.lastIndex;
      const whole = line === "" ? piece : line + piece;
      line = "";
      sseLine(whole);
      crEnded = start === chunk.length && found[0] === "\r";
    }
    const rest = chunk.slice(start);
    // A line past the bound marks its event as over and is not kept.
    if (line.length + rest.length > maxBytes) {
      over = true;
      line = "";
    } else line += rest;
  };
  const json = (bytes: Buffer) => {
    if (over) return;
    size += bytes.length;
    if (size > maxBytes) {
      over = true;
      chunks = undefined;
    } else (chunks ??= []).push(bytes);
  };
  const seen = (chunk: unknown, encoding: unknown) => {
    try {
      decide();
      if (mode === "ignore") return;
      const named = typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8";
      if (mode === "json") {
        // The caller's buffer itself until the answer ends, as the socket's own queue holds it: copied once, at the end.
        if (typeof chunk === "string") json(Buffer.from(chunk, named));
        else if (chunk instanceof Uint8Array)
          json(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      } else if (typeof chunk === "string") sse(/^utf-?8$/i.test(named) ? chunk : Buffer.from(chunk, named).toString("utf8"));
      else if (chunk instanceof Uint8Array)
        sse(
          (decoder ??= new StringDecoder("utf8")).write(
            Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
          ),
        );
    } catch {
      // What the tap cannot read has gone out as written all the same.
    }
  };
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    try {
      decide();
      if (mode === "json") {
        const bytes = over || chunks === undefined ? undefined : Buffer.concat(chunks, size);
        const body = over ? undefined : bytes === undefined ? "" : bytes.toString("utf8");
        chunks = undefined;
        if (body === undefined || body.trim() !== "") emit("response", body, sameAs(body, bytes));
      } else if (mode === "sse") {
        if (line !== "") sseLine(line);
        endEvent();
      }
    } catch {
      // As above.
    }
  };

  const { writeHead, write, end } = res;
  res.writeHead = function liveWriteHead(this: ServerResponse, ...args: unknown[]) {
    given = args.find((a) => typeof a === "object" && a !== null);
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse["writeHead"];
  res.write = function liveWrite(this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    const ok = (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    seen(chunk, rest[0]);
    return ok;
  } as ServerResponse["write"];
  res.end = function liveEnd(this: ServerResponse, ...args: unknown[]) {
    const out = (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    if (typeof args[0] !== "function" && args[0] !== undefined && args[0] !== null) seen(args[0], args[1]);
    finish();
    return out;
  } as ServerResponse["end"];
}
