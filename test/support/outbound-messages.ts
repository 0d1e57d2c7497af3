/** Valid messages a legacy (2025-11-25) server sends, or a legacy client sends back, each with the method it answers. */
export const LEGACY_SERVER_MESSAGES: Array<{ message: unknown; method: string | undefined }> = [
  {
    method: "initialize",
    message: {
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2025-11-25",
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "s", version: "1.0.0" },
      },
    },
  },
  { method: "ping", message: { jsonrpc: "2.0", id: 2, result: {} } },
  {
    method: "tools/list",
    message: {
      jsonrpc: "2.0",
      id: 3,
      result: { tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] },
    },
  },
  { method: "tools/call", message: { jsonrpc: "2.0", id: 4, result: { content: [{ type: "text", text: "hi" }], isError: false } } },
  {
    method: "resources/read",
    message: { jsonrpc: "2.0", id: 5, result: { contents: [{ uri: "file:///a.txt", text: "a", mimeType: "text/plain" }] } },
  },
  {
    method: "prompts/get",
    message: { jsonrpc: "2.0", id: 6, result: { messages: [{ role: "user", content: { type: "text", text: "hello" } }] } },
  },
  { method: "completion/complete", message: { jsonrpc: "2.0", id: 7, result: { completion: { values: ["a", "b"], total: 2 } } } },
  { method: undefined, message: { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: { x: 1 } } } },
  {
    method: undefined,
    message: { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "p", progress: 1, total: 2 } },
  },
  { method: undefined, message: { jsonrpc: "2.0", method: "notifications/tools/list_changed" } },
  { method: undefined, message: { jsonrpc: "2.0", id: 8, method: "ping" } },
  {
    method: undefined,
    message: {
      jsonrpc: "2.0",
      id: 9,
      method: "sampling/createMessage",
      params: { messages: [{ role: "user", content: { type: "text", text: "2+2?" } }], maxTokens: 10 },
    },
  },
  {
    method: undefined,
    message: {
      jsonrpc: "2.0",
      id: 10,
      method: "elicitation/create",
      params: {
        message: "How many?",
        // Fractional bounds and default: the NumberSchema erratum's case.
        requestedSchema: { type: "object", properties: { n: { type: "number", minimum: 0.5, maximum: 9.5, default: 1.5 } } },
      },
    },
  },
  { method: undefined, message: { jsonrpc: "2.0", id: 11, method: "roots/list" } },
  { method: "roots/list", message: { jsonrpc: "2.0", id: 11, result: { roots: [{ uri: "file:///home/u", name: "home" }] } } },
  {
    method: "sampling/createMessage",
    message: { jsonrpc: "2.0", id: 9, result: { role: "assistant", content: { type: "text", text: "4" }, model: "m" } },
  },
  { method: "elicitation/create", message: { jsonrpc: "2.0", id: 10, result: { action: "accept", content: { n: 2 } } } },
  { method: "tools/call", message: { jsonrpc: "2.0", id: 12, error: { code: -32602, message: "Unknown tool" } } },
  {
    method: "tools/call",
    message: { jsonrpc: "2.0", id: 13, error: { code: -32042, message: "URL elicitation required", data: { elicitations: [] } } },
  },
];
