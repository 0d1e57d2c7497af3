/**
 * @module gate: `gateNode`, wymcp in front of the official SDK on Node `http`, Connect and Express in one call. It owns
 * what hosts used to copy: the era, the modern-notification 202, handing the parsed body to the SDK's `fetch`,
 * streaming the answer back, the caller's identity (`req.auth`), and an error of the handler (`onError`).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { internalErrorResponse } from "../../core/envelope.js";
import { eraWithoutBody } from "../../core/options.js";
import { type OnError, onErrorOption, reportHandlerError } from "../shared/handler-error.js";
import type { McpFetchHandler } from "../shared/sdk-handler.js";
import type { GateAction } from "../../core/pipeline.js";
import { judgeNode, screenNode } from "../shared/node-gate.js";
import { type NextFunction, type NodeOptions, refuse, resolveNodeFace } from "./guard.js";
import { tapResponse } from "../shared/node-report.js";
import { nodeHeader } from "../shared/node-gate.js";
import { serveFetch, serveParsed } from "./serve.js";
import { lockedHandler } from "../../lock/lock-option.js";
import { toolsOption } from "../../tools/tools-at-edge.js";
import { toolsNode } from "../shared/node-tools.js";

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
  const face = resolveNodeFace(options, ["onError"]);
  const tools = toolsOption(options.tools);
  const onError = onErrorOption<IncomingMessage>(options.onError);
  // With a tools lock, the SDK's Response is answered through it (a locked-out call never reaches the handler).
  const served = lockedHandler(handler, face.toolLock);
  return function gateNodeListener(req, res, next) {
    const hasNext = typeof next === "function";
    let body: unknown;
    const fail = (error: unknown) => {
      reportHandlerError(onError, error, req, hasNext);
      if (hasNext) return next(error);
      if (res.headersSent) return void res.end();
      res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify(internalErrorResponse(body)));
    };
    const screened = screenNode(req, face);
    if (screened?.action === "refuse") return refuse(req, res, screened, face);
    if (screened) {
      // A legacy GET stream carries server notifications and requests: in report mode those are checked too.
      if (face.report) tapResponse(res, eraWithoutBody(face.era, req), undefined, face.report);
      return void serveFetch(handler, req, res).catch(fail);
    }
    judgeNode(req, face).then(
      (judged: GateAction) => {
        if (judged.action === "refuse") return refuse(req, res, judged, face);
        const { trace } = judged;
        body = judged.body;
        if (judged.action === "accept") {
          res.writeHead(202).end();
          return trace?.end();
        }
        const serve = () => {
          if (face.report || trace) tapResponse(res, judged.era, body, face.report, trace);
          if (trace) trace.run(() => serveParsed(served, req, res, body)).catch(fail);
          else serveParsed(served, req, res, body).catch(fail);
        };
        // A call the server's tools refuse is answered here; the server never sees it.
        const refused = tools?.active && toolsNode(tools, req, res, judged.era, body, (name) => nodeHeader(req, name));
        if (refused instanceof Promise) return void refused.then((refusal) => (refusal ? trace?.end() : serve()), fail);
        if (refused) return trace?.end();
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
