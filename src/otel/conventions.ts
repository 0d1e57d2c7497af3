/**
 * @module conventions: the names and numbers wymcp records by, from the OpenTelemetry semantic conventions for MCP
 * (semantic-conventions-genai v0.1.0: `model/mcp/*.yaml`, `docs/gen-ai/mcp.md`; published at
 * https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/) and the registries they reference; `wymcp.*` where they are
 * silent. docs/observability.md lists each with its source.
 */

import { PROTOCOL_METHODS } from "../telemetry/protocol-methods.js";

export const ATTR = {
  // MCP (semantic-conventions-genai, model/mcp/registry.yaml)
  method: "mcp.method.name",
  protocolVersion: "mcp.protocol.version",
  sessionId: "mcp.session.id",
  resourceUri: "mcp.resource.uri",
  // GenAI (semantic-conventions-genai, model/gen-ai registry), as model/mcp/common.yaml references them
  operation: "gen_ai.operation.name",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  // JSON-RPC and RPC (semantic-conventions v1.45.0 registry)
  requestId: "jsonrpc.request.id",
  jsonrpcVersion: "jsonrpc.protocol.version",
  statusCode: "rpc.response.status_code",
  // General (semantic-conventions v1.45.0 registry: error, network, client)
  errorType: "error.type",
  network: "network.transport",
  protocolName: "network.protocol.name",
  protocolVersionNet: "network.protocol.version",
  clientAddress: "client.address",
  clientPort: "client.port",
  // wymcp's own, where the conventions are silent
  verdict: "wymcp.verdict",
  era: "wymcp.era",
  reason: "wymcp.reason",
  /** The rules in `"report"` a message failed (a report, not an error): on the span, and on the reports' counter. */
  reportRule: "wymcp.report.rule",
  /** `in` (a client's message) or `out` (a server's, or a drift from the tools lock). */
  reportDirection: "wymcp.report.direction",
} as const;

/** `gen_ai.operation.name` of a tool call (the only operation the MCP conventions set it for). */
export const EXECUTE_TOOL = "execute_tool";
/** `error.type` of a `tools/call` answered with `isError: true`. */
export const TOOL_ERROR = "tool_error";
/** The conventions' fallback value (`error.type`), used for a method no MCP revision or convention names. */
export const OTHER = "_OTHER";

export const METRIC = {
  operationDuration: "mcp.server.operation.duration",
  rejections: "wymcp.rejections",
  validationDuration: "wymcp.validation.duration",
  reports: "wymcp.reports",
} as const;

/** `mcp.server.operation.duration`'s `ExplicitBucketBoundaries`, in seconds, as the conventions give them. */
export const OPERATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** `wymcp.validation.duration`'s boundaries, in seconds: a validation takes microseconds, a pathological one milliseconds. */
export const VALIDATION_BUCKETS = [0.000005, 0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025];

/**
 * JSON-RPC codes that, on the server side, mean the caller sent a request the server could not serve, and so SHOULD NOT
 * be considered errors (`mcp.server.status.attributes`, model/mcp/common.yaml): parse error, invalid request, method
 * not found, invalid params, resource not found. Any other code is an error.
 */
const CALLER_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32601, -32602, -32002]);

/** `rpc.response.status_code` values always recorded as they are: JSON-RPC's own codes, and MCP's resource not found. */
export const KNOWN_STATUS_CODES: ReadonlySet<string> = new Set(["-32700", "-32600", "-32601", "-32602", "-32603", "-32002"]);

/**
 * `mcp.protocol.version` values always recorded as they are: the MCP revisions (test/otel-facts.test.ts checks them
 * against the schemas wymcp compiles). A client's other date-shaped claims are bounded (attribute-values.ts).
 */
export const KNOWN_REVISIONS: ReadonlySet<string> = new Set(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]);

export function isServerError(code: number): boolean {
  return !CALLER_CODES.has(code);
}

/**
 * Methods recorded as they are on metrics; any other becomes `_OTHER` there (spans keep the name sent, bounded), so
 * that a client cannot grow a metric's attribute sets at will. The conventions' well-known values of
 * `mcp.method.name` (model/mcp/registry.yaml) and every client request and notification of the MCP revisions
 * (test/otel-facts.test.ts checks the schemas').
 */
export const KNOWN_METHODS: ReadonlySet<string> = PROTOCOL_METHODS;
