/**
 * @module `npm run bench -- --proxy`: `wymcp proxy` and `wymcp stdio` (the built bin, as installed) against their own
 * pass-through mode (the same process, nothing judged) and against no wymcp at all, in interleaved rounds of one run:
 * - HTTP: examples/server.ts with the SDK alone (WYMCP_GATE=off) as the upstream; valid traffic through the proxy ÷
 *   the same proxy with validation off (target ≥ 0.95), invalid traffic through the proxy ÷ straight to the upstream (≥ 3);
 * - stdio: tools/call lines per second through `wymcp stdio` ÷ `wymcp stdio --pass-through`, a bare pipe (≥ 0.9), in front
 *   of the official SDK's McpServer over stdio (bench/stdio-server.mjs);
 * - memory: the resident set of each, sampled under steady mixed traffic (valid, invalid, junk) for `memorySeconds`
 *   after a warm-up of the same traffic (a tenth of that for the proxy, which carried the rounds; as long for the
 *   fresh stdio process); flat when the median of the second half is within 10 % of the first half's;
 * - `--otel`: the same proxy recording a span per message and the metrics, exported over OTLP/HTTP (protobuf, the SDK's
 *   defaults otherwise) to a loopback sink that reads and drops every export; ÷ the proxy without it, reported.
 * - `--tools FILE`: the same proxy knowing the upstream's tools (its own tools/list answer), so that every valid
 *   tools/call is judged against the tool's inputSchema too; ÷ the proxy without them (`--no-learn-tools`), ≥ 0.95.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { launchExample, launchProxy, type LaunchedProxy } from "../examples/launch.js";
import { flood, loadBound, percentile, post, workloads, type Workload } from "./http.js";
import { type ListenerBench, type ListenerBenchSettings, listenerTable, runListenerBench } from "./listener.js";
import { type LiveBench, type LiveBenchSettings, liveTable, runLiveBench } from "./live.js";
import { balancedOrder, balancedRounds, formatRatio, spread, table, type Spread } from "./measure.js";

export interface ProxyBenchSettings {
  rounds: number;
  roundMs: number;
  warmupMs: number;
  connections: number;
  /** Requests a stdio client keeps in flight. */
  window: number;
  memorySeconds: number;
  /** Keep-alive client connections held open and idle for the idle-socket figure. */
  idleSockets: number;
  /** The live page's runs (bench/live.ts): messages through each proxy of its memory run, rows the page holds. */
  liveMessages: number;
  /** The longest wait, after the live memory run's traffic, for V8 to collect in each proxy. */
  liveSettleMs: number;
  pageRows: number;
  /**
   * The live page's throughput rounds: more than the others', as its budgets are 2 % and 5 % from 1 and a round's ratio
   * moves by more than that on a shared host (the median of 9 moved ±3 % from run to run).
   */
  liveRounds: number;
  /** The listener's run (bench/listener.ts): readers that never read, and the exchanges that fill the ring first. */
  listenerReaders: number;
  listenerFillCalls: number;
}

const HTTP_VARIANTS = ["proxy", "otel", "tools", "pass-through", "direct"] as const;
type HttpVariant = (typeof HTTP_VARIANTS)[number];

export interface ProxyWorkload {
  key: string;
  label: string;
  traffic: "valid" | "invalid";
  reqPerSec: Record<HttpVariant, Spread>;
  /** CPU time per request, µs: of the relay (the proxy process; none direct), and of every process on the path. */
  relayCpuUs: Record<HttpVariant, Spread>;
  totalCpuUs: Record<HttpVariant, Spread>;
  p50Ms: Record<HttpVariant, number>;
  statuses: Record<HttpVariant, Record<string, number>>;
  /** proxy ÷ pass-through per round (valid traffic's target), proxy ÷ direct per round (invalid traffic's). */
  vsPassThrough: Spread;
  vsDirect: Spread;
  /** proxy --otel ÷ proxy per round: what recording and exporting costs. */
  otelVsProxy: Spread;
  /** proxy --tools ÷ proxy per round: what judging each call by the upstream's tools costs (valid traffic: ≥ 0.95). */
  toolsVsProxy: Spread;
  /**
   * `JSON.parse` of the workload's body in the bench process, µs: the part of the proxy's work that judging any body
   * needs (the pass-through never parses), and the ratio the proxy could reach if that were all it did.
   */
  parseUs: number;
  parseCeiling: number;
  target: number;
  pass: boolean;
  load: number[];
}

const STDIO_VARIANTS = ["gated", "pass-through", "direct"] as const;

/**
 * The interleaved rounds the proxy's and stdio's variants run: `settings.rounds` made whole cycles of their balanced
 * order (one round stays one, for `--quick`).
 */
export function roundsOf(settings: { rounds: number }): { http: number; stdio: number } {
  if (settings.rounds <= 1) return { http: settings.rounds, stdio: settings.rounds };
  return { http: balancedRounds(HTTP_VARIANTS.length, settings.rounds), stdio: balancedRounds(STDIO_VARIANTS.length, settings.rounds) };
}
type StdioVariant = (typeof STDIO_VARIANTS)[number];

export interface StdioBench {
  linesPerSec: Record<StdioVariant, Spread>;
  /** CPU time of the relay process per line, µs (none direct). */
  relayCpuUs: Record<StdioVariant, Spread>;
  vsPassThrough: Spread;
  vsDirect: Spread;
  target: number;
  pass: boolean;
  /** 1-minute load average at the start of each round. */
  load: number[];
}

