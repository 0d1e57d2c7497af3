/**
 * @module wymcp/otel: OpenTelemetry spans and metrics for every MCP message a face judges, by the semantic conventions for
 * MCP (src/otel/telemetry.ts). Needs `@opentelemetry/api` (an optional peer dependency); no other entry loads it.
 */
export { INSTRUMENTATION_SCOPE, mcpTelemetry, type McpTelemetryOptions } from "./otel/telemetry.js";
export type { ExchangeTrace, TransportFacts } from "./core/trace.js";
export type { JudgedExchange, MessageFacts, Telemetry } from "./telemetry/telemetry.js";
