/**
 * @module guard: `wymcpNode`, the admission stage as Connect/Express middleware over a raw request stream or a body an
 * earlier middleware (`express.json()`) has parsed, and the Node exchange `gateNode` shares with it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { WymcpInfo } from "../../core/admission.js";
import { eraWithoutBody, type LimitOptions, positiveInteger } from "../../options/options.js";
import type { GateAction, GateRefuse, GateUnjudged } from "../../core/pipeline.js";
import type { Chain } from "../../core/chain.js";
import { answer, DISCARD_TIMEOUT_MS, drainBound } from "../shared/node-answer.js";
import { loadEdgeCompiler } from "../shared/default-compiler.js";
import { type Face, type FaceOptions, resolveFace } from "../shared/face.js";
import { chainOf } from "../shared/face-chain.js";
import { NodeAnswer, nodeRun, writeStageAnswer } from "../shared/node-chain.js";
import { judgeNode, screenNode } from "../shared/node-gate.js";
import { unjudgedBodies } from "./serve.js";

declare module "http" {
  interface IncomingMessage {
    /** Set by `wymcpNode` on a POST it handed on: the era it judged in and the outcome. */
    wymcp?: WymcpInfo;
  }
}

/** The limits of the Node faces: those of every face, and how long the rest of a refused body is read. */
export interface NodeLimitOptions extends LimitOptions {
  /**
   * Longest time the rest of a refused body is read and thrown away (ms): before the answer, to keep the connection
   * (past it the answer closes the connection), and after an answer that closes it, before it is cut. A positive integer.
   * @default `5000`
   */
  discardTimeoutMs?: number;
}

/** Options of `wymcpNode`; `era` receives the Node request and the parsed body (`undefined` on a GET). */
export interface NodeOptions extends Omit<FaceOptions<IncomingMessage>, "limits"> {
  /**
   * The bounds on a body: `{ maxBodyBytes, maxDepth }`, and `discardTimeoutMs` on Node.
   * @default `{ maxBodyBytes: 4194304, maxDepth: 64 }` (and `discardTimeoutMs: 5000` on Node)
   */
  limits?: NodeLimitOptions;
}

/** Connect's `next`: called with no argument to hand the request on, with an error when an option callback threw. */
export type NextFunction = (error?: unknown) => void;

/** The Node faces' options, checked once, and the chain they make. */
export interface NodeFace extends Face<IncomingMessage> {
  discardTimeoutMs: number;
  chain: Chain;
}

/** Checks a Node face's options; `extra` names the options the face itself takes beyond `NodeOptions`. */
export function resolveNodeFace(options: unknown, extra: readonly string[] = []): NodeFace {
  const face = resolveFace<IncomingMessage>(options, {
    keys: extra,
    limits: ["discardTimeoutMs"],
    headersOf: (req) => req.headers,
    loadCompiler: (formats) => loadEdgeCompiler({ formats }),
  });
  const limits = (options as NodeOptions | undefined)?.limits;
  return {
    ...face,
    discardTimeoutMs: positiveInteger("limits.discardTimeoutMs", limits?.discardTimeoutMs, DISCARD_TIMEOUT_MS),
    chain: chainOf(face),
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
      // A legacy GET stream carries server notifications and requests: the chain reads them too (the outbound check).
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
    if (judged.action === "unjudged") return handOnUnjudged(req, res, judged, face, next);
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

/**
 * A body the face could not judge, with `limits` in `"report"` or `"off"`: handed on as the client sent it. Its bytes,
 * when they were read whole, are kept for `serveFetch`, which hands them to the SDK as the request's body (the SDK
 * then answers it as it would alone); when they were not read, or were given back to the stream, the request's own
 * stream still holds them. `req.body` and `req.wymcp` stay unset: nothing was judged.
 */
export function handOnUnjudged(req: IncomingMessage, res: ServerResponse, judged: GateUnjudged, face: NodeFace, next: NextFunction): void {
  if (judged.bytes) unjudgedBodies.set(req, judged.bytes);
  const run = nodeRun(face.chain, req, { era: eraWithoutBody(face.era, req), trace: judged.trace });
  if (run?.awaits) new NodeAnswer(res, run).patch();
  if (judged.trace) judged.trace.run(next);
  else next();
}
