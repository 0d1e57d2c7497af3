/**
 * @module wymcp: precompiled validation of MCP messages for dual-era servers. The core: it needs no host
 * types and no host globals; the adapters are the entries `wymcp/node` and `wymcp/fetch`.
 */
export { validateMcpRequest, MAX_ANSWER_BYTES } from "./validate.js";
export type { ValidationResult, BypassReason, JudgedKind, ValidateOptions } from "./validate.js";
export { classifyEra } from "./era.js";
export type { Era, EraClassification, EraSignal, HeadersLike, HeadersReader } from "./era.js";
export { classifyMessage } from "./classify-message.js";
export type { MessageKind } from "./classify-message.js";
export type { JsonRpcErrorResponse, JsonRpcId, LocatedError, InvalidRequestData } from "./envelope.js";
export type * as LegacyTypes from "../generated/legacy/types.js";
export type * as ModernTypes from "../generated/modern/types.js";
// Type-only: the adapters' shared half reads bodies with TextDecoder, which the core does not load.
export type { GateOptions, RejectInfo, RejectReason, WymcpInfo, Admitted } from "./admit.js";
