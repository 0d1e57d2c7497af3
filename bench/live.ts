/**
 * @module the live page's budgets, part of `npm run bench -- --proxy`:
 * - throughput: valid tools/call through `wymcp proxy --ui` with no page open ÷ the same proxy without `--ui` (target
 *   ≥ 0.98), and with one page open (an SSE client in a process of its own reading the feed to its end) ÷ without (≥ 0.95),
 *   in interleaved rounds of one run;
 * - memory: `messages` messages (requests and their answers) through a fresh `--ui` proxy with a page open, the RSS they
 *   leave (read once V8 has collected after them) ÷ the same through a fresh `--ui` proxy with none (≤ 1.2×);
 * - the page: ten thousand rows held in real headless Chromium, each input event on the text filter timed from its
 *   dispatch to the next frame (target: the median < 100 ms; the worst is shown beside it).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { type LaunchedProxy, launchProxy } from "../examples/launch.js";
import { ensureAptBinary } from "../test/support/apt.js";
import { flood, post, type Workload, workloads } from "./http.js";
import { balancedOrder, balancedRounds, formatRatio, type Spread, spread, table } from "./measure.js";

const READER = fileURLToPath(new URL("page-reader.mjs", import.meta.url));

export interface LiveBenchSettings {
  rounds: number;
  roundMs: number;
  warmupMs: number;
  connections: number;
  /** Messages through each proxy of the memory run (a request and its answer are two). */
  memoryMessages: number;
  /** Rows the page holds when its input events are timed. */
  pageRows: number;
  /** The longest wait after the memory run's traffic for V8 to collect in each proxy (see `settle`). */
  settleMs: number;
}

const VARIANTS = ["plain", "ui", "page"] as const;
type LiveVariant = (typeof VARIANTS)[number];

export interface LiveBench {
  /** Interleaved throughput rounds per variant. */
  rounds: number;
  reqPerSec: Record<LiveVariant, Spread>;
  /** The proxy process's CPU time per request, µs (from /proc: 10 ms ticks): steadier than req/s on a busy host. */
  relayCpuUs: Record<LiveVariant, Spread>;
  /** --ui with no page ÷ without, and with a page ÷ without, per round. */
  noPage: Spread;
  withPage: Spread;
  /** Rows the SSE client read over the rounds with a page, and how long after its message each came (ms). */
  rowsRead: number;
  delayMs: Spread;
  /**
   * The memory run: each proxy's resident set once settled after the traffic (the budget's ratio), and, for
   * information, at the traffic's end and at its peak.
   */
  memory: {
    messages: number;
    noPageKiB: number;
    pageKiB: number;
    plainKiB: number;
    ratio: number;
    settledAfterMs: number;
    endKiB: { noPage: number; page: number; plain: number };
    endRatio: number;
    peakKiB: { noPage: number; page: number };
    rowsRead: number;
  };
  page: { rows: number; inputMs: Spread };
  targets: { noPage: number; withPage: number; memory: number; inputMs: number };
  pass: { noPage: boolean; withPage: boolean; memory: boolean; input: boolean };
}