export interface MemoryRun {
  face: "proxy" | "stdio";
  /** Seconds of the same traffic before the sampled window, its samples kept apart. */
  warmupSeconds: number;
  warmupRssKiB: number[];
  seconds: number;
  messages: number;
  /** Resident set size samples over the window, KiB, one per half second. */
  rssKiB: number[];
  firstHalfKiB: number;
  secondHalfKiB: number;
  growth: number;
  pass: boolean;
}

/** The proxy's resident set with `sockets` keep-alive client connections open and idle, each after one answered request. */
export interface IdleSockets {
  sockets: number;
  /** How many were still open (not closed by either side) when the resident set was read. */
  open: number;
  /** Median RSS over half a second before the connections opened, and the largest of three reads once all were idle, KiB. */
  beforeKiB: number;
  idleKiB: number;
  costKiB: number;
  /** 1-minute load average when the connections opened. */
  load: number;
}

export interface ProxyBenchResults {
  http: ProxyWorkload[];
  stdio: StdioBench;
  memory: MemoryRun[];
  idle: IdleSockets;
  live: LiveBench;
  listener: ListenerBench;
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

export async function runProxyBench(root: string, settings: ProxyBenchSettings, log: (line: string) => void): Promise<ProxyBenchResults> {
  const upstream = await launchExample({ env: { WYMCP_GATE: "off" } });
  const sink = await otlpSink();
  const proxies: LaunchedProxy[] = [];
  const dir = mkdtempSync(join(tmpdir(), "wymcp-bench-tools-"));
  try {
    // The proxy without the upstream's tools does not learn them from the tools/list workload either.
    const proxy = await launchProxy(upstream.url, { args: ["--no-learn-tools"] });
    const toolsFile = join(dir, "tools.json");
    writeFileSync(toolsFile, await toolsListOf(upstream.url));
    const tools = await launchProxy(upstream.url, { args: ["--tools", toolsFile, "--no-learn-tools"] });
    const otel = await launchProxy(upstream.url, {
      args: ["--otel", "--no-learn-tools"],
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint, OTEL_SERVICE_NAME: "bench", OTEL_LOGS_EXPORTER: "none" },
    });
    const passThrough = await launchProxy(upstream.url, { args: ["--pass-through"] });
    proxies.push(proxy, otel, tools, passThrough);
    const urls: Record<HttpVariant, URL> = {
      proxy: proxy.url,
      otel: otel.url,
      tools: tools.url,
      "pass-through": passThrough.url,
      direct: upstream.url,
    };
    const relays: Record<HttpVariant, number | undefined> = {
      proxy: proxy.child.pid,
      otel: otel.child.pid,
      tools: tools.child.pid,
      "pass-through": passThrough.child.pid,
      direct: undefined,
    };
    const http = await httpRounds(urls, { upstream: upstream.pid, relays }, settings, log);
    const stdio = await stdioRounds(root, settings, log);
    const memory = [await proxyMemory(proxy, settings, log), await stdioMemory(root, settings, log)];
    // A proxy of its own: the one above carries the heap of a minute of mixed traffic, which the collector may give
    // back at any moment and so hide (or inflate) what the idle connections cost.
    const fresh = await launchProxy(upstream.url);
    proxies.push(fresh);
    const idle = await idleSockets(fresh, settings.idleSockets, log);
    const live = await runLiveBench(upstream.url, liveSettings(settings), log);
    const listener = await runListenerBench(upstream.url, listenerSettings(settings), log);
    return { http, stdio, memory, idle, live, listener };
  } finally {
    for (const p of proxies) await p.stop();
    await upstream.stop();
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The upstream's own tools/list answer (2026-07-28), as `--tools` reads it. */
async function toolsListOf(url: URL): Promise<string> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } }),
  });
  const text = await response.text();
  const json = text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)?.[1];
  if (!json || !(JSON.parse(json) as { result?: { tools?: unknown[] } }).result?.tools?.length)
    throw new Error(`the upstream listed no tools: ${text.slice(0, 200)}`);
  return json;
}

/** A loopback OTLP/HTTP endpoint that reads every export whole and answers it, keeping nothing. */
async function otlpSink(): Promise<{ endpoint: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.once("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** CPU time a process has used so far, in µs (from /proc: clock ticks of 10 ms). */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function selfCpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** Median over 7 rounds of `JSON.parse(body)`, µs, after a warm-up; each round at least 20 ms. */
function parseMicros(body: string): number {
  const once = () => JSON.parse(body) as unknown;
  for (let i = 0; i < 200; i++) once();
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    let n = 0;
    const began = performance.now();
    do {
      for (let i = 0; i < 50; i++) once();
      n += 50;
    } while (performance.now() - began < 20);
    rounds.push(((performance.now() - began) * 1000) / n);
  }
  return spread(rounds).median;
}

/**
 * A keep-alive agent whose idle sockets close after 4 s, a second before the servers' own 5 s (Node's default): on a
 * loaded machine a variant's sockets can sit idle for seconds while the others run, and a request sent on a socket the
 * server is closing at that moment fails the run ("socket hang up", ECONNRESET) for no fault of the server's.
 */
function benchAgent(connections: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: connections, timeout: 4_000 });
}

