/**
 * @module lazy-json: a JSON document (a HAR file) parsed without copying its long strings. Each string whose source is
 * longer than `LONG_STRING_UNITS` stays where it is in the source and stands in the parsed value as a `LongString`,
 * read in pieces when asked for; the rest is parsed by `JSON.parse`. So a capture whose one response is an event stream
 * of millions of events is held once, as the file's own bytes, and its events are read from them one piece at a time.
 * Web APIs only: the inspector's page reads HAR files with it too.
 */
import { utf8Length } from "../core/utf8-length.js";

/** Source units (bytes, or UTF-16 units of a text) from which a string is left in the source, not parsed. */
export const LONG_STRING_UNITS = 4096;
/** Source units of a long string decoded at a time. */
const PIECE_UNITS = 64 * 1024;

export class LazyJsonError extends Error {
  override name = "LazyJsonError";
}

/** What the parser reads: the bytes of a UTF-8 file, or a text. */
interface Source {
  readonly length: number;
  /** The index of the next `"` from `from`, or -1. */
  quote(from: number): number;
  /** The unit at `i`: a byte, or a UTF-16 unit. */
  unit(i: number): number;
  /** The text of `[start, end)`; for bytes, `end` must not split a character (see `cut`). */
  text(start: number, end: number): string;
  /** `end`, or the start of the character it falls inside of. */
  cut(end: number): number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function bytesSource(bytes: Uint8Array): Source {
  // ignoreBOM: a byte order mark stays in the text, where JSON.parse refuses it as it refused it before.
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  return {
    length: bytes.length,
    quote: (from) => bytes.indexOf(QUOTE, from),
    unit: (i) => bytes[i]!,
    text: (start, end) => decoder.decode(bytes.subarray(start, end)),
    cut(end) {
      let at = end;
      // Back over UTF-8 continuation bytes (10xxxxxx) to the first byte of the character.
      while (at < bytes.length && at > 0 && (bytes[at]! & 0xc0) === 0x80) at--;
      return at;
    },
  };
}

function textSource(text: string): Source {
  return {
    length: text.length,
    quote: (from) => text.indexOf('"', from),
    unit: (i) => text.charCodeAt(i),
    text: (start, end) => text.slice(start, end),
    cut: (end) => end,
  };
}

/** A string of the document left in its source; `start` and `end` bound its content, quotes excluded. */
export class LongString {
  constructor(
    private readonly source: Source,
    private readonly start: number,
    private readonly end: number,
  ) {}

  /** Its text in pieces (escapes resolved), in order; a surrogate pair is never split between two pieces. */
  *pieces(): Generator<string, void, undefined> {
    const { source, end } = this;
    let held = "";
    for (let at = this.start; at < end; ) {
      const cut = Math.min(end, Math.max(source.cut(at + PIECE_UNITS), at + 1));
      const { text, rest } = unescapePiece(held + source.text(at, cut), cut === end);
      at = cut;
      held = rest;
      if (text !== "") yield text;
    }
  }

  /** Its whole text, or undefined when its UTF-8 is longer than `maxBytes` (it is then never held whole). */
  text(maxBytes = Number.POSITIVE_INFINITY): string | undefined {
    const parts: string[] = [];
    let bytes = 0;
    for (const piece of this.pieces()) {
      // A piece has at least as many UTF-8 bytes as UTF-16 units: only a long one is measured.
      bytes += piece.length > maxBytes - bytes ? Number.POSITIVE_INFINITY : utf8Length(piece);
      if (bytes > maxBytes) return undefined;
      parts.push(piece);
    }
    return parts.join("");
  }
}

/** A string of the document as it is: short, parsed; or long, left in its source. */
export type JsonText = string | LongString;

/**
 * Parses `document` (a UTF-8 file's bytes, or a text) as `JSON.parse` does, but for strings longer than
 * `LONG_STRING_UNITS` in the source, which are `LongString`s. Throws `LazyJsonError` when it is not JSON.
 */
export function parseLazily(document: Uint8Array | string): unknown {
  const source = typeof document === "string" ? textSource(document) : bytesSource(document);
  const longs: LongString[] = [];
  // Stands for a long string in the text JSON.parse reads: a NUL and a nonce no document can know in advance.
  const marker = `\u0000${nonce()}:`;
  const parts: string[] = [];
  let copied = 0;
  for (let open = source.quote(0); open >= 0; ) {
    const close = closingQuote(source, open);
    if (close < 0) break;
    if (close - open - 1 > LONG_STRING_UNITS) {
      checkString(source, open + 1, close);
      parts.push(source.text(copied, open), JSON.stringify(`${marker}${longs.length}`));
      longs.push(new LongString(source, open + 1, close));
      copied = close + 1;
    }
    open = source.quote(close + 1);
  }
  parts.push(source.text(copied, source.length));
  const skeleton = parts.length === 1 ? parts[0]! : parts.join("");
  parts.length = 0;
  try {
    if (longs.length === 0) return JSON.parse(skeleton);
    return JSON.parse(skeleton, (_key, value: unknown) =>
      typeof value === "string" && value.startsWith(marker) ? longs[Number(value.slice(marker.length))] : value,
    );
  } catch (error) {
    throw new LazyJsonError((error as Error).message, { cause: error });
  }
}

/** The `"` that ends the string opened at `open` (one not escaped by an odd run of backslashes), or -1. */
function closingQuote(source: Source, open: number): number {
  for (let at = source.quote(open + 1); at >= 0; at = source.quote(at + 1)) {
    let backslashes = 0;
    while (source.unit(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

const HEX = /^[0-9a-fA-F]{4}$/;
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/** What JSON.parse would check of a string it does not read: no raw control character, only valid escapes. */
function checkString(source: Source, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    const unit = source.unit(i);
    if (unit < 0x20) throw new LazyJsonError(`bad control character in string literal at position ${i}`);
    if (unit !== BACKSLASH) continue;
    const next = source.unit(i + 1);
    if (next === 0x75 && HEX.test(source.text(i + 2, Math.min(i + 6, end)))) i += 5;
    else if (SIMPLE_ESCAPES.has(next)) i++;
    else throw new LazyJsonError(`bad escaped character in string literal at position ${i}`);
  }
}

const ESCAPED: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * The text of a piece of a checked string's source, escapes resolved; `rest` is what must wait for the next piece (an
 * escape cut in two, a high surrogate whose low half may follow). `last`: no piece follows.
 */
function unescapePiece(raw: string, last: boolean): { text: string; rest: string } {
  const out: string[] = [];
  let at = 0;
  let rest = "";
  for (;;) {
    const backslash = raw.indexOf("\\", at);
    if (backslash < 0) {
      out.push(at === 0 ? raw : raw.slice(at));
      break;
    }
    out.push(raw.slice(at, backslash));
    const kind = raw[backslash + 1];
    const width = kind === "u" ? 6 : 2;
    if (backslash + width > raw.length) {
      rest = raw.slice(backslash);
      break;
    }
    out.push(kind === "u" ? String.fromCharCode(Number.parseInt(raw.slice(backslash + 2, backslash + 6), 16)) : ESCAPED[kind!]!);
    at = backslash + width;
  }
  let text = out.length === 1 ? out[0]! : out.join("");
  if (!last && rest === "" && text !== "") {
    const tail = text.charCodeAt(text.length - 1);
    if (tail >= 0xd800 && tail < 0xdc00) {
      rest = text.slice(-1);
      text = text.slice(0, -1);
    }
  }
  // A held high surrogate goes back into the source's text as itself: it holds no backslash.
  return { text, rest };
}

function nonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
