/**
 * @module live-cost: what `wymcp proxy --ui` costs per request in the proxy's own CPU time and garbage collection,
 * measures that barely move with the machine's other load: the proxy without `--ui`, with `--ui` and no page, and
 * with one page (an SSE client here reading /events to its end), or with `--record` to a file (`record`), on valid
 * tools/call in interleaved rounds.
 * Each proxy preloads bench/live-cost-stats.mjs, which answers SIGUSR2 with its process.cpuUsage() and its GC counts
 * and times so far. Run it after `npm run build` (the proxies run dist/cli.js):
 *   npx tsx bench/live-cost.ts [--rounds 6] [--round-ms 2000] [--variants plain,ui,page] [--node-arg=--cpu-prof ...]
 *     [--gc-trace DIR]   (each proxy's --trace-gc-nvp lines into DIR/<variant>.gc)
 *     [--base DIR]       (adds ui0 and page0: the same two from DIR's build, another checkout, in the same rounds;
 *                         record0 is record's, when asked for in --variants)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchExample } from "../examples/launch.js";
import { flood, type Workload, workloads } from "./http.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const STATS = fileURLToPath(new URL("live-cost-stats.mjs", import.meta.url));
const VARIANTS = ["plain", "ui", "page", "ui0", "page0", "record", "record0"] as const;
type Variant = (typeof VARIANTS)[number];

interface Stats {
  seq: number;
  cpu: { user: number; system: number };
  gc: Record<"minor" | "major" | "incremental" | "weakcb", { n: number; ms: number }>;
  used: number;
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1]! : fallback;
}

const rounds = Number(option("rounds", "6"));
const roundMs = Number(option("round-ms", "2000"));
const connections = Number(option("connections", "8"));
const base = option("base", "");
const variants = option("variants", (base ? VARIANTS.slice(0, 5) : VARIANTS.slice(0, 3)).join(",")).split(",") as Variant[];
const nodeArgs = process.argv.filter((a) => a.startsWith("--node-arg=")).map((a) => a.slice("--node-arg=".length));
const gcTrace = process.argv.includes("--gc-trace") ? option("gc-trace", "") : undefined;
const statsDir = join(tmpdir(), `live-cost-${process.pid}`);
mkdirSync(statsDir, { recursive: true });

interface Proxy {
  variant: Variant;
  child: ChildProcess;
  url: URL;
  page: string | undefined;
  stderr: () => string;
}

async function startProxy(upstream: URL, variant: Variant): Promise<Proxy> {
  const ui =
    variant === "plain" ? [] : variant.startsWith("record") ? ["--record", join(statsDir, `${variant}.jsonl`)] : ["--ui", "127.0.0.1:0"];
  const cli = variant.endsWith("0") ? join(base, "dist/cli.js") : "dist/cli.js";
  const trace = gcTrace === undefined ? [] : ["--trace-gc", "--trace-gc-nvp"];
  if (gcTrace !== undefined) mkdirSync(gcTrace, { recursive: true });
  const out = gcTrace === undefined ? "ignore" : openSync(join(gcTrace, `${variant}.gc`), "w");
  const child = spawn(
    process.execPath,
    [...nodeArgs, ...trace, "--import", STATS, cli, "proxy", "--upstream", upstream.href, "--listen", "127.0.0.1:0", ...ui],
    { cwd: ROOT, env: { ...process.env, GCSTATS_DIR: statsDir }, stdio: ["ignore", out, "pipe"] },
  );
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  process.once("exit", () => child.kill("SIGKILL"));
  const began = Date.now();
  for (;;) {
    const url = /listening on (http:\/\/[^\s,]+)|"event":"listening","url":"(http:\/\/[^"]+)"/.exec(stderr);
    const page = /live page at (http:\/\/\S+)/.exec(stderr);
    if (url && (variant === "plain" || variant.startsWith("record") || page))
      return { variant, child, url: new URL((url[1] ?? url[2])!), page: page?.[1], stderr: () => stderr };
    if (child.exitCode !== null || Date.now() - began > 15_000) throw new Error(`proxy did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** An SSE client reading /events to its end, counting the rows. */
