/** Small, valid messages of each era, the base the tests mutate. */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "test-client", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

export function modernToolsCall(overrides: Record<string, unknown> = {}) {
  return {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { _meta: MODERN_META, name: "get_weather", arguments: { location: "Paris" } },
    ...overrides,
  };
}

/** The transport headers the official client sends with a 2026-07-28 `tools/call` of tool `name`. */
export function modernCallHeaders(name: string): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": name,
  };
}

export const LEGACY_INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test-client", version: "1.0.0" } },
};

export const NOTIFICATION = { jsonrpc: "2.0", method: "notifications/initialized" };
export const CLIENT_RESPONSE = { jsonrpc: "2.0", id: 3, result: {} };
export const CLIENT_ERROR_RESPONSE = { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "no" } };

/**
 * The body that crashed workerd before the core stopped using `Buffer`: 20 non-string arguments under
 * 10-character keys make an answer long enough that distill.ts measures its bytes.
 */
export const LONG_ERROR_LIST_PROMPTS_GET = {
  jsonrpc: "2.0",
  id: "long",
  method: "prompts/get",
  params: {
    _meta: MODERN_META,
    name: "p",
    arguments: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`argument${String(i).padStart(2, "0")}`, i])),
  },
};
