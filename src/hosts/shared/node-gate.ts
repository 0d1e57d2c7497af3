/**
 * @module node-gate: the gate pipeline (core/pipeline.ts) on a Node `IncomingMessage`, for every face that serves Node
 * `http`: `gateNode`, `wymcpNode` and `wymcp proxy`. The screen, the body read no further than the limit, the
 * header rules' view of the headers, and what a trace records of the socket.
 */
import type { IncomingMessage } from "node:http";
import type { Era } from "../../core/era.js";
import {
  type GateAction,
  gateBody,
  type GateBypass,
  type GateFace,
  type GateInput,
  type GateRefuse,
  screen,
  type TraceFacts,
} from "../../core/pipeline.js";
import { JoinedHeaders } from "../../core/header-body.js";
import { readNodeBody } from "./node-body.js";

/**
 * The gate pipeline on a Node request's body: `req.body` when a parser set it (then no size limit or parse error
 * applies), else the stream, read no further than the limit. Rejects only when an `era` callback throws or the stream fails.
 */
export function judgeNode(req: IncomingMessage, face: NodeGateFace): Promise<GateAction> {
  return gateBody(face, nodeExchange(req, face));
}

/** A face that judges Node requests: the pipeline's, and the era of a request and its body. */
export type NodeGateFace = GateFace & { era: (req: IncomingMessage, body: unknown) => Era | undefined };

/** What the gate pipeline reads of a Node request (`judgeNode`'s input; the bench times the same one). */
export function nodeExchange(req: IncomingMessage, face: NodeGateFace): GateInput {
  const parsed = (req as { body?: unknown }).body;
  return {
    contentType: req.headers["content-type"],
    contentLength: req.headers["content-length"],
    protocolVersion: firstValue(req.headers["mcp-protocol-version"]),
    parsed: parsed === undefined ? undefined : { body: parsed },
    // Stopping at the limit leaves the socket open for the 413.
    chunks: () => readNodeBody(req, face.settings.maxBodyBytes, face.settings.rules?.limits !== "enforce"),
    era: (body) => face.era(req, body),
    headers: new JoinedHeaders(req),
    facts: () => nodeFacts(req),
  };
}

/** The `403` for a `Host` or `Origin` the face does not allow (`allowedHosts`, `allowedOrigins`), or `bypass` for a method other than POST. */
export function screenNode(req: IncomingMessage, face: GateFace, passThrough?: boolean): GateRefuse | GateBypass | undefined {
  return screen(face, { host: req.headers.host, origin: firstValue(req.headers.origin), method: req.method, passThrough });
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