function follow(page: string): { rows: () => number; close: () => void } {
  let rows = 0;
  const req = http.get(new URL("events", page), (res) => {
    res.setEncoding("utf8");
    res.on("data", (text: string) => {
      // A row's event opens with its JSON; a text sent apart follows on data lines of its own.
      for (let at = text.indexOf('data: {"seq":'); at >= 0; at = text.indexOf('data: {"seq":', at + 6)) rows++;
    });
  });
  req.on("error", () => undefined);
  return { rows: () => rows, close: () => req.destroy() };
}

const lastSeq = new Map<number, number>();
/** The proxy's own figures so far: asked by SIGUSR2, read from the file it writes. */
async function stats(proxy: Proxy): Promise<Stats> {
  const pid = proxy.child.pid!;
  const file = join(statsDir, `stats-${pid}.json`);
  const last = lastSeq.get(pid) ?? 0;
  proxy.child.kill("SIGUSR2");
  for (let i = 0; i < 1000; i++) {
    if (existsSync(file)) {
      try {
        const read = JSON.parse(readFileSync(file, "utf8")) as Stats;
        if (read.seq > last) {
          lastSeq.set(pid, read.seq);
          return read;
        }
      } catch {
        // Being written: read again.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`no stats from ${proxy.variant}`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const upstream = await launchExample({ env: { WYMCP_GATE: "off" } });
  const proxies: Proxy[] = [];
  let reader: { rows: () => string; close: () => void } | undefined;
  try {
    for (const v of variants) proxies.push(await startProxy(upstream.url, v));
    const readers = proxies.filter((p) => p.variant.startsWith("page")).map((p) => follow(p.page!));
    reader = {
      rows: () => readers.map((r) => r.rows()).join(" + "),
      close: () => {
        for (const r of readers) r.close();
      },
    };
    const valid: Workload = workloads().find((w) => w.key === "tools-call")!;
    const agents = new Map(proxies.map((p) => [p.variant, new http.Agent({ keepAlive: true, maxSockets: connections })]));
    for (const p of proxies) await flood(agents.get(p.variant)!, p.url, valid, 2000, connections);
    const rows: Record<string, { req: number; cpuUs: number; minor: number; major: number; gcMs: number; perRound: number[] }> = {};
    for (const p of proxies) rows[p.variant] = { req: 0, cpuUs: 0, minor: 0, major: 0, gcMs: 0, perRound: [] };
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      loads.push(loadavg()[0]!);
      for (let i = 0; i < proxies.length; i++) {
        const p = proxies[(i + round) % proxies.length]!;
        const before = await stats(p);
        const f = await flood(agents.get(p.variant)!, p.url, valid, roundMs, connections);
        // The page's rows of this round are judged within its batching delay: wait for them before reading the CPU.
        await new Promise((resolve) => setTimeout(resolve, 150));
        const after = await stats(p);
        const cpu = after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system;
        const r = rows[p.variant]!;
        const n = f.latencies.length;
        r.req += n;
        r.cpuUs += cpu;
        r.perRound.push(cpu / n);
        r.minor += after.gc.minor.n - before.gc.minor.n;
        r.major += after.gc.major.n + after.gc.incremental.n - before.gc.major.n - before.gc.incremental.n;
        r.gcMs +=
          after.gc.minor.ms +
          after.gc.major.ms +
          after.gc.incremental.ms -
          before.gc.minor.ms -
          before.gc.major.ms -
          before.gc.incremental.ms;
      }
    }
    for (const agent of agents.values()) agent.destroy();
    console.log(`load (1 min) per round: ${loads.map((l) => l.toFixed(2)).join(" ")}`);
    for (const p of proxies) {
      const r = rows[p.variant]!;
      console.log(
        `${p.variant.padEnd(6)} ${r.req} req; CPU µs/req median ${median(r.perRound).toFixed(1)} pooled ${(r.cpuUs / r.req).toFixed(1)} [${r.perRound.map((x) => x.toFixed(0)).join(" ")}]; ` +
          `scavenges/1k req ${((r.minor * 1000) / r.req).toFixed(2)}, major ${r.major}, GC µs/req ${((r.gcMs * 1000) / r.req).toFixed(1)}`,
      );
    }
    if (reader) console.log(`page rows read: ${reader.rows()}`);
  } finally {
    reader?.close();
    for (const p of proxies) await stop(p.child);
    await upstream.stop();
    rmSync(statsDir, { recursive: true, force: true });
  }
}

await main();
