/**
 * @module tool-lock-stream: the answer to a `tools/list` request as it goes back through a face holding a tools lock.
 * A JSON body is judged whole; an SSE stream event by event; stdio line by line. In report mode the bytes go on as they
 * come and a copy is judged; in enforce mode each message is held until it is whole, and one that lists a changed or
 * new tool goes on rewritten without it. Anything else (another content type, a compressed body, a message past the
 * bound) goes on untouched: the calls to unapproved tools are refused all the same.
 */
import { mediaType } from "../core/header-value.js";
import { lockedMessage, type ToolLockWatch } from "./tool-lock.js";
import { MAX_TAPPED_MESSAGE_UNITS } from "../outbound/tap.js";

/** Reads an answer's bytes in order and says what to send in their place. */
export interface LockRewriter {
  /** Enforce mode on a JSON body: the answer's length may change, so a `Content-Length` must not be sent. */
  readonly resizes: boolean;
  push(chunk: Uint8Array): Uint8Array[];
  end(): Uint8Array[];
}

let textEncoder: { encode(text: string): Uint8Array } | undefined;
/** Made on first use: a host that never rewrites a list never needs one (nothing runs when the module loads). */
const encoder = { encode: (text: string): Uint8Array => (textEncoder ??= new TextEncoder()).encode(text) };

/**
 * A rewriter for one answer to `requests` (the `tools/list` ids of its request: `toolsListRequests`), or `undefined`
 * when there is nothing to watch (no such request, a body not JSON or SSE, a compressed one).
 */
export function lockRewriter(
  watch: ToolLockWatch,
  requests: ReadonlyMap<string | number, boolean>,
  contentType: string | null | undefined,
  contentEncoding: string | null | undefined,
  maxUnits = MAX_TAPPED_MESSAGE_UNITS,
): LockRewriter | undefined {
  if (requests.size === 0) return undefined;
  const encoding = (contentEncoding ?? "identity").trim().toLowerCase();
  if (encoding !== "identity" && encoding !== "") return undefined;
  const type = mediaType(contentType);
  if (type === "application/json") return jsonRewriter(watch, requests, maxUnits);
  if (type === "text/event-stream") return sseRewriter(watch, requests, maxUnits);
  return undefined;
}

/** The message to send instead of `text` (one JSON-RPC message or batch), or `undefined` for `text` itself. */
function replacement(watch: ToolLockWatch, requests: ReadonlyMap<string | number, boolean>, text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const replaced = lockedMessage(watch, requests, parsed);
  return replaced === undefined ? undefined : JSON.stringify(replaced);
}

function jsonRewriter(watch: ToolLockWatch, requests: ReadonlyMap<string | number, boolean>, maxUnits: number): LockRewriter {
  const hold = watch.enforcing;
  const decoder = new TextDecoder("utf-8");
  let held: Uint8Array[] = [];
  let text = "";
  let over = false;
  return {
    resizes: hold,
    push(chunk) {
      if (over) return [chunk];
      text += decoder.decode(chunk, { stream: true });
      if (text.length > maxUnits) {
        // Past the bound the body is not judged: what was held goes on, and the rest as it comes.
        over = true;
        text = "";
        const out = hold ? [...held, chunk] : [chunk];
        held = [];
        return out;
      }
      if (!hold) return [chunk];
      held.push(chunk);
      return [];
    },
    end() {
      if (over) return [];
      const replaced = replacement(watch, requests, text + decoder.decode());
      const out = held;
      held = [];
      return replaced === undefined ? out : [encoder.encode(replaced)];
    },
  };
}

/**
 * SSE (WHATWG HTML §9.2.6): lines end in CRLF, LF or CR; a blank line ends an event, whose `data:` lines join with
 * "\n". In enforce mode each event is held whole and sent as it came unless it carries a list to rewrite; then its
 * other lines are kept and its data becomes one line. Once every watched request is answered, the rest streams on.
 */
