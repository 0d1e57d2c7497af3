/**
 * @module stdio/lines: newline-delimited messages cut out of a byte stream without copying, for the stdio gate. Lines
 * that pass are forwarded as runs of the very chunk they came in (one write for many lines); a line longer than the
 * limit is skipped to its end and never held whole.
 */

/** What the reader makes of one line. */
export type LineEvent =
  /** A whole line, without its `\n` (a `\r` before it stays: JSON reads it as whitespace, and it is forwarded as sent). */
  | { kind: "line"; bytes: Buffer }
  /** A line longer than the limit; `seen` is how many of its bytes were read (and thrown away) before the verdict. */
  | { kind: "too-long"; seen: number };

/**
 * Splits chunks into lines. `push` returns, per chunk, the lines it completes in order, each with where it lies in the
 * chunk (`start`, `end` past its `\n`) when it lies wholly inside it, so that a caller can forward runs of the chunk.
 */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(private readonly max: number) {}

  *push(chunk: Buffer): Generator<LineEvent & { start: number; end: number; inChunk: boolean }> {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const end = nl + 1;
      if (this.skipping) {
        const seen = this.size + nl - start;
        this.reset();
        yield { kind: "too-long", seen, start, end, inChunk: false };
      } else if (this.size > 0) {
        const total = this.size + nl - start;
        if (total > this.max) {
          this.reset();
          yield { kind: "too-long", seen: total, start, end, inChunk: false };
        } else {
          const bytes = Buffer.concat([...this.parts, chunk.subarray(start, nl)], total);
          this.reset();
          yield { kind: "line", bytes, start, end, inChunk: false };
        }
      } else if (nl - start > this.max) {
        yield { kind: "too-long", seen: nl - start, start, end, inChunk: true };
      } else {
        yield { kind: "line", bytes: chunk.subarray(start, nl), start, end, inChunk: true };
      }
      start = end;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  /** The last line when the stream ends without a `\n`, if any. */
  end(): LineEvent | undefined {
    if (this.skipping) {
      const seen = this.size;
      this.reset();
      return { kind: "too-long", seen };
    }
    if (this.size === 0) return undefined;
    const bytes = Buffer.concat(this.parts, this.size);
    this.reset();
    return { kind: "line", bytes };
  }

  private take(rest: Buffer): void {
    this.size += rest.length;
    if (this.skipping) return;
    if (this.size > this.max) {
      // Past the limit nothing more of this line is kept: only its length is counted, up to its end.
      this.skipping = true;
      this.parts = [];
      return;
    }
    // A copy: the caller may reuse the chunk's memory once push returns.
    this.parts.push(Buffer.from(rest));
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
    this.skipping = false;
  }
}
