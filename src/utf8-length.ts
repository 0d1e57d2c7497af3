/**
 * @module utf8-length: the UTF-8 size of a string without encoding it, so the core needs neither Node's
 * `Buffer` nor an allocation per measurement.
 */

/**
 * Bytes `string` takes as UTF-8; a lone surrogate counts 3, as the U+FFFD that `TextEncoder` writes for it.
 * @example utf8Length("é/€") === 6
 */
export function utf8Length(string: string): number {
  let bytes = string.length;
  for (let i = 0; i < string.length; i++) {
    const unit = string.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      bytes += 1;
    } else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < string.length && (string.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair is 2 units and 4 bytes.
      bytes += 2;
      i++;
    } else {
      bytes += 2;
    }
  }
  return bytes;
}
