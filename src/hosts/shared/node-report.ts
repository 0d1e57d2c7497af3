/**
 * @module report: outbound report mode on a Node `ServerResponse`: every byte still goes out first, through the
 * original `write`/`end`; the tap reads it after. A telemetry trace watches the same bytes, and ends with the last.
 */
import type { ServerResponse } from "node:http";
import type { Era } from "../../core/era.js";
import type { ExchangeTrace } from "../../core/telemetry.js";
import { createTap, type ReportSettings, tracedHooks } from "../../outbound/tap.js";

/** The outbound check's settings (`outboundSettings`), when the `outbound` rule is on. */
export type Report = ReportSettings;

/**
 * `writeHead`'s headers are read from its arguments, because headers given there never reach `getHeader`. With a
 * `trace`, every message is shown to it, a session the answer assigns too, and it ends with the answer's last byte
 * (or when the client goes before it). A legacy exchange is judged by the revision of the request's
 * `MCP-Protocol-Version` (as inbound).
 */
export function tapResponse(res: ServerResponse, era: Era, requestBody: unknown, report: Report | undefined, trace?: ExchangeTrace): void {
  let head: Record<string, string | undefined> | undefined;
  // Without a trace, report mode is on (the callers tap only for one or the other).
  const hooks = trace ? tracedHooks(report, trace) : (report as Report);
  const header = (name: "content-type" | "content-encoding") => head?.[name] ?? headerText(res.getHeader(name));
  const tap = createTap({ era, requestBody, header, hooks, protocolVersion: headerText(res.req?.headers["mcp-protocol-version"]) });
  if (trace) res.once("close", () => trace.end());
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
    const session = trace && (headerOf(given, "mcp-session-id") ?? headerText(res.getHeader("mcp-session-id")));
    if (session) trace.session(session);
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
    trace?.end();
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
