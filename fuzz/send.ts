/**
 * @module fuzz/send: one request over a raw `node:net` socket, so that the fuzzer controls every byte, including
 * lying `Content-Length`s, chunk boundaries and a client that goes away mid-body; and a minimal HTTP/1.1 reader.
 */
import net from "node:net";
import type { Framing, FuzzCase } from "./cases.js";

export interface Outcome {
  /** Absent when the server closed the connection without an answer. */
  status?: number;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Bytes of body received, even past what was kept. */
  bodyBytes: number;
  /** No answer and no close within the bound. */
  hung: boolean;
  ms: number;
}

/** Answers longer than this are cut when kept (their full length is still counted). */
const KEEP_BYTES = 64 * 1024;

function head(target: URL, c: FuzzCase, length: string | undefined, chunked: boolean): string {
  const lines = [`POST ${target.pathname} HTTP/1.1`, `Host: ${target.host}`, "Connection: close"];
  for (const [name, value] of Object.entries(c.headers)) lines.push(`${name}: ${value}`);
  if (chunked) lines.push("Transfer-Encoding: chunked");
  else if (length !== undefined) lines.push(`Content-Length: ${length}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** Splits `body` into 1–8 chunks at seeded-by-index points: the same case, the same chunks. */
function chunkedBody(body: Uint8Array, index: number): Buffer[] {
  const cuts = new Set<number>();
  let x = index * 2654435761;
  for (let n = 1 + (index % 8); n > 1; n--) {
    x = (x * 1103515245 + 12345) >>> 0;
    cuts.add(body.length ? x % body.length : 0);
  }
  const points = [0, ...[...cuts].sort((a, b) => a - b), body.length];
  const parts: Buffer[] = [];
  for (let i = 1; i < points.length; i++) {
    const piece = body.subarray(points[i - 1], points[i]);
    if (piece.length) parts.push(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]));
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return parts;
}

/** The bytes to write, per framing; `then` is what the client does once they are written. */
function plan(target: URL, c: FuzzCase): { writes: Buffer[]; then: "wait" | "half-close" | "destroy" } {
  const body = Buffer.from(c.body);
  const framing: Framing = c.framing;
  switch (framing) {
    case "chunked":
      return { writes: [Buffer.from(head(target, c, undefined, true)), ...chunkedBody(c.body, c.index)], then: "wait" };
    case "length-over":
      // Declares more than it sends, then says it is done sending: the server must not wait forever.
      return { writes: [Buffer.from(head(target, c, String(body.length + 1 + (c.index % 4096)), false)), body], then: "half-close" };
    case "length-under": {
      // Declares less than it sends: the rest reaches the server as the start of a next request.
      const declared = Math.max(0, body.length - 1 - (c.index % Math.max(1, body.length)));
      return { writes: [Buffer.from(head(target, c, String(declared), false)), body], then: "wait" };
    }
    case "disconnect":
      return { writes: [Buffer.from(head(target, c, String(body.length), false)), body.subarray(0, body.length >> 1)], then: "destroy" };
    default:
      return { writes: [Buffer.from(head(target, c, String(body.length), false)), body], then: "wait" };
  }
}

/** Sends one case and reads the first answer; never rejects. */
export function send(target: URL, c: FuzzCase, timeoutMs: number): Promise<Outcome> {
  const started = performance.now();
  const { writes, then } = plan(target, c);
  return new Promise((resolve) => {
    const socket = net.connect({ port: Number(target.port), host: target.hostname, noDelay: true });
    const reader = new ResponseReader();
    let settled = false;
    const finish = (hung: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...reader.result(), hung, ms: performance.now() - started });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    socket.on("error", () => finish(false));
    socket.on("close", () => finish(false));
    socket.on("data", (data: Buffer) => {
      if (reader.push(data)) finish(false);
    });
    socket.once("connect", async () => {
      for (const piece of writes) {
        if (socket.destroyed) return;
        socket.write(piece);
        // A turn of the event loop between pieces, so they tend to arrive as separate reads.
        await new Promise((next) => setImmediate(next));
      }
      if (then === "half-close") socket.end();
      if (then === "destroy") finish(false);
    });
  });
}

/** Reads one HTTP/1.1 response: status line, headers, then a body by Content-Length, chunks, or to the close. */
class ResponseReader {
  private buffer = Buffer.alloc(0);
  private status?: number;
  private headers: Record<string, string> = {};
  private bodyStart = -1;
  private body: Buffer[] = [];
  private kept = 0;
  private received = 0;
  private chunkState = { pending: Buffer.alloc(0), done: false };

  /** Feeds bytes; true once the response is complete. */
  push(data: Buffer): boolean {
    if (this.bodyStart < 0) {
      this.buffer = Buffer.concat([this.buffer, data]);
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end < 0) return false;
      const [statusLine = "", ...lines] = this.buffer.subarray(0, end).toString("latin1").split("\r\n");
      this.status = Number(statusLine.split(" ")[1]);
      for (const line of lines) {
        const colon = line.indexOf(":");
        if (colon > 0) this.headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      this.bodyStart = end + 4;
      data = this.buffer.subarray(this.bodyStart);
      this.buffer = Buffer.alloc(0);
    }
    if (this.headers["transfer-encoding"]?.toLowerCase() === "chunked") return this.pushChunked(data);
    this.take(data);
    const length = this.headers["content-length"];
    return length !== undefined && this.received >= Number(length);
  }

  private take(data: Buffer): void {
    this.received += data.length;
    if (this.kept < KEEP_BYTES) {
      const piece = data.subarray(0, KEEP_BYTES - this.kept);
      this.body.push(piece);
      this.kept += piece.length;
    }
  }

  private pushChunked(data: Buffer): boolean {
    let pending = Buffer.concat([this.chunkState.pending, data]);
    for (;;) {
      const line = pending.indexOf("\r\n");
      if (line < 0) break;
      const size = Number.parseInt(pending.subarray(0, line).toString("latin1"), 16);
      if (size === 0) return true;
      if (pending.length < line + 2 + size + 2) break;
      this.take(pending.subarray(line + 2, line + 2 + size));
      pending = pending.subarray(line + 2 + size + 2);
    }
    this.chunkState.pending = pending;
    return false;
  }

  result(): Pick<Outcome, "status" | "headers" | "body" | "bodyBytes"> {
    const answered = this.status !== undefined && Number.isInteger(this.status);
    return {
      ...(answered ? { status: this.status } : {}),
      headers: this.headers,
      body: Buffer.concat(this.body),
      bodyBytes: this.received,
    };
  }
}
