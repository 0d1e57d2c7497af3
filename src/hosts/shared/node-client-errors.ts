/**
 * @module client-errors: `answerClientErrors`, JSON-RPC answers for what Node's HTTP parser refuses before any listener
 * runs. Per server, not per request, which is why it is not part of `gateNode`.
 */
import http from "node:http";
import type { Duplex } from "node:stream";

/**
 * Answers what Node's HTTP parser refuses before any listener runs (a lying `Content-Length`, bad chunking, headers
 * too large) with a JSON-RPC error, as every other refusal, instead of Node's empty `400`. Per server, not per request.
 * @example answerClientErrors(http.createServer(gateNode(handler))).listen(3000);
 */
export function answerClientErrors<S extends http.Server>(server: S): S {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || answering?.headersSent) return void socket.destroy();
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const reason = http.STATUS_CODES[status];
    // The request never parsed, so its id cannot be determined: JSON-RPC 2.0 §5 asks for null.
    const text = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `${reason}: the HTTP request is malformed` } });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  });
  return server;
}
