/**
 * @module `npm run fuzz -- --transport`: the families that live in how a request travels, not in what it says, sent to the
 * example server gated and ungated (the SDK alone), case by case:
 * - `chunks`: a valid `tools/call` cut into HTTP chunks of 1 B, 4 B or 64 KiB, or with a declared length;
 *   the gated server must answer what the ungated one answers, and its peak RSS over the request (Linux `VmHWM`, reset
 *   per case) must stay within max(2 × the ungated one's, the ungated one's + 64 MB);
 * - `pipeline`: a refusal (a wrong media type, declared or chunked; a body that is not JSON; an invalid message) and
 *   then 1 to 20 valid requests written at once on one connection, or the next one a moment later; the gated server
 *   must answer as many of them as the ungated one.
 * Seeded: `--seed N --count N`. The hostile families (peers that misbehave on the wire, with wymcp and without it)
 * live in fuzz/hostile.ts and run after these; `--family chunks,pipeline,upstream,smuggling,client,stdio` picks.
 */
import { readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { LaunchedExample } from "../examples/launch.js";
import { startServers } from "./adversarial.js";
import { HOSTILE_FAMILIES, hostileCases, hostileSummary, runHostileFuzz } from "./hostile.js";

export type TransportFamily = "chunks" | "pipeline";

export interface TransportCase {
  index: number;
  family: TransportFamily;
  /** chunks: the body's size and how it is cut; pipeline: the refusal, how many follow, and whether they wait. */
  label: string;
  /** The bytes to write at once (pipeline: all but the delayed request). */
  bytes: Buffer;
  /** Pipeline: a request written `delayMs` after the first answer. */
  later?: { bytes: Buffer; delayMs: number };
  /** How many answers a server that keeps the connection gives. */
  expected: number;
}

export interface TransportResult {
  index: number;
  family: TransportFamily;
  label: string;
  gated: { statuses: number[]; peakGrowthMb: number; ms: number };
  ungated: { statuses: number[]; peakGrowthMb: number; ms: number };
  verdict: "ok" | "fewer answers" | "other status" | "memory";
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const HEADERS = [
  "Accept: application/json, text/event-stream",
  "MCP-Protocol-Version: 2026-07-28",
  "Mcp-Method: tools/call",
  "Mcp-Name: echo",
];

function call(text: string): Buffer {
  return Buffer.from(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: META, name: "echo", arguments: { text } } }),
  );
}

function head(contentType: string, framing: string): string {
  return `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\n${HEADERS.join("\r\n")}\r\n${framing}\r\n\r\n`;
}

function declared(contentType: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(head(contentType, `Content-Length: ${body.length}`)), body]);
}

