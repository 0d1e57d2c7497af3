/** @module wymcp/fetch: wymcp on Fetch API hosts: Workers, Deno, Bun, Hono (src/hosts/fetch/). */
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH } from "./core/options.js";
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
export type { EraOption, GateOptions } from "./core/options.js";
export type { OutboundCheck, OutboundOptions, OutboundViolationInfo, OutboundViolations } from "./outbound/tap.js";
export type { OnError } from "./hosts/shared/handler-error.js";
export type { McpFetchHandler, McpFetchOptions } from "./hosts/shared/sdk-handler.js";
export type { Telemetry } from "./core/telemetry.js";
