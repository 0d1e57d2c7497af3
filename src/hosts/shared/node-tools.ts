/**
 * @module tools: the server's tools on a Node face: a `tools/call` the known tools refuse is answered here and never
 * reaches the server; the answer to a `tools/list` is tapped, after it is written, to learn the tools.
 */
import * as nodeCrypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CallerKey } from "../../tools/caller-key.js";
import type { Era } from "../../core/era.js";
import type { ToolsAtEdge, ToolsRefusal } from "../../tools/tools-at-edge.js";
import type { RequestHeaders } from "../../core/header-body.js";
import { learningTap } from "../../tools/learn-tools.js";

/**
 * Judges an admitted body by the known tools (`headers`: the guard's `nodeHeader` reader): a refusal is written to `res`
 * (`refusing` told just before) and returned; a pass returns `undefined`
 * (a promise while the tool's schema compiles), and a `tools/list` gets its answer tapped.
 */
export function toolsNode(
  tools: ToolsAtEdge,
  req: IncomingMessage,
  res: ServerResponse,
  era: Era,
  body: unknown,
  headers: RequestHeaders,
  refusing?: (refusal: ToolsRefusal) => void,
): ToolsRefusal | undefined | Promise<ToolsRefusal | undefined> {
  const version = req.headers["mcp-protocol-version"];
  const ours = req as IncomingMessage & { originalUrl?: string; auth?: unknown };
  // Who asks: the learned tools that judge this call, or that its list teaches, are this caller's alone.
  const caller = tools.callerOf(
    // Express strips a mount path from `req.url` (a tenant's path, say) and keeps the whole one in `originalUrl`.
    { header: (name) => req.headers[name], url: `${req.headers.host}${ours.originalUrl ?? req.url}`, auth: ours.auth },
    nodeSha256,
  );
  const judged = tools.judge(body, era, Array.isArray(version) ? version[0] : version, headers, caller);
  if (judged instanceof Promise) return judged.then((refusal) => settle(tools, res, body, refusal, caller, refusing));
  return settle(tools, res, body, judged, caller, refusing);
}

/** `crypto.hash`, the one-shot digest (Node 20.12 on), which skips the Hash object `createHash` makes. */
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string) => string }).hash;

/** Node's own SHA-256, for the caller's digest: native, where the core's is JavaScript. */
export function nodeSha256(text: string): string {
  return oneShot ? oneShot("sha256", text) : nodeCrypto.createHash("sha256").update(text).digest("hex");
}

function settle(
  tools: ToolsAtEdge,
  res: ServerResponse,
  body: unknown,
  refusal: ToolsRefusal | undefined,
  caller: CallerKey,
  refusing: ((refusal: ToolsRefusal) => void) | undefined,
): ToolsRefusal | undefined {
  if (refusal) {
    refusing?.(refusal);
    const text = JSON.stringify(refusal.response);
    res.writeHead(refusal.status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
    return refusal;
  }
  if (tools.learns) learnFromNode(tools, res, body, caller);
  return undefined;
}

/** Taps the answer to a `tools/list` request after each write: the response goes out as the handler writes it. */
function learnFromNode(tools: ToolsAtEdge, res: ServerResponse, body: unknown, caller: CallerKey): void {
  let head: Record<string, string | undefined> | undefined;
  const header = (name: "content-type" | "content-encoding") => head?.[name] ?? text(res.getHeader(name));
  const tap = learningTap(tools, body, header, caller);
  if (!tap) return;
  const { writeHead, write, end } = res;
  const push = (data: unknown) => {
    try {
      if (typeof data === "string" || data instanceof Uint8Array) tap.push(data);
    } catch {
      // What the tap cannot read has gone out all the same.
    }
  };
  res.writeHead = function learningWriteHead(this: ServerResponse, ...args: unknown[]) {
    const given = args.find((a) => typeof a === "object" && a !== null) as Record<string, unknown> | unknown[] | undefined;
    head ??= { "content-type": headerOf(given, "content-type"), "content-encoding": headerOf(given, "content-encoding") };
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse["writeHead"];
  res.write = function learningWrite(this: ServerResponse, data: unknown, ...rest: unknown[]) {
    const ok = (write as (...a: unknown[]) => boolean).call(this, data, ...rest);
    push(data);
    return ok;
  } as ServerResponse["write"];
  res.end = function learningEnd(this: ServerResponse, ...args: unknown[]) {
    const out = (end as (...a: unknown[]) => ServerResponse).apply(this, args);
    if (typeof args[0] !== "function") push(args[0]);
    try {
      tap.end();
    } catch {
      // As above.
    }
    return out;
  } as ServerResponse["end"];
}

function text(value: unknown): string | undefined {
  return Array.isArray(value) ? String(value[0]) : value === undefined ? undefined : String(value);
}

function headerOf(headers: Record<string, unknown> | unknown[] | undefined, wanted: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === wanted) return text(headers[i + 1]);
    return undefined;
  }
  if (headers) for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === wanted) return text(value);
  return undefined;
}
