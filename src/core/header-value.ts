/**
 * @module header-value: the transport headers a 2026-07-28 client writes for a request, and how it writes a value.
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

/**
 * The headers a 2026-07-28 client sends with `message` (a parsed body), lower-cased: `mcp-protocol-version` from its
 * `_meta` claim, `mcp-method`, and `mcp-name` for the methods that mirror a name or a URI. A message that is not a
 * request with a string claim (legacy, a notification, junk) gets none, as the client sends none.
 */
export function transportHeadersFor(message: unknown): Record<string, string> {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return {};
  const { id, method, params } = message as { id?: unknown; method?: unknown; params?: Record<string, unknown> };
  const meta = typeof params === "object" && params !== null ? params._meta : undefined;
  const claim =
    typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)["io.modelcontextprotocol/protocolVersion"] : undefined;
  if (id === undefined || typeof method !== "string" || typeof claim !== "string") return {};
  const headers: Record<string, string> = { "mcp-protocol-version": encodeHeaderValue(claim), "mcp-method": encodeHeaderValue(method) };
  const field = method === "tools/call" || method === "prompts/get" ? "name" : method === "resources/read" ? "uri" : undefined;
  const name = field === undefined ? undefined : params?.[field];
  if (typeof name === "string") headers["mcp-name"] = encodeHeaderValue(name);
  return headers;
}

/**
 * A `Content-Type` value's media type, the one way every face reads it: what comes before any parameter, trimmed and
 * lower-cased (RFC 9110 §8.3.1: the type and subtype are case-insensitive); `""` for none.
 */
export function mediaType(contentType: string | null | undefined): string {
  if (!contentType) return "";
  const semicolon = contentType.indexOf(";");
  return (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}
