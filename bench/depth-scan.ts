/**
 * @module The alternative the nesting bound was measured against: a scanner over the body's UTF-8 bytes, run before
 * `JSON.parse`. It is exact on valid JSON (test/depth.test.ts checks it against the parsed walk) but costs 4–7× what the walk does.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** Whether the JSON text in `bytes` nests deeper than `maxDepth`; brackets inside strings (escaped quotes included) do not count. */
export function bytesExceedDepth(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const c = bytes[i++]!;
    if (c === QUOTE) {
      // Inside a string only a backslash (which hides the next byte) or the closing quote matter; UTF-8
      // continuation bytes are all ≥ 0x80, so they never look like either.
      while (i < n) {
        const d = bytes[i++]!;
        if (d === QUOTE) break;
        if (d === BACKSLASH) i++;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}