async function httpRounds(
  urls: Record<HttpVariant, URL>,
  pids: { upstream: number; relays: Record<HttpVariant, number | undefined> },
  settings: ProxyBenchSettings,
  log: (line: string) => void,
): Promise<ProxyWorkload[]> {
  const agents = Object.fromEntries(HTTP_VARIANTS.map((v) => [v, benchAgent(settings.connections)])) as Record<HttpVariant, http.Agent>;
  const rounds = roundsOf(settings).http;
  try {
    const results: ProxyWorkload[] = [];
    for (const w of workloads()) {
      log(`proxy: ${w.label}`);
      const rps = Object.fromEntries(HTTP_VARIANTS.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
      const lat = Object.fromEntries(HTTP_VARIANTS.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
      const statuses = Object.fromEntries(HTTP_VARIANTS.map((v) => [v, {} as Record<string, number>])) as Record<
        HttpVariant,
        Record<string, number>
      >;
      const relayCpu = Object.fromEntries(HTTP_VARIANTS.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
      const totalCpu = Object.fromEntries(HTTP_VARIANTS.map((v) => [v, [] as number[]])) as Record<HttpVariant, number[]>;
      const load: number[] = [];
      for (const v of HTTP_VARIANTS) await flood(agents[v], urls[v], w, settings.warmupMs, settings.connections);
      for (let round = 0; round < rounds; round++) {
        load.push(loadavg()[0]!);
        const order = balancedOrder(HTTP_VARIANTS, round);
        for (const v of order) {
          const relay = pids.relays[v];
          const before = { upstream: cpuUs(pids.upstream), relay: relay ? cpuUs(relay) : 0, client: selfCpuUs() };
          const f = await flood(agents[v], urls[v], w, settings.roundMs, settings.connections);
          const n = f.latencies.length;
          const relayUs = relay ? cpuUs(relay) - before.relay : 0;
          relayCpu[v].push(relayUs / n);
          totalCpu[v].push((cpuUs(pids.upstream) - before.upstream + relayUs + selfCpuUs() - before.client) / n);
          rps[v].push(f.reqPerSec);
          lat[v].push(...f.latencies);
          for (const [s, n] of Object.entries(f.statuses)) statuses[v][s] = (statuses[v][s] ?? 0) + n;
        }
      }
      const ratio = (base: HttpVariant) => spread(rps.proxy.map((p, i) => p / rps[base][i]!));
      const vsPassThrough = ratio("pass-through");
      const vsDirect = ratio("direct");
      const otelVsProxy = spread(rps.otel.map((o, i) => o / rps.proxy[i]!));
      const toolsVsProxy = spread(rps.tools.map((t, i) => t / rps.proxy[i]!));
      const target = w.traffic === "valid" ? 0.95 : 3;
      const parseUs = parseMicros(w.body);
      const passThroughUs = spread(totalCpu["pass-through"]).median;
      results.push({
        parseUs,
        parseCeiling: passThroughUs / (passThroughUs + parseUs),
        key: w.key,
        label: w.label,
        traffic: w.traffic,
        reqPerSec: Object.fromEntries(HTTP_VARIANTS.map((v) => [v, spread(rps[v])])) as Record<HttpVariant, Spread>,
        relayCpuUs: Object.fromEntries(HTTP_VARIANTS.map((v) => [v, spread(relayCpu[v])])) as Record<HttpVariant, Spread>,
        totalCpuUs: Object.fromEntries(HTTP_VARIANTS.map((v) => [v, spread(totalCpu[v])])) as Record<HttpVariant, Spread>,
        p50Ms: Object.fromEntries(
          HTTP_VARIANTS.map((v) => [
            v,
            percentile(
              lat[v].sort((a, b) => a - b),
              50,
            ),
          ]),
        ) as Record<HttpVariant, number>,
        statuses,
        vsPassThrough,
        vsDirect,
        otelVsProxy,
        toolsVsProxy,
        target,
        pass: (w.traffic === "valid" ? vsPassThrough.median : vsDirect.median) >= target,
        load,
      });
    }
    return results;
  } finally {
    for (const agent of Object.values(agents)) agent.destroy();
  }
}

/** A stdio client of one server process: writes request lines, counts the answers. */
class StdioClient {
  readonly child: ChildProcess;
  private buffered = "";
  private waiting = new Map<number, () => void>();
  private nextId = 10;

  constructor(command: string[]) {
    this.child = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
    this.child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      this.buffered += text;
      let nl = this.buffered.indexOf("\n");
      while (nl >= 0) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        nl = this.buffered.indexOf("\n");
        const id = /"id":(\d+)/.exec(line)?.[1];
        const done = id === undefined ? undefined : this.waiting.get(Number(id));
        if (done) {
          this.waiting.delete(Number(id));
          done();
        }
      }
    });
  }

  /** Sends one line and resolves when the line with its id comes back. */
  request(line: (id: number) => string): Promise<void> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin!.write(line(id));
    });
  }

  async handshake(): Promise<void> {
    await this.request(
      (id) =>
        `${JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } } })}\n`,
    );
    this.child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  }

  /**
   * Keeps `window` requests in flight for `ms`, each slot sending at least one (as bench/http.ts's flood); resolves to
   * how many were answered, and how many per second.
   */
  async flood(line: (id: number) => string, ms: number, window: number): Promise<{ answered: number; perSec: number }> {
    let answered = 0;
    const started = performance.now();
    const deadline = started + ms;
    const loop = async () => {
      do {
        await this.request(line);
        answered++;
      } while (performance.now() < deadline);
    };
    await Promise.all(Array.from({ length: window }, loop));
    return { answered, perSec: (answered * 1000) / (performance.now() - started) };
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once("close", resolve));
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

