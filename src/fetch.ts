/** @module wymcp/fetch: wymcp on Fetch API hosts: Workers, Deno, Bun, Hono (src/hosts/fetch.ts). */
export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, gateFetch, wymcpFetch, wymcpOf } from "./hosts/fetch.js";
export type {
  Admitted,
  EraOption,
  FetchGuard,
  FetchOptions,
  FetchWymcpInfo,
  GateFetchOptions,
  GateOptions,
  McpFetchHandler,
  McpFetchOptions,
  OutboundCheck,
  OutboundOptions,
  OutboundViolationInfo,
  OutboundViolations,
  RejectInfo,
  RejectReason,
  Telemetry,
  WymcpInfo,
} from "./hosts/fetch.js";
