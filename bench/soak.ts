/**
 * @module `npm run bench -- --soak`: the Fetch face under sustained load behind `@hono/node-server`, against the SDK's
 * `handler.fetch` alone on the same host. Each server is a child process (bench/soak-server.ts, `--expose-gc`); a
 * bounded keep-alive loop keeps `concurrency` requests in flight for `seconds`, one in twenty with a wrong media type
 * (`text/plain`, answered 415 by either). Per server: requests per second, p50 / p99 latency, statuses, the RSS
 * sampled every 250 ms (peak and last), the peak RSS of the process (VmHWM), and the heap after a forced collection.
 * The `reader`, `arrayBuffer` and `text` servers read Hono's `Request` body that way with no wymcp at all, to price
 * each way of reading on that host.
 */
import http from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import { launchExample } from "../examples/launch.js";
import { table } from "./measure.js";

export type SoakMode = "sdk" | "gated" | "reader" | "arrayBuffer" | "text";

export interface SoakFigures {
  mode: SoakMode;
  seconds: number;
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  /** RSS before the load, the highest sampled, the process's peak (VmHWM), at the end: MB. */
  rssBeforeMb: number;
  rssPeakMb: number;
  hwmMb: number;
  rssEndMb: number;
  /** Heap used after a forced collection at the end, MB. */
  heapAfterGcMb: number;
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "soak", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

const CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { _meta: META, name: "echo", arguments: { text: "hello" } },
});
const CALL_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "echo",
};

function kb(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) : 0;
}

function post(agent: http.Agent, url: URL, wrongType: boolean): Promise<number> {
  return new Promise((resolve) => {
    const headers = wrongType ? { ...CALL_HEADERS, "content-type": "text/plain" } : CALL_HEADERS;
    const req = http.request(url, { method: "POST", agent, headers: { ...headers, "content-length": Buffer.byteLength(CALL) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(0));
    });
    req.on("error", () => resolve(0));
    req.end(CALL);
  });
}

function memory(url: URL): Promise<{ heapUsed: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(new URL("/memory", url), (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (t: string) => (text += t));
        res.on("end", () => resolve(JSON.parse(text) as { heapUsed: number }));
      })
      .on("error", reject);
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export async function soak(mode: SoakMode, { seconds, concurrency }: { seconds: number; concurrency: number }): Promise<SoakFigures> {
  const server = await launchExample({
    script: "bench/soak-server.ts",
    env: { SOAK_MODE: mode },
    nodeArgs: ["--expose-gc", ...(process.env.SOAK_NODE_ARGS ? process.env.SOAK_NODE_ARGS.split(" ") : [])],
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    for (let i = 0; i < 50; i++) await post(agent, server.url, false);
    await memory(server.url);
    writeClearRefs(server.pid);
    const rssBefore = kb(server.pid, "VmRSS");
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, kb(server.pid, "VmRSS"))), 250);
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    let sent = 0;
    const end = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < end) {
        const wrongType = sent++ % 20 === 19;
        const t = performance.now();
        const status = await post(agent, server.url, wrongType);
        latencies.push(performance.now() - t);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const rssEnd = kb(server.pid, "VmRSS");
    const hwm = kb(server.pid, "VmHWM");
    const { heapUsed } = await memory(server.url);
    latencies.sort((a, b) => a - b);
    return {
      mode,
      seconds: elapsed,
      requests: latencies.length,
      reqPerSec: latencies.length / elapsed,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      statuses,
      rssBeforeMb: rssBefore / 1024,
      rssPeakMb: rssPeak / 1024,
      hwmMb: hwm / 1024,
      rssEndMb: rssEnd / 1024,
      heapAfterGcMb: heapUsed / 1024 / 1024,
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

/** Resets the process's peak RSS (VmHWM) to its RSS now (Linux). */
function writeClearRefs(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    // Not Linux, or not allowed: VmHWM then counts from the start.
  }
}

export async function runSoak(
  { seconds, concurrency, modes }: { seconds: number; concurrency: number; modes: readonly SoakMode[] },
  log: (line: string) => void,
): Promise<SoakFigures[]> {
  const out: SoakFigures[] = [];
  for (const mode of modes) {
    log(`soak: ${mode}, ${seconds} s at concurrency ${concurrency}`);
    const f = await soak(mode, { seconds, concurrency });
    log(`soak: ${mode}: ${f.reqPerSec.toFixed(0)} req/s, p99 ${f.p99Ms.toFixed(0)} ms, peak RSS ${f.hwmMb.toFixed(0)} MB`);
    out.push(f);
  }
  return out;
}

const LABEL: Record<SoakMode, string> = {
  sdk: "handler.fetch alone",
  gated: "gateFetch(handler)",
  reader: "probe: request.body reader, no wymcp",
  arrayBuffer: "probe: request.arrayBuffer(), no wymcp",
  text: "probe: request.text(), no wymcp",
};

export function soakTable(rows: SoakFigures[]): string {
  return table(
    [
      "server (behind @hono/node-server)",
      "requests",
      "req/s",
      "p50 / p99 ms",
      "statuses",
      "RSS before",
      "peak RSS (VmHWM)",
      "RSS at end",
      "heap after GC",
    ],
    rows.map((r) => [
      LABEL[r.mode],
      String(r.requests),
      r.reqPerSec.toFixed(0),
      `${r.p50Ms.toFixed(1)} / ${r.p99Ms.toFixed(1)}`,
      Object.entries(r.statuses)
        .sort()
        .map(([s, n]) => `${s}×${n}`)
        .join(" "),
      `${r.rssBeforeMb.toFixed(0)} MB`,
      `${r.hwmMb.toFixed(0)} MB`,
      `${r.rssEndMb.toFixed(0)} MB`,
      `${r.heapAfterGcMb.toFixed(1)} MB`,
    ]),
    [1, 2, 3, 5, 6, 7, 8],
  );
}