const toolsCall = (id: number) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: META, name: "echo", arguments: { text: "hello" } } })}\n`;

function stdioCommand(root: string, variant: StdioVariant): string[] {
  const server = [process.execPath, join(root, "bench", "stdio-server.mjs")];
  const cli = join(root, "dist", "cli.js");
  if (variant === "direct") return server;
  return [process.execPath, cli, "stdio", ...(variant === "pass-through" ? ["--pass-through"] : []), "--", ...server];
}

/** The live page's settings (bench/live.ts) out of the proxy bench's: its own rounds, messages, rows and settle time. */
export function liveSettings(settings: ProxyBenchSettings): LiveBenchSettings {
  return {
    ...settings,
    rounds: settings.liveRounds,
    memoryMessages: settings.liveMessages,
    pageRows: settings.pageRows,
    settleMs: settings.liveSettleMs,
  };
}

/**
 * The listener's settings (bench/listener.ts) out of the proxy bench's: twice the rounds, each twice as long (a p99 per
 * round moves more from round to round than a rate does), its readers, a full ring.
 */
export function listenerSettings(settings: ProxyBenchSettings): ListenerBenchSettings {
  return {
    rounds: settings.rounds <= 1 ? settings.rounds : 2 * settings.rounds,
    roundMs: 2 * settings.roundMs,
    warmupMs: settings.warmupMs,
    connections: settings.connections,
    readers: settings.listenerReaders,
    maxRows: 10_000,
    fillCalls: settings.listenerFillCalls,
    holdMs: 10_000,
  };
}

/** The stdio rounds alone (`npm run bench -- --proxy --only stdio` runs only these). */
export async function stdioRounds(root: string, settings: ProxyBenchSettings, log: (line: string) => void): Promise<StdioBench> {
  log("stdio: tools/call lines through wymcp stdio, its pass-through, and straight to the server");
  const clients = Object.fromEntries(STDIO_VARIANTS.map((v) => [v, new StdioClient(stdioCommand(root, v))])) as Record<
    StdioVariant,
    StdioClient
  >;
  try {
    for (const v of STDIO_VARIANTS) await clients[v].handshake();
    for (const v of STDIO_VARIANTS) await clients[v].flood(toolsCall, settings.warmupMs, settings.window);
    const lps = Object.fromEntries(STDIO_VARIANTS.map((v) => [v, [] as number[]])) as Record<StdioVariant, number[]>;
    const relayCpu = Object.fromEntries(STDIO_VARIANTS.map((v) => [v, [] as number[]])) as Record<StdioVariant, number[]>;
    const load: number[] = [];
    const rounds = roundsOf(settings).stdio;
    for (let round = 0; round < rounds; round++) {
      load.push(loadavg()[0]!);
      const order = balancedOrder(STDIO_VARIANTS, round);
      for (const v of order) {
        // The direct variant's child is the server itself: no relay.
        const relay = v === "direct" ? undefined : clients[v].child.pid!;
        const before = relay ? cpuUs(relay) : 0;
        const f = await clients[v].flood(toolsCall, settings.roundMs, settings.window);
        lps[v].push(f.perSec);
        relayCpu[v].push(relay ? (cpuUs(relay) - before) / f.answered : 0);
      }
    }
    const vsPassThrough = spread(lps.gated.map((g, i) => g / lps["pass-through"][i]!));
    const vsDirect = spread(lps.gated.map((g, i) => g / lps.direct[i]!));
    return {
      linesPerSec: Object.fromEntries(STDIO_VARIANTS.map((v) => [v, spread(lps[v])])) as Record<StdioVariant, Spread>,
      relayCpuUs: Object.fromEntries(STDIO_VARIANTS.map((v) => [v, spread(relayCpu[v])])) as Record<StdioVariant, Spread>,
      vsPassThrough,
      vsDirect,
      target: 0.9,
      pass: vsPassThrough.median >= 0.9,
      load,
    };
  } finally {
    await Promise.all(STDIO_VARIANTS.map((v) => clients[v].close()));
  }
}

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
}

/**
 * Samples `pid`'s resident set every 500 ms while `traffic` runs for `warmupSeconds` and then `seconds`; the growth is
 * judged on the second span alone. A warm-up is needed where the process is fresh: V8 sizes its young generation up as
 * objects survive its scavenges, by doubling, and the last doubling adds 16 MiB to the heap at once, tens of seconds
 * into steady traffic, with the live objects unchanged. That step is the heap settling, not memory kept.
 */
async function sampleWhile(
  face: MemoryRun["face"],
  pid: number,
  spans: { warmupSeconds: number; seconds: number },
  traffic: (deadline: number) => Promise<number>,
): Promise<MemoryRun> {
  const { warmupSeconds, seconds } = spans;
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssKiB(pid)), 500);
  const messages = await traffic(performance.now() + (warmupSeconds + seconds) * 1000);
  clearInterval(timer);
  const warm = Math.min(samples.length - 1, Math.round(warmupSeconds * 2));
  const window = samples.slice(warm);
  const half = Math.max(1, window.length >> 1);
  const firstHalfKiB = spread(window.slice(0, half)).median;
  const secondHalfKiB = spread(window.slice(half).length ? window.slice(half) : window).median;
  const growth = secondHalfKiB / firstHalfKiB;
  return {
    face,
    warmupSeconds,
    warmupRssKiB: samples.slice(0, warm),
    seconds,
    messages,
    rssKiB: window,
    firstHalfKiB,
    secondHalfKiB,
    growth,
    pass: growth <= 1.1,
  };
}

async function proxyMemory(proxy: LaunchedProxy, settings: ProxyBenchSettings, log: (line: string) => void): Promise<MemoryRun> {
  log(`memory: wymcp proxy under mixed traffic for ${settings.memorySeconds / 10} + ${settings.memorySeconds} s`);
  const agent = benchAgent(settings.connections);
  const mixed: Workload[] = workloads();
  try {
    // This proxy has carried the throughput rounds (minutes of traffic): a tenth of the window warms it again.
    const spans = { warmupSeconds: settings.memorySeconds / 10, seconds: settings.memorySeconds };
    return await sampleWhile("proxy", proxy.child.pid!, spans, async (deadline) => {
      let sent = 0;
      do {
        for (const w of mixed) {
          const f = await flood(agent, proxy.url, w, 200, settings.connections);
          sent += f.latencies.length;
        }
      } while (performance.now() < deadline);
      return sent;
    });
  } finally {
    agent.destroy();
  }
}

async function stdioMemory(root: string, settings: ProxyBenchSettings, log: (line: string) => void): Promise<MemoryRun> {
  log(`memory: wymcp stdio under mixed lines for ${settings.memorySeconds} + ${settings.memorySeconds} s`);
  const client = new StdioClient(stdioCommand(root, "gated"));
  try {
    await client.handshake();
    const refused = (id: number) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: META, name: 5 } })}\n`;
    // A fresh process: the same traffic for as long as the window first, sampled apart.
    const spans = { warmupSeconds: settings.memorySeconds, seconds: settings.memorySeconds };
    return await sampleWhile("stdio", client.child.pid!, spans, async (deadline) => {
      let sent = 0;
      do {
        sent += (await client.flood(toolsCall, 200, settings.window)).answered;
        sent += (await client.flood(refused, 100, settings.window)).answered;
        // Junk, answered at most once a second, and responses, never answered: nothing to wait for.
        client.child.stdin!.write("not json\n".repeat(100));
        sent += 100;
      } while (performance.now() < deadline);
      return sent;
    });
  } finally {
    await client.close();
  }
}