function sseRewriter(watch: ToolLockWatch, requests: ReadonlyMap<string | number, boolean>, maxUnits: number): LockRewriter {
  return new SseRewriter(watch, requests, maxUnits);
}

/** The state of `sseRewriter`'s stream: the text not yet cut into lines, the event being read, the requests unanswered. */
class SseRewriter implements LockRewriter {
  readonly resizes = false;
  private readonly hold: boolean;
  private readonly waiting: Set<string | number>;
  private readonly decoder = new TextDecoder("utf-8");
  private text = "";
  private event: string[] = [];
  private eventUnits = 0;
  private data: string[] | undefined;
  /** Past the bound, or every request answered: nothing more is judged. */
  private done = false;

  constructor(
    private readonly watch: ToolLockWatch,
    private readonly requests: ReadonlyMap<string | number, boolean>,
    private readonly maxUnits: number,
  ) {
    this.hold = watch.enforcing;
    this.waiting = new Set(requests.keys());
  }

  push(chunk: Uint8Array): Uint8Array[] {
    const piece = this.decoder.decode(chunk, { stream: true });
    if (this.done) return this.hold ? [encoder.encode(piece)] : [chunk];
    this.text += piece;
    const out = this.read(false);
    if (!this.hold) return [chunk];
    return out === "" ? [] : [encoder.encode(out)];
  }

  end(): Uint8Array[] {
    const rest = this.decoder.decode();
    if (this.done) return this.hold && rest !== "" ? [encoder.encode(rest)] : [];
    this.text += rest;
    let out = this.read(true);
    if (this.event.length > 0) out += this.dispatch("");
    return this.hold && out !== "" ? [encoder.encode(out)] : [];
  }

  /** The text to send for the whole lines read so far; once done, whatever is held goes with it. */
  private read(final: boolean): string {
    const text = this.text;
    let out = "";
    let start = 0;
    for (;;) {
      const nl = lineBreakAt(text, start, final);
      if (nl < 0) break;
      const end = nl + (text[nl] === "\r" && text[nl + 1] === "\n" ? 2 : 1);
      const line = text.slice(start, end);
      const blank = nl === start;
      start = end;
      if (!blank) {
        this.addLine(line);
        continue;
      }
      out += this.dispatch(line);
      if (this.done) break;
    }
    this.text = text.slice(start);
    if (!this.done && this.eventUnits + this.text.length > this.maxUnits) this.done = true;
    if (this.done) {
      out += this.event.join("") + this.text;
      this.event = [];
      this.text = "";
    }
    return out;
  }

  /** A line of the event being read; a `data` line's value is kept for the event's data. */
  private addLine(line: string): void {
    this.event.push(line);
    this.eventUnits += line.length;
    if (isDataLine(line)) {
      const value = line.slice(line.indexOf(":") < 0 ? line.length : line.indexOf(":") + 1).replace(/\r?\n$|\r$/, "");
      (this.data ??= []).push(value.startsWith(" ") ? value.slice(1) : value);
    }
  }

  /** The event ended by the blank line `blank` ("" at the stream's end), as it came or with its list rewritten. */
  private dispatch(blank: string): string {
    const raw = this.event.join("") + blank;
    const lines = this.event;
    const joined = this.data?.join("\n");
    this.event = [];
    this.eventUnits = 0;
    this.data = undefined;
    if (joined === undefined || joined.trim() === "") return raw;
    const replaced = replacement(this.watch, this.requests, joined);
    this.forgetAnswered(joined);
    if (replaced === undefined) return raw;
    const kept = lines.filter((line) => !isDataLine(line));
    const end = blank === "" ? "\n" : blank;
    return `${kept.join("")}data: ${replaced}${end}${end}`;
  }

  /** Drops the requests an event's message answers; with none left, the rest of the stream goes on unread. */
  private forgetAnswered(joined: string): void {
    try {
      const parsed = JSON.parse(joined) as unknown;
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
        const id = (item as { id?: unknown } | null)?.id;
        if ((typeof id === "string" || typeof id === "number") && !Object.hasOwn(item as object, "method")) this.waiting.delete(id);
      }
    } catch {
      // Not JSON: nothing answered.
    }
    if (this.waiting.size === 0) this.done = true;
  }
}

