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
  // The start of a line still without its end, in the pieces it came in; joined once its end arrives.
  let partial: string[] = [];
  let partialUnits = 0;
  // Text whose lines are being read, from `at`.
  let text = "";
  let at = 0;
  let data: string[] | undefined;
  let dataUnits = 0;
  let ended = false;
  // An event past the bound is dropped whole: its lines are skipped up to the blank line that ends it.
  let oversized = false;
  let skippingLine = false;

  const keep = (start: string) => {
    partial = [start];
    partialUnits = start.length;
  };
  const overflow = () => {
    partial = [];
    partialUnits = 0;
    data = undefined;
    oversized = skippingLine = true;
  };
  /** The data of the event a line ends, if it is one; else undefined. */
  const line = (value: string): string | undefined => {
    if (value === "") {
      const joined = oversized ? undefined : data?.join("\n");
      data = undefined;
      dataUnits = 0;
      oversized = false;
      return joined === "" ? undefined : joined;
    }
    if (oversized || !value.startsWith("data")) return undefined;
    const colon = value.indexOf(":");
    if (colon !== 4 && value !== "data") return undefined;
    const field = colon < 0 ? "" : value.slice(colon + 1);
    dataUnits += field.length + 1;
    if (dataUnits > maxUnits) {
      data = undefined;
      oversized = true;
      return undefined;
    }
    (data ??= []).push(field.startsWith(" ") ? field.slice(1) : field);
    return undefined;
  };

  return {
    push(piece) {
      if (at < text.length) {
        text = text.slice(at) + piece;
        at = 0;
        return;
      }
      // A CR ending the last piece may be the first half of a CRLF: the next piece is read with it.
      const crWaits = partialUnits > 0 && partial[partial.length - 1]!.endsWith("\r");
      if (!crWaits && nextBreak(piece, 0) < 0) {
        if (skippingLine || piece === "") return;
        partial.push(piece);
        partialUnits += piece.length;
        if (partialUnits > maxUnits) overflow();
        return;
      }
      text = partialUnits > 0 ? partial.join("") + piece : piece;
      at = 0;
      partial = [];
      partialUnits = 0;
    },
    end() {
      ended = true;
      if (partialUnits > 0 && at >= text.length) {
        text = partial.join("");
        at = 0;
        partial = [];
        partialUnits = 0;
      }
    },
    next() {
      for (;;) {
        const nl = at < text.length ? nextBreak(text, at) : -1;
        const crAtEnd = nl >= 0 && nl === text.length - 1 && text[nl] === "\r" && !ended;
        if (nl < 0 || crAtEnd) {
          // No whole line left: keep its start for the next piece, or read it as the last line at the end.
          const rest = at === 0 ? text : text.slice(at);
          text = "";
          at = 0;
          if (ended) {
            if (rest !== "" && !skippingLine) line(rest);
            skippingLine = false;
            return line("");
          }
          if (skippingLine) {
            // A skipped line's CR at the end still waits to see whether an LF follows it.
            if (crAtEnd) keep("\r");
          } else if (rest !== "") {
            keep(rest);
            if (partialUnits > maxUnits) {
              overflow();
              if (crAtEnd) keep("\r");
            }
          }
          return undefined;
        }
        const value = text.slice(at, nl);
        at = nl + (text[nl] === "\r" && text[nl + 1] === "\n" ? 2 : 1);
        if (skippingLine) {
          skippingLine = false;
          continue;
        }
        const event = line(value);
        if (event !== undefined) return event;
      }
    },
  };
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