/**
 * Opens `count` connections to a fresh proxy (after a warm-up of 100 requests on connections closed again), each sends
 * one valid tools/call and reads its answer (twenty at a time, so
 * that the proxy's own pool to the upstream stays small), and then they stay open and idle: the proxy's resident set
 * then, less its resident set before. Node closes an idle keep-alive connection after 5 s, so the figure is read
 * at once, and how many were still open is counted.
 */
async function idleSockets(proxy: LaunchedProxy, count: number, log: (line: string) => void): Promise<IdleSockets> {
  log(`memory: ${count} idle keep-alive client connections to wymcp proxy`);
  const pid = proxy.child.pid!;
  const sample = async (n: number) => {
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      samples.push(rssKiB(pid));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return samples;
  };
  const load = loadavg()[0]!;
  const body = toolsCall(1).trimEnd();
  const request =
    `POST ${proxy.url.pathname} HTTP/1.1\r\nHost: ${proxy.url.host}\r\nContent-Type: application/json\r\n` +
    "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const sockets: Socket[] = [];
  let open = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(Number(proxy.url.port), proxy.url.hostname);
      sockets.push(socket);
      let text = "";
      socket.setEncoding("latin1");
      socket.once("connect", () => {
        open++;
        socket.write(request);
      });
      socket.once("close", () => open--);
      socket.once("error", reject);
      const timer = setTimeout(() => reject(new Error("idle sockets: no answer within 30 s")), 30_000);
      socket.on("data", (data: string) => {
        text += data;
        const end = text.indexOf("\r\n\r\n");
        if (end < 0) return;
        const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1];
        // The answer is whole: its declared length read, or (chunked, an event stream) its last chunk.
        const whole = length === undefined ? text.endsWith("\r\n0\r\n\r\n") : text.length - end - 4 >= Number(length);
        if (!whole) return;
        clearTimeout(timer);
        if (!text.startsWith("HTTP/1.1 200")) return reject(new Error(`idle sockets: ${text.slice(0, 40)}`));
        resolve();
      });
    });
  try {
    // Warm-up: twenty connections' worth, closed again, so that the code paths and the pool to the upstream exist.
    for (let round = 0; round < 5; round++) await Promise.all(Array.from({ length: 20 }, one));
    for (const socket of sockets.splice(0)) socket.destroy();
    const beforeKiB = spread(await sample(5)).median;
    for (let at = 0; at < count; at += 20) await Promise.all(Array.from({ length: Math.min(20, count - at) }, one));
    const idleKiB = Math.max(...(await sample(3)));
    return { sockets: count, open, beforeKiB, idleKiB, costKiB: idleKiB - beforeKiB, load };
  } finally {
    for (const socket of sockets) socket.destroy();
  }
}

