/**
 * @module guard: `wymcpNode`, the admission stage as Connect/Express middleware over a raw request stream or a body an
 * earlier middleware (`express.json()`) has parsed, and the Node exchange `gateNode` shares with it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WymcpInfo } from "../../core/admission.js";
import {
  type GateOptions,
  positiveInteger,
  type ResolvedOptions,
  resolveOptions,
  eraWithoutBody,
  telemetryOption,
} from "../../core/options.js";
import {
  type GateAction,
  gateBody,
  type GateFace,
  type GateBypass,
  type GateRefuse,
  screen,
  type TraceFacts,
} from "../../core/pipeline.js";
import type { Telemetry } from "../../core/telemetry.js";
import { now } from "../../core/traced.js";
import { type OutboundOptions, reportSettings } from "../../outbound/tap.js";
import { answer, DISCARD_TIMEOUT_MS, drainBound } from "./answer.js";
import { readNodeBody } from "./body.js";
import { type Report, tapResponse } from "./report.js";

declare module "http" {
  interface IncomingMessage {
    /** Set by `wymcpNode` on a POST it handed on: the era it judged in and the outcome. */
    wymcp?: WymcpInfo;
  }
}

/** Options of `wymcpNode`; `era` receives the Node request and the parsed body (`undefined` on a GET in report mode). */
export interface NodeOptions extends GateOptions<IncomingMessage>, OutboundOptions {
  /**
   * Longest time the rest of a refused body is read and thrown away (ms), default 5,000: before the answer, to keep the
   * connection (past it the answer closes the connection), and after an answer that closes it, before it is cut.
   */
  discardTimeoutMs?: number;
  /** Spans and metrics for every POST judged (`mcpTelemetry()` from `wymcp/otel`); none by default. */
  telemetry?: Telemetry;
}

/** Connect's `next`: called with no argument to hand the request on, with an error when an option callback threw. */
export type NextFunction = (error?: unknown) => void;

/** The Node faces' options, checked once. */
export interface NodeFace extends ResolvedOptions<IncomingMessage> {
  report: Report | undefined;
  discardTimeoutMs: number;
  telemetry: Telemetry | undefined;
}

const NODE_OPTIONS = ["outbound", "outboundCheck", "onOutboundViolation", "discardTimeoutMs", "telemetry"] as const;

/** Checks a Node face's options; `extra` names the options the face itself takes beyond `NodeOptions`. */
export function resolveNodeFace(options: unknown, extra: readonly string[] = []): NodeFace {
  const resolved = resolveOptions<IncomingMessage>(options, [...NODE_OPTIONS, ...extra], (req) => req.headers);
  const given = (options ?? {}) as NodeOptions;
  const telemetry = telemetryOption(given.telemetry);
  return {
    ...resolved,
    // With telemetry, the stage times the validation and keeps a refused body for the trace.
    settings: telemetry ? { ...resolved.settings, clock: now } : resolved.settings,
    report: reportSettings(given, resolved.settings.validate?.formats),
    discardTimeoutMs: positiveInteger("discardTimeoutMs", given.discardTimeoutMs, DISCARD_TIMEOUT_MS),
    telemetry,
  };
}

/**
 * The gate pipeline on a Node request's body: `req.body` when a parser set it (then no size limit or parse error
 * applies), else the stream, read no further than the limit. Rejects only when an `era` callback throws or the stream fails.
 */
export function judgeNode(req: IncomingMessage, face: GateFace & Pick<NodeFace, "era">): Promise<GateAction> {
  const parsed = (req as { body?: unknown }).body;
  return gateBody(face, {
    contentType: req.headers["content-type"],
    contentLength: req.headers["content-length"],
    protocolVersion: firstValue(req.headers["mcp-protocol-version"]),
    parsed: parsed === undefined ? undefined : { body: parsed },
    // Stopping at the limit leaves the socket open for the 413.
    chunks: () => readNodeBody(req, face.settings.maxBodyBytes),
    era: (body) => face.era(req, body),
    headers: (name) => nodeHeader(req, name),
    facts: () => nodeFacts(req),
  });
}

