/**
 * @module `npm run bench -- --body-memory`: the server's memory for one large valid body, by how the body is cut.
 * examples/server.ts gated (gateNode) and ungated (`WYMCP_GATE=off`, the SDK's own `toNodeHandler`), a fresh child
 * process per case, one `tools/call` whose text fills the body, sent over a raw socket either chunked
 * (`Transfer-Encoding: chunked`, one HTTP chunk per piece) or declared (`Content-Length`, the pieces written one by one,
 * which the kernel may join). Per case: the server's peak RSS over the request (Linux `VmHWM`, reset first through
 * `clear_refs`) less its RSS before, the status, and the time.
 */
import { readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { launchExample, type LaunchedExample } from "../examples/launch.js";
import { table } from "./measure.js";

export type BodyFraming = "chunked" | "declared";

export interface BodyMemoryCase {
  variant: "gated" | "ungated";
  framing: BodyFraming;
  /** Bytes per piece: per HTTP chunk when chunked, per socket write when declared. */
  piece: number;
  bytes: number;
}

export interface BodyMemoryFigures extends BodyMemoryCase {
  status: number | "none";
  ms: number;
  /** RSS before the request, MB. */
  rssBeforeMb: number;
  /** Peak RSS over the request less the RSS before, MB. */
  peakGrowthMb: number;
}

const MB = 1024 * 1024;

const HEADERS = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  "MCP-Protocol-Version": "2026-07-28",
  "Mcp-Method": "tools/call",
  "Mcp-Name": "echo",
};

/** A valid modern `tools/call` of `echo` whose body is exactly `bytes` long. */
export function echoBody(bytes: number): Uint8Array {
  const message = (text: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "body-memory", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
        name: "echo",
        arguments: { text },
      },
    });
  const frame = message("").length;
  return new TextEncoder().encode(message("x".repeat(Math.max(0, bytes - frame))));
}