function chunked(contentType: string, body: Buffer, piece: number): Buffer {
  const parts: Buffer[] = [Buffer.from(head(contentType, "Transfer-Encoding: chunked"))];
  for (let at = 0; at < body.length; at += piece) {
    const n = Math.min(piece, body.length - at);
    parts.push(Buffer.from(`${n.toString(16)}\r\n`), body.subarray(at, at + n), Buffer.from("\r\n"));
  }
  parts.push(Buffer.from("0\r\n\r\n"));
  return Buffer.concat(parts);
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [1, 4, 64 * 1024];
const SIZES = [16 * 1024, 256 * 1024, 1024 * 1024];

export function transportCases({ seed = 1, count = 40 }: { seed?: number; count?: number } = {}): TransportCase[] {
  const r = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(r() * items.length)]!;
  const cases: TransportCase[] = [];
  for (let index = 0; index < count; index++) {
    if (index % 2 === 0) {
      const size = pick(SIZES);
      // One byte per chunk at 1 MiB is millions of chunks: the 1-byte pieces stay at the smaller sizes.
      const piece = size > 256 * 1024 ? pick(PIECES.slice(1)) : pick(PIECES);
      const body = call("x".repeat(size));
      const how = pick(["chunked", "declared"] as const);
      cases.push({
        index,
        family: "chunks",
        label:
          how === "chunked"
            ? `${size / 1024} KiB chunked in ${piece >= 1024 ? `${piece / 1024} KiB` : `${piece} B`} chunks`
            : `${size / 1024} KiB declared`,
        bytes: how === "chunked" ? chunked("application/json", body, piece) : declared("application/json", body),
        expected: 1,
      });
      continue;
    }
    const refusal = pick(["415 declared", "415 chunked", "400 not JSON", "400 invalid message"] as const);
    const refused =
      refusal === "415 declared"
        ? declared("text/plain", Buffer.from("x".repeat(1 + Math.floor(r() * 4096))))
        : refusal === "415 chunked"
          ? chunked("text/plain", Buffer.from("x".repeat(1 + Math.floor(r() * 4096))), pick([1, 7, 512]))
          : refusal === "400 not JSON"
            ? declared("application/json", Buffer.from("{not json"))
            : declared("application/json", Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}'));
    const follow = 1 + Math.floor(r() * 20);
    const wait = r() < 0.25;
    const valid = Array.from({ length: wait ? follow - 1 : follow }, () => declared("application/json", call("hello")));
    cases.push({
      index,
      family: "pipeline",
      label: `${refusal}, then ${follow} valid${wait ? " (the last 300 ms after the first answer)" : ""}`,
      bytes: Buffer.concat([refused, ...valid]),
      ...(wait && { later: { bytes: declared("application/json", call("hello")), delayMs: 300 } }),
      expected: 1 + follow,
    });
  }
  return cases;
}

function kb(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) : 0;
}

/** Writes the case on one connection and reads answers (heads, and bodies by their framing) until `expected` or the close. */
async function exchange(server: LaunchedExample, c: TransportCase, timeoutMs: number) {
  try {
    writeFileSync(`/proc/${server.pid}/clear_refs`, "5");
  } catch {
    // Not Linux: the peak then counts from the start.
  }
  const before = kb(server.pid, "VmRSS");
  const started = performance.now();
  const socket = net.connect(Number(server.url.port), server.url.hostname);
  const statuses: number[] = [];
  let buffer = Buffer.alloc(0);
  let closed = false;
  let wake: () => void = () => {};
  socket.on("data", (data: Buffer) => {
    buffer = Buffer.concat([buffer, data]);
    for (;;) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) break;
      const text = buffer.subarray(0, end).toString("latin1").toLowerCase();
      let rest = buffer.subarray(end + 4);
      const length = /\r\ncontent-length: (\d+)/.exec(text);
      if (length) {
        if (rest.length < Number(length[1])) break;
        rest = rest.subarray(Number(length[1]));
      } else if (/\r\ntransfer-encoding: chunked/.test(text)) {
        const last = rest.indexOf("0\r\n\r\n");
        if (last < 0) break;
        rest = rest.subarray(last + 5);
      }
      statuses.push(Number(text.slice(9, 12)));
      buffer = rest;
    }
    wake();
  });
  socket.on("close", () => {
    closed = true;
    wake();
  });
  socket.on("error", () => undefined);
  const until = async (n: number) => {
    const deadline = performance.now() + timeoutMs;
    while (statuses.length < n && !closed && performance.now() < deadline) {
      await Promise.race([new Promise<void>((resolve) => (wake = resolve)), sleep(100)]);
    }
  };
  socket.write(c.bytes);
  if (c.later) {
    await until(1);
    await sleep(c.later.delayMs);
    if (!closed) socket.write(c.later.bytes);
  }
  await until(c.expected);
  socket.destroy();
  const ms = performance.now() - started;
  let peak = before;
  try {
    peak = kb(server.pid, "VmHWM");
  } catch {
    // The server is gone: its answers say so.
  }
  return { statuses, peakGrowthMb: (peak - before) / 1024, ms };
}

/** Past both bounds the gated server's memory is a finding: twice the ungated one's, and 64 MB over it. */
export function memoryFinding(gatedMb: number, ungatedMb: number): boolean {
  return gatedMb > Math.max(2 * ungatedMb, ungatedMb + 64);
}

