/**
 * @module the live page's listener, what reading it costs the proxy it watches; part of `npm run bench -- --proxy`.
 * A `wymcp proxy --ui` with no page open is filled to its ring's bound (32 Mi characters of message text, about ten
 * thousand messages), then:
 * - a read: the whole ring read as the page reads it (`/rows`, page after page until caught up), with one valid
 *   tools/call at a time through the proxy meanwhile: each call's latency, beside the same calls with no read;
 * - readers that never read: `readers` connections each send `GET /rows` and read nothing past the status line (in a
 *   process of their own, bench/rows-readers.mjs); the proxy's resident set while they are open, less before;
 * - the budget: valid tools/call rounds with and without those readers opened at each round's start, interleaved: the
 *   p99 latency with them ÷ without (target ≤ 1.10) and the resident set they add ÷ the ring's bound (≤ 2).
 * Standalone, against any checkout's build (its own examples and dist/):
 *   npx tsx bench/listener.ts [--readers 100] [--rounds 8] [--round-ms 1500] [--quick]
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { loadavg } from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { launchExample, launchProxy, type LaunchedProxy } from "../examples/launch.js";
import { percentile, post, type Workload } from "./http.js";
import { balancedOrder, balancedRounds, formatRatio, type Spread, spread, table } from "./measure.js";

export interface ListenerBenchSettings {
  rounds: number;
  roundMs: number;
  warmupMs: number;
  connections: number;
  /** Connections that each send `GET /rows` and never read the answer. */
  readers: number;
  /** The ring's bound on rows (`--ui-max-rows`); its bound on text is the default, 32 Mi characters. */
  maxRows: number;
  /** Exchanges sent to fill the ring before anything is measured. */
  fillCalls: number;
  /** The longest the readers that never read are held open while the resident set is read. */
  holdMs: number;
}

const READERS = fileURLToPath(new URL("rows-readers.mjs", import.meta.url));
/** The default bound on the text a live ring holds, UTF-16 units (src/inspect/ring.ts's DEFAULT_MAX_TEXT). */
const RING_TEXT_UNITS = 32 * 1024 * 1024;
/** The text each valid call carries (and its answer echoes): ten thousand messages of it fill the text bound. */
const CALL_TEXT = 3_300;

export interface ListenerBench {
  /** What the read found held: rows, and their text in UTF-16 units. */
  ring: { rows: number; textUnits: number; boundUnits: number };
  read: {
    /** Answers it took (pages), their bytes, and how long the whole read took. */
    pages: number;
    bytes: number;
    ms: number;
    /** Latency of the one-at-a-time calls with no read, and of those under way while the read was (ms). */
    idleMs: Spread;
    duringMs: Spread;
  };
  unread: {
    readers: number;
    statuses: Record<string, number>;
    beforeKiB: number;
    peakKiB: number;
    /** Connections the listener closed while the readers were held open (a reader cut). */
    /** The proxy's CPU time while they were held (their connections, requests and answers: no other traffic), ms. */
    cpuMs: number;
    cut: number;
    heldMs: number;
    /** The resident set they added ÷ the ring's bound (32 Mi characters, as 32 MiB). */
    ratio: number;
  };
  rounds: number;
  p99Ms: { none: Spread; readers: Spread };
  /** The p99 of every round's calls together, with readers and without. */
  pooledP99Ms: { none: number; readers: number };
  /** The proxy's CPU time per call in the rounds (the readers' own work included), µs. */
  relayCpuUs: { none: Spread; readers: Spread };
  ratio: Spread;
  /** The resident set at its highest in the rounds with readers and without, KiB. */
  rss: { noneKiB: number; readersKiB: number };
  roundStatuses: Record<string, number>;
  /** The calls' statuses in the rounds with readers and without (`error`: the connection failed). */
  callStatuses: { none: Record<string, number>; readers: Record<string, number> };
  load: { before: string; after: string };
  targets: { p99: number; rss: number };
  pass: { p99: boolean; rss: boolean };
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A valid modern tools/call of the example's echo tool, carrying `CALL_TEXT` characters (its answer echoes them). */
function bigCall(): Workload {
  return {
    key: "tools-call-3k",
    label: "valid tools/call, 3.3 K characters",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "tools/call",
      "Mcp-Name": "echo",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { _meta: META, name: "echo", arguments: { text: "x".repeat(CALL_TEXT) } },
    }),
    traffic: "valid",
  };
}