/** The live page's address, from the line the proxy logs once it serves it. */
async function pageOf(proxy: LaunchedProxy): Promise<string> {
  const began = Date.now();
  for (;;) {
    const found = /live page at (http:\/\/\S+)/.exec(proxy.stderr());
    if (found) return found[1]!;
    if (Date.now() - began > 15_000) throw new Error(`no live page line: ${proxy.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A page following the feed: bench/page-reader.mjs in a process of its own, as a browser's page is (read in this
 * process, its rows would take the flood's client thread). Its lines say the rows read so far and the delays sampled.
 */
function follow(page: string): { rows: () => number; delays: () => number[]; close: () => void } {
  let rows = 0;
  const delays: number[] = [];
  const child = spawn(process.execPath, [READER, page], { stdio: ["ignore", "pipe", "inherit"] });
  let tail = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    const lines = (tail + text).split("\n");
    tail = lines.pop()!;
    for (const line of lines) {
      const [count, sampled] = line.split(" ");
      rows = Number(count);
      if (sampled) for (const ms of sampled.split(",")) delays.push(Number(ms));
    }
  });
  return { rows: () => rows, delays: () => delays, close: () => child.kill() };
}

function cpuUs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function rssKiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
}

export async function runLiveBench(upstream: URL, settings: LiveBenchSettings, log: (line: string) => void): Promise<LiveBench> {
  const valid: Workload = workloads().find((w) => w.key === "tools-call")!;
  // Whole cycles of the balanced order (one round stays one, for --quick).
  const rounds = settings.rounds <= 1 ? settings.rounds : balancedRounds(VARIANTS.length, settings.rounds);
  const started: LaunchedProxy[] = [];
  const readers: { close: () => void }[] = [];
  try {
    // Throughput: three proxies, the same flags but the live ones.
    const plain = await launchProxy(upstream);
    const ui = await launchProxy(upstream, { args: ["--ui", "127.0.0.1:0"] });
    const paged = await launchProxy(upstream, { args: ["--ui", "127.0.0.1:0"] });
    started.push(plain, ui, paged);
    const reader = follow(await pageOf(paged));
    readers.push(reader);
    const urls: Record<LiveVariant, URL> = { plain: plain.url, ui: ui.url, page: paged.url };
    const agents = Object.fromEntries(
      VARIANTS.map((v) => [v, new http.Agent({ keepAlive: true, maxSockets: settings.connections })]),
    ) as Record<LiveVariant, http.Agent>;
    log("live: valid tools/call through the proxy, with --ui and no page, with a page reading the feed, and without --ui");
    const rps = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<LiveVariant, number[]>;
    const cpu = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<LiveVariant, number[]>;
    const pids: Record<LiveVariant, number> = { plain: plain.child.pid!, ui: ui.child.pid!, page: paged.child.pid! };
    try {
      for (const v of VARIANTS) await flood(agents[v], urls[v], valid, settings.warmupMs, settings.connections);
      for (let round = 0; round < rounds; round++) {
        const order = balancedOrder(VARIANTS, round);
        for (const v of order) {
          const before = cpuUs(pids[v]);
          const f = await flood(agents[v], urls[v], valid, settings.roundMs, settings.connections);
          rps[v].push(f.reqPerSec);
          cpu[v].push((cpuUs(pids[v]) - before) / f.latencies.length);
        }
      }
    } finally {
      for (const agent of Object.values(agents)) agent.destroy();
    }
    // The page's rows go out within the stream's batching delay: rounds shorter than it (--smoke) wait for the first.
    while (reader.rows() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const rowsRead = reader.rows();
    const delayMs = spread(reader.delays().length > 0 ? reader.delays() : [Number.NaN]);
    // Each run's proxies go before the next run's start: one run's processes never load another's.
    reader.close();
    for (const proxy of started.splice(0)) await proxy.stop();
    const noPage = spread(rps.ui.map((u, i) => u / rps.plain[i]!));
    const withPage = spread(rps.page.map((p, i) => p / rps.plain[i]!));

    const memory = await memoryRun(upstream, valid, settings, log, started, readers);
    const page = await pageRun(upstream, valid, settings, log, started);
    const targets = { noPage: 0.98, withPage: 0.95, memory: 1.2, inputMs: 100 };
    return {
      rounds,
      reqPerSec: Object.fromEntries(VARIANTS.map((v) => [v, spread(rps[v])])) as Record<LiveVariant, Spread>,
      relayCpuUs: Object.fromEntries(VARIANTS.map((v) => [v, spread(cpu[v])])) as Record<LiveVariant, Spread>,
      noPage,
      withPage,
      rowsRead,
      delayMs,
      memory,
      page,
      targets,
      pass: {
        noPage: noPage.median >= targets.noPage,
        withPage: withPage.median >= targets.withPage,
        memory: memory.ratio <= targets.memory,
        input: page.inputMs.median < targets.inputMs,
      },
    };
  } finally {
    for (const reader of readers) reader.close();
    for (const proxy of started) await proxy.stop();
  }
}

/** Sends `requests` requests over `connections` keep-alive connections, each waiting for its answer. */
async function send(agent: http.Agent, url: URL, w: Workload, requests: number, connections: number): Promise<void> {
  let left = requests;
  const loop = async () => {
    while (left > 0) {
      left--;
      await post(agent, url, w);
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
}

async function memoryRun(
  upstream: URL,
  w: Workload,
  settings: LiveBenchSettings,
  log: (line: string) => void,
  started: LaunchedProxy[],
  readers: { close: () => void }[],
): Promise<LiveBench["memory"]> {
  const requests = Math.ceil(settings.memoryMessages / 2);
  log(`live: ${settings.memoryMessages} messages through fresh proxies: --ui with a page, --ui with none, no --ui`);
  const plain = await launchProxy(upstream);
  const noPage = await launchProxy(upstream, { args: ["--ui", "127.0.0.1:0"] });
  const paged = await launchProxy(upstream, { args: ["--ui", "127.0.0.1:0"] });
  started.push(plain, noPage, paged);
  await pageOf(noPage);
  const reader = follow(await pageOf(paged));
  readers.push(reader);
  // In slices, the three in turn, so that the machine's load falls on each alike. Each slice has its own connections:
  // one kept idle while the other two proxies' slices run can outlive the proxy's keep-alive timeout and be closed
  // just as the next slice reuses it.
  const slices = 10;
  for (let i = 0; i < slices; i++)
    for (const proxy of [plain, noPage, paged]) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: settings.connections });
      try {
        await send(agent, proxy.url, w, Math.ceil(requests / slices), settings.connections);
      } finally {
        agent.destroy();
      }
    }
  // The page's last rows go out within the stream's batching delay: read once they have all come, however loaded the
  // machine (no deadline: a row that never comes is a fault the smoke test's runner limit reports).
  const sent = Math.ceil(requests / 10) * 10 * 2;
  while (reader.rows() < sent) await new Promise((resolve) => setTimeout(resolve, 20));
  const end = { noPage: rssKiB(noPage.child.pid!), page: rssKiB(paged.child.pid!), plain: rssKiB(plain.child.pid!) };
  const settled = await settle({ noPage: noPage.child.pid!, page: paged.child.pid!, plain: plain.child.pid! }, end, settings.settleMs);
  const peak = { noPage: peakKiB(noPage.child.pid!), page: peakKiB(paged.child.pid!) };
  reader.close();
  for (const proxy of started.splice(0)) await proxy.stop();
  return {
    messages: sent,
    noPageKiB: settled.kib.noPage,
    pageKiB: settled.kib.page,
    plainKiB: settled.kib.plain,
    ratio: settled.kib.page / settled.kib.noPage,
    settledAfterMs: settled.afterMs,
    endKiB: end,
    endRatio: end.page / end.noPage,
    peakKiB: peak,
    rowsRead: reader.rows(),
  };
}

/** The peak resident set of `pid` so far (VmHWM), KiB. */
function peakKiB(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
}

/**
 * What the traffic left: each process's resident set once V8 has collected after it. With traffic on, a reading
 * falls anywhere in the old generation's sawtooth (one proxy read 114 and 173 MiB seconds apart, its live heap 24 and
 * 82 MiB); once a process goes idle, V8's memory reducer runs full collections and gives the freed pages back, 15 to
 * 46 s later in the runs on this machine. Read every half second until every process has fallen by a tenth from its reading at
 * the end of the traffic and held for two seconds, or `maxMs` have passed (a process with nothing to give back).
 */
async function settle<K extends string>(
  pids: Record<K, number>,
  end: Record<K, number>,
  maxMs: number,
): Promise<{ kib: Record<K, number>; afterMs: number }> {
  const keys = Object.keys(pids) as K[];
  const began = Date.now();
  const fellAt = new Map<K, number>();
  const kib = { ...end };
  while (Date.now() - began < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const k of keys) {
      kib[k] = rssKiB(pids[k]);
      if (!fellAt.has(k) && kib[k] <= end[k] * 0.9) fellAt.set(k, Date.now());
    }
    if (keys.every((k) => (fellAt.get(k) ?? Number.POSITIVE_INFINITY) <= Date.now() - 2_000)) break;
  }
  return { kib, afterMs: Date.now() - began };
}

async function pageRun(
  upstream: URL,
  w: Workload,
  settings: LiveBenchSettings,
  log: (line: string) => void,
  started: LaunchedProxy[],
): Promise<LiveBench["page"]> {
  log(`live: the page in headless Chromium holding ${settings.pageRows} rows, input events on its text filter timed`);
  const executablePath = await ensureAptBinary({ pkg: "chromium", binaries: ["/usr/bin/chromium"] });
  const proxy = await launchProxy(upstream, { args: ["--ui", "127.0.0.1:0", "--ui-max-rows", String(settings.pageRows)] });
  started.push(proxy);
  let browser: Browser | undefined;
  try {
    // No bound on Chromium's start or the page's waits: a loaded machine is slow, not wrong.
    browser = await chromium.launch({ executablePath, args: ["--no-sandbox"], timeout: 0 });
    const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
    page.setDefaultTimeout(0);
    await page.goto(await pageOf(proxy));
    await page.waitForSelector("body[data-ready=true]");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    await send(agent, proxy.url, w, Math.ceil(settings.pageRows / 2), 4);
    agent.destroy();
    await page.locator("#count", { hasText: new RegExp(`^${settings.pageRows} of ${settings.pageRows} rows`) }).waitFor();
    const samples: number[] = [];
    const texts = ["e", "ec", "ech", "echo", "ech", "ec", "e", "", "tools", "tools/call", "", "hello", "result", "", "2026", ""];
    for (const text of [...texts, ...texts]) {
      // From the input event's dispatch to the frame after its handler: what the user waits for.
      const ms = (await page.evaluate(`new Promise((done) => {
        const input = document.getElementById("filter-text");
        const began = performance.now();
        input.value = ${JSON.stringify(text)};
        input.dispatchEvent(new Event("input"));
        requestAnimationFrame(() => setTimeout(() => done(performance.now() - began), 0));
      })`)) as number;
      samples.push(ms);
    }
    return { rows: settings.pageRows, inputMs: spread(samples) };
  } finally {
    await browser?.close();
  }
}

export function liveTable(r: LiveBench): string {
  const range = (s: Spread) => `${formatRatio(s.median)} [${formatRatio(s.min)}–${formatRatio(s.max)}]`;
  const mib = (kib: number) => (kib / 1024).toFixed(1);
  const rows = [
    [
      "a message to its row on the page's event stream (one page, under the rounds' load)",
      `median ${r.delayMs.median.toFixed(0)} ms, worst ${r.delayMs.max.toFixed(0)} ms`,
      `${r.delayMs.max.toFixed(0)} ms`,
      "< 1000 ms",
      r.delayMs.max < 1000 ? "PASS" : "MISS",
    ],
    [
      "proxy --ui, no page ÷ proxy",
      `${r.reqPerSec.ui.median.toFixed(0)} ÷ ${r.reqPerSec.plain.median.toFixed(0)} req/s; relay CPU ${r.relayCpuUs.ui.median.toFixed(0)} vs ${r.relayCpuUs.plain.median.toFixed(0)} µs/req`,
      range(r.noPage),
      `≥ ${r.targets.noPage}`,
      r.pass.noPage ? "PASS" : "MISS",
    ],
    [
      "proxy --ui, one page reading the feed ÷ proxy",
      `${r.reqPerSec.page.median.toFixed(0)} ÷ ${r.reqPerSec.plain.median.toFixed(0)} req/s; relay CPU ${r.relayCpuUs.page.median.toFixed(0)} µs/req; ${r.rowsRead} rows read`,
      range(r.withPage),
      `≥ ${r.targets.withPage}`,
      r.pass.withPage ? "PASS" : "MISS",
    ],
    [
      `RSS left by ${r.memory.messages} messages: page ÷ no page`,
      `${mib(r.memory.pageKiB)} ÷ ${mib(r.memory.noPageKiB)} MiB settled ${(r.memory.settledAfterMs / 1000).toFixed(0)} s after (no --ui: ${mib(r.memory.plainKiB)} MiB); ` +
        `at the traffic's end ${mib(r.memory.endKiB.page)} ÷ ${mib(r.memory.endKiB.noPage)} MiB (${formatRatio(r.memory.endRatio)}), ` +
        `peaks ${mib(r.memory.peakKiB.page)} ÷ ${mib(r.memory.peakKiB.noPage)} MiB; ${r.memory.rowsRead} rows read`,
      formatRatio(r.memory.ratio),
      `≤ ${r.targets.memory}×`,
      r.pass.memory ? "PASS" : "MISS",
    ],
    [
      `the page with ${r.page.rows} rows: an input event to the next frame`,
      `median ${r.page.inputMs.median.toFixed(1)} ms, worst ${r.page.inputMs.max.toFixed(1)} ms`,
      `${r.page.inputMs.median.toFixed(1)} ms`,
      `median < ${r.targets.inputMs} ms`,
      r.pass.input ? "PASS" : "MISS",
    ],
  ];
  return [
    table(["live page (--ui)", "measured", "ratio", "target", "result"], rows),
    "",
    `The live rounds (${r.rounds} per variant; the ratio is the median of the rounds' ratios) interleave the three proxies (the same flags but --ui) on valid modern tools/call; the page is an SSE client in a process of its own (as a browser's page is) reading /events to its end. The memory run sends the same messages to three fresh proxies in turn and reads each one's RSS once V8 has collected after the traffic (its memory reducer: 15–46 s after the last request in the runs here, a minute at most), with the readings at the traffic's end and the peaks beside it. The page's input events are timed in headless Chromium from dispatch to the frame after the filter ran.`,
  ].join("\n");
}
