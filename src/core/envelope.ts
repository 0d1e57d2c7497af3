import { hasUnsafeUnit } from "./log-safe.js";

/** JSON-RPC 2.0 error codes this library answers with. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
/** The framing holds but the `params` fail the method's definition (the spec's `InvalidParamsError`). */
export const INVALID_PARAMS = -32602;
/** A handler failed: the SDK's own answer (`500`) when its handler throws. */
export const INTERNAL_ERROR = -32603;

export type JsonRpcId = string | number | null;

export interface LocatedError {
  /** JSON Pointer into the client's message; `""` is the message itself. */
  instancePath: string;
  messages: string[];
}

export interface InvalidRequestData {
  errors: LocatedError[];
  /** Problems found but not listed, present only when some were left out to bound the answer. */
  omitted?: number;
  /** On an `UnsupportedProtocolVersionError` (-32022) only: the versions the server serves. */
  supported?: string[];
  /** On an `UnsupportedProtocolVersionError` (-32022) only: the version the request named, escaped and cut. */
  requested?: string;
}

export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  error: { code: number; message: string; data?: InvalidRequestData };
}

/**
 * A `tools/call` answered as a tool execution error (`isError: true`): how the server's tools at the edge refuse invalid
 * arguments from revision 2025-11-25 on and on the modern lane.
 */
export interface ToolErrorAnswer {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: { content: [{ type: "text"; text: string }]; isError: true; resultType?: "complete" };
}

/** Longest id echoed back, measured as JSON; a longer one is answered with `null`. */
export const MAX_ECHOED_ID_LENGTH = 128;

/**
 * The id to answer with: the client's own only when it is a valid MCP request id (string or integer) of
 * bounded size, and a string id only when it holds no character a log could misread (log-safe.ts);
 * JSON-RPC asks for `null` when the id could not be determined.
 */
export function answerId(body: unknown): JsonRpcId {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !Object.hasOwn(body, "id")) return null;
  const id = (body as { id: unknown }).id;
  if (typeof id === "number") return Number.isSafeInteger(id) ? id : null;
  // A string of at most 21 units stays within the bound even if every unit is escaped six-fold.
  if (
    typeof id === "string" &&
    (id.length <= 21 || (id.length <= MAX_ECHOED_ID_LENGTH && JSON.stringify(id).length <= MAX_ECHOED_ID_LENGTH))
  ) {
    // An id is echoed exactly or not at all: escaping it would answer a request nobody sent.
    return hasUnsafeUnit(id) ? null : id;
  }
  return null;
}

export function errorResponse(id: JsonRpcId, code: number, message: string, data?: InvalidRequestData): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

/**
 * The `500` body the official SDK's `toNodeHandler` writes when a handler throws, members in its order: `-32603`
 * "Internal server error", with the request's id when the body is a request whose id may be echoed, else `null`.
 */
export function internalErrorResponse(body: unknown): { jsonrpc: "2.0"; error: { code: number; message: string }; id: JsonRpcId } {
  const isRequest = typeof (body as { method?: unknown } | null | undefined)?.method === "string";
  return { jsonrpc: "2.0", error: { code: INTERNAL_ERROR, message: "Internal server error" }, id: isRequest ? answerId(body) : null };
}
