import { transportHeadersFor } from "../../src/core/header-value.js";

/**
 * The headers the official client sends with a modern request (Streamable HTTP, 2026-07-28), derived from its body as
 * the core derives them (`transportHeadersFor`); a body given as text or bytes is parsed first, junk gets none.
 */
export function transportHeaders(body: unknown): Record<string, string> {
  if (typeof body !== "string" && !(body instanceof Uint8Array)) return transportHeadersFor(body);
  try {
    return transportHeadersFor(JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)));
  } catch {
    return {};
  }
}
