/**
 * @module body: a Node request's body for the admission stage, read from its `data` events into one bounded buffer
 * (`BodyBytes`), never kept chunk by chunk, and without the stream's async iterator (experimental on Node 20).
 */
import type { IncomingMessage } from "node:http";
import { BodyBytes } from "../../core/admission.js";

/**
 * Reads `req`'s body: its bytes once it has ended, or `undefined` as soon as it grows past `limit`. Reading then stops
 * with the stream paused, the rest left for the refusal to discard; it rejects when the client goes away mid-body.
 * `giveBack` (the `limits` rule not enforced): what was read of a body past the limit is put back at the head of the
 * stream, so that the request goes on whole to a server that reads it (at most `limit` bytes are held meanwhile).
 * @example admit({ ...exchange, chunks: () => readNodeBody(req, settings.maxBodyBytes) }, settings)
 */
export function readNodeBody(req: IncomingMessage, limit: number, giveBack = false): Promise<Uint8Array | undefined> {
  const body = new BodyBytes(limit, Number(req.headers["content-length"] ?? Number.NaN));
  if (req.readableEnded) return Promise.resolve(body.bytes());
  return new Promise((resolve, reject) => {
    const stop = () => void req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
    const onData = (chunk: Buffer) => {
      if (body.add(chunk)) return;
      req.pause();
      stop();
      if (giveBack) req.unshift(body.size === 0 ? chunk : Buffer.concat([body.bytes(), chunk]));
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(body.bytes());
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      if (req.complete) return;
      stop();
      reject(new Error("the client went away before the body ended"));
    };
    req.on("data", onData).once("end", onEnd).once("error", onError).once("close", onClose);
  });
}
