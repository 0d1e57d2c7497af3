/**
 * @module input: the bytes of `wymcp check`'s inputs: files read in chunks, lines split without holding more than the
 * limit of one line, and what a line's edges may carry (CRLF, a BOM, blank lines).
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** Splits a byte stream into lines without ever holding more than `max` bytes of one line. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private number = 0;

  constructor(
    private readonly max: number,
    private readonly onLine: (line: number, bytes: Buffer | undefined) => void,
  ) {}

  /** `bytes` is undefined for a line over the limit, which is skipped to its end unread. */
  push(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
      this.take(chunk, start, end);
      this.emit();
      start = end + 1;
    }
    if (start < chunk.length) this.take(chunk, start, chunk.length);
  }

  end(): void {
    if (this.size > 0 || this.skipping) this.emit();
  }

  private take(chunk: Buffer, start: number, end: number): void {
    if (this.skipping || start === end) return;
    if (this.size + (end - start) > this.max) {
      this.skipping = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(chunk.subarray(start, end));
    this.size += end - start;
  }

  private emit(): void {
    this.number++;
    if (this.skipping) this.onLine(this.number, undefined);
    else this.onLine(this.number, this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size));
    this.parts = [];
    this.size = 0;
    this.skipping = false;
  }
}

const CHUNK_BYTES = 256 * 1024;

/**
 * A file's bytes in chunks, read synchronously: a command has nothing else to do meanwhile, and a stream would cost
 * start-up time for its machinery. Opened at once, so a missing file fails before anything is judged.
 */
export function fileChunks(file: string): Iterable<Buffer> {
  const fd = openSync(file, "r");
  if (fstatSync(fd).isDirectory()) {
    closeSync(fd);
    throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
  }
  return (function* () {
    try {
      for (;;) {
        // A fresh buffer each time: lines not yet judged may still point into the previous one.
        const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
        const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
        if (read === 0) return;
        yield read === CHUNK_BYTES ? chunk : chunk.subarray(0, read);
      }
    } finally {
      closeSync(fd);
    }
  })();
}

/** Why an input could not be read, in a few words. */
export function describeError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "is a directory";
  if (code === "EACCES") return "permission denied";
  return error instanceof Error ? error.message : String(error);
}

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * A line as it is judged: a CR before the LF dropped (CRLF logs), a BOM at the start of the first line dropped;
 * `null` for a blank line, which separates messages and is none.
 */
export function trimLine(bytes: Buffer, line: number): Buffer | null {
  if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
  if (line === 1 && bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
  return isBlank(bytes) ? null : bytes;
}

/** Only whitespace; a message's line starts with `{`, so this looks at one byte of nearly every line. */
function isBlank(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte !== 32 && byte !== 9 && byte !== 13) return false;
  }
  return true;
}
