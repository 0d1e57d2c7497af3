import { encodeHeaderValue } from "../../src/core/header-value.js";

/**
 * The headers the official client sends with a modern request (Streamable HTTP, 2026-07-28), derived from its body:
 * `MCP-Protocol-Version` from its `_meta` claim, `Mcp-Method`, and `Mcp-Name` for the methods that mirror a name or a
 * URI (in the `=?base64?…?=` form where a header cannot carry it as it is). A body with no string claim (legacy, a notification, junk) gets none, as the client sends none.
 */
export function transportHeaders(body: unknown): Record<string, string> {
  let value = body;
  if (typeof body === "string" || body instanceof Uint8Array) {
    try {
      value = JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body));
    } catch {
      return {};
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  const { id, method, params } = value as { id?: unknown; method?: unknown; params?: Record<string, unknown> };
  const claim = (params?._meta as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/protocolVersion"];
  if (id === undefined || typeof method !== "string" || typeof claim !== "string") return {};
  const headers: Record<string, string> = { "mcp-protocol-version": claim, "mcp-method": method };
  const field = method === "tools/call" || method === "prompts/get" ? "name" : method === "resources/read" ? "uri" : undefined;
  const name = field === undefined ? undefined : params?.[field];
  if (typeof name === "string") headers["mcp-name"] = encodeHeaderValue(name);
  return headers;
}
