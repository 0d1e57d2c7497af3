/**
 * @module http-tap: `wymcp proxy`'s messages for the live feed, as the `feed` stage of its chain (core/chain.ts). Each
 * exchange's request body is one message, and what goes back (the upstream's answer, an event stream's events as they
 * go out, or wymcp's own refusal) is read after each write, as the client receives it, never delaying a byte.
 */
import type { IncomingMessage } from "node:http";
import { StringDecoder } from "node:string_decoder";
import type { AnswerHead, AnswerTap as ChainTap, ChainExchange, OwnAnswer, Stage } from "../../core/chain.js";
import type { Capture } from "./feed.js";

/** An event stream's event, or a JSON answer, longer than this is captured as over the limit (its text not kept). */
export interface HttpTapOptions {
  maxBytes: number;
}

function text(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.length === 0 ? undefined : String(value[0]);
  return value === undefined || value === null ? undefined : String(value);
}

/**
 * The request's headers as a capture keeps them: lower-cased names, the first of a repeated one, MCP's and the media type
 * only. The same as the last request's (`lastCount` names), the last request's object is handed on (captures never
 * change it): one object for a client's run of like requests, which the feed keeps once.
 */
function requestHeaders(req: IncomingMessage, last: Record<string, string> | undefined, lastCount: number): Record<string, string> {
  const out: Record<string, string> = {};
  const { headers } = req;
  let count = 0;
  let same = last !== undefined;
  // A loop over the names: this runs for every exchange, and Object.entries built an array per header.
  for (const name in headers) {
    if (!(name === "content-type" || name.startsWith("mcp-"))) continue;
    const value = headers[name];
    const first = typeof value === "string" ? value : text(value);
    if (first === undefined) continue;
    out[name] = first;
    count++;
    if (same && last![name] !== first) same = false;
  }
  return same && count === lastCount ? last! : out;
}

/** Whether a JSON answer's bytes are blank (nothing but whitespace), as its text trimmed would be. */
function blank(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    // Other whitespace is not ASCII: decoded and trimmed, as the text was read before (rare).
    return byte < 0x80 ? false : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8").trim() === "";
  }
  return true;
}

/** The live feed of `wymcp proxy`'s exchanges, as the chain's `feed` stage (core/chain.ts). */
export interface HttpFeed {
  stage: Stage<Asked>;
}

/** What the feed keeps of an exchange from its request to its answer: its entry and its headers as captured. */
interface Asked {
  entry: number;
  headers: Record<string, string>;
}

/**
 * The feed stage of the proxy's chain: each exchange (a POST judged or refused, a GET's stream) captured as it begins,
 * with its request's body; each answer read after each write, as the client receives it (after the lock's rewrite).
 */
export function httpFeed(capture: (message: Capture) => void, { maxBytes }: HttpTapOptions): HttpFeed {
  const exchanges = new Exchanges(capture, maxBytes);
  return {
    stage: {
      name: "feed",
      begin: (exchange) => exchanges.request(exchange),
      answer: (_exchange, head, asked) => asked && new AnswerTap(exchanges, head, asked.entry, asked.headers),
    },
  };
}

/** What the exchanges share: the capture, the bound, their count, and the last request's headers as kept. */
class Exchanges {
  private entries = 0;
  private last: Record<string, string> | undefined;
  private lastCount = 0;

  constructor(
    readonly capture: (message: Capture) => void,
    readonly maxBytes: number,
  ) {}

  /**
   * The request captured (a POST's body, with the gate's admission of it if any; a request refused before its body was
   * read, with the refusal); what the answer's reader needs of it.
   */
  request({ request, bytes: body, admitted, refused }: ChainExchange): Asked | undefined {
    const req = request as IncomingMessage | undefined;
    if (req === undefined) return undefined;
    const entry = ++this.entries;
    const headers = requestHeaders(req, this.last, this.lastCount);
    if (headers !== this.last) {
      this.last = headers;
      let count = 0;
      for (const _ in headers) count++;
      this.lastCount = count;
    }
    if (req.method === "POST" || refused !== undefined) {
      // The bytes as read: decoded only if a page or --record reads them (undefined: over the limit, or not read).
      const bytes = body === undefined || body.length > this.maxBytes ? undefined : body;
      // The gate's admission goes with the bytes it judged; none with bytes not kept.
      const gate = bytes === undefined ? undefined : admitted;
      const request: Capture = {
        entry,
        part: "request",
        from: "client",
        text: undefined,
        bytes,
        headers,
        time: Date.now(),
        admitted: gate,
      };
      // Refused before its body was read (a Host, a media type, a declared size): the row is the refusal itself.
      if (bytes === undefined && refused !== undefined)
        request.refused = { status: refused.status, reason: refused.reason, response: refused.response };
      this.capture(request);
    }
    return { entry, headers };
  }
}

/** An event stream's reading so far: a decoder across chunks, the line and the event begun. */
class EventStream {
  decoder: StringDecoder | undefined = undefined;
  line = "";
  data: string[] | undefined = undefined;
  dataUnits = 0;
  events = 0;
  // A CR that ended the last chunk ended its line; an LF opening this one is the rest of that CRLF, not a blank line.
  crEnded = false;
}

/**
 * One answer, read after each write: a JSON body held up to the bound and captured at its end, or an event stream's
 * events captured as each ends. Not the reader of core/sse.ts, on purpose: the feed shows every event, so one past the
 * bound is captured without its text, and one whose data is empty is captured as "".
 */