export function proxyTables(r: ProxyBenchResults): string {
  const bound = loadBound();
  const rps = (s: Spread) => s.median.toFixed(0);
  const range = (s: Spread) => `${formatRatio(s.median)} [${formatRatio(s.min)}–${formatRatio(s.max)}]`;
  const statuses = (s: Record<string, number>) => Object.keys(s).join(" ");
  const httpTable = table(
    [
      "workload",
      "direct req/s",
      "pass-through req/s",
      "proxy req/s",
      "proxy ÷ pass-through",
      "proxy ÷ direct",
      "target",
      "result",
      "status direct / pass / proxy",
    ],
    r.http.map((w) => [
      w.label,
      rps(w.reqPerSec.direct),
      rps(w.reqPerSec["pass-through"]),
      rps(w.reqPerSec.proxy),
      range(w.vsPassThrough),
      range(w.vsDirect),
      w.traffic === "valid" ? "÷ pass-through ≥ 0.95" : "÷ direct ≥ 3",
      w.pass ? "PASS" : "MISS",
      `${statuses(w.statuses.direct)} / ${statuses(w.statuses["pass-through"])} / ${statuses(w.statuses.proxy)}`,
    ]),
    [1, 2, 3],
  );
  const us = (x: Spread) => x.median.toFixed(0);
  const cpuTable = table(
    [
      "CPU µs per request (medians)",
      "relay: pass-through",
      "relay: proxy",
      "all: direct",
      "all: pass-through",
      "all: proxy",
      "all: pass-through ÷ proxy",
      "JSON.parse of the body",
      "ceiling: pass-through ÷ (pass-through + parse)",
    ],
    r.http.map((w) => [
      w.label,
      us(w.relayCpuUs["pass-through"]),
      us(w.relayCpuUs.proxy),
      us(w.totalCpuUs.direct),
      us(w.totalCpuUs["pass-through"]),
      us(w.totalCpuUs.proxy),
      formatRatio(w.totalCpuUs["pass-through"].median / w.totalCpuUs.proxy.median),
      w.parseUs.toFixed(w.parseUs < 10 ? 1 : 0),
      formatRatio(w.parseCeiling),
    ]),
    [1, 2, 3, 4, 5, 6, 7, 8],
  );
  const otelTable = table(
    [
      "proxy --otel (OTLP/HTTP to a loopback sink)",
      "proxy req/s",
      "proxy --otel req/s",
      "--otel ÷ proxy",
      "relay CPU µs/req: proxy, --otel",
      "relay CPU --otel ÷ proxy",
      "status --otel",
    ],
    r.http.map((w) => [
      w.label,
      rps(w.reqPerSec.proxy),
      rps(w.reqPerSec.otel),
      range(w.otelVsProxy),
      `${us(w.relayCpuUs.proxy)}, ${us(w.relayCpuUs.otel)}`,
      formatRatio(w.relayCpuUs.otel.median / w.relayCpuUs.proxy.median),
      statuses(w.statuses.otel),
    ]),
    [1, 2, 4, 5],
  );
  const toolsTable = table(
    [
      "proxy --tools (the upstream's tools known)",
      "proxy req/s",
      "proxy --tools req/s",
      "--tools ÷ proxy",
      "relay CPU µs/req: proxy, --tools",
      "target",
      "result",
      "status --tools",
    ],
    r.http.map((w) => [
      w.label,
      rps(w.reqPerSec.proxy),
      rps(w.reqPerSec.tools),
      range(w.toolsVsProxy),
      `${us(w.relayCpuUs.proxy)}, ${us(w.relayCpuUs.tools)}`,
      w.traffic === "valid" ? "≥ 0.95" : "",
      w.traffic === "valid" ? (w.toolsVsProxy.median >= 0.95 ? "PASS" : "MISS") : "",
      statuses(w.statuses.tools),
    ]),
    [1, 2],
  );
  const stdio = stdioTable(r.stdio);
  const mib = (kib: number) => (kib / 1024).toFixed(1);
  const memoryTable = table(
    [
      "memory under mixed traffic",
      "warm-up s",
      "warm-up max MiB",
      "seconds",
      "messages",
      "RSS first half MiB",
      "RSS second half MiB",
      "max MiB",
      "growth",
      "target",
      "result",
    ],
    r.memory.map((m) => [
      m.face === "proxy" ? "wymcp proxy" : "wymcp stdio",
      String(m.warmupSeconds),
      m.warmupRssKiB.length ? mib(Math.max(...m.warmupRssKiB)) : "-",
      String(m.seconds),
      String(m.messages),
      mib(m.firstHalfKiB),
      mib(m.secondHalfKiB),
      mib(Math.max(...m.rssKiB)),
      formatRatio(m.growth),
      "≤ 1.10×",
      m.pass ? "PASS" : "MISS",
    ]),
    [1, 2, 3, 4, 5, 6, 7],
  );
  const i = r.idle;
  const idleTable = table(
    ["idle keep-alive client connections", "open when read", "RSS before MiB", "RSS idle MiB", "cost MiB", "per connection KiB", "load"],
    [
      [
        `wymcp proxy, ${i.sockets} after one tools/call each`,
        String(i.open),
        mib(i.beforeKiB),
        mib(i.idleKiB),
        mib(i.costKiB),
        (i.costKiB / i.sockets).toFixed(1),
        i.load.toFixed(2),
      ],
    ],
    [1, 2, 3, 4, 5, 6],
  );
  const load = r.http.map((w) => `- ${w.label}: ${w.load.map((l) => `${l.toFixed(2)}${l > bound ? "*" : ""}`).join(" ")}`);
  return [
    httpTable,
    "",
    cpuTable,
    "",
    "CPU per request from /proc (10 ms ticks) over each round: the relay process alone, and every process on the path (client, relay, upstream). On a host whose cores are all busy, req/s follows the second: its pass-through ÷ proxy is what the proxy's own work allows. JSON.parse of the body is timed in the bench process (median of 7 rounds): judging a body needs it and the pass-through does none, so pass-through ÷ (pass-through + parse) is the most a validating proxy can reach on this host.",
    "",
    otelTable,
    "",
    "proxy --otel: the same proxy with --otel and the SDK's defaults (a batch span processor, metrics every 60 s, OTLP/HTTP protobuf), exporting to a loopback endpoint in the benchmark's process that reads each export and drops it; the relay's CPU includes building and sending the exports.",
    "",
    toolsTable,
    "",
    "proxy --tools: the same proxy given the upstream's own tools/list answer, so that each valid tools/call is also judged against the tool's inputSchema (compiled by wymcp compile's engine); both proxies run with --no-learn-tools.",
    "",
    stdio,
    "",
    memoryTable,
    "",
    idleTable,
    "",
    "Idle connections: each sends one valid tools/call through the proxy (twenty at a time) and reads its answer, then stays open; the proxy's RSS is read at once (Node closes an idle keep-alive connection after 5 s), the largest of three reads 100 ms apart, less the median before.",
    "",
    `1-minute load average at the start of each HTTP round (* = under load: above ${bound}, the cores + 1):`,
    ...load,
    "",
    liveTable(r.live),
    "",
    listenerTable(r.listener),
  ].join("\n");
}

