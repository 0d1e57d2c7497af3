/**
 * @module wymcp: precompiled validation of MCP messages for dual-era servers. The core: it needs no host
 * types and no host globals; the adapters are the entries `wymcp/node` and `wymcp/fetch`.
 */
export { validateMcpRequest, MAX_ANSWER_BYTES } from "./core/validate.js";
export type { ValidationResult, BypassReason, JudgedKind, Reported, ValidateOptions, ValidationRule } from "./core/validate.js";
export { RULES } from "./core/rules.js";
export type { Mode, Report, RuleName, Rules, RuleState } from "./core/rules.js";
export { classifyEra } from "./core/era.js";
export { legacyRevisionOf } from "./core/legacy-revision.js";
export type { LegacyRevision, LegacyRevisionSignal } from "./core/legacy-revision.js";
export type { Era, EraClassification, EraSignal, HeadersLike, HeadersReader } from "./core/era.js";
export { classifyMessage } from "./core/classify-message.js";
export type { MessageKind } from "./core/classify-message.js";
export type { JsonRpcErrorResponse, JsonRpcId, LocatedError, InvalidRequestData, ToolErrorAnswer } from "./core/envelope.js";
export { WymcpOptionError } from "./core/option-error.js";
export type { Admitted, RejectInfo, RejectReason, WymcpInfo } from "./core/admission.js";
export type { AllowOptions, EraOption, GateOptions, LimitOptions } from "./options/options.js";
export type * as LegacyTypes from "../generated/legacy/types.js";
export type * as ModernTypes from "../generated/modern/types.js";
export type { ExchangeTrace, TransportFacts } from "./core/trace.js";
export type { JudgedExchange, MessageFacts, Telemetry, TelemetryVerdict } from "./telemetry/telemetry.js";
