/**
 * @module tools: the server's tools on a Node face: a `tools/call` the known tools refuse is answered here and never
 * reaches the server; the answer to a `tools/list` is tapped, after it is written, to learn the tools.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Era } from "../../core/era.js";
import type { ToolsAtEdge, ToolsRefusal } from "../../core/tools-at-edge.js";
import type { RequestHeaders } from "../../core/header-body.js";
import { learningTap } from "../../outbound/learn-tools.js";

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
  const judged = tools.judge(body, era, Array.isArray(version) ? version[0] : version, headers);
  if (judged instanceof Promise) return judged.then((refusal) => settle(tools, res, body, refusal, refusing));
  return settle(tools, res, body, judged, refusing);
}

/** A refusal written to `res` (`refusing` told first: the answer is wymcp's), or the answer to a `tools/list` tapped. */
function settle(
  tools: ToolsAtEdge,
  res: ServerResponse,
  body: unknown,
  refusal: ToolsRefusal | undefined,
  refusing: ((refusal: ToolsRefusal) => void) | undefined,
): ToolsRefusal | undefined {
  if (refusal) {
    refusing?.(refusal);
    const text = JSON.stringify(refusal.response);
    res.writeHead(refusal.status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
    return refusal;
  }
  if (tools.learns) learnFromNode(tools, res, body);
  return undefined;
}

/** Taps the answer to a `tools/list` request after each write: the response goes out as the handler writes it. */
function learnFromNode(tools: ToolsAtEdge, res: ServerResponse, body: unknown): void {
  let head: Record<string, string | undefined> | undefined;
  const header = (name: "content-type" | "content-encoding") => head?.[name] ?? text(res.getHeader(name));
  const tap = learningTap(tools, body, header);
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
