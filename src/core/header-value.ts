/**
 * @module header-value: a value as a 2026-07-28 client writes it into a transport header (`Mcp-Name`, `Mcp-Param-*`).
 * A module of its own, with no import, so that what writes headers (the inspector's HAR export) does not bundle the
 * core's header rules a second time; `decodeSentinel` in header-body.ts reads the form back.
 */
const PREFIX = "=?base64?";
const SUFFIX = "?=";

/**
 * A value as a client writes it into a header: visible ASCII (inner spaces allowed) as it is, anything else (non-ASCII,
 * control characters, surrounding whitespace, or what would read as a sentinel) as `=?base64?<Base64 of its UTF-8>?=`,
 * which `decodeSentinel` reads back to the value.
 */
export function encodeHeaderValue(value: string): string {
  const literal = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !(value.startsWith(PREFIX) && value.endsWith(SUFFIX));
  if (literal) return value;
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) binary += String.fromCharCode(byte);
  return `${PREFIX}${btoa(binary)}${SUFFIX}`;
}
