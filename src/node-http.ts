/** @module wymcp/node: wymcp on Node `http`, Connect and Express (src/hosts/node-http.ts, src/hosts/node-gate.ts). */
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, answerClientErrors, gateNode, serveFetch, wymcpNode } from "./hosts/node-http.js";
export type {
  Admitted,
  EraOption,
  GateNodeListener,
  GateNodeOptions,
  GateOptions,
  McpFetchHandler,
  McpFetchOptions,
  NextFunction,
  NodeOptions,
  OutboundCheck,
  OutboundOptions,
  OutboundViolationInfo,
  OutboundViolations,
  RejectInfo,
  RejectReason,
  Telemetry,
  WymcpInfo,
} from "./hosts/node-http.js";
