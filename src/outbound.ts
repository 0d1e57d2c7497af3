/** @module wymcp/outbound: checks what a server sends (src/outbound/validate-response.ts); the inbound entry never loads it. */
export { validateMcpResponse } from "./outbound/validate-response.js";
export type { OutboundKind, OutboundResult, OutboundViolations, ResponseContext } from "./outbound/validate-response.js";
