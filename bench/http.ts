/**
 * @module `npm run bench -- --http`: the flood. Three servers, each a child process on loopback running
 * examples/server.ts: the SDK alone (`WYMCP_GATE=off`, its own `toNodeHandler`), gateNode's bridge with no validation
 * (`WYMCP_GATE=bridge`), and gated (`gateNode`). Loaded in interleaved rounds by a bounded keep-alive loop. Per workload,
 * per round: gated ÷ bridge (the gate's own cost) and gated ÷ SDK alone; the 1-minute load average is recorded per round.
 * Telemetry is priced in the same rounds (examples/otel-from-env.ts): the gated server is `WYMCP_OTEL=noop`, whose
 * `/mcp-untraced` is gated without telemetry and `/mcp` with `mcpTelemetry()` and no SDK (one process, so the two differ
 * by telemetry alone); a `WYMCP_OTEL=sdk` server records through the OpenTelemetry SDK on `/mcp`, and its `/mcp-untraced`
 * shows what installing the SDK costs before wymcp records anything.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import { cpus, loadavg } from "node:os";
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

export interface Workload {
  key: string;
  label: string;
  headers: Record<string, string>;
  body: string;
  /** Whether the ratio must reach the valid-traffic target (≥ 0.95) or the invalid-traffic one (≥ 3). */
  traffic: "valid" | "invalid";
}

export const VARIANTS = ["gated", "bridge", "sdk", "otelNoop", "otelSdk", "sdkUntraced"] as const;
export type Variant = (typeof VARIANTS)[number];
/** The server processes, by their environment. */
const PROCESSES = {
  // Gated twice in one process: /mcp-untraced without telemetry, /mcp with mcpTelemetry() and no SDK.
  gate: { WYMCP_OTEL: "noop" },
  bridge: { WYMCP_GATE: "bridge" },
  sdk: { WYMCP_GATE: "off" },
  // The OpenTelemetry SDK installed: /mcp records, /mcp-untraced is the same process's gate without telemetry.
  otel: { WYMCP_OTEL: "sdk" },
} as const;
/** Where each variant is served: a process and a path. */
const AT: Record<Variant, [keyof typeof PROCESSES, string]> = {
  gated: ["gate", "/mcp-untraced"],
  otelNoop: ["gate", "/mcp"],
  bridge: ["bridge", "/mcp"],
  sdk: ["sdk", "/mcp"],
  otelSdk: ["otel", "/mcp"],
  sdkUntraced: ["otel", "/mcp-untraced"],
};
/** Telemetry with no SDK must keep this share of the gate's req/s; with the SDK recording, the ratio is reported. */
export const TELEMETRY_NOOP_TARGET = 0.97;

export interface VariantFlood {
  reqPerSec: Spread;
  /** The server process's CPU time (user + system) per completed request over every round, in µs; Linux only. */
  cpuUsPerRequest: number | undefined;
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
  bridge: VariantFlood;
  sdk: VariantFlood;
  /** gated ÷ bridge req/s per round: the gate's own cost (valid traffic) or gain (invalid traffic). */
  vsBridge: Spread;
  /** gated ÷ SDK alone req/s per round. */
  vsSdk: Spread;
  /** 1-minute load average when each round started; a round over `loadBound` is marked as taken under load. */
  load: number[];
  /** gated ÷ bridge over the quiet rounds only, when there are any. */
  vsBridgeQuiet: Spread | undefined;
  /** What the ratio is held to: gated ÷ bridge ≥ 0.95 for valid traffic, gated ÷ SDK alone ≥ 3 for invalid. */
  target: number;
  pass: boolean;
  /** Gated with telemetry and no SDK, with the SDK recording, and without telemetry in the SDK's process. */
  otelNoop: VariantFlood;
  otelSdk: VariantFlood;
  sdkUntraced: VariantFlood;
  /** otelNoop ÷ gated, otelSdk ÷ gated and otelSdk ÷ sdkUntraced (wymcp's recording alone) req/s per round. */
  noopVsGated: Spread;
  sdkVsGated: Spread;
  sdkVsUntraced: Spread;
  /** noopVsGated's median ≥ TELEMETRY_NOOP_TARGET. */
  telemetryPass: boolean;
}

