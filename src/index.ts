/**
 * @module wymcp: precompiled validation of MCP messages for dual-era servers.
 */
export { validateMcpRequest, MAX_ANSWER_BYTES } from "./validate.js";
export type { ValidationResult, BypassReason } from "./validate.js";
export { classifyEra } from "./era.js";
export type { Era, EraClassification, EraSignal, HeadersLike } from "./era.js";
export { classifyMessage } from "./classify-message.js";
export type { MessageKind } from "./classify-message.js";
export type { JsonRpcErrorResponse, JsonRpcId, LocatedError, InvalidRequestData } from "./envelope.js";
export type * as LegacyTypes from "../generated/legacy/types.js";
export type * as ModernTypes from "../generated/modern/types.js";
export { wymcpNode } from "./node-http.js";
export type { NodeOptions, NextFunction } from "./node-http.js";
export { wymcpFetch, wymcpOf } from "./fetch.js";
export type { FetchOptions, FetchWymcpInfo, FetchGuard } from "./fetch.js";
export type { OutboundCheck, OutboundOptions, OutboundViolationInfo, OutboundViolations } from "./outbound-tap.js";
export { DEFAULT_MAX_BODY_BYTES } from "./admit.js";
export type { GateOptions, RejectInfo, RejectReason, WymcpInfo, Admitted } from "./admit.js";
