/**
 * @module tool-lock-stream: the answer to a `tools/list` request as it goes back through a face holding a tools lock.
 * A JSON body is judged whole; an SSE stream event by event; stdio line by line. In report mode the bytes go on as they
 * come and a copy is judged; in enforce mode each message is held until it is whole, and one that lists a changed or
 * new tool goes on rewritten without it. Anything else (another content type, a compressed body, a message past the
 * bound) goes on untouched: the calls to unapproved tools are refused all the same.
 */
import { mediaType } from "../core/header-value.js";
import { lockedMessage, type ToolLockWatch } from "../core/tool-lock.js";
import { MAX_TAPPED_MESSAGE_UNITS } from "./tap.js";

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
  const hold = watch.enforcing;
  const waiting = new Set(requests.keys());
  const decoder = new TextDecoder("utf-8");
  let text = "";
  let event: string[] = [];
  let eventUnits = 0;
  let data: string[] | undefined;
  // Past the bound, or every request answered: nothing more is judged.
  let done = false;

  const dispatch = (blank: string): string => {
    const raw = event.join("") + blank;
    const lines = event;
    const joined = data?.join("\n");
    event = [];
    eventUnits = 0;
    data = undefined;
    if (joined === undefined || joined.trim() === "") return raw;
    const replaced = replacement(watch, requests, joined);
    forgetAnswered(joined);
    if (replaced === undefined) return raw;
    const kept = lines.filter((line) => !isDataLine(line));
    const end = blank === "" ? "\n" : blank;
    return `${kept.join("")}data: ${replaced}${end}${end}`;
  };
  const forgetAnswered = (joined: string) => {
    try {
      const parsed = JSON.parse(joined) as unknown;
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
        const id = (item as { id?: unknown } | null)?.id;
        if ((typeof id === "string" || typeof id === "number") && !Object.hasOwn(item as object, "method")) waiting.delete(id);
      }
    } catch {
      // Not JSON: nothing answered.
    }
    if (waiting.size === 0) done = true;
  };
  const read = (final: boolean): string => {
    let out = "";
    let start = 0;
    for (;;) {
      let nl = start;
      while (nl < text.length && text[nl] !== "\n" && text[nl] !== "\r") nl++;
      if (nl >= text.length) break;
      // A CR at the very end may be the first half of a CRLF that the next chunk completes.
      if (text[nl] === "\r" && nl === text.length - 1 && !final) break;
      const end = nl + (text[nl] === "\r" && text[nl + 1] === "\n" ? 2 : 1);
      const blank = nl === start;
      const line = text.slice(start, end);
      start = end;
      if (blank) {
        out += dispatch(line);
        if (done) break;
        continue;
      }
      event.push(line);
      eventUnits += line.length;
      if (isDataLine(line)) {
        const value = line.slice(line.indexOf(":") < 0 ? line.length : line.indexOf(":") + 1).replace(/\r?\n$|\r$/, "");
        (data ??= []).push(value.startsWith(" ") ? value.slice(1) : value);
      }
    }
    text = text.slice(start);
    if (!done && eventUnits + text.length > maxUnits) done = true;
    if (done) {
      out += event.join("") + text;
      event = [];
      text = "";
    }
    return out;
  };
  return {
    resizes: false,
    push(chunk) {
      const piece = decoder.decode(chunk, { stream: true });
      if (done) return hold ? [encoder.encode(piece)] : [chunk];
      text += piece;
      const out = read(false);
      if (!hold) return [chunk];
      return out === "" ? [] : [encoder.encode(out)];
    },
    end() {
      const rest = decoder.decode();
      if (done) return hold && rest !== "" ? [encoder.encode(rest)] : [];
      text += rest;
      let out = read(true);
      if (event.length > 0) out += dispatch("");
      return hold && out !== "" ? [encoder.encode(out)] : [];
    },
  };
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
