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
import type { Chain } from "../../core/chain.js";
import type { GateAction, GateRefuse } from "../../core/pipeline.js";
import type { Telemetry } from "../../core/telemetry.js";
import { now } from "../../core/traced.js";
import { type OutboundOptions, reportSettings } from "../../outbound/tap.js";
import { TOOL_LOCK_OPTIONS, type ToolLockOptions, toolLockOption } from "../../lock/lock-option.js";
import { type ToolsOption, toolsOption } from "../../tools/tools-at-edge.js";
import { chainOf } from "../shared/face-chain.js";
import { answer, DISCARD_TIMEOUT_MS, drainBound } from "../shared/node-answer.js";
import { NodeAnswer, nodeRun, writeStageAnswer } from "../shared/node-chain.js";
import { judgeNode, screenNode } from "../shared/node-gate.js";

declare module "http" {
  interface IncomingMessage {
    /** Set by `wymcpNode` on a POST it handed on: the era it judged in and the outcome. */
    wymcp?: WymcpInfo;
  }
}

/** Options of `wymcpNode`; `era` receives the Node request and the parsed body (`undefined` on a GET in report mode). */
export interface NodeOptions extends GateOptions<IncomingMessage>, OutboundOptions, ToolLockOptions {
  /**
   * Longest time the rest of a refused body is read and thrown away (ms): before the answer, to keep the connection
   * (past it the answer closes the connection), and after an answer that closes it, before it is cut. A positive integer.
   * @default `5000`
   */
  discardTimeoutMs?: number;
  /**
   * Spans and metrics for every POST judged, by the MCP semantic conventions: `mcpTelemetry()` from `wymcp/otel`
   * (docs/observability.md).
   * @default none
   */
  telemetry?: Telemetry;
  /**
   * The server's tools: a `tools/list` result, what `wymcp compile` wrote, or an object of the `tools.*` keys
   * below (tools learned from the server's `tools/list` answers; `wymcpFetch` learns from the responses handed to its
   * `report`); a `tools/call` is
   * then judged by its tool's `x-mcp-header` annotations and `inputSchema` before the server sees it
   * (docs/security.md#the-servers-own-tools-at-the-edge).
   * @default none
   */
  tools?: ToolsOption;
}

/** Connect's `next`: called with no argument to hand the request on, with an error when an option callback threw. */
export type NextFunction = (error?: unknown) => void;

/** The Node faces' options, checked once, and the chain they make. */
export interface NodeFace extends ResolvedOptions<IncomingMessage> {
  discardTimeoutMs: number;
  telemetry: Telemetry | undefined;
  chain: Chain;
}

const NODE_OPTIONS = [
  "outbound",
  "outboundCheck",
  "onOutboundViolation",
  "discardTimeoutMs",
  "telemetry",
  "tools",
  ...TOOL_LOCK_OPTIONS,
] as const;

/** Checks a Node face's options; `extra` names the options the face itself takes beyond `NodeOptions`. */
export function resolveNodeFace(options: unknown, extra: readonly string[] = []): NodeFace {
  const resolved = resolveOptions<IncomingMessage>(options, [...NODE_OPTIONS, ...extra], (req) => req.headers);
  const given = (options ?? {}) as NodeOptions;
  const telemetry = telemetryOption(given.telemetry);
  const chain = chainOf({
    toolLock: toolLockOption(given, telemetry),
    tools: toolsOption(given.tools),
    report: reportSettings(given, resolved.settings.validate?.formats),
    telemetry,
  });
  return {
    ...resolved,
    // With telemetry, the stage times the validation and keeps a refused body for the trace.
    settings: telemetry ? { ...resolved.settings, clock: now } : resolved.settings,
    discardTimeoutMs: positiveInteger("discardTimeoutMs", given.discardTimeoutMs, DISCARD_TIMEOUT_MS),
    telemetry,
    chain,
  };
}

/** Answers a refusal (`onReject` was told), through the chain as wymcp's own; its trace ends once the answer is written. */
export function refuse(req: IncomingMessage, res: ServerResponse, { refusal, trace }: GateRefuse, face: NodeFace): void {
  const run = trace && nodeRun(face.chain, req, { era: refusal.era ?? "legacy", trace, refused: refusal });
  if (run) new NodeAnswer(res, run).patch().own({ answer: "refused", status: refusal.status, reason: refusal.reason });
  answer(req, res, refusal, face.discardTimeoutMs, drainBound(face.settings.maxBodyBytes));
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
      // A legacy GET stream carries server notifications and requests: the chain reads them too (report mode).
      const run = face.chain.empty ? undefined : nodeRun(face.chain, req, { era: eraWithoutBody(face.era, req) });
      if (run?.awaits) new NodeAnswer(res, run).patch();
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
    const run = nodeRun(face.chain, req, { body, era, trace });
    // A call the lock keeps out, or that the server's tools refuse, is answered here, and `next` is not called.
    const asked = run?.request();
    const stage = asked instanceof Promise ? await asked : asked;
    if (stage) return writeStageAnswer(res, run!, stage);
    if (run?.awaits) new NodeAnswer(res, run).patch();
    if (trace) trace.run(next);
    else next();
  };
}
