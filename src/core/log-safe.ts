/**
 * @module log-safe: client keys made safe to log before they enter an answer (docs/security.md).
 * Runs only on the error path, once per located error.
 */

/** Characters of one location segment kept; a longer segment is cut and ends in `…`. */
export const SEGMENT_LENGTH = 64;

/**
 * Whether a UTF-16 unit is written as `\uXXXX`: C0, DEL, C1 (terminal and log control), U+2028/U+2029
 * (line breaks to many log readers), the bidirectional marks and overrides (they reorder a line on screen),
 * U+2026 (so that `…` always means "cut"). Lone surrogates are found by the callers.
 */
function isEscaped(code: number): boolean {
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  if (code < 0x61c) return false;
  return (
    code === 0x61c ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x2026 ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;

function hex(code: number): string {
  return `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Whether `text` holds a unit a log could misread: one `escapeText` rewrites (but `\\` and `…`), a lone surrogate included. */
export function hasUnsafeUnit(text: string): boolean {
  return firstRewritten(text, false) >= 0;
}

/** Index of the first unit `escapeText` rewrites (`\\` and `…` only when `all`), or -1. */
function firstRewritten(text: string, all: boolean): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isEscaped(code) && (all || code !== 0x2026)) return i;
    if (all && code === 0x5c) return i;
    if (isHigh(code)) {
      if (!isLow(text.charCodeAt(i + 1))) return i;
      i++;
    } else if (isLow(code)) return i;
  }
  return -1;
}

/**
 * `text` with every unsafe unit as `\uXXXX` and `\` as `\\` (so an escape in the output is always one of
 * ours), cut after `max` characters of the result, never inside an escape or a surrogate pair, and then
 * ending in `…`.
 */
export function escapeText(text: string, max = Number.POSITIVE_INFINITY): string {
  let out = "";
  for (let i = 0; i < text.length; ) {
    const code = text.charCodeAt(i);
    const pair = isHigh(code) && isLow(text.charCodeAt(i + 1));
    let unit: string;
    if (pair) unit = text.slice(i, i + 2);
    else if (code === 0x5c) unit = "\\\\";
    else if (isEscaped(code) || isHigh(code) || isLow(code)) unit = hex(code);
    else unit = text[i]!;
    if (out.length + unit.length > max) return `${out}…`;
    out += unit;
    i += pair ? 2 : 1;
  }
  return out;
}

/**
 * A JSON Pointer from the validator made safe to log: each segment escaped (`escapeText`) and cut at
 * `SEGMENT_LENGTH` characters. A pointer with nothing to escape and no long segment is returned as is.
 * Each segment is read only as far as its kept prefix, then skipped to the next `/`.
 */
export function safePointer(pointer: string): string {
  let segment = 0;
  let clean = true;
  for (let i = 0; i < pointer.length && clean; i++) {
    const code = pointer.charCodeAt(i);
    if (code === 0x2f) segment = 0;
    else if (++segment > SEGMENT_LENGTH || code === 0x5c || isEscaped(code) || isLow(code)) clean = false;
    else if (isHigh(code)) {
      if (isLow(pointer.charCodeAt(i + 1))) {
        i++;
        segment++;
      } else clean = false;
    }
  }
  if (clean) return pointer;
  let out = "";
  // As `split("/").slice(1)` did: whatever precedes the first `/` is not a segment.
  for (let start = pointer.indexOf("/"); start >= 0; ) {
    const next = pointer.indexOf("/", start + 1);
    const end = next < 0 ? pointer.length : next;
    out += `/${escapeSegment(pointer, start + 1, end)}`;
    start = next;
  }
  return out;
}

/**
 * The segment `text[from, to)` escaped as `escapeText` does and cut as `cutEscaped` does (`~0` and `~1` kept
 * whole), in one pass that stops at the first unit past `SEGMENT_LENGTH` characters of output: the cost is
 * bounded by the kept prefix, never by the segment's length.
 */
export function escapeSegment(text: string, from = 0, to = text.length): string {
  let out = "";
  // Units kept as they are accumulate in a run, copied with one slice when it ends.
  let run = from;
  for (let i = from; i < to; ) {
    const code = text.charCodeAt(i);
    let width = 1;
    let unit: string | undefined;
    if (isHigh(code) && i + 1 < to && isLow(text.charCodeAt(i + 1))) width = 2;
    else if (code === 0x7e && i + 1 < to && (text.charCodeAt(i + 1) === 0x30 || text.charCodeAt(i + 1) === 0x31)) width = 2;
    else if (code === 0x5c) unit = "\\\\";
    else if (isEscaped(code) || isHigh(code) || isLow(code)) unit = hex(code);
    const length = out.length + (i - run) + (unit === undefined ? width : unit.length);
    if (length > SEGMENT_LENGTH) return `${out}${text.slice(run, i)}…`;
    if (unit !== undefined) {
      out += text.slice(run, i) + unit;
      run = i + 1;
    }
    i += width;
  }
  return out + text.slice(run, to);
}

/**
 * Cuts text already escaped (by `escapeText` or `safePointer`) after at most `max` characters, never
 * inside `\uXXXX`, `\\`, `~0`/`~1` or a surrogate pair, and marks the cut with `…`.
 */
export function cutEscaped(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = 0;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    let width = 1;
    if (code === 0x5c) width = text.charCodeAt(end + 1) === 0x75 ? 6 : 2;
    else if (code === 0x7e || isHigh(code)) width = 2;
    if (end + width > max) break;
    end += width;
  }
  return `${text.slice(0, end)}…`;
}