/** The request's bytes: head, then the body in pieces, framed as asked. */
export function requestBytes(url: URL, body: Uint8Array, framing: BodyFraming, piece: number): Buffer {
  const lines = [`POST ${url.pathname} HTTP/1.1`, `Host: ${url.host}`, "Connection: close"];
  for (const [name, value] of Object.entries(HEADERS)) lines.push(`${name}: ${value}`);
  lines.push(framing === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${body.length}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`);
  if (framing === "declared") return Buffer.concat([head, body]);
  // One buffer for every chunk frame: `<hex>\r\n<piece>\r\n`, then the last chunk.
  const size = piece.toString(16);
  const full = Math.floor(body.length / piece);
  const rest = body.length - full * piece;
  const frames = full * (size.length + 4 + piece) + (rest ? rest.toString(16).length + 4 + rest : 0) + 5;
  const out = Buffer.allocUnsafe(head.length + frames);
  let at = head.copy(out, 0);
  for (let offset = 0; offset < body.length; offset += piece) {
    const n = Math.min(piece, body.length - offset);
    at += out.write(`${n.toString(16)}\r\n`, at, "latin1");
    at += Buffer.from(body.buffer, body.byteOffset + offset, n).copy(out, at);
    at += out.write("\r\n", at, "latin1");
  }
  at += out.write("0\r\n\r\n", at, "latin1");
  return out.subarray(0, at);
}

/** Sends the bytes (declared: in `piece`-sized writes) and reads the status line; resolves at the close. */
export function sendRaw(
  url: URL,
  bytes: Buffer,
  declaredPiece: number | undefined,
  timeoutMs: number,
): Promise<{ status: number | "none"; ms: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(Number(url.port), url.hostname);
    let head = "";
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const match = /^HTTP\/1\.1 (\d{3})/.exec(head);
      resolve({ status: match ? Number(match[1]) : "none", ms: performance.now() - started });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on("data", (data: Buffer) => {
      if (head.length < 64) head += data.toString("latin1");
    });
    socket.on("close", finish);
    socket.on("error", finish);
    socket.on("connect", () => {
      if (declaredPiece === undefined) return void socket.end(bytes);
      let offset = 0;
      const write = () => {
        while (offset < bytes.length) {
          const next = Math.min(bytes.length, offset + declaredPiece);
          const ok = socket.write(bytes.subarray(offset, next));
          offset = next;
          if (!ok) return void socket.once("drain", write);
        }
        socket.end();
      };
      write();
    });
  });
}

function status(pid: number): string {
  return readFileSync(`/proc/${pid}/status`, "utf8");
}

function kb(text: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
  if (!match) throw new Error(`no ${field} in /proc status`);
  return Number(match[1]);
}

/** One case in a fresh server: warm it with a small call, reset its peak RSS, send the body, read the peak. */
export async function measureBodyMemory(
  c: BodyMemoryCase,
  options: { nodeArgs?: string[]; timeoutMs?: number } = {},
): Promise<BodyMemoryFigures> {
  const server: LaunchedExample = await launchExample({
    env: { WYMCP_GATE: c.variant === "gated" ? "on" : "off" },
    nodeArgs: options.nodeArgs,
  });
  try {
    const warm = requestBytes(server.url, echoBody(1024), "declared", 1024);
    for (let i = 0; i < 3; i++) await sendRaw(server.url, warm, undefined, 10_000);
    // Writing 5 to clear_refs resets VmHWM (the peak) to the current RSS.
    writeFileSync(`/proc/${server.pid}/clear_refs`, "5");
    const before = kb(status(server.pid), "VmRSS");
    const bytes = requestBytes(server.url, echoBody(c.bytes), c.framing, c.piece);
    const sent = await sendRaw(server.url, bytes, c.framing === "declared" ? c.piece : undefined, options.timeoutMs ?? 120_000);
    let peak = before;
    try {
      peak = kb(status(server.pid), "VmHWM");
    } catch {
      // The server died (heap out of memory): its status is gone, the answer says so.
    }
    return { ...c, status: sent.status, ms: sent.ms, rssBeforeMb: before / 1024, peakGrowthMb: (peak - before) / 1024 };
  } finally {
    await server.stop();
  }
}

export const PIECES = [1, 4, 64 * 1024] as const;

/**
 * The most a gated server's peak RSS may grow for the body, whatever the chunking, in MiB: the body reader's own peak
 * (twice the body plus one block) and the server's work on the call fit far below it; keeping every chunk of a 4 MiB
 * body sent one byte per HTTP chunk (millions of objects) does not.
 */
export const GATED_GROWTH_TARGET_MIB = 128;

export async function runBodyMemory(
  {
    bytes,
    pieces = PIECES,
    framings = ["chunked", "declared"],
  }: { bytes: number; pieces?: readonly number[]; framings?: readonly BodyFraming[] },
  log: (line: string) => void,
): Promise<BodyMemoryFigures[]> {
  const out: BodyMemoryFigures[] = [];
  for (const framing of framings) {
    for (const piece of pieces) {
      // Gated and ungated back to back, so that the machine's load is as alike as it gets.
      for (const variant of ["ungated", "gated"] as const) {
        const figures = await measureBodyMemory({ variant, framing, piece, bytes });
        log(
          `body memory: ${variant} ${framing} ${piece} B pieces: ${figures.status}, +${figures.peakGrowthMb.toFixed(0)} MB peak, ${figures.ms.toFixed(0)} ms`,
        );
        out.push(figures);
      }
    }
  }
  return out;
}

function pieceLabel(piece: number): string {
  return piece >= 1024 ? `${piece / 1024} KiB` : `${piece} B`;
}

export function bodyMemoryTable(rows: BodyMemoryFigures[]): string {
  const pairs = new Map<string, { gated?: BodyMemoryFigures; ungated?: BodyMemoryFigures }>();
  for (const r of rows) {
    const key = `${r.framing} ${r.piece}`;
    pairs.set(key, { ...pairs.get(key), [r.variant]: r });
  }
  return table(
    [
      "framing",
      "piece",
      "body",
      "ungated: status, peak RSS growth, time",
      "gated: status, peak RSS growth, time",
      "gated ÷ ungated growth",
    ],
    [...pairs.values()].map(({ gated, ungated }) => {
      const any = (gated ?? ungated)!;
      const cell = (f: BodyMemoryFigures | undefined) =>
        f ? `${f.status}, +${f.peakGrowthMb.toFixed(0)} MB, ${(f.ms / 1000).toFixed(1)} s` : "";
      return [
        any.framing,
        pieceLabel(any.piece),
        any.bytes >= MB ? `${(any.bytes / MB).toFixed(0)} MiB` : `${(any.bytes / 1024).toFixed(0)} KiB`,
        cell(ungated),
        cell(gated),
        gated && ungated && ungated.peakGrowthMb > 0 ? `${(gated.peakGrowthMb / ungated.peakGrowthMb).toFixed(2)}×` : "",
      ];
    }),
    [2, 5],
  );
}

/** The target line under the table: the gated server's largest growth over every case, against `GATED_GROWTH_TARGET_MIB`. */
export function bodyMemoryTarget(rows: BodyMemoryFigures[]): string {
  const gated = rows.filter((r) => r.variant === "gated");
  const worst = gated.reduce<BodyMemoryFigures | undefined>(
    (w, r) => (w === undefined || r.peakGrowthMb > w.peakGrowthMb ? r : w),
    undefined,
  );
  if (!worst) return "";
  const answered = gated.every((r) => r.status === 200);
  const pass = answered && worst.peakGrowthMb <= GATED_GROWTH_TARGET_MIB;
  return (
    `target: gated, every case answered 200 with peak RSS growth ≤ ${GATED_GROWTH_TARGET_MIB} MB: ${pass ? "PASS" : "MISS"} ` +
    `(largest +${worst.peakGrowthMb.toFixed(0)} MB, ${worst.framing} ${pieceLabel(worst.piece)}${answered ? "" : "; not every case answered 200"})`
  );
}
