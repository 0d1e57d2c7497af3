/**
 * @module answer: writing a refusal on Node, and what happens to the rest of a body that was not read: it is read and
 * thrown away, within bounds, so the client can finish sending and read the answer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Refusal } from "../../core/admission.js";

/** Writes a refusal's status and JSON-RPC answer; a body left unread ends the connection after the answer. */
export function answer(req: IncomingMessage, res: ServerResponse, { status, response }: Refusal, discardTimeoutMs: number): void {
  const text = JSON.stringify(response);
  const unread = !req.complete;
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  if (unread) {
    // The rest of a refused body is never read whole: this connection ends with the answer.
    res.setHeader("Connection", "close");
    discardRest(req, discardTimeoutMs);
  }
  res.end(text);
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