/** The process's CPU time so far (user and system), µs, from /proc (10 ms ticks). */
function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
}

function load(): string {
  return loadavg()
    .map((n) => n.toFixed(2))
    .join(" / ");
}

/** The live page's address, from the line the proxy logs once it serves it. */
async function pageOf(proxy: LaunchedProxy): Promise<URL> {
  const began = Date.now();
  for (;;) {
    const found = /live page at (http:\/\/\S+)/.exec(proxy.stderr());
    if (found) return new URL(found[1]!);
    if (Date.now() - began > 15_000) throw new Error(`no live page line: ${proxy.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function get(url: URL): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.once("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.once("error", reject);
      })
      .once("error", reject);
  });
}

/**
 * The whole ring read as the page reads it: `/rows`, then the page after the cursor each answer gives while it says
 * more follow (a listener that answers everything at once gives no cursor: one answer).
 */
async function readAll(page: URL): Promise<{ pages: number; bytes: number; rows: number; textUnits: number }> {
  let after: number | undefined;
  let pages = 0;
  let bytes = 0;
  let rows = 0;
  let textUnits = 0;
  for (;;) {
    const url = new URL("rows", page);
    if (after !== undefined) url.searchParams.set("after", String(after));
    const { status, body } = await get(url);
    if (status !== 200) throw new Error(`/rows answered ${status}: ${body.toString("utf8").slice(0, 200)}`);
    pages++;
    bytes += body.length;
    const answer = JSON.parse(body.toString("utf8")) as { rows: { text?: string }[]; next?: number; more?: boolean };
    rows += answer.rows.length;
    for (const row of answer.rows) textUnits += row.text?.length ?? 0;
    if (!answer.more || answer.next === undefined) return { pages, bytes, rows, textUnits };
    after = answer.next;
  }
}

/**
 * `count` readers of `/rows` that never read, in a process of their own (bench/rows-readers.mjs): `open()` opens them,
 * `close()` closes them; the statuses they got and how many the listener closed while held, since the last `open()`.
 */
function rowsReaders(page: URL, count: number) {
  const child = spawn(process.execPath, [READERS, page.href, String(count)], { stdio: ["pipe", "pipe", "inherit"] });
  let statuses: Record<string, number> = {};
  let cut = 0;
  let closed: (() => void) | undefined;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (line.startsWith("status ")) {
      const status = line.slice(7);
      statuses[status] = (statuses[status] ?? 0) + 1;
    } else if (line === "cut") cut++;
    else if (line === "closed") closed?.();
  });
  return {
    open(): void {
      statuses = {};
      cut = 0;
      child.stdin!.write("open\n");
    },
    answered: () => Object.values(statuses).reduce((x, y) => x + y, 0),
    statuses: () => ({ ...statuses }),
    cut: () => cut,
    close: () =>
      new Promise<void>((resolve) => {
        closed = resolve;
        child.stdin!.write("close\n");
      }),
    stop: () => child.kill(),
  };
}

/** One call at a time until `until` says stop (at least one), each call's latency in ms. */
async function probe(agent: http.Agent, url: URL, w: Workload, until: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  do {
    const began = performance.now();
    await post(agent, url, w).catch(() => undefined);
    latencies.push(performance.now() - began);
  } while (!until());
  return latencies;
}

/**
 * Keeps `connections` calls in flight for `ms`, as bench/http.ts's flood does, but a call that fails (a connection
 * reset) is counted with its latency, not thrown: what the readers do to the calls is what is measured.
 */
async function floodCounting(agent: http.Agent, url: URL, w: Workload, ms: number, connections: number) {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const deadline = performance.now() + ms;
  const loop = async () => {
    while (performance.now() < deadline) {
      const began = performance.now();
      const status = await post(agent, url, w).catch(() => "error");
      latencies.push(performance.now() - began);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return { latencies, statuses };
}

/** Sends `calls` calls over `connections` keep-alive connections. */
async function fill(agent: http.Agent, url: URL, w: Workload, calls: number, connections: number): Promise<void> {
  let left = calls;
  const loop = async () => {
    while (left-- > 0) await post(agent, url, w);
  };
  await Promise.all(Array.from({ length: connections }, loop));
}

/** The p99 latency of valid calls in interleaved rounds with and without `readers` readers that never read. */
async function rounds(
  agent: http.Agent,
  proxy: LaunchedProxy,
  page: URL,
  w: Workload,
  settings: ListenerBenchSettings,
  log: (line: string) => void,
) {
  const variants = ["none", "readers"] as const;
  const count = settings.rounds <= 1 ? settings.rounds : balancedRounds(variants.length, settings.rounds);
  log(`listener: valid tools/call, ${count} interleaved rounds with and without ${settings.readers} readers of /rows that never read`);
  await floodCounting(agent, proxy.url, w, settings.warmupMs, settings.connections);
  const p99 = { none: [] as number[], readers: [] as number[] };
  const all = { none: [] as number[], readers: [] as number[] };
  const cpu = { none: [] as number[], readers: [] as number[] };
  const peak = { none: 0, readers: 0 };
  const readerStatuses: Record<string, number> = {};
  const callStatuses = { none: {} as Record<string, number>, readers: {} as Record<string, number> };
  const readers = rowsReaders(page, settings.readers);
  try {
    for (let round = 0; round < count; round++)
      for (const v of balancedOrder(variants, round)) {
        if (v === "readers") readers.open();
        const sampler = setInterval(() => (peak[v] = Math.max(peak[v], rssKiB(proxy.child.pid!))), 50);
        const cpuBefore = cpuUs(proxy.child.pid!);
        try {
          const f = await floodCounting(agent, proxy.url, w, settings.roundMs, settings.connections);
          cpu[v].push((cpuUs(proxy.child.pid!) - cpuBefore) / f.latencies.length);
          const sorted = [...f.latencies].sort((x, y) => x - y);
          p99[v].push(percentile(sorted, 99));
          all[v].push(...sorted);
          for (const [status, n] of Object.entries(f.statuses)) callStatuses[v][status] = (callStatuses[v][status] ?? 0) + n;
        } finally {
          clearInterval(sampler);
          if (v === "readers") {
            await readers.close();
            for (const [status, n] of Object.entries(readers.statuses())) readerStatuses[status] = (readerStatuses[status] ?? 0) + n;
          }
        }
      }
  } finally {
    readers.stop();
  }
  const pooled = (v: "none" | "readers") =>
    percentile(
      all[v].sort((x, y) => x - y),
      99,
    );
  return { count, p99, pooled: { none: pooled("none"), readers: pooled("readers") }, cpu, peak, readerStatuses, callStatuses };
}

/** The whole ring read as the page reads it, one call at a time through the proxy meanwhile, and with no read before. */
async function wholeRead(agent: http.Agent, proxy: LaunchedProxy, page: URL, w: Workload, log: (line: string) => void) {
  log("listener: the whole ring read as the page reads it, one call at a time through the proxy meanwhile");
  let calls = 0;
  const idle = await probe(agent, proxy.url, w, () => ++calls >= 30);
  let reading = true;
  const began = performance.now();
  const read = readAll(page).finally(() => (reading = false));
  const during = await probe(agent, proxy.url, w, () => !reading);
  const whole = await read;
  return { whole, idle, during, ms: performance.now() - began };
}

/** The proxy's resident set before and at its highest while `readers` readers that never read are held open. */
async function unreadMemory(proxy: LaunchedProxy, page: URL, settings: ListenerBenchSettings, log: (line: string) => void) {
  log(`listener: ${settings.readers} readers of /rows that never read, and no traffic: the proxy's resident set meanwhile`);
  const pid = proxy.child.pid!;
  const beforeKiB = rssKiB(pid);
  const cpuBefore = cpuUs(pid);
  const readers = rowsReaders(page, settings.readers);
  readers.open();
  let peakKiB = beforeKiB;
  const heldFrom = Date.now();
  // Until every reader has its status line and the resident set has not risen for a second, or `holdMs`.
  let lastRise = Date.now();
  while (Date.now() - heldFrom < settings.holdMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = rssKiB(pid);
    if (now > peakKiB) {
      peakKiB = now;
      lastRise = Date.now();
    }
    if (readers.answered() >= settings.readers && Date.now() - lastRise > 1_000) break;
  }
  const held = {
    statuses: readers.statuses(),
    beforeKiB,
    peakKiB,
    cpuMs: (cpuUs(pid) - cpuBefore) / 1000,
    cut: readers.cut(),
    heldMs: Date.now() - heldFrom,
  };
  await readers.close();
  readers.stop();
  return held;
}

export async function runListenerBench(
  upstream: URL,
  settings: ListenerBenchSettings,
  log: (line: string) => void,
): Promise<ListenerBench> {
  const before = load();
  const w = bigCall();
  const proxy = await launchProxy(upstream, { args: ["--ui", "127.0.0.1:0", "--ui-max-rows", String(settings.maxRows)] });
  const agent = new http.Agent({ keepAlive: true, maxSockets: settings.connections });
  try {
    const page = await pageOf(proxy);
    log(`listener: ${settings.fillCalls} exchanges of ${CALL_TEXT} characters through a --ui proxy with no page, to its ring's bound`);
    await fill(agent, proxy.url, w, settings.fillCalls, settings.connections);
    // The rounds first, on a ring of messages no page has read (none judged), then the read that judges them all.
    const r = await rounds(agent, proxy, page, w, settings, log);
    const read = await wholeRead(agent, proxy, page, w, log);
    const unread = await unreadMemory(proxy, page, settings, log);
    const ratio = spread(r.p99.readers.map((x, i) => x / r.p99.none[i]!));
    const boundKiB = RING_TEXT_UNITS / 1024;
    const added = (unread.peakKiB - unread.beforeKiB) / boundKiB;
    const targets = { p99: 1.1, rss: 2 };
    return {
      ring: { rows: read.whole.rows, textUnits: read.whole.textUnits, boundUnits: RING_TEXT_UNITS },
      read: { pages: read.whole.pages, bytes: read.whole.bytes, ms: read.ms, idleMs: spread(read.idle), duringMs: spread(read.during) },
      unread: { readers: settings.readers, ...unread, ratio: added },
      rounds: r.count,
      p99Ms: { none: spread(r.p99.none), readers: spread(r.p99.readers) },
      pooledP99Ms: r.pooled,
      relayCpuUs: { none: spread(r.cpu.none), readers: spread(r.cpu.readers) },
      ratio,
      rss: { noneKiB: r.peak.none, readersKiB: r.peak.readers },
      roundStatuses: r.readerStatuses,
      callStatuses: r.callStatuses,
      load: { before, after: load() },
      targets,
      pass: { p99: ratio.median <= targets.p99, rss: added <= targets.rss },
    };
  } catch (error) {
    throw new Error(`the listener's bench failed (the proxy's log: ${proxy.stderr().slice(-2_000)})`, { cause: error });
  } finally {
    agent.destroy();
    await proxy.stop();
  }
}

export function listenerTable(r: ListenerBench): string {
  const mib = (kib: number) => (kib / 1024).toFixed(0);
  const ms = (s: Spread) =>
    `median ${s.median.toFixed(1)} ms, p99 ${percentile(
      [...s.samples].sort((a, b) => a - b),
      99,
    ).toFixed(1)} ms, worst ${s.max.toFixed(1)} ms`;
  const statuses = (s: Record<string, number>) =>
    Object.entries(s)
      .map(([status, n]) => `${n} × ${status}`)
      .join(", ");
  const rows = [
    [
      `p99 of valid calls, ${r.unread.readers} readers of /rows that never read ÷ none`,
      `${r.p99Ms.readers.median.toFixed(1)} ÷ ${r.p99Ms.none.median.toFixed(1)} ms (every round's calls together: ${r.pooledP99Ms.readers.toFixed(1)} ÷ ${r.pooledP99Ms.none.toFixed(1)} ms); calls ${statuses(r.callStatuses.readers)} (without: ${statuses(r.callStatuses.none)}); the proxy's CPU ${r.relayCpuUs.readers.median.toFixed(0)} ÷ ${r.relayCpuUs.none.median.toFixed(0)} µs a call; the readers' answers ${statuses(r.roundStatuses)}; RSS at its highest ${mib(r.rss.readersKiB)} MiB with readers, ${mib(r.rss.noneKiB)} MiB without`,
      `${formatRatio(r.ratio.median)} [${formatRatio(r.ratio.min)}–${formatRatio(r.ratio.max)}]`,
      `≤ ${r.targets.p99}`,
      r.pass.p99 ? "PASS" : "MISS",
    ],
    [
      `RSS added by ${r.unread.readers} readers of /rows that never read (no traffic; held ${(r.unread.heldMs / 1000).toFixed(1)} s) ÷ the ring's bound (32 MiB)`,
      `${mib(r.unread.beforeKiB)} → ${mib(r.unread.peakKiB)} MiB; answers ${statuses(r.unread.statuses)}; ${r.unread.cut} let go while held; the proxy's CPU meanwhile ${r.unread.cpuMs.toFixed(0)} ms`,
      formatRatio(r.unread.ratio),
      `≤ ${r.targets.rss}×`,
      r.pass.rss ? "PASS" : "MISS",
    ],
    [
      `one call at a time while the ring is read whole as the page reads it (${r.read.pages} answers, ${(r.read.bytes / 1024 / 1024).toFixed(1)} MiB, ${r.read.ms.toFixed(0)} ms)`,
      `${ms(r.read.duringMs)}; with no read ${ms(r.read.idleMs)}`,
      formatRatio(r.read.duringMs.max / r.read.idleMs.median),
      "(the worst ÷ the median with no read)",
      "",
    ],
  ];
  return [
    table(["live page's listener (--ui)", "measured", "ratio", "target", "result"], rows),
    "",
    `The ring held ${r.ring.rows} rows, ${(r.ring.textUnits / 1024 / 1024).toFixed(1)} Mi characters of text (its bound ${(r.ring.boundUnits / 1024 / 1024).toFixed(0)} Mi), filled by valid tools/call of ${CALL_TEXT} characters and their answers with no page open. The rounds (${r.rounds}, interleaved; the ratio is the median of the rounds' ratios) send the same call on keep-alive connections while the ring holds messages no page has read; a reader sends GET /rows and reads nothing past the status line, all of them opened at the start of a round and closed at its end. Then the ring is read whole, and the readers are held open once more with no traffic. Load average (1 / 5 / 15 min) ${r.load.before} before, ${r.load.after} after.`,
  ].join("\n");
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const option = (name: string, fallback: number) => {
    const at = process.argv.indexOf(`--${name}`);
    return at >= 0 ? Number(process.argv[at + 1]) : fallback;
  };
  const quick = process.argv.includes("--quick");
  const settings: ListenerBenchSettings = {
    rounds: option("rounds", quick ? 1 : 8),
    roundMs: option("round-ms", quick ? 300 : 1500),
    warmupMs: quick ? 100 : 500,
    connections: option("connections", 8),
    readers: option("readers", quick ? 10 : 100),
    maxRows: option("max-rows", 10_000),
    fillCalls: option("fill-calls", quick ? 500 : 5_200),
    holdMs: option("hold-ms", 10_000),
  };
  const upstream = await launchExample({ env: { WYMCP_GATE: "off" } });
  try {
    const r = await runListenerBench(upstream.url, settings, (line) => process.stderr.write(`bench: ${line}\n`));
    console.log(listenerTable(r));
  } finally {
    await upstream.stop();
  }
}