/**
 * Where the line from `start` breaks (its CR or LF), or -1 while it is not whole: unless `final`, a CR at the very end
 * may be the first half of a CRLF that the next chunk completes.
 */
function lineBreakAt(text: string, start: number, final: boolean): number {
  let nl = start;
  while (nl < text.length && text[nl] !== "\n" && text[nl] !== "\r") nl++;
  if (nl >= text.length) return -1;
  if (text[nl] === "\r" && nl === text.length - 1 && !final) return -1;
  return nl;
}

function isDataLine(line: string): boolean {
  return line.startsWith("data:") || /^data(?:\r?\n|\r)?$/.test(line);
}

/**
 * The same for a stdio server's output, line by line: while a `tools/list` request waits for its answer, whole lines
 * are held (no longer than `maxLineBytes`), and the answer goes on rewritten when enforce mode drops a tool; otherwise
 * the bytes go on as they come.
 */
export class LockedLines {
  private readonly waiting = new Map<string | number, boolean>();
  private held: Uint8Array[] = [];
  private heldBytes = 0;
  private atLineEnd = true;

  constructor(
    private readonly watch: ToolLockWatch,
    private readonly maxLineBytes: number,
  ) {}

  /** The `tools/list` requests of a client's line that went on to the server. */
  expect(requests: ReadonlyMap<string | number, boolean>): void {
    for (const [id, cursor] of requests) this.waiting.set(id, cursor);
  }

  /** A chunk of the server's output: what to write to the client now. */
  push(chunk: Uint8Array): Uint8Array[] {
    if (this.waiting.size === 0 && this.heldBytes === 0) {
      if (chunk.length > 0) this.atLineEnd = chunk[chunk.length - 1] === 10;
      return [chunk];
    }
    const out: Uint8Array[] = [];
    let start = 0;
    // The rest of a line the server had begun before the request: it is not the answer, and goes on.
    if (!this.atLineEnd && this.heldBytes === 0) {
      const nl = chunk.indexOf(10);
      if (nl < 0) return [chunk];
      out.push(chunk.subarray(0, nl + 1));
      start = nl + 1;
      this.atLineEnd = true;
    }
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl + 1);
      start = nl + 1;
      const line = this.heldBytes === 0 ? piece : concat([...this.held, piece], this.heldBytes + piece.length);
      this.held = [];
      this.heldBytes = 0;
      out.push(this.line(line));
      if (this.waiting.size === 0) {
        if (start < chunk.length) out.push(chunk.subarray(start));
        this.atLineEnd = chunk[chunk.length - 1] === 10;
        return out;
      }
    }
    if (start < chunk.length) {
      const tail = chunk.subarray(start);
      this.atLineEnd = false;
      if (this.heldBytes + tail.length > this.maxLineBytes) {
        // A line past the limit is not judged: it goes on as it came.
        out.push(...this.held, tail);
        this.held = [];
        this.heldBytes = 0;
        this.waiting.clear();
      } else {
        this.held.push(tail.slice());
        this.heldBytes += tail.length;
      }
    } else this.atLineEnd = true;
    return out;
  }

  /** What is still held when the server's output ends. */
  end(): Uint8Array[] {
    const out = this.held;
    this.held = [];
    this.heldBytes = 0;
    return out;
  }

  private line(bytes: Uint8Array): Uint8Array {
    const text = new TextDecoder().decode(bytes).replace(/\r?\n$/, "");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return bytes;
    }
    const replaced = lockedMessage(this.watch, this.waiting, parsed);
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      const id = (item as { id?: unknown } | null)?.id;
      if ((typeof id === "string" || typeof id === "number") && !Object.hasOwn(item as object, "method")) this.waiting.delete(id);
    }
    return replaced === undefined ? bytes : encoder.encode(`${JSON.stringify(replaced)}\n`);
  }
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
