/**
 * @module gate: `gateNode`, wymcp in front of the official SDK on Node `http`, Connect and Express in one call. It owns
 * what hosts used to copy: the era, the modern-notification 202, handing the parsed body to the SDK's `fetch`,
 * streaming the answer back, the caller's identity (`req.auth`), and an error of the handler (`onError`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ChainRun } from "../../core/chain.js";
import { internalErrorResponse } from "../../core/envelope.js";
import { eraWithoutBody } from "../../options/options.js";
import type { GateAction } from "../../core/pipeline.js";
import { type OnError, onErrorOption, reportHandlerError } from "../shared/handler-error.js";
import { NodeAnswer, type NodeOut, nodeRun, writeStageAnswer } from "../shared/node-chain.js";
import { judgeNode, screenNode } from "../shared/node-gate.js";
import type { McpFetchHandler } from "../shared/sdk-handler.js";
import { type NextFunction, type NodeOptions, refuse, resolveNodeFace } from "./guard.js";
import { serveParsed, unjudgedBodies } from "./serve.js";
import { WymcpOptionError } from "../../core/option-error.js";

/** Options of `gateNode`: those of `wymcpNode`, and what to do with an error of the handler. */
export interface GateNodeOptions extends NodeOptions {
  /**
   * Called once per error thrown by `handler.fetch` or by a callback option (`era`; `authInfo` on Fetch), before the
   * `500`/-32603 answer (as Express middleware, before `next(error)`).
   * @default `console.error`, once per error (as middleware: none, `next(error)` hands it on)
   */
  onError?: OnError<IncomingMessage>;
}

/** A Node request listener that is also Connect/Express middleware: with `next`, a handler error goes to `next(error)`. */
export type GateNodeListener = (req: IncomingMessage, res: ServerResponse, next?: NextFunction) => void;

/**
 * The SDK's handler behind the gate, for Node: POSTs are validated, and what passes reaches `handler.fetch` with the
 * body wymcp parsed and `req.auth` as `authInfo`; other methods go straight through.
 * @example http.createServer(gateNode(createMcpHandler(buildServer))).listen(3000);
 * @example app.all("/mcp", requireBearerAuth({ verifier }), gateNode(handler));
 */
export function gateNode<H extends McpFetchHandler>(handler: H, options: GateNodeOptions = {}): GateNodeListener {
  if (typeof handler?.fetch !== "function")
    throw new WymcpOptionError(
      "handler",
      "gateNode needs the SDK's handler (what createMcpHandler returns: an object with a fetch method)",
    );
  const face = resolveNodeFace(options, ["onError"]);
  const onError = onErrorOption<IncomingMessage>(options.onError);
  return function gateNodeListener(req, res, next) {
    const hasNext = typeof next === "function";
    let body: unknown;
    // Where the answer is written: the chain's answer on `res` when the chain reads it, else `res` itself.
    let out: NodeOut = res;
    const fail = (error: unknown) => {
      reportHandlerError(onError, error, req, hasNext);
      if (hasNext) return next(error);
      if (res.headersSent) return void res.end();
      const text = JSON.stringify(internalErrorResponse(body));
      out.writeHead(500, { "content-type": "application/json" });
      out.end(text);
    };
    const answering = (run: ChainRun | undefined) => {
      if (run?.awaits) out = new NodeAnswer(res, run);
      return out;
    };
    const screened = screenNode(req, face);
    if (screened?.action === "refuse") return refuse(req, res, screened, face);
    if (screened) {
      // A legacy GET stream carries server notifications and requests: the chain reads them too (the outbound check).
      const run = face.chain.empty ? undefined : nodeRun(face.chain, req, { era: eraWithoutBody(face.era, req) });
      return void serveParsed(handler, req, res, (req as { body?: unknown }).body, answering(run)).catch(fail);
    }
    judgeNode(req, face).then(
      (judged: GateAction) => {
        if (judged.action === "refuse") return refuse(req, res, judged, face);
        if (judged.action === "unjudged") {
          // Handed on as the client sent it, no parsed body: the SDK reads the bytes (or the stream) and answers them itself.
          if (judged.bytes) unjudgedBodies.set(req, judged.bytes);
          const { trace } = judged;
          const run = nodeRun(face.chain, req, { era: eraWithoutBody(face.era, req), trace });
          answering(run);
          if (trace) return void trace.run(() => serveParsed(handler, req, res, undefined, out)).catch(fail);
          return void serveParsed(handler, req, res, undefined, out).catch(fail);
        }
        const { trace } = judged;
        body = judged.body;
        const run = nodeRun(face.chain, req, { body, era: judged.era, trace });
        if (judged.action === "accept") {
          answering(run).writeHead(202);
          return void out.end();
        }
        const serve = () => {
          answering(run);
          if (trace) trace.run(() => serveParsed(handler, req, res, body, out)).catch(fail);
          else serveParsed(handler, req, res, body, out).catch(fail);
        };
        // A call the lock keeps out, or that the server's tools refuse, is answered here; the server never sees it.
        const asked = run?.request();
        if (asked instanceof Promise) return void asked.then((answer) => (answer ? writeStageAnswer(res, run!, answer) : serve()), fail);
        if (asked) return writeStageAnswer(res, run!, asked);
        serve();
      },
      (error: unknown) => {
        // A body cut off mid-read means the client has gone: no one is left to answer.
        if (!req.complete) return void req.destroy();
        fail(error);
      },
    );
  };
}