/** The variants of `--proxy --only tools`: nothing judged, the proxy, its tools given, and its tools learned per caller. */
const TOOLS_VARIANTS = ["pass-through", "proxy", "tools", "learned"] as const;
type ToolsVariant = (typeof TOOLS_VARIANTS)[number];

/** `--proxy --only tools`: one valid workload's rounds in each variant, and the relay's CPU per request in each. */
export interface ProxyToolsWorkload {
  label: string;
  /**
   * A tools/call, judged by the learned tools: held to learning ÷ pass-through ≥ 0.95. A tools/list is learned
   * from at each answer (read, and a log line), which is reported only.
   */
  call: boolean;
  reqPerSec: Record<ToolsVariant, Spread>;
  /** Relay CPU µs per request: the median of the rounds, and over every round at once (the 10 ms ticks pooled). */
  relayCpuUs: Record<ToolsVariant, Spread>;
  pooledCpuUs: Record<ToolsVariant, number>;
  toolsVsProxy: Spread;
  learnedVsPassThrough: Spread;
  learnedVsTools: Spread;
  statuses: Record<ToolsVariant, string>;
  load: number[];
}

/** A bearer token of 1 KiB, the size of a common JWT access token: what a learning proxy hashes for each call. */
const BENCH_TOKEN = `Bearer ${"a1b2c3d4".repeat(128)}`;

/**
 * Only the proxy --tools table's rounds, on the valid workloads, each request carrying a 1 KiB bearer token: the
 * proxy's `--pass-through`, the proxy (`--no-learn-tools`), the same proxy given the upstream's own tools/list answer,
 * and the same proxy learning (the default), taught by that caller's own tools/list before the rounds, so that its
 * tools/call is judged by the tools learned for its key (hashed per call); in a balanced order. Nothing else of
 * `--proxy` runs (a minute or two, not five).
 */