/** The bench itself keeps about two processes busy (client and server); more than one above the cores is other work. */
export const loadBound = () => cpus().length + 1;

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "flood", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const JSON_HEADERS = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  "MCP-Protocol-Version": "2026-07-28",
};
const call = { ...JSON_HEADERS, "Mcp-Method": "tools/call", "Mcp-Name": "echo" };

export function workloads(): Workload[] {
  const rows: unknown[] = [];
  const big = { text: "hello", rows };
  for (let i = 0; Buffer.byteLength(JSON.stringify(big)) < 50 * 1024; i++) {
    rows.push({ id: i, name: `station-${i}`, tags: ["temperature", "humidity"], reading: 12.5 + (i % 17) / 4, ok: i % 3 !== 0 });
  }
  const tools = (id: number, args: unknown) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: META, name: "echo", arguments: args } });
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
    {
      key: "invalid-tools-call",
      label: "invalid tools/call (arguments a string)",
      headers: call,
      body: tools(4, "hello"),
      traffic: "invalid",
    },
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
export function post(agent: http.Agent, url: URL, w: Workload): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", agent, headers: { ...w.headers, "Content-Length": Buffer.byteLength(w.body) } },
      (res) => {
        res.resume();
        res.once("end", () => resolve(res.statusCode ?? 0));
        res.once("error", reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error("no answer within 10 s")));
    // Which server broke the exchange, and on which kind of socket: a bench of several servers needs to know.
    req.once("error", (error: Error) =>
      reject(Object.assign(error, { message: `${url.host} (${req.reusedSocket ? "a reused" : "a new"} socket): ${error.message}` })),
    );
    req.end(w.body);
  });
}

/**
 * Keeps `connections` requests in flight for `ms`, each connection sending at least one (a round shorter than a
 * loaded machine's pause still measures something); returns completed requests per second, latencies and statuses.
 */
export async function flood(agent: http.Agent, url: URL, w: Workload, ms: number, connections: number) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const started = performance.now();
  const deadline = started + ms;
  const loop = async () => {
    do {
      const t = performance.now();
      const status = await post(agent, url, w);
      latencies.push(performance.now() - t);
      statuses[status] = (statuses[status] ?? 0) + 1;
    } while (performance.now() < deadline);
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return { reqPerSec: (latencies.length * 1000) / (performance.now() - started), latencies, statuses };
}

/**
 * A process's CPU time so far (user + system), in µs, from /proc (clock ticks of 10 ms; summed over every round, the
 * error is a few ticks in thousands); `undefined` where there is no /proc. Unlike req/s, it barely moves with the
 * machine's other load, so it prices telemetry on a shared machine too.
 */
