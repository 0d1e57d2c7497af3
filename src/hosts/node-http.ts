/**
 * @module node-http: the entry `wymcp/node`, wymcp as middleware for Node `http`, Connect and Express, over
 * a raw request stream or a body an earlier middleware (e.g. `express.json()`) has parsed. The only module
 * that may use Node's types and globals.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonRpcErrorResponse } from "../core/envelope.js";
import { admit, checkMaxDepth, DEFAULT_MAX_BODY_BYTES, type GateOptions, type WymcpInfo } from "./admit.js";
import type { Era } from "../core/era.js";
import { checkLegacyChecks } from "../core/legacy-checks.js";
import { createTap, reportSettings, type OutboundOptions } from "./outbound-tap.js";

declare module "http" {
  interface IncomingMessage {
    /** Set by the wymcp middleware on a POST it handed on: the era it judged in and the outcome. */
    wymcp?: WymcpInfo;
  }
}

export { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH } from "./admit.js";
export type { GateOptions, RejectInfo, RejectReason, WymcpInfo, Admitted } from "./admit.js";
export type { OutboundCheck, OutboundOptions, OutboundViolationInfo, OutboundViolations } from "./outbound-tap.js";
export { gateNode, serveFetch, answerClientErrors, type GateNodeOptions, type GateNodeListener } from "./node-gate.js";
export type { McpFetchHandler, McpFetchOptions, EraOption } from "./sdk-handler.js";

/** Options of `wymcpNode`; `era` receives the Node request and the parsed body (`undefined` on a GET in report mode). */
export type NodeOptions = GateOptions<IncomingMessage> &
  OutboundOptions & {
    /** Longest time the rest of a refused body is read and thrown away before the connection is cut (ms). */
    discardTimeoutMs?: number;
  };

/** Connect's `next`: called with no argument to hand the request on, with an error when an option callback threw. */
export type NextFunction = (error?: unknown) => void;

/**
 * Validates POSTed MCP messages before `next()`; answers what it rejects (400, 413, 415) itself.
 * @example http.createServer((req, res) => guard(req, res, () => void serveFetch(handler, req, res))) // or gateNode(handler)
 */
export const wymcpNode = ({
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
  maxDepth,
  era,
  onReject,
  legacyChecks,
  onLegacyReport,
  discardTimeoutMs = DISCARD_TIMEOUT_MS,
  ...outbound
}: NodeOptions = {}) => {
  checkMaxDepth(maxDepth);
  checkLegacyChecks(legacyChecks);
  const report = reportSettings(outbound);
  return async function wymcpNodeMiddleware(req: IncomingMessage, res: ServerResponse, next: NextFunction): Promise<void> {
    if (req.method !== "POST") {
      // A legacy GET stream carries server notifications and requests: in report mode those are checked too.
      if (report) tapResponse(res, eraOfStream(req, era), undefined, report, firstValue(req.headers["mcp-protocol-version"]));
      return next();
    }
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
        { maxBodyBytes, maxDepth, onReject, legacyChecks, onLegacyReport },
      );
    } catch (error) {
      // A body cut off mid-read means the client has gone: no one is left to answer.
      if (!req.complete) return void req.destroy();
      // Anything else is a bug (e.g. in the era callback): Connect's convention hands it to next(error).
      return next(error);
    }
    if (!verdict.ok) return answer(req, res, verdict.status, verdict.response, discardTimeoutMs);
    if (verdict.parsedHere) host.body = verdict.body;
    req.wymcp = verdict.info;
    if (report) tapResponse(res, verdict.info.era, verdict.body, report, firstValue(req.headers["mcp-protocol-version"]));
    next();
  };
};

function eraOfStream(req: IncomingMessage, era: NodeOptions["era"]): Era {
  try {
    return era?.(req, undefined) ?? "legacy";
  } catch {
    return "legacy";
  }
}

type Report = NonNullable<ReturnType<typeof reportSettings>>;