export async function runProxyToolsBench(settings: ProxyBenchSettings, log: (line: string) => void): Promise<ProxyToolsWorkload[]> {
  const upstream = await launchExample({ env: { WYMCP_GATE: "off" } });
  const dir = mkdtempSync(join(tmpdir(), "wymcp-bench-tools-"));
  const launched: LaunchedProxy[] = [];
  const agents = Object.fromEntries(TOOLS_VARIANTS.map((v) => [v, benchAgent(settings.connections)])) as Record<ToolsVariant, http.Agent>;
  const perVariant = <T>(make: () => T) => Object.fromEntries(TOOLS_VARIANTS.map((v) => [v, make()])) as Record<ToolsVariant, T>;
  try {
    const toolsFile = join(dir, "tools.json");
    writeFileSync(toolsFile, await toolsListOf(upstream.url));
    const args: Record<ToolsVariant, string[]> = {
      "pass-through": ["--pass-through"],
      proxy: ["--no-learn-tools"],
      tools: ["--tools", toolsFile, "--no-learn-tools"],
      learned: [],
    };
    const variants = {} as Record<ToolsVariant, LaunchedProxy>;
    for (const v of TOOLS_VARIANTS) {
      variants[v] = await launchProxy(upstream.url, { args: args[v] });
      launched.push(variants[v]);
    }
    const valid = workloads()
      .filter((one) => one.traffic === "valid")
      .map((one) => ({ ...one, headers: { ...one.headers, Authorization: BENCH_TOKEN } }));
    // The caller's own list first: the learned proxy judges its calls from then on.
    const list = valid.find((one) => one.key === "tools-list")!;
    if ((await post(agents.learned, variants.learned.url, list)) !== 200) throw new Error("the learned proxy's tools/list failed");
    const results: ProxyToolsWorkload[] = [];
    for (const w of valid) {
      log(`proxy --tools and learning: ${w.label}`);
      const rps = perVariant(() => [] as number[]);
      const cpu = perVariant(() => [] as number[]);
      const pooled = perVariant(() => ({ us: 0, n: 0 }));
      const statuses = perVariant(() => new Set<string>());
      const load: number[] = [];
      for (const v of TOOLS_VARIANTS) await flood(agents[v], variants[v].url, w, settings.warmupMs, settings.connections);
      for (let round = 0; round < balancedRounds(TOOLS_VARIANTS.length, settings.rounds); round++) {
        load.push(loadavg()[0]!);
        for (const v of balancedOrder(TOOLS_VARIANTS, round)) {
          const before = cpuUs(variants[v].child.pid!);
          const f = await flood(agents[v], variants[v].url, w, settings.roundMs, settings.connections);
          const used = cpuUs(variants[v].child.pid!) - before;
          cpu[v].push(used / f.latencies.length);
          pooled[v].us += used;
          pooled[v].n += f.latencies.length;
          rps[v].push(f.reqPerSec);
          for (const status of Object.keys(f.statuses)) statuses[v].add(status);
        }
      }
      const ratio = (a: ToolsVariant, b: ToolsVariant) => spread(rps[a].map((x, i) => x / rps[b][i]!));
      results.push({
        label: w.label,
        call: w.key !== "tools-list",
        reqPerSec: perVariantOf((v) => spread(rps[v])),
        relayCpuUs: perVariantOf((v) => spread(cpu[v])),
        pooledCpuUs: perVariantOf((v) => pooled[v].us / pooled[v].n),
        toolsVsProxy: ratio("tools", "proxy"),
        learnedVsPassThrough: ratio("learned", "pass-through"),
        learnedVsTools: ratio("learned", "tools"),
        statuses: perVariantOf((v) => [...statuses[v]].join(" ")),
        load,
      });
    }
    return results;
  } finally {
    for (const agent of Object.values(agents)) agent.destroy();
    for (const p of launched) await p.stop();
    await upstream.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function perVariantOf<T>(value: (v: ToolsVariant) => T): Record<ToolsVariant, T> {
  return Object.fromEntries(TOOLS_VARIANTS.map((v) => [v, value(v)])) as Record<ToolsVariant, T>;
}

export function proxyToolsTable(results: ProxyToolsWorkload[]): string {
  const range = (s: Spread) => `${formatRatio(s.median)} [${formatRatio(s.min)}–${formatRatio(s.max)}]`;
  const each = (values: Record<ToolsVariant, number>) => TOOLS_VARIANTS.map((v) => values[v].toFixed(0)).join(", ");
  return table(
    [
      "valid workload, 1 KiB bearer token",
      "req/s: pass-through, proxy, --tools, learning",
      "--tools ÷ proxy",
      "learning ÷ pass-through",
      "learning ÷ --tools",
      "relay CPU µs/req (medians), same order",
      "pooled, same order",
      "load average",
      "target",
      "result",
      "status learning",
    ],
    results.map((w) => [
      w.label,
      each(perVariantOf((v) => w.reqPerSec[v].median)),
      range(w.toolsVsProxy),
      range(w.learnedVsPassThrough),
      range(w.learnedVsTools),
      each(perVariantOf((v) => w.relayCpuUs[v].median)),
      each(w.pooledCpuUs),
      `${Math.min(...w.load).toFixed(1)}–${Math.max(...w.load).toFixed(1)}`,
      w.call ? "--tools ÷ proxy ≥ 0.95; learning ÷ pass-through ≥ 0.95" : "--tools ÷ proxy ≥ 0.95",
      `${w.toolsVsProxy.median >= 0.95 ? "PASS" : "MISS"}${w.call ? `; ${w.learnedVsPassThrough.median >= 0.95 ? "PASS" : "MISS"}` : ""}`,
      w.statuses.learned,
    ]),
  );
}

/** The stdio row: lines per second of each variant, the ratios per round, and the relay's CPU per line. */
export function stdioTable(s: StdioBench): string {
  const rps = (x: Spread) => x.median.toFixed(0);
  const us = (x: Spread) => x.median.toFixed(0);
  const range = (x: Spread) => `${formatRatio(x.median)} [${formatRatio(x.min)}–${formatRatio(x.max)}]`;
  return table(
    [
      "stdio (modern tools/call lines)",
      "direct lines/s",
      "pass-through lines/s",
      "wymcp stdio lines/s",
      "÷ pass-through",
      "÷ direct",
      "target",
      "result",
      "relay CPU µs/line: pass-through / wymcp stdio",
    ],
    [
      [
        "SDK McpServer over stdio",
        rps(s.linesPerSec.direct),
        rps(s.linesPerSec["pass-through"]),
        rps(s.linesPerSec.gated),
        range(s.vsPassThrough),
        range(s.vsDirect),
        "÷ pass-through ≥ 0.9",
        s.pass ? "PASS" : "MISS",
        `${us(s.relayCpuUs["pass-through"])} / ${us(s.relayCpuUs.gated)}`,
      ],
    ],
    [1, 2, 3],
  );
}
