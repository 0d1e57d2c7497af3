/**
 * @module node-http: the entry `wymcp/node`, wymcp as middleware for Node `http`, Connect and Express, over
 * a raw request stream or a body an earlier middleware (e.g. `express.json()`) has parsed. The only module
 * that may use Node's types and globals.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonRpcErrorResponse } from "./envelope.js";
import { admit, checkMaxDepth, DEFAULT_MAX_BODY_BYTES, type GateOptions, type WymcpInfo } from "./admit.js";

declare module "http" {
  interface IncomingMessage {
    /** Set by the wymcp middleware on a POST it handed on: the era it judged in and the outcome. */
    wymcp?: WymcpInfo;
  }
}

export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH } from "./admit.js";
export type { GateOptions, RejectInfo, RejectReason, WymcpInfo, Admitted } from "./admit.js";

/** Options of `wymcpNode`; `era` receives the Node request and the parsed body. */
export type NodeOptions = GateOptions<IncomingMessage>;

/** Connect's `next`: called with no argument to hand the request on, with an error when an option callback threw. */
export type NextFunction = (error?: unknown) => void;

/**
 * Validates POSTed MCP messages before `next()`; answers what it rejects (400, 413, 415) itself.
 * @example http.createServer((req, res) => guard(req, res, () => mcp(req, res, req.body)))
 */
export const wymcpNode = ({ maxBodyBytes = DEFAULT_MAX_BODY_BYTES, maxDepth, era, onReject }: NodeOptions = {}) => {
  checkMaxDepth(maxDepth);
  return async function wymcpNodeMiddleware(req: IncomingMessage, res: ServerResponse, next: NextFunction): Promise<void> {
    if (req.method !== "POST") return next();
    const host = req as IncomingMessage & { body?: unknown };
    let verdict;
    try {
      verdict = await admit(
        {
          contentType: req.headers["content-type"],
          contentLength: req.headers["content-length"],
          protocolVersion: firstValue(req.headers["mcp-protocol-version"]),
          parsed: host.body === undefined ? undefined : { body: host.body },
          // Stopping at the limit must leave the socket open for the 413.
          chunks: () => req.iterator({ destroyOnReturn: false }),
          era: (body) => era?.(req, body),
        },
        { maxBodyBytes, maxDepth, onReject },
      );
    } catch (error) {
      // A body cut off mid-read means the client has gone: no one is left to answer.
      if (!req.complete) return void req.destroy();
      // Anything else is a bug (e.g. in the era callback): Connect's convention hands it to next(error).
      return next(error);
    }
    if (!verdict.ok) return answer(req, res, verdict.status, verdict.response);
    if (verdict.parsedHere) host.body = verdict.body;
    req.wymcp = verdict.info;
    next();
  };
};

function answer(req: IncomingMessage, res: ServerResponse, status: number, response: JsonRpcErrorResponse): void {
  const text = JSON.stringify(response);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
  if (!req.complete) discardRest(req);
}

/** Most bytes discarded after an early answer before the connection is cut. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * Reads the unread rest of a refused body and throws it away, so the client can finish sending and read
 * the answer: closing at once makes most clients report a broken pipe instead of the 413.
 */
function discardRest(req: IncomingMessage): void {
  let discarded = 0;
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.byteLength;
    if (discarded > DISCARD_LIMIT_BYTES) req.destroy();
  });
  req.resume();
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