/**
 * Report mode: every byte still goes out first, through the original `write`/`end`; the tap reads it after.
 * `writeHead`'s headers are read from its arguments, because headers given there never reach `getHeader`.
 */
function tapResponse(res: ServerResponse, era: Era, requestBody: unknown, report: Report, protocolVersion: string | undefined): void {
  let head: Record<string, string | undefined> | undefined;
  const header = (name: "content-type" | "content-encoding") => head?.[name] ?? headerText(res.getHeader(name));
  const tap = createTap(era, requestBody, header, report, undefined, protocolVersion);
  const { writeHead, write, end } = res;
  const chunk = (data: unknown, encoding: unknown) => {
    try {
      if (typeof data === "string")
        tap.push(typeof encoding === "string" && !/^utf-?8$/i.test(encoding) ? Buffer.from(data, encoding as BufferEncoding) : data);
      else if (data instanceof Uint8Array) tap.push(data);
    } catch {
      // Whatever the tap cannot read, the response has already gone out as the handler wrote it.
    }
  };
  res.writeHead = function tappedWriteHead(this: ServerResponse, ...args: unknown[]) {
    const given = args.find((a) => typeof a === "object" && a !== null);
    head ??= { "content-type": headerOf(given, "content-type"), "content-encoding": headerOf(given, "content-encoding") };
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse["writeHead"];
  res.write = function tappedWrite(this: ServerResponse, data: unknown, ...rest: unknown[]) {
    const ok = (write as (...a: unknown[]) => boolean).call(this, data, ...rest);
    chunk(data, rest[0]);
    return ok;
  } as ServerResponse["write"];
  res.end = function tappedEnd(this: ServerResponse, ...args: unknown[]) {
    const out = (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    if (typeof args[0] !== "function") chunk(args[0], args[1]);
    try {
      tap.end();
    } catch {
      // As above: the tap never turns a sent response into a failed one.
    }
    return out;
  } as ServerResponse["end"];
}

function headerText(value: unknown): string | undefined {
  return Array.isArray(value) ? String(value[0]) : value === undefined ? undefined : String(value);
}

/** One header among `writeHead`'s headers: an object, or a flat `[name, value, ...]` array. */
function headerOf(headers: unknown, wanted: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === wanted) return headerText(headers[i + 1]);
    return undefined;
  }
  if (headers && typeof headers === "object") {
    for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === wanted) return headerText(value);
  }
  return undefined;
}

function answer(req: IncomingMessage, res: ServerResponse, status: number, response: JsonRpcErrorResponse, discardTimeoutMs: number): void {
  const text = JSON.stringify(response);
  const unread = !req.complete;
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  if (unread) {
    // The rest of a refused body is never read whole: this connection ends with the answer.
    res.setHeader("Connection", "close");
    discardRest(req, discardTimeoutMs);
  }
  res.end(text);
}

/** Most bytes discarded after an early answer before the connection is cut. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;
/** Longest time spent discarding: a client sending 1 byte a second must not hold the socket until Node's request timeout. */
const DISCARD_TIMEOUT_MS = 5_000;

/**
 * Reads the unread rest of a refused body and throws it away, so the client can finish sending and read
 * the answer (closing at once makes most clients report a broken pipe instead of the 413), for at most
 * `timeoutMs` and `DISCARD_LIMIT_BYTES`; then the socket is destroyed.
 */
function discardRest(req: IncomingMessage, timeoutMs: number): void {
  const socket = req.socket;
  let discarded = 0;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, timeoutMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  // Node ends a `Connection: close` exchange with destroySoon() once the answer is flushed; destroying then, with
  // the client still sending, resets the connection under the answer, and so would a FIN to a client that stops
  // writing when it sees one. So the sending side ends (FIN) only once the whole body has been read; the socket
  // closes when the client ends its side, or at the deadline.
  socket.destroySoon = function endWhenRead(this: typeof socket) {
    if (req.complete) this.end();
    else req.once("end", () => this.end());
  };
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.byteLength;
    if (discarded > DISCARD_LIMIT_BYTES) cut();
  });
  req.resume();
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