/** The `403` for a `Host` or `Origin` the face does not allow (`allowedHosts`, `allowedOrigins`), or `bypass` for a method other than POST. */
export function screenNode(req: IncomingMessage, face: GateFace, passThrough?: boolean): GateRefuse | GateBypass | undefined {
  return screen(face, { host: req.headers.host, origin: firstValue(req.headers.origin), method: req.method, passThrough });
}

/** Answers a refusal (`onReject` was told); its trace ends once the answer is written. */
export function refuse(req: IncomingMessage, res: ServerResponse, { refusal, trace }: GateRefuse, face: NodeFace): void {
  if (trace) tapResponse(res, refusal.era ?? "legacy", undefined, undefined, trace);
  answer(req, res, refusal, face.discardTimeoutMs, drainBound(face.settings.maxBodyBytes));
}

/** What a trace of a Node request records of its transport. */
export function nodeFacts(req: IncomingMessage): TraceFacts {
  const { headers, socket } = req;
  const address = socket?.remoteAddress;
  return {
    transport: {
      network: socket?.remoteFamily ? "tcp" : undefined,
      protocol: { name: "http", version: req.httpVersionMajor >= 2 ? String(req.httpVersionMajor) : req.httpVersion },
      client: address ? { address, port: socket.remotePort } : undefined,
      header: (name) => firstValue(headers[name]),
    },
    headers: { protocolVersion: firstValue(headers["mcp-protocol-version"]), sessionId: firstValue(headers["mcp-session-id"]) },
  };
}

/**
 * Validates POSTed MCP messages before `next()`; answers what it rejects (400, 413, 415) itself. What it hands on
 * carries the parsed body as `req.body` (unless a parser set one) and the verdict as `req.wymcp`.
 * @example http.createServer((req, res) => guard(req, res, () => void serveFetch(handler, req, res))) // or gateNode(handler)
 */
export function wymcpNode(options: NodeOptions = {}) {
  const face = resolveNodeFace(options);
  return async function wymcpNodeMiddleware(req: IncomingMessage, res: ServerResponse, next: NextFunction): Promise<void> {
    const screened = screenNode(req, face);
    if (screened?.action === "refuse") return refuse(req, res, screened, face);
    if (screened) {
      // A legacy GET stream carries server notifications and requests: in report mode those are checked too.
      if (face.report) tapResponse(res, eraWithoutBody(face.era, req), undefined, face.report);
      return next();
    }
    const host = req as IncomingMessage & { body?: unknown };
    const parsedBefore = host.body !== undefined;
    let judged: GateAction;
    try {
      judged = await judgeNode(req, face);
    } catch (error) {
      // A body cut off mid-read means the client has gone: no one is left to answer.
      if (!req.complete) return void req.destroy();
      // Anything else is a bug (e.g. in the era callback): Connect's convention hands it to next(error).
      return next(error);
    }
    if (judged.action === "refuse") return refuse(req, res, judged, face);
    // A guard hands a modern notification on too: the next handler answers it.
    const { body, era, result, trace } = judged;
    if (!parsedBefore) host.body = body;
    req.wymcp = { era, result };
    if (face.report || trace) tapResponse(res, era, body, face.report, trace);
    if (trace) trace.run(next);
    else next();
  };
}

/**
 * A header as the header rules read it: `req.headers`' value, or, when it holds a comma, its values apart from
 * `req.headersDistinct` (built only then), since Node joins a repeated header with ", ".
 */
export function nodeHeader(req: IncomingMessage, name: string): string | readonly string[] | undefined {
  const value = req.headers[name];
  return typeof value === "string" && value.includes(",") ? req.headersDistinct[name] : value;
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
