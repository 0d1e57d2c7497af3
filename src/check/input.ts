/**
 * @module input: the bytes of `wymcp check`'s inputs: files read in chunks (split into lines by the core's
 * `LineSplitter`, as `wymcp stdio` splits them), and what a line's edges may carry (CRLF, a BOM, blank lines).
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { isBlank, type Line } from "../wire/lines.js";

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

/** A line's bytes as a Buffer (a view of the same memory, no copy); `undefined` for a line past the limit, never read. */
export function bufferOf(line: Line): Buffer | undefined {
  if (line.kind === "too-long") return undefined;
  const { bytes } = line;
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
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
