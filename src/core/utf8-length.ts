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

// Characters JSON.stringify writes as themselves, one byte each: printable ASCII but `"` and `\`.
const NEEDS_CARE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

/**
 * Bytes `JSON.stringify(string)` takes as UTF-8, quotes included; plain ASCII (the usual location or message)
 * is counted from its length alone, without building the JSON.
 * @example jsonStringLength('a"b') === 6
 */
export function jsonStringLength(string: string): number {
  return NEEDS_CARE.test(string) ? utf8Length(JSON.stringify(string)) : string.length + 2;
}