class AnswerTap implements ChainTap {
  /** Set when the face answers itself: each message of the answer is then wymcp's. */
  private readonly mine: OwnAnswer | undefined;
  private mode: "json" | "sse" | "ignore" | undefined = undefined;
  private session: string | undefined = undefined;
  // JSON: the chunks as written, whole at its end (not decoded here): the first, and any after it.
  private first: Buffer | undefined = undefined;
  private more: Buffer[] | undefined = undefined;
  private size = 0;
  // JSON: over the bound; SSE: the event begun is.
  private over = false;
  private stream: EventStream | undefined = undefined;
  private finished = false;

  constructor(
    private readonly exchanges: Exchanges,
    private readonly head: AnswerHead,
    private readonly entry: number,
    private readonly headers: Record<string, string>,
  ) {
    this.mine = head.own;
  }

  /** A chunk the client has just been sent (a string is UTF-8). */
  push(chunk: Uint8Array | string): void {
    try {
      this.decide();
      if (this.mode === "ignore") return;
      if (this.mode === "json") {
        // The caller's buffer itself until the answer ends, as the socket's own queue holds it: copied once, at the end.
        if (typeof chunk === "string") this.json(Buffer.from(chunk, "utf8"));
        else this.json(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      } else if (typeof chunk === "string") this.sse(chunk);
      else {
        const stream = this.events();
        this.sse(
          (stream.decoder ??= new StringDecoder("utf8")).write(
            Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength),
          ),
        );
      }
    } catch {
      // What the tap cannot read has gone out as written all the same.
    }
  }

  /** An answer broken off is not captured: what was cut is no message. */
  abort(): void {
    this.finished = true;
  }

  /** The response has ended: the JSON body, or the stream's last event, is captured (once). */
  end(): void {
    if (this.finished) return;
    this.finished = true;
    try {
      this.decide();
      if (this.mode === "json") {
        const { over, first, more, size } = this;
        this.first = this.more = undefined;
        // An empty or blank body is no message; the bytes are not decoded here (a page or --record does).
        if (over) this.emit("response", undefined);
        else if (first !== undefined) {
          const bytes = more === undefined ? first : Buffer.concat([first, ...more], size);
          if (!blank(bytes)) this.emit("response", undefined, bytes);
        }
      } else if (this.mode === "sse") {
        const stream = this.events();
        if (stream.line !== "") this.sseLine(stream.line);
        this.endEvent();
      }
    } catch {
      // As above.
    }
  }

  /** At the first write (or the end): what the answer is, from its headers. */
  private decide(): void {
    if (this.mode !== undefined) return;
    const { head } = this;
    const type = (head.header("content-type") ?? "").toLowerCase();
    const encoded = head.header("content-encoding");
    this.session = head.header("mcp-session-id");
    if (encoded && encoded !== "identity") this.mode = "ignore";
    else this.mode = type.startsWith("text/event-stream") ? "sse" : type.startsWith("application/json") ? "json" : "ignore";
  }

  private emit(part: string, message: string | undefined, bytes?: Uint8Array): void {
    const { entry, headers, session } = this;
    const captured: Capture = { entry, part, from: "server", text: message, bytes, headers, time: Date.now() };
    if (session) captured.session = session;
    if (this.mine !== undefined) captured.own = this.mine;
    this.exchanges.capture(captured);
  }

  private json(bytes: Buffer): void {
    if (this.over) return;
    this.size += bytes.length;
    if (this.size > this.exchanges.maxBytes) {
      this.over = true;
      this.first = this.more = undefined;
    } else if (this.first === undefined) this.first = bytes;
    else (this.more ??= []).push(bytes);
  }

  private events(): EventStream {
    return (this.stream ??= new EventStream());
  }

  /** An event stream's text, decoded: each line it ends is read, and the start of the next kept. */
  private sse(chunk: string): void {
    const stream = this.events();
    let start = stream.crEnded && chunk.startsWith("\n") ? 1 : 0;
    stream.crEnded = false;
    if (start === 1 && chunk.length === 1) return;
    const ends = /\r\n|\r|\n/g;
    ends.lastIndex = start;
    for (let found = ends.exec(chunk); found; found = ends.exec(chunk)) {
      const piece = chunk.slice(start, found.index);
      start = ends.lastIndex;
      const whole = stream.line === "" ? piece : stream.line + piece;
      stream.line = "";
      this.sseLine(whole);
      stream.crEnded = start === chunk.length && found[0] === "\r";
    }
    const rest = chunk.slice(start);
    // A line past the bound marks its event as over and is not kept.
    if (stream.line.length + rest.length > this.exchanges.maxBytes) {
      this.over = true;
      stream.line = "";
    } else stream.line += rest;
  }

  private sseLine(raw: string): void {
    if (raw === "") return this.endEvent();
    if (raw.startsWith(":") || this.over) return;
    const colon = raw.indexOf(":");
    if ((colon < 0 ? raw : raw.slice(0, colon)) !== "data") return;
    let value = colon < 0 ? "" : raw.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    const stream = this.events();
    stream.dataUnits += value.length;
    if (stream.dataUnits > this.exchanges.maxBytes) {
      this.over = true;
      stream.data = undefined;
      return;
    }
    (stream.data ??= []).push(value);
  }

  private endEvent(): void {
    const stream = this.events();
    if (stream.data === undefined && !this.over) return;
    stream.events++;
    this.emit(`event ${stream.events}`, this.over ? undefined : stream.data!.join("\n"));
    stream.data = undefined;
    stream.dataUnits = 0;
    this.over = false;
  }
}
