/**
 * @module sse: the one Server-Sent Events reader (WHATWG HTML §9.2.6) of the outbound tap and the capture checker.
 * Text goes in as it arrives; the data of each event comes out when asked for, so a stream of many tiny events is
 * never held as many strings, and a long line that comes in small pieces is scanned once, never again with every piece.
 */

/**
 * UTF-16 units the reader has scanned for a line break, since the process started: the work of reading a stream,
 * which its tests hold linear in the stream's length however it is cut. One addition per scan, not per unit.
 */
export const sseScanned = { units: 0 };

/** Reads one stream: `push` its text in order, `end()` once at its end, and take each event's data from `next()`. */
export interface SseReader {
  /** More of the stream's text. Take what `next()` gives before the next push. */
  push(piece: string): void;
  /** The stream ended: a last line without its end is a line, a last event without its blank line is an event. */
  end(): void;
  /** The next event's data, or undefined until more text comes (or, after `end()`, when none is left). */
  next(): string | undefined;
}

/**
 * A reader of one stream. Lines end in CRLF, LF or CR, a CR ending one piece waiting for the next to see whether an LF
 * follows; `:` starts a comment; `data` lines join with "\n" (one leading space of each dropped) and a blank line
 * ends the event; other fields (`event`, `id`, `retry`) are not data. An event with no data, or only empty data, is
 * no event. A byte order mark is not taken off: that is the byte decoder's work (`TextDecoder` does it by default).
 * Past `maxUnits` (UTF-16 units of one line or of one event's data) the event is dropped whole and its lines skipped
 * up to the blank line that ends it; the next is read.
 * @example const r = createSseReader(); r.push("data: a\n\nda"); r.next() // "a"; r.next() // undefined (more to come)
 */
export function createSseReader(maxUnits = Number.POSITIVE_INFINITY): SseReader {
  return new EventStreamReader(maxUnits);
}

/** The state of one stream's reading: the line still without its end, the text being read, the event so far. */
class EventStreamReader implements SseReader {
  // The start of a line still without its end, in the pieces it came in; joined once its end arrives.
  private partial: string[] = [];
  private partialUnits = 0;
  // Text whose lines are being read, from `at`.
  private text = "";
  private at = 0;
  private data: string[] | undefined;
  private dataUnits = 0;
  private ended = false;
  // An event past the bound is dropped whole: its lines are skipped up to the blank line that ends it.
  private oversized = false;
  private skippingLine = false;

  constructor(private readonly maxUnits: number) {}

  push(piece: string): void {
    if (this.at < this.text.length) {
      this.text = this.text.slice(this.at) + piece;
      this.at = 0;
      return;
    }
    const { partial } = this;
    // A CR ending the last piece may be the first half of a CRLF: the next piece is read with it.
    const crWaits = this.partialUnits > 0 && partial[partial.length - 1]!.endsWith("\r");
    if (!crWaits && nextBreak(piece, 0) < 0) {
      if (this.skippingLine || piece === "") return;
      partial.push(piece);
      this.partialUnits += piece.length;
      if (this.partialUnits > this.maxUnits) this.overflow();
      return;
    }
    this.text = this.partialUnits > 0 ? partial.join("") + piece : piece;
    this.at = 0;
    this.partial = [];
    this.partialUnits = 0;
  }

  end(): void {
    this.ended = true;
    if (this.partialUnits > 0 && this.at >= this.text.length) {
      this.text = this.partial.join("");
      this.at = 0;
      this.partial = [];
      this.partialUnits = 0;
    }
  }

  next(): string | undefined {
    for (;;) {
      const { text, at } = this;
      const nl = at < text.length ? nextBreak(text, at) : -1;
      const crAtEnd = nl >= 0 && nl === text.length - 1 && text[nl] === "\r" && !this.ended;
      if (nl < 0 || crAtEnd) return this.noWholeLine(crAtEnd);
      const value = text.slice(at, nl);
      this.at = nl + (text[nl] === "\r" && text[nl + 1] === "\n" ? 2 : 1);
      if (this.skippingLine) {
        this.skippingLine = false;
        continue;
      }
      const event = this.line(value);
      if (event !== undefined) return event;
    }
  }

  /** No whole line left: its start is kept for the next piece, or read as the last line at the end (with the last event). */
  private noWholeLine(crAtEnd: boolean): string | undefined {
    const rest = this.at === 0 ? this.text : this.text.slice(this.at);
    this.text = "";
    this.at = 0;
    if (this.ended) {
      if (rest !== "" && !this.skippingLine) this.line(rest);
      this.skippingLine = false;
      return this.line("");
    }
    if (this.skippingLine) {
      // A skipped line's CR at the end still waits to see whether an LF follows it.
      if (crAtEnd) this.keep("\r");
    } else if (rest !== "") {
      this.keep(rest);
      if (this.partialUnits > this.maxUnits) {
        this.overflow();
        if (crAtEnd) this.keep("\r");
      }
    }
    return undefined;
  }

  /** The data of the event a line ends, if it is one; else undefined. */
  private line(value: string): string | undefined {
    if (value === "") {
      const joined = this.oversized ? undefined : this.data?.join("\n");
      this.data = undefined;
      this.dataUnits = 0;
      this.oversized = false;
      return joined === "" ? undefined : joined;
    }
    if (this.oversized || !value.startsWith("data")) return undefined;
    const colon = value.indexOf(":");
    if (colon !== 4 && value !== "data") return undefined;
    const field = colon < 0 ? "" : value.slice(colon + 1);
    this.dataUnits += field.length + 1;
    if (this.dataUnits > this.maxUnits) {
      this.data = undefined;
      this.oversized = true;
      return undefined;
    }
    (this.data ??= []).push(field.startsWith(" ") ? field.slice(1) : field);
    return undefined;
  }

  private keep(start: string): void {
    this.partial = [start];
    this.partialUnits = start.length;
  }

  private overflow(): void {
    this.partial = [];
    this.partialUnits = 0;
    this.data = undefined;
    this.oversized = this.skippingLine = true;
  }
}

/**
 * The data of each event of a whole stream (a capture's), each found when asked for: the stream fed at once, then
 * ended. A stream cut off mid-event still yields what it had, as a client would not: a capture is read to judge what
 * was sent.
 * @example [...eachEventData("event: message\ndata: {\"a\":1}\n\n")] // ['{"a":1}']
 */
export function* eachEventData(stream: string): Generator<string, void, undefined> {
  const reader = createSseReader();
  reader.push(stream);
  reader.end();
  for (let data = reader.next(); data !== undefined; data = reader.next()) yield data;
}

function nextBreak(text: string, from: number): number {
  let i = from;
  while (i < text.length && text[i] !== "\n" && text[i] !== "\r") i++;
  sseScanned.units += i - from + (i < text.length ? 1 : 0);
  return i < text.length ? i : -1;
}
