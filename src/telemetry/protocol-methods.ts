/**
 * @module protocol-methods: every method name of the MCP revisions, client's and server's, requests and
 * notifications, in one list: what the record keeps in clear and what telemetry records as itself on metrics.
 */

/** The methods of every MCP revision (test/otel-facts.test.ts reads the schemas to keep it whole). */
export const PROTOCOL_METHODS: ReadonlySet<string> = new Set([
  "completion/complete",
  "elicitation/create",
  "initialize",
  "logging/setLevel",
  "notifications/cancelled",
  "notifications/elicitation/complete",
  "notifications/initialized",
  "notifications/message",
  "notifications/progress",
  "notifications/prompts/list_changed",
  "notifications/resources/list_changed",
  "notifications/resources/updated",
  "notifications/roots/list_changed",
  "notifications/subscriptions/acknowledged",
  "notifications/tasks/status",
  "notifications/tools/list_changed",
  "ping",
  "prompts/get",
  "prompts/list",
  "resources/list",
  "resources/read",
  "resources/subscribe",
  "resources/templates/list",
  "resources/unsubscribe",
  "roots/list",
  "sampling/createMessage",
  "server/discover",
  "subscriptions/listen",
  "tasks/cancel",
  "tasks/get",
  "tasks/list",
  "tasks/result",
  "tools/call",
  "tools/list",
]);