function cpuMicros(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export async function runHttpFlood(settings: HttpSettings, log: (line: string) => void): Promise<WorkloadFlood[]> {
  const processes = {} as Record<keyof typeof PROCESSES, LaunchedExample>;
  const servers = {} as Record<Variant, { url: URL; pid: number }>;
  const agents = {} as Record<Variant, http.Agent>;
  for (const [name, env] of Object.entries(PROCESSES) as Array<[keyof typeof PROCESSES, Record<string, string>]>) {
    processes[name] = await launchExample({ env });
  }
  for (const v of VARIANTS) {
    const [name, path] = AT[v];
    servers[v] = { url: new URL(path, processes[name].url), pid: processes[name].pid };
    agents[v] = new http.Agent({ keepAlive: true, maxSockets: settings.connections });
  }
  try {
    const results: WorkloadFlood[] = [];
    for (const w of workloads()) {
      log(`http: ${w.label}`);
      const per = Object.fromEntries(
        VARIANTS.map((v) => [
          v,
          { rps: [] as number[], lat: [] as number[], statuses: {} as Record<string, number>, cpu: 0 as number | undefined },
        ]),
      ) as Record<Variant, { rps: number[]; lat: number[]; statuses: Record<string, number>; cpu: number | undefined }>;
      const load: number[] = [];
      for (const v of VARIANTS) await flood(agents[v], servers[v].url, w, settings.warmupMs, settings.connections);
      for (let round = 0; round < settings.rounds; round++) {
        load.push(loadavg()[0]!);
        // Rotate which variant goes first, so that none always meets the same neighbour's noise.
        const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]!);
        for (const v of order) {
          const before = cpuMicros(servers[v].pid);
          const f = await flood(agents[v], servers[v].url, w, settings.roundMs, settings.connections);
          const after = cpuMicros(servers[v].pid);
          per[v].cpu = before === undefined || after === undefined || per[v].cpu === undefined ? undefined : per[v].cpu + after - before;
          per[v].rps.push(f.reqPerSec);
          per[v].lat.push(...f.latencies);
          for (const [s, n] of Object.entries(f.statuses)) per[v].statuses[s] = (per[v].statuses[s] ?? 0) + n;
        }
      }
      const figures = (v: Variant): VariantFlood => {
        const sorted = per[v].lat.sort((a, b) => a - b);
        const cpu = per[v].cpu;
        return {
          reqPerSec: spread(per[v].rps),
          cpuUsPerRequest: cpu === undefined || sorted.length === 0 ? undefined : cpu / sorted.length,
          p50Ms: percentile(sorted, 50),
          p99Ms: percentile(sorted, 99),
          statuses: per[v].statuses,
        };
      };
      const ratios = (base: Variant, of: Variant = "gated") => per[of].rps.map((g, i) => g / per[base].rps[i]!);
      const noopVsGated = spread(ratios("gated", "otelNoop"));
      const vsBridge = spread(ratios("bridge"));
      const vsSdk = spread(ratios("sdk"));
      const quiet = ratios("bridge").filter((_, i) => load[i]! <= loadBound());
      const target = w.traffic === "valid" ? 0.95 : 3;
      results.push({
        key: w.key,
        label: w.label,
        traffic: w.traffic,
        bytes: Buffer.byteLength(w.body),
        gated: figures("gated"),
        bridge: figures("bridge"),
        sdk: figures("sdk"),
        vsBridge,
        vsSdk,
        load,
        vsBridgeQuiet: quiet.length ? spread(quiet) : undefined,
        target,
        pass: (w.traffic === "valid" ? vsBridge.median : vsSdk.median) >= target,
        otelNoop: figures("otelNoop"),
        otelSdk: figures("otelSdk"),
        noopVsGated,
        sdkVsGated: spread(ratios("gated", "otelSdk")),
        sdkUntraced: figures("sdkUntraced"),
        sdkVsUntraced: spread(ratios("sdkUntraced", "otelSdk")),
        telemetryPass: noopVsGated.median >= TELEMETRY_NOOP_TARGET,
      });
    }
    return results;
  } finally {
    for (const v of VARIANTS) agents[v]?.destroy();
    await Promise.all(Object.values(processes).map((p) => p?.stop()));
  }
}