export async function runTransportFuzz(cases: TransportCase[], log: (line: string) => void = () => undefined) {
  const started = performance.now();
  const servers = await startServers();
  const results: TransportResult[] = [];
  try {
    for (const c of cases) {
      const ungated = await exchange(servers.ungated, c, 60_000);
      const gated = await exchange(servers.gated, c, 60_000);
      const verdict: TransportResult["verdict"] =
        gated.statuses.length < ungated.statuses.length
          ? "fewer answers"
          : c.family === "chunks" && gated.statuses[0] !== ungated.statuses[0]
            ? "other status"
            : c.family === "chunks" && memoryFinding(gated.peakGrowthMb, ungated.peakGrowthMb)
              ? "memory"
              : "ok";
      results.push({ index: c.index, family: c.family, label: c.label, gated, ungated, verdict });
      if (verdict !== "ok")
        log(`#${c.index} ${c.family} ${c.label}: ${verdict} (gated ${gated.statuses.join(",")}, ungated ${ungated.statuses.join(",")})`);
    }
  } finally {
    await Promise.all([servers.gated.stop(), servers.ungated.stop()]);
  }
  return { results, seconds: (performance.now() - started) / 1000 };
}

export function transportSummary({ results, seconds }: { results: TransportResult[]; seconds: number }): string {
  const lines = [
    `cases: ${results.length} in ${seconds.toFixed(0)} s; findings: ${results.filter((r) => r.verdict !== "ok").length}`,
    "",
    "case  family    case                                                          gated answers, peak RSS     ungated answers, peak RSS   verdict",
  ];
  const answers = (side: TransportResult["gated"]) => {
    const counts = new Map<number, number>();
    for (const s of side.statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
    return `${[...counts].map(([s, n]) => `${s}×${n}`).join(" ") || "none"}, +${side.peakGrowthMb.toFixed(0)} MB`;
  };
  for (const r of results) {
    lines.push(
      [
        String(r.index).padStart(4),
        r.family.padEnd(8),
        r.label.slice(0, 60).padEnd(60),
        answers(r.gated).padEnd(26),
        answers(r.ungated).padEnd(26),
        r.verdict,
      ].join("  "),
    );
  }
  return lines.join("\n");
}

export async function mainTransport(argv: string[]): Promise<number> {
  const arg = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const seed = Number(arg("seed") ?? 1);
  const count = Number(arg("count") ?? 40);
  // --family a,b runs only those: chunks, pipeline, and the hostile ones (fuzz/hostile.ts).
  const only = arg("family")?.split(",");
  const wanted = (family: string) => only === undefined || only.includes(family);
  const log = (line: string) => process.stderr.write(`fuzz transport: ${line}\n`);
  let failed = false;
  const cases = transportCases({ seed, count }).filter((c) => wanted(c.family));
  if (cases.length > 0) {
    log(`${cases.length} cases to the gated and the ungated server`);
    const report = await runTransportFuzz(cases, log);
    console.log(`wymcp transport fuzz: chunk sizes and pipelining after refusals, gated (wymcp + SDK) vs ungated (SDK alone)\n`);
    console.log(transportSummary(report));
    failed = report.results.some((r) => r.verdict !== "ok");
  }
  const families = HOSTILE_FAMILIES.filter(wanted);
  if (families.length > 0) {
    const hostile = hostileCases({ seed, count, families });
    log(`${hostile.length} hostile cases (${families.join(", ")}), each without and with wymcp`);
    const report = await runHostileFuzz(hostile, log);
    console.log(
      `\nwymcp transport fuzz: hostile upstreams, clients and stdio peers, with wymcp vs without (${report.seconds.toFixed(0)} s)\n`,
    );
    console.log(hostileSummary(report));
    failed ||= report.results.some((r) => r.verdict !== "ok");
  }
  console.log(failed ? "\nFAIL: worse with wymcp than without (see above)" : "\nok");
  return failed ? 1 : 0;
}
