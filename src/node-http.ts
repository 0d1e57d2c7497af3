/** @module wymcp/node: wymcp on Node `http`, Connect and Express (src/hosts/node/). */
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH } from "./core/options.js";
export { WymcpOptionError } from "./core/option-error.js";
export { answerClientErrors, gateNode, serveFetch, wymcpNode } from "./hosts/node/index.js";
export type { GateNodeListener, GateNodeOptions, NextFunction, NodeOptions } from "./hosts/node/index.js";
export type { Admitted, RejectInfo, RejectReason, WymcpInfo } from "./core/admission.js";
export type { EraOption, GateOptions } from "./core/options.js";
export type { OutboundCheck, OutboundOptions, OutboundViolationInfo, OutboundViolations } from "./outbound/tap.js";
export type { OnError } from "./hosts/shared/handler-error.js";
export type { McpFetchHandler, McpFetchOptions } from "./hosts/shared/sdk-handler.js";
export type { Telemetry } from "./core/telemetry.js";
