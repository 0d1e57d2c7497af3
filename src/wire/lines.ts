/**
 * @module lines: newline-delimited messages cut out of a byte stream, the one splitter of `wymcp stdio` and
 * `wymcp check`. A line that lies within one chunk is a view of it (no copy), so that a caller can forward runs of the
 * chunk as they came; one that spans chunks is joined once; one longer than the limit is never held: past the limit,
 * only its length is counted, chunk by chunk, to its end.
 */

/** One line, numbered from 1 in the stream (blank and too-long lines count). */
export type Line =
  /** A whole line, without its `\n` (a `\r` before it stays: JSON reads it as whitespace, and it is forwarded as sent). */
  | { kind: "line"; bytes: Uint8Array; number: number; start: number; end: number; inChunk: boolean }
  /** A line longer than the limit; `seen` is how many of its bytes were read (and thrown away) before its end. */
  | { kind: "too-long"; seen: number; number: number; start: number; end: number; inChunk: boolean };

const EMPTY = new Uint8Array(0);

/**
 * Splits chunks into lines, pulled one at a time: `push` a chunk, then `next` until it answers `undefined`. A line has
 * where it lies in the current chunk (`start`, `end` past its `\n`); `inChunk` when it lies wholly inside it. A caller
 * may await between two lines: the chunk stays the current one until the next `push`. No more than `max` bytes of one
 * line are ever held.
 */
export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private skipping = false;
  /** A chunk was let by (`pass`) inside a line: its rest, up to its `\n`, is not a line of its own. */
  private discarding = false;
  private number = 0;
  private chunk: Uint8Array = EMPTY;
  private start = 0;

  constructor(private readonly max: number) {}

  /** Bytes of the unfinished line held for the next chunk: never more than the limit (none once it is passed). */
  get heldBytes(): number {
    return this.skipping ? 0 : this.size;
  }

  /**
   * Lets a chunk by unread, for a caller that reads the stream's lines only now and then: what was held goes, and when
   * the chunk ends inside a line, that line's rest is dropped from the next chunk pushed, up to its `\n`, so that the
   * next line read starts where a line starts. Lines let by are not numbered.
   */
  pass(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.reset();
    this.chunk = EMPTY;
    this.start = 0;
    this.discarding = chunk[chunk.length - 1] !== 10;
  }

  /** Makes `chunk` the current one; what the previous one ended with waits for this one's first `\n`. */
  push(chunk: Uint8Array): void {
    this.chunk = chunk;
    this.start = 0;
  }

  /** The next whole line of the current chunk, or `undefined` once none is left (its rest is then kept for the next). */
  next(): Line | undefined {
    if (this.discarding) {
      const rest = this.chunk.indexOf(10, this.start);
      if (rest === -1) {
        this.chunk = EMPTY;
        this.start = 0;
        return undefined;
      }
      this.discarding = false;
      this.start = rest + 1;
    }
    const { chunk, start } = this;
    const nl = chunk.indexOf(10, start);
    if (nl === -1) {
      if (start < chunk.length) this.take(chunk.subarray(start));
      this.chunk = EMPTY;
      this.start = 0;
      return undefined;
    }
    const end = nl + 1;
    this.start = end;
    const number = ++this.number;
    if (this.skipping) {
      const seen = this.size + nl - start;
      this.reset();
      return { kind: "too-long", seen, number, start, end, inChunk: false };
    }
    if (this.size > 0) {
      const total = this.size + nl - start;
      if (total > this.max) {
        this.reset();
        return { kind: "too-long", seen: total, number, start, end, inChunk: false };
      }
      const bytes = joined(this.parts, chunk.subarray(start, nl), total);
      this.reset();
      return { kind: "line", bytes, number, start, end, inChunk: false };
    }
    if (nl - start > this.max) return { kind: "too-long", seen: nl - start, number, start, end, inChunk: true };
    return { kind: "line", bytes: chunk.subarray(start, nl), number, start, end, inChunk: true };
  }

  /** The last line when the stream ends without a `\n`, if any (its `start` and `end` are 0: it is in no chunk). */
  end(): Line | undefined {
    if (this.discarding) {
      this.discarding = false;
      return undefined;
    }
    if (!this.skipping && this.size === 0) return undefined;
    const number = ++this.number;
    const line: Line = this.skipping
      ? { kind: "too-long", seen: this.size, number, start: 0, end: 0, inChunk: false }
      : { kind: "line", bytes: joined(this.parts, EMPTY, this.size), number, start: 0, end: 0, inChunk: false };
    this.reset();
    return line;
  }

  private take(rest: Uint8Array): void {
    this.size += rest.length;
    if (this.skipping) return;
    if (this.size > this.max) {
      // Past the limit nothing more of this line is kept: only its length is counted, up to its end.
      this.skipping = true;
      this.parts = [];
      return;
    }
    // A copy (a Node Buffer's own `slice` would be a view): the caller may reuse the chunk's memory once it has read
    // the chunk's lines.
    this.parts.push(new Uint8Array(rest));
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
    this.skipping = false;
  }
}

/** The pieces of one line in one buffer; a single piece is returned as it is. */
function joined(parts: readonly Uint8Array[], last: Uint8Array, total: number): Uint8Array {
  if (parts.length === 1 && last.length === 0) return parts[0]!;
  if (parts.length === 0) return last;
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  bytes.set(last, at);
  return bytes;
}

/** Only spaces, tabs and `\r`: no message, so nothing to judge, forward or answer. A message's line starts with `{` or `[`, so this looks at one byte of nearly every line. */
export function isBlank(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte !== 32 && byte !== 9 && byte !== 13) return false;
  }
  return true;
}
