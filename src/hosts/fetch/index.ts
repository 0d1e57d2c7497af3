/** @module hosts/fetch: wymcp on Fetch API hosts: Workers, Deno, Bun, Hono. */
export { type GateFetchOptions, gateFetch } from "./gate.js";
export { type FetchGuard, type FetchOptions, type FetchWymcpInfo, wymcpFetch, wymcpOf } from "./guard.js";
