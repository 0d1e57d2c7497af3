/** @module wymcp/fetch: wymcp on Fetch API hosts: Workers, Deno, Bun, Hono (src/hosts/fetch/). */
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH } from "./options/options.js";
export { WymcpOptionError } from "./core/option-error.js";
export { gateFetch, wymcpFetch, wymcpOf } from "./hosts/fetch/index.js";
export type {
  FetchGuard,
  FetchOptions,
  FetchWymcpInfo,
  GateFetchOptions,
  PlainFetchHandler,
  PlainGateFetchOptions,
  TakesParsedBody,
} from "./hosts/fetch/index.js";
export type { Admitted, RejectInfo, RejectReason, WymcpInfo } from "./core/admission.js";
export type { AllowOptions, EraOption, GateOptions, LimitOptions } from "./options/options.js";
export type { Mode, Report, RuleName, Rules, RuleState } from "./core/rules.js";
export type { FaceOptions } from "./hosts/shared/face.js";
export type { CompileOutcome, ToolSchemaCompiler, ToolsEvent, ToolsOptions } from "./tools/tools-at-edge.js";
export type { ToolsLockFile } from "./lock/tool-lock.js";
export type { OutboundCheck, OutboundViolations } from "./outbound/tap.js";
export type { OnError } from "./hosts/shared/handler-error.js";
export type { McpFetchHandler, McpFetchOptions } from "./hosts/shared/sdk-handler.js";
export type { Telemetry } from "./telemetry/telemetry.js";
