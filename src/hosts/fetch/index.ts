/** @module hosts/fetch: wymcp on Fetch API hosts: Workers, Deno, Bun, Hono. */
export { type GateFetchOptions, gateFetch, type PlainFetchHandler, type PlainGateFetchOptions } from "./gate.js";
export type { TakesParsedBody } from "../shared/sdk-handler.js";
export { type FetchGuard, type FetchOptions, type FetchWymcpInfo, wymcpFetch, wymcpOf } from "./guard.js";
