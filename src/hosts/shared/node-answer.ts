/**
 * @module answer: writing a refusal on Node, and what happens to the rest of a body that was not read: it is read and
 * thrown away, within bounds, so the client can finish sending and read the answer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Refusal } from "../../core/admission.js";

/**
 * Writes a refusal's status and JSON-RPC answer. A body left unread is read and thrown away first when the connection
 * can be kept (up to `drainBytes`, within `discardTimeoutMs`), as Node does for a body a handler left unread; otherwise
 * the answer ends the connection.
 */
export function answer(
  req: IncomingMessage,
  res: ServerResponse,
  { status, response }: Refusal,
  discardTimeoutMs: number,
  drainBytes = 0,
): void {
  const text = JSON.stringify(response);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  if (req.complete) return void res.end(text);
  if (keepsConnection(req, status, drainBytes)) return drainThenAnswer(req, res, text, discardTimeoutMs, drainBytes);
  closingAnswer(req, res, text, discardTimeoutMs);
}

/** The rest of a refused body is never read whole: this connection ends with the answer. */
function closingAnswer(req: IncomingMessage, res: ServerResponse, text: string, discardTimeoutMs: number): void {
  res.setHeader("Connection", "close");
  discardRest(req, discardTimeoutMs);
  res.end(text);
}

/** Least number of bytes a refused body may have and still be read to keep its connection, whatever the body limit. */
const DRAIN_FLOOR_BYTES = 64 * 1024;

/**
 * How much of a refused body is read and thrown away to keep its connection: what the body limit would have read
 * anyway (at least `DRAIN_FLOOR_BYTES`, so that a small limit's 413 keeps it too), never more than the discard limit.
 */
export function drainBound(maxBodyBytes: number): number {
  return Math.min(Math.max(maxBodyBytes, DRAIN_FLOOR_BYTES), DISCARD_LIMIT_BYTES);
}

/**
 * Whether a refusal can keep the connection: the rest of the body must be one the bound allows (a declared length
 * within it, or a streamed body, read up to it), and not a streamed body that already went past the body limit.
 */
function keepsConnection(req: IncomingMessage, status: number, drainBytes: number): boolean {
  const declared = req.headers["content-length"];
  if (declared === undefined) return status !== 413;
  const length = Number(declared);
  return Number.isSafeInteger(length) && length <= drainBytes;
}

/**
 * Reads the rest of a refused body and throws it away, then answers on a connection that stays open. A body that goes
 * past `drainBytes`, or is not all there within `timeoutMs`, is answered as before: `Connection: close`, and the rest
 * discarded until the connection ends.
 */
function drainThenAnswer(req: IncomingMessage, res: ServerResponse, text: string, timeoutMs: number, drainBytes: number): void {
  let read = 0;
  let settled = false;
  const settle = (kept: boolean) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    req.off("data", onData);
    req.off("end", onEnd);
    req.off("close", onClose);
    if (res.destroyed || res.writableEnded) return;
    if (kept) res.end(text);
    else closingAnswer(req, res, text, timeoutMs);
  };
  const onData = (chunk: Buffer) => {
    read += chunk.byteLength;
    if (read > drainBytes) settle(false);
  };
  const onEnd = () => settle(true);
  // The client went away before the end: no one is left to answer.
  const onClose = () => {
    if (!req.complete) settle(false);
  };
  const timer = setTimeout(() => settle(false), timeoutMs);
  timer.unref();
  req.on("data", onData);
  req.once("end", onEnd);
  req.once("close", onClose);
  req.resume();
}

/** Most bytes discarded after an early answer before the connection is cut. */
const DISCARD_LIMIT_BYTES = 64 * 1024 * 1024;
/** Longest time spent discarding: a client sending 1 byte a second must not hold the socket until Node's request timeout. */
export const DISCARD_TIMEOUT_MS = 5_000;

/**
 * Reads the unread rest of a refused body and throws it away, so the client can finish sending and read
 * the answer (closing at once makes most clients report a broken pipe instead of the 413), for at most
 * `timeoutMs` and `DISCARD_LIMIT_BYTES`; then the socket is destroyed.
 */
function discardRest(req: IncomingMessage, timeoutMs: number): void {
  const socket = req.socket;
  let discarded = 0;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, timeoutMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  // Node ends a `Connection: close` exchange with destroySoon() once the answer is flushed; destroying then, with
  // the client still sending, resets the connection under the answer, and so would a FIN to a client that stops
  // writing when it sees one. So the sending side ends (FIN) only once the whole body has been read; the socket
  // closes when the client ends its side, or at the deadline.
  socket.destroySoon = function endWhenRead(this: typeof socket) {
    if (req.complete) this.end();
    else req.once("end", () => this.end());
  };
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.byteLength;
    if (discarded > DISCARD_LIMIT_BYTES) cut();
  });
  req.resume();
}
