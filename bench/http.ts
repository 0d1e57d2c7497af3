/**
 * @module `npm run bench -- --http`: the flood. The example server with wymcp in front and the same server with
 * `WYMCP_GATE=off`, both started as child processes on loopback, loaded in interleaved rounds by a bounded
 * keep-alive loop; per workload the req/s ratio gated ÷ ungated is taken per round, p50 and p99 per variant.
 */
import http from "node:http";
import { launchExample, type LaunchedExample } from "../examples/launch.js";
import { formatRatio, spread, table, type Spread } from "./measure.js";

export interface HttpSettings {
  rounds: number;
  /** Length of one variant's turn at one workload. */
  roundMs: number;
  warmupMs: number;
  /** Connections kept open and busy at once. */
  connections: number;
}

interface Workload {
  key: string;
  label: string;
  headers: Record<string, string>;
  body: string;
  /** Whether the ratio must reach the valid-traffic target (≥ 0.95) or the invalid-traffic one (≥ 3). */
  traffic: "valid" | "invalid";
}

export interface VariantFlood {
  reqPerSec: Spread;
  p50Ms: number;
  p99Ms: number;
  /** Status → count over every round. */
  statuses: Record<string, number>;
}

export interface WorkloadFlood {
  key: string;
  label: string;
  traffic: "valid" | "invalid";
  bytes: number;
  gated: VariantFlood;
  ungated: VariantFlood;
  /** gated ÷ ungated req/s, per round. */
  ratio: Spread;
  target: number;
  pass: boolean;
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "flood", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const JSON_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28" };
const call = { ...JSON_HEADERS, "Mcp-Method": "tools/call", "Mcp-Name": "echo" };

function workloads(): Workload[] {
  const rows: unknown[] = [];
  const big = { text: "hello", rows };
  for (let i = 0; Buffer.byteLength(JSON.stringify(big)) < 50 * 1024; i++) {
    rows.push({ id: i, name: `station-${i}`, tags: ["temperature", "humidity"], reading: 12.5 + (i % 17) / 4, ok: i % 3 !== 0 });
  }
  const tools = (id: number, args: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: META, name: "echo", arguments: args } });
  return [
    { key: "tools-call", label: "valid tools/call", headers: call, body: tools(1, { text: "hello" }), traffic: "valid" },
    {
      key: "tools-list",
      label: "valid tools/list",
      headers: { ...JSON_HEADERS, "Mcp-Method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: META } }),
      traffic: "valid",
    },
    { key: "tools-call-50k", label: "50 KiB tools/call", headers: call, body: tools(3, big), traffic: "valid" },
    // The gate answers 400 (arguments must be an object); the SDK alone parses it, then answers it itself.
    { key: "invalid-tools-call", label: "invalid tools/call (arguments a string)", headers: call, body: tools(4, "hello"), traffic: "invalid" },
    {
      key: "junk-notification",
      label: "junk modern notification (gated: 202)",
      headers: JSON_HEADERS,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: 5 }),
      traffic: "invalid",
    },
  ];
}

/** One POST on a keep-alive agent; resolves to its status once the answer is read whole. */
function post(agent: http.Agent, url: URL, w: Workload): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent, headers: { ...w.headers, "Content-Length": Buffer.byteLength(w.body) } }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
      res.once("error", reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error("no answer within 10 s")));
    req.once("error", reject);
    req.end(w.body);
  });
}

/** Keeps `connections` requests in flight for `ms`; returns completed requests per second, latencies and statuses. */
async function flood(agent: http.Agent, url: URL, w: Workload, ms: number, connections: number) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const started = performance.now();
  const deadline = started + ms;
  const loop = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      const status = await post(agent, url, w);
      latencies.push(performance.now() - t);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return { reqPerSec: (latencies.length * 1000) / (performance.now() - started), latencies, statuses };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export async function runHttpFlood(settings: HttpSettings, log: (line: string) => void): Promise<WorkloadFlood[]> {
  const servers: Record<"gated" | "ungated", LaunchedExample> = {
    gated: await launchExample(),
    ungated: await launchExample({ env: { WYMCP_GATE: "off" } }),
  };
  const agents = {
    gated: new http.Agent({ keepAlive: true, maxSockets: settings.connections }),
    ungated: new http.Agent({ keepAlive: true, maxSockets: settings.connections }),
  };
  try {
    const results: WorkloadFlood[] = [];
    for (const w of workloads()) {
      log(`http: ${w.label}`);
      const per = { gated: { rps: [] as number[], lat: [] as number[], statuses: {} as Record<string, number> }, ungated: { rps: [] as number[], lat: [] as number[], statuses: {} as Record<string, number> } };
      for (const v of ["gated", "ungated"] as const) await flood(agents[v], servers[v].url, w, settings.warmupMs, settings.connections);
      for (let round = 0; round < settings.rounds; round++) {
        // Alternate which variant goes first, so that neither always meets the same neighbour's noise.
        const order = round % 2 ? (["ungated", "gated"] as const) : (["gated", "ungated"] as const);
        for (const v of order) {
          const f = await flood(agents[v], servers[v].url, w, settings.roundMs, settings.connections);
          per[v].rps.push(f.reqPerSec);
          per[v].lat.push(...f.latencies);
          for (const [s, n] of Object.entries(f.statuses)) per[v].statuses[s] = (per[v].statuses[s] ?? 0) + n;
        }
      }
      const figures = (v: "gated" | "ungated"): VariantFlood => {
        const sorted = per[v].lat.sort((a, b) => a - b);
        return { reqPerSec: spread(per[v].rps), p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), statuses: per[v].statuses };
      };
      const ratio = spread(per.gated.rps.map((g, i) => g / per.ungated.rps[i]!));
      const target = w.traffic === "valid" ? 0.95 : 3;
      results.push({
        key: w.key,
        label: w.label,
        traffic: w.traffic,
        bytes: Buffer.byteLength(w.body),
        gated: figures("gated"),
        ungated: figures("ungated"),
        ratio,
        target,
        pass: ratio.median >= target,
      });
    }
    return results;
  } finally {
    agents.gated.destroy();
    agents.ungated.destroy();
    await Promise.all([servers.gated.stop(), servers.ungated.stop()]);
  }
}

export function floodTable(results: WorkloadFlood[]): string {
  const rps = (s: Spread) => s.median.toFixed(0);
  const ms = (x: number) => x.toFixed(2);
  const statuses = (v: VariantFlood) => Object.entries(v.statuses).map(([s, n]) => (Object.keys(v.statuses).length > 1 ? `${s}×${n}` : s)).join(" ");
  return table(
    ["workload", "bytes", "gated req/s", "ungated req/s", "gated ÷ ungated med [min–max]", "target", "result", "gated p50 / p99 ms", "ungated p50 / p99 ms", "status gated / ungated"],
    results.map((r) => [
      r.label,
      String(r.bytes),
      rps(r.gated.reqPerSec),
      rps(r.ungated.reqPerSec),
      `${formatRatio(r.ratio.median)} [${formatRatio(r.ratio.min)}–${formatRatio(r.ratio.max)}]`,
      `≥ ${r.target}`,
      r.pass ? "PASS" : "MISS",
      `${ms(r.gated.p50Ms)} / ${ms(r.gated.p99Ms)}`,
      `${ms(r.ungated.p50Ms)} / ${ms(r.ungated.p99Ms)}`,
      `${statuses(r.gated)} / ${statuses(r.ungated)}`,
    ]),
    [1, 2, 3],
  );
}