export function floodTable(results: WorkloadFlood[]): string {
  const rps = (s: Spread) => s.median.toFixed(0);
  const ms = (x: number) => x.toFixed(2);
  const range = (s: Spread) => `${formatRatio(s.median)} [${formatRatio(s.min)}–${formatRatio(s.max)}]`;
  const statuses = (v: VariantFlood) =>
    Object.entries(v.statuses)
      .map(([s, n]) => (Object.keys(v.statuses).length > 1 ? `${s}×${n}` : s))
      .join(" ");
  const main = table(
    [
      "workload",
      "bytes",
      "SDK alone req/s",
      "bridge req/s",
      "gated req/s",
      "gated ÷ bridge med [min–max]",
      "quiet rounds only",
      "gated ÷ SDK alone med [min–max]",
      "target",
      "result",
    ],
    results.map((r) => [
      r.label,
      String(r.bytes),
      rps(r.sdk.reqPerSec),
      rps(r.bridge.reqPerSec),
      rps(r.gated.reqPerSec),
      range(r.vsBridge),
      r.vsBridgeQuiet ? `${formatRatio(r.vsBridgeQuiet.median)} (${r.vsBridgeQuiet.samples.length})` : "none quiet",
      range(r.vsSdk),
      r.traffic === "valid" ? `÷ bridge ≥ ${r.target}` : `÷ SDK ≥ ${r.target}`,
      r.pass ? "PASS" : "MISS",
    ]),
    [1, 2, 3, 4],
  );
  const latency = table(
    ["workload", "SDK alone p50 / p99 ms", "bridge p50 / p99 ms", "gated p50 / p99 ms", "status SDK alone / bridge / gated"],
    results.map((r) => [
      r.label,
      `${ms(r.sdk.p50Ms)} / ${ms(r.sdk.p99Ms)}`,
      `${ms(r.bridge.p50Ms)} / ${ms(r.bridge.p99Ms)}`,
      `${ms(r.gated.p50Ms)} / ${ms(r.gated.p99Ms)}`,
      `${statuses(r.sdk)} / ${statuses(r.bridge)} / ${statuses(r.gated)}`,
    ]),
  );
  const bound = loadBound();
  const load = results.map((r) => `- ${r.label}: ${r.load.map((l) => `${l.toFixed(2)}${l > bound ? "*" : ""}`).join(" ")}`);
  return [
    main,
    "",
    latency,
    "",
    `1-minute load average at the start of each round (* = under load: above ${bound}, the cores + 1):`,
    ...load,
  ].join("\n");
}

/** The telemetry rows: each workload's req/s without telemetry, with it and no SDK, with the SDK recording. */
export function telemetryTable(results: WorkloadFlood[]): string {
  const rps = (s: Spread) => s.median.toFixed(0);
  const range = (s: Spread) => `${formatRatio(s.median)} [${formatRatio(s.min)}–${formatRatio(s.max)}]`;
  return table(
    [
      "workload",
      "gated req/s",
      "+ telemetry, no SDK req/s",
      "+ telemetry, SDK req/s",
      "no SDK ÷ gated med [min–max]",
      "SDK ÷ gated med [min–max]",
      "SDK ÷ same process untraced",
      "server CPU µs/req gated, no SDK, SDK",
      "CPU/req no SDK ÷ gated, SDK ÷ gated, SDK ÷ untraced",
      "p50 / p99 ms gated, no SDK, SDK",
      "target",
      "result",
    ],
    results.map((r) => [
      r.label,
      rps(r.gated.reqPerSec),
      rps(r.otelNoop.reqPerSec),
      rps(r.otelSdk.reqPerSec),
      range(r.noopVsGated),
      range(r.sdkVsGated),
      range(r.sdkVsUntraced),
      [r.gated, r.otelNoop, r.otelSdk].map((v) => (v.cpuUsPerRequest === undefined ? "n/a" : v.cpuUsPerRequest.toFixed(0))).join(", "),
      [cpuRatio(r.otelNoop, r.gated), cpuRatio(r.otelSdk, r.gated), cpuRatio(r.otelSdk, r.sdkUntraced)].join(", "),
      [r.gated, r.otelNoop, r.otelSdk].map((v) => `${v.p50Ms.toFixed(2)}/${v.p99Ms.toFixed(2)}`).join(", "),
      `no SDK ÷ gated ≥ ${TELEMETRY_NOOP_TARGET}`,
      r.telemetryPass ? "PASS" : "MISS",
    ]),
    [1, 2, 3],
  );
}

function cpuRatio(of: VariantFlood, base: VariantFlood): string {
  return of.cpuUsPerRequest === undefined || base.cpuUsPerRequest === undefined
    ? "n/a"
    : formatRatio(of.cpuUsPerRequest / base.cpuUsPerRequest);
}
