/**
 * @module tool-lock (Node): a tools lock on a Node `ServerResponse`, for the faces that write the server's answer to
 * it themselves (`wymcp proxy`, the `wymcpNode` guard): a call to a tool the lock keeps out is answered here, and the
 * answer to a `tools/list` is written through the lock's rewriter (outbound/tool-lock-stream.ts).
 */
import type { ServerResponse } from "node:http";
import { type ToolLockWatch, toolsListRequests } from "../../lock/tool-lock.js";
import { type LockRewriter, lockRewriter } from "../../lock/tool-lock-stream.js";

/**
 * Answers a body calling a tool the lock keeps out (enforce mode) with the in-band unknown-tool error, as the SDKs do:
 * `200`, `application/json`. Returns whether it answered; then the body must not be handed on.
 */
export function refuseLockedCall(watch: ToolLockWatch | undefined, body: unknown, res: ServerResponse, refusing?: () => void): boolean {
  const refusal = watch?.refusal(body);
  if (!refusal) return false;
  refusing?.();
  const text = JSON.stringify(refusal);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
  return true;
}

/**
 * From here on, what is written to `res` in answer to `body` goes through the lock when `body` asks for `tools/list`.
 * Call it after any other wrapper of `res` (the outbound tap), so that those see what the client sees.
 */
export function lockNodeResponse(res: ServerResponse, watch: ToolLockWatch | undefined, body: unknown): void {
  if (!watch) return;
  const requests = toolsListRequests(body);
  if (requests.size === 0) return;
  const { writeHead } = res;
  const write = res.write as (this: ServerResponse, ...a: unknown[]) => boolean;
  const end = res.end as (this: ServerResponse, ...a: unknown[]) => ServerResponse;
  let rewriter: LockRewriter | undefined;
  let started = false;
  const start = (given?: unknown) => {
    if (started) return;
    started = true;
    rewriter = lockRewriter(
      watch,
      requests,
      headerOf(given, "content-type") ?? text(res.getHeader("content-type")),
      headerOf(given, "content-encoding") ?? text(res.getHeader("content-encoding")),
    );
  };
  res.writeHead = function lockedWriteHead(this: ServerResponse, ...args: unknown[]) {
    const given = args.find((a) => typeof a === "object" && a !== null);
    start(given);
    // Enforce mode may shorten a JSON answer: its length is then left to the chunked framing.
    if (rewriter?.resizes) {
      res.removeHeader("content-length");
      const at = args.indexOf(given);
      if (at >= 0) args[at] = withoutLength(given);
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse["writeHead"];
  res.write = function lockedWrite(this: ServerResponse, data: unknown, ...rest: unknown[]) {
    start();
    if (!rewriter || !(typeof data === "string" || data instanceof Uint8Array)) return write.call(this, data, ...rest);
    const callback = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    let ok = true;
    for (const piece of rewriter.push(bytesOf(data, rest[0]))) ok = write.call(this, piece);
    if (callback) queueMicrotask(callback);
    return ok && !this.writableNeedDrain;
  } as ServerResponse["write"];
  res.end = function lockedEnd(this: ServerResponse, ...args: unknown[]) {
    start();
    if (!rewriter) return end.apply(this, args);
    const data = typeof args[0] === "function" ? undefined : args[0];
    const callback = args.find((a) => typeof a === "function") as (() => void) | undefined;
    const pieces = data === undefined || data === null ? [] : rewriter.push(bytesOf(data, args[1]));
    pieces.push(...rewriter.end());
    // With the headers not yet out, writing the whole answer at once keeps a single write (and a length when it is known).
    if (pieces.length === 1) return end.call(this, pieces[0], callback);
    for (const piece of pieces) write.call(this, piece);
    return end.call(this, callback);
  } as ServerResponse["end"];
}

function bytesOf(data: unknown, encoding: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  return Buffer.from(String(data), typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8");
}

function text(value: unknown): string | undefined {
  return Array.isArray(value) ? String(value[0]) : value === undefined ? undefined : String(value);
}

/** One header among `writeHead`'s headers: an object, or a flat `[name, value, ...]` array. */
function headerOf(headers: unknown, wanted: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) if (String(headers[i]).toLowerCase() === wanted) return text(headers[i + 1]);
    return undefined;
  }
  if (headers && typeof headers === "object") {
    for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() === wanted) return text(value);
  }
  return undefined;
}

function withoutLength(headers: unknown): unknown {
  if (Array.isArray(headers)) {
    const out: unknown[] = [];
    for (let i = 0; i + 1 < headers.length; i += 2)
      if (String(headers[i]).toLowerCase() !== "content-length") out.push(headers[i], headers[i + 1]);
    return out;
  }
  return Object.fromEntries(Object.entries(headers as object).filter(([name]) => name.toLowerCase() !== "content-length"));
}
