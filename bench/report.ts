/**
 * @module The printed tables and the targets block, from the figures of one run.
 */
import { formatBytes, formatMs, formatOps, formatRatio, spread, table, type Spread } from "./measure.js";
import type { CaseFigures } from "./per-message.js";
import type { SizeFigures } from "./size.js";
import type { StartupResult } from "./startup.js";
import type { LoadFigures } from "./load.js";
import type { StdioMemoryFigures } from "./stdio-memory.js";
import type { ProxyBenchResults, StdioBench } from "./proxy.js";
import type { ListenerBench } from "./listener.js";

export interface Target {
  target: string;
  /** The measured figure the target is judged on, in the target's unit. */
  measured: number;
  limit: number;
  unit: "×" | "ms" | "B" | "%";
  /** true when measured must be at least limit, false when at most. */
  atLeast: boolean;
  pass: boolean;
  /** For a miss: how far off, in words. */
  missBy?: string;
  /** Other figures of the same run that put the measured one in context. */
  context: string;
}

export interface Derived {
  /** Per round (the variants alternate, so round r of each is paired): runtime − empty, etc. */
  runtimeOverMs: Spread;
  bootOverMs: Spread;
  bootOverRuntime: Spread;
  runtimeWallOverMs: Spread;
  bootWallOverMs: Spread;
  /** Cold start, whole process, per round: (runtime − empty) ÷ (compile at boot − empty) in wall time, as a %. */
  coldStartPercent: Spread;
  /** The same share in CPU time (the processes' own user + system time, which waiting for a shared core leaves out). */
  coldStartCpuPercent: Spread;
  runtimeCpuOverMs: Spread;
  bootCpuOverMs: Spread;
}

const KB = 1000;

/** validateMcpRequest on a valid tools/call of each of these messages runs at least this many times per JSON.parse of its bytes. */
export const PARSE_RATIO_TARGET = 10;
export const PARSE_RATIO_CASES = ["tools-call", "legacy-tools-call"] as const;
/** wymcp's cold start over an empty process, at most this share (%) of Ajv compiling at boot's. */
export const COLD_START_TARGET = 5;
/** wymcp proxy ÷ its --pass-through on valid traffic, and wymcp stdio ÷ its --pass-through, at least. */
export const PROXY_TARGET = 0.95;
export const STDIO_TARGET = 0.9;

export function derive(startup: StartupResult): Derived {
  const v = startup.variants;
  const paired = (a: string, b: string, k: "readyMs" | "wallMs" | "cpuMs") => v[a]![k].samples.map((x, i) => x - v[b]![k].samples[i]!);
  const runtimeOver = paired("runtime", "empty", "readyMs");
  const bootOver = paired("ajv-boot", "empty", "readyMs");
  const runtimeWallOver = paired("runtime", "empty", "wallMs");
  const bootWallOver = paired("ajv-boot", "empty", "wallMs");
  const runtimeCpuOver = paired("runtime", "empty", "cpuMs");
  const bootCpuOver = paired("ajv-boot", "empty", "cpuMs");
  return {
    runtimeOverMs: spread(runtimeOver),
    bootOverMs: spread(bootOver),
    bootOverRuntime: spread(bootOver.map((x, i) => x / runtimeOver[i]!)),
    runtimeWallOverMs: spread(runtimeWallOver),
    bootWallOverMs: spread(bootWallOver),
    coldStartPercent: spread(runtimeWallOver.map((x, i) => (100 * x) / bootWallOver[i]!)),
    coldStartCpuPercent: spread(runtimeCpuOver.map((x, i) => (100 * x) / bootCpuOver[i]!)),
    runtimeCpuOverMs: spread(runtimeCpuOver),
    bootCpuOverMs: spread(bootCpuOver),
  };
}

function figure(cases: CaseFigures[], c: string, v: string) {
  const found = cases.find((x) => x.key === c)?.variants.find((x) => x.key === v);
  if (!found) throw new Error(`no figures for ${c} / ${v}`);
  return found;
}

const formatPercent = (x: number) => `${x.toFixed(1)} %`;

function formatIn(unit: Target["unit"], x: number): string {
  return unit === "×" ? formatRatio(x) : unit === "%" ? formatPercent(x) : unit === "ms" ? `${formatMs(x)} ms` : formatBytes(x);
}

function judge(t: Omit<Target, "pass" | "missBy">): Target {
  const pass = t.atLeast ? t.measured >= t.limit : t.measured <= t.limit;
  if (pass) return { ...t, pass };
  const fmt = (x: number) => formatIn(t.unit, x);
  const gap = Math.abs(t.measured - t.limit);
  const rel = t.atLeast
    ? `${((1 - t.measured / t.limit) * 100).toFixed(0)}% short`
    : `${((t.measured / t.limit - 1) * 100).toFixed(0)}% over`;
  const size = t.unit === "×" || t.unit === "%" ? `${fmt(t.measured)} of ${fmt(t.limit)}` : `${fmt(gap)} ${t.atLeast ? "short" : "over"}`;
  return { ...t, pass, missBy: `${size} (${rel})` };
}

/** Report mode ÷ enforce on valid traffic, in throughput: report mode costs no more. */
export const REPORT_MODE_TARGET = 0.98;

export function targets(
  cases: CaseFigures[],
  errorPath: CaseFigures,
  startup: StartupResult,
  sizes: SizeFigures[],
  codegenMs: number,
  load: LoadFigures,
  stdio: StdioMemoryFigures,
): Target[] {
  const vmr = figure(cases, "tools-call", "vmr");
  const zodRatio = (key: string) =>
    formatRatio(spread(vmr.opsPerSec.samples.map((x, i) => x / figure(cases, "tools-call", key).opsPerSec.samples[i]!)).median);
  const reject = figure([errorPath], errorPath.key, "vmr");
  const rejectRatio = (key: string) =>
    formatRatio(spread(reject.opsPerSec.samples.map((x, i) => x / figure([errorPath], errorPath.key, key).opsPerSec.samples[i]!)).median);
  const d = derive(startup);
  const total = sizes.find((s) => s.file === "both eras")!;
  const legacyCall = figure(cases, "legacy-tools-call", "vmr");
  const strictCall = figure(cases, "tools-call", "vmr-strict");
  const strictLegacyCall = figure(cases, "legacy-tools-call", "vmr-strict");
  return [
    judge({
      target: `validateMcpRequest, valid modern tools/call ≥ ${PARSE_RATIO_TARGET}× JSON.parse of its bytes`,
      measured: vmr.vsParse.median,
      limit: PARSE_RATIO_TARGET,
      unit: "×",
      atLeast: true,
      context: `per-round ratio, median of ${vmr.vsParse.samples.length} [${formatRatio(vmr.vsParse.min)}–${formatRatio(vmr.vsParse.max)}]; validate only, the body already parsed`,
    }),
    judge({
      target: `validateMcpRequest, valid legacy tools/call (2025-11-25) ≥ ${PARSE_RATIO_TARGET}× JSON.parse of its bytes`,
      measured: legacyCall.vsParse.median,
      limit: PARSE_RATIO_TARGET,
      unit: "×",
      atLeast: true,
      context: `per-round ratio, median of ${legacyCall.vsParse.samples.length} [${formatRatio(legacyCall.vsParse.min)}–${formatRatio(legacyCall.vsParse.max)}]; framing + the revision's CallToolRequest`,
    }),
    judge({
      target: `validateMcpRequest formats: "strict", valid modern tools/call ≥ ${PARSE_RATIO_TARGET}× JSON.parse of its bytes`,
      measured: strictCall.vsParse.median,
      limit: PARSE_RATIO_TARGET,
      unit: "×",
      atLeast: true,
      context: `per-round ratio, median of ${strictCall.vsParse.samples.length} [${formatRatio(strictCall.vsParse.min)}–${formatRatio(strictCall.vsParse.max)}]; every format asserted`,
    }),
    judge({
      target: `validateMcpRequest formats: "strict", valid legacy tools/call (2025-11-25) ≥ ${PARSE_RATIO_TARGET}× JSON.parse of its bytes`,
      measured: strictLegacyCall.vsParse.median,
      limit: PARSE_RATIO_TARGET,
      unit: "×",
      atLeast: true,
      context: `per-round ratio, median of ${strictLegacyCall.vsParse.samples.length} [${formatRatio(strictLegacyCall.vsParse.min)}–${formatRatio(strictLegacyCall.vsParse.max)}]; every format asserted`,
    }),
    (() => {
      // Report mode judges what enforce judges: on valid traffic it must cost no more (its ops ÷ enforce's, per round).
      const enforced = figure(cases, "tools-call", "vmr-headers-enforce").opsPerSec.samples;
      const ratio = spread(figure(cases, "tools-call", "vmr-headers-report").opsPerSec.samples.map((x, i) => x / enforced[i]!));
      return judge({
        target: `mode: "report", valid modern tools/call with its headers ≥ ${REPORT_MODE_TARGET}× enforce's throughput`,
        measured: ratio.median,
        limit: REPORT_MODE_TARGET,
        unit: "×",
        atLeast: true,
        context: `validateMcpRequest with every rule in "report" ÷ the default states, Node's headers; per-round ratio, median of ${ratio.samples.length} [${formatRatio(ratio.min)}–${formatRatio(ratio.max)}]`,
      });
    })(),
    judge({
      target: "validateMcpRequest, valid modern tools/call ≥ 4× SDK Zod",
      measured: vmr.vsZod.median,
      limit: 4,
      unit: "×",
      atLeast: true,
      context:
        `vs CallToolRequestSchema.safeParse [${formatRatio(vmr.vsZod.min)}–${formatRatio(vmr.vsZod.max)}]; ` +
        `vs JSONRPCMessageSchema alone ${zodRatio("zod-framing")}; vs both (SDK inbound path) ${zodRatio("zod-sdk")}`,
    }),
    judge({
      target: "full rejection (bad tools/call) ≥ 20× SDK Zod's error path",
      measured: reject.vsZod.median,
      limit: 20,
      unit: "×",
      atLeast: true,
      context:
        `vs CallToolRequestSchema.safeParse [${formatRatio(reject.vsZod.min)}–${formatRatio(reject.vsZod.max)}]; ` +
        `vs JSONRPCMessageSchema then CallToolRequestSchema ${rejectRatio("zod-sdk")}; ` +
        `vs safeParse + String(error), the SDK server's own error path, ${rejectRatio("zod-message")}`,
    }),
    ...(["tools-call", "tools-call-50k"] as const).map((key) => {
      const parsed = figure(cases, key, "depth-parsed");
      const bytes = figure(cases, key, "depth-bytes");
      const cost = (s: { vsParse: { median: number } }) => `${(100 / s.vsParse.median).toFixed(1)}%`;
      return judge({
        target: `depth check, ${cases.find((c) => c.key === key)!.label}: ≥ 10× JSON.parse of its bytes (costs ≤ 10% of it)`,
        measured: parsed.vsParse.median,
        limit: 10,
        unit: "×",
        atLeast: true,
        context:
          `on the parsed value ${formatRatio(parsed.vsParse.median)} [${formatRatio(parsed.vsParse.min)}–${formatRatio(parsed.vsParse.max)}], costing ${cost(parsed)} of JSON.parse; ` +
          `the byte scanner ${formatRatio(bytes.vsParse.median)}, costing ${cost(bytes)}`,
      });
    }),
    judge({
      target: "codegen of both eras (npm run codegen's generate(), in process) ≤ 30 s",
      measured: codegenMs,
      limit: 30_000,
      unit: "ms",
      atLeast: false,
      context: "one run, from the spec's schemas to every file of generated/, nothing written",
    }),
    judge({
      target: `mixed load, ${load.messages} messages over ${load.concurrency} connections to examples/server.ts ≤ 30 s`,
      measured: load.elapsedMs,
      limit: 30_000,
      unit: "ms",
      atLeast: false,
      context: `every kind of message, valid and refused, both eras, one body in a hundred over 4 MiB; p50 ${formatMs(load.p50Ms)} ms, p99 ${formatMs(load.p99Ms)} ms`,
    }),
    judge({
      target: "the server's RSS growth over that load ≤ 100 MiB",
      measured: (load.rssAfterKb - load.rssBeforeKb) * 1024,
      limit: 100 * 1024 * 1024,
      unit: "B",
      atLeast: false,
      context: `RSS ${formatBytes(load.rssBeforeKb * 1024)} before, ${formatBytes(load.rssAfterKb * 1024)} after (ps), every kind of message sent once before`,
    }),
    judge({
      target: `wymcp stdio, a ${stdio.settings.longLineMiB} MiB line past --max-body-bytes 1024: peak RSS growth ≤ 96 MiB`,
      measured: (stdio.longLine.peakKiB - stdio.longLine.baseKiB) * 1024,
      limit: 96 * 1024 * 1024,
      unit: "B",
      atLeast: false,
      context:
        `RSS ${formatBytes(stdio.longLine.baseKiB * 1024)} once ready, peak ${formatBytes(stdio.longLine.peakKiB * 1024)} (VmHWM) once the line after it is answered; ` +
        "the line is read in pipe-sized chunks and dropped, so garbage not yet collected is all that can show",
    }),
    judge({
      target: "wymcp stdio, a client that does not read a flooding server: peak RSS ≤ 128 MiB",
      measured: stdio.clientNotReading.peakKiB * 1024,
      limit: 128 * 1024 * 1024,
      unit: "B",
      atLeast: false,
      context:
        `the server would write ${formatBytes(stdio.settings.floodBytes)}; peak (VmHWM) after ${stdio.settings.holdMs} ms of a client reading nothing; ` +
        `${formatBytes(stdio.clientNotReading.deliveredBytes)} reached the client once it read`,
    }),
    judge({
      target: "wymcp stdio, a server that does not read (SIGSTOP): peak RSS ≤ 128 MiB",
      measured: stdio.serverNotReading.peakKiB * 1024,
      limit: 128 * 1024 * 1024,
      unit: "B",
      atLeast: false,
      context:
        `the client wrote 1 KiB requests as fast as its pipe took them for ${stdio.settings.holdMs} ms: ` +
        `${formatBytes(stdio.serverNotReading.acceptedBytes)} taken before the pipe stayed full`,
    }),
    judge({
      target: "cold import of the runtime, both eras ≤ 10 ms over an empty module",
      measured: d.runtimeOverMs.median,
      limit: 10,
      unit: "ms",
      atLeast: false,
      context:
        `in-process import, paired per round [${formatMs(d.runtimeOverMs.min)}–${formatMs(d.runtimeOverMs.max)}]; ` +
        `whole-process wall time ${formatMs(d.runtimeWallOverMs.median)} ms over [${formatMs(d.runtimeWallOverMs.min)}–${formatMs(d.runtimeWallOverMs.max)}]`,
    }),
    judge({
      target: "cold import overhead ≤ 1/20 of the compile-at-boot overhead",
      measured: d.bootOverRuntime.median,
      limit: 20,
      unit: "×",
      atLeast: true,
      context:
        `compile at boot ${formatMs(d.bootOverMs.median)} ms over empty ÷ runtime ${formatMs(d.runtimeOverMs.median)} ms, ` +
        `per-round ratio [${formatRatio(d.bootOverRuntime.min)}–${formatRatio(d.bootOverRuntime.max)}]; ` +
        `wall time ${formatMs(d.bootWallOverMs.median)} vs ${formatMs(d.runtimeWallOverMs.median)} ms over empty`,
    }),
    judge({
      target: `cold start, whole process (spawn to exit, one tools/call judged): wymcp ≤ ${COLD_START_TARGET} % of Ajv compiling at boot, each over an empty process`,
      measured: d.coldStartPercent.median,
      limit: COLD_START_TARGET,
      unit: "%",
      atLeast: false,
      context:
        `(wymcp − empty) ÷ (Ajv at boot − empty) in wall time, per-round ratio [${formatPercent(d.coldStartPercent.min)}–${formatPercent(d.coldStartPercent.max)}]; ` +
        `${formatMs(d.runtimeWallOverMs.median)} ms vs ${formatMs(d.bootWallOverMs.median)} ms over empty (medians); ` +
        `in CPU time (user + system) ${formatPercent(d.coldStartCpuPercent.median)} [${formatPercent(d.coldStartCpuPercent.min)}–${formatPercent(d.coldStartCpuPercent.max)}], ` +
        `${formatMs(d.runtimeCpuOverMs.median)} vs ${formatMs(d.bootCpuOverMs.median)} ms over empty; ` +
        "wall time on shared cores varies by several ms between identical runs: read it with the load average and the CPU share",
    }),
    judge({
      // 150 KB until the legacy era was judged revision by revision (four revisions' client methods).
      target: "generated validators, both eras (every legacy revision) ≤ 400 KB raw",
      measured: total.raw,
      limit: 400 * KB,
      unit: "B",
      atLeast: false,
      context:
        `${sizes
          .filter((s) => s.file !== "both eras")
          .map((s) => `${s.file} ${formatBytes(s.raw)}`)
          .join(", ")}; gzip ${formatBytes(total.gzip)}` +
        (total.minified === null ? "" : `; minified (what-if) ${formatBytes(total.minified)}`) +
        "; KB read as 1000 B (the stricter reading)",
    }),
  ];
}

/** Per round: validateMcpRequest's ops/s without the transport's headers ÷ with them, for a variant holding them. */
export function headerCost(cases: CaseFigures[], variant: string): Spread {
  const without = figure(cases, "tools-call", "vmr").opsPerSec.samples;
  const withHeaders = figure(cases, "tools-call", variant).opsPerSec.samples;
  return spread(without.map((x, i) => x / withHeaders[i]!));
}

const opsRow = (label: string, s: Spread) => [label, formatOps(s.median), formatOps(s.min), formatOps(s.max)];
const ratioCell = (s: Spread) => `${formatRatio(s.median)} [${formatRatio(s.min)}–${formatRatio(s.max)}]`;
const msCell = (s: Spread) => `${formatMs(s.median)} [${formatMs(s.min)}–${formatMs(s.max)}]`;

export function startupTable(startup: StartupResult): string {
  const v = startup.variants;
  const empty = v.empty!;
  const runtime = v.runtime!;
  const rows = startup.order.map((key) => {
    const f = v[key]!;
    const over = spread(f.readyMs.samples.map((x, i) => x - empty.readyMs.samples[i]!));
    const overRuntime = spread(
      f.readyMs.samples.map((x, i) => (x - empty.readyMs.samples[i]!) / (runtime.readyMs.samples[i]! - empty.readyMs.samples[i]!)),
    );
    const wallOver = spread(f.wallMs.samples.map((x, i) => x - empty.wallMs.samples[i]!));
    const wallRatio = spread(f.wallMs.samples.map((x, i) => x / empty.wallMs.samples[i]!));
    const base = key === "empty";
    return [
      f.label,
      msCell(f.readyMs),
      base ? "—" : msCell(over),
      base || key === "runtime" ? "—" : formatRatio(overRuntime.median),
      msCell(f.wallMs),
      base ? "—" : formatMs(wallOver.median),
      base ? "1.00×" : formatRatio(wallRatio.median),
      formatMs(f.firstCallMs.median),
    ];
  });
  const header = [
    "variant",
    "ready ms med [min–max]",
    "ready − empty",
    "÷ runtime's",
    "wall ms med [min–max]",
    "wall − empty",
    "wall × empty",
    "1st call ms",
  ];
  const bootPhases = v["ajv-boot"]!.phases ?? {};
  const phases = Object.entries(bootPhases)
    .map(([k, s]) => `${k.replace(/Ms$/, "")} ${msCell(s)}`)
    .join(", ");
  const boot = v["ajv-boot"]!;
  const coldRatio = spread(boot.wallMs.samples.map((x, i) => x / runtime.wallMs.samples[i]!));
  const { coldStartPercent: share, coldStartCpuPercent: cpuShare } = derive(startup);
  return [
    table(header, rows),
    "",
    `Cold start, the whole process (spawn to exit: node starts, loads the validators, judges one tools/call, exits): wymcp ${formatMs(runtime.wallMs.median)} ms, ` +
      `Ajv compiling the same schemas at boot ${formatMs(boot.wallMs.median)} ms; Ajv's process takes ${formatRatio(coldRatio.median)} ` +
      `[${formatRatio(coldRatio.min)}–${formatRatio(coldRatio.max)}] wymcp's (paired per round); over an empty process, wymcp's costs ` +
      `${formatPercent(share.median)} [${formatPercent(share.min)}–${formatPercent(share.max)}] of Ajv's ` +
      `(CPU time: ${formatPercent(cpuShare.median)} [${formatPercent(cpuShare.min)}–${formatPercent(cpuShare.max)}]).`,
    `ready: in-process, from before the first import to ready to validate (medians of ${startup.rounds} fresh processes per variant, alternated).`,
    "ready − empty and wall − empty are paired per round; ÷ runtime's = (variant − empty) ÷ (runtime − empty).",
    "wall: spawn to exit, seen by the parent; on shared cores it varies by several ms between identical runs, so the targets use ready.",
    `Ajv at boot, phases (ms): ${phases}.`,
    "  Selection and prose stripping are done once by the parent; the child only reads the resulting documents (JSON):",
    "  a real boot-compiling server would also read and prune the spec, so this is a lower bound.",
    "1st call: the first validation of the modern tools/call after ready (wymcp/Ajv: JSONRPCRequest + CallToolRequest; Zod: JSONRPCMessageSchema + CallToolRequestSchema).",
  ].join("\n");
}

export function caseTable(c: CaseFigures): string {
  const header = ["variant", "median", "min", "max", "× JSON.parse med [min–max]", "× Zod ref med [min–max]"];
  const rows = c.variants.map((v) => [...opsRow(v.label, v.opsPerSec), ratioCell(v.vsParse), ratioCell(v.vsZod)]);
  return [`${c.label} — era ${c.era}; ${c.source}`, `  Zod ref: ${c.zodRef}`, table(header, rows, [1, 2, 3])].join("\n");
}

export function sizeTable(sizes: SizeFigures[]): string {
  const header = ["file", "raw", "gzip", "minified (what-if)", "minified + gzip"];
  const b = (n: number | null) => (n === null ? "n/a" : `${formatBytes(n)} (${n} B)`);
  return table(
    header,
    sizes.map((s) => [s.file, b(s.raw), b(s.gzip), b(s.minified), b(s.minifiedGzip)]),
    [1, 2, 3, 4],
  );
}

/** The budgets of `npm run bench -- --proxy`, from the figures of one run (ratios per interleaved round, medians). */
export function proxyTargets(r: ProxyBenchResults): Target[] {
  const range = (x: Spread) => `median of ${x.samples.length} rounds, ${formatRatio(x.min)}–${formatRatio(x.max)}`;
  const loads = (load: number[]) => `load ${Math.min(...load).toFixed(2)}–${Math.max(...load).toFixed(2)}`;
  const http = r.http.map((w) =>
    w.traffic === "valid"
      ? judge({
          target: `wymcp proxy ÷ its --pass-through, ${w.label}: req/s ≥ ${PROXY_TARGET}`,
          measured: w.vsPassThrough.median,
          limit: PROXY_TARGET,
          unit: "×",
          atLeast: true,
          context: `${w.reqPerSec.proxy.median.toFixed(0)} vs ${w.reqPerSec["pass-through"].median.toFixed(0)} req/s; ${range(w.vsPassThrough)}; ${loads(w.load)}`,
        })
      : judge({
          target: `wymcp proxy ÷ the server alone, ${w.label}: req/s ≥ 3`,
          measured: w.vsDirect.median,
          limit: 3,
          unit: "×",
          atLeast: true,
          context: `${w.reqPerSec.proxy.median.toFixed(0)} vs ${w.reqPerSec.direct.median.toFixed(0)} req/s; ${range(w.vsDirect)}; ${loads(w.load)}`,
        }),
  );
  const s = r.stdio;
  const memory = r.memory.map((m) =>
    judge({
      target: `wymcp ${m.face}, ${m.seconds} s of mixed traffic: RSS, second half ÷ first half ≤ 1.10`,
      measured: m.growth,
      limit: 1.1,
      unit: "×",
      atLeast: false,
      context: `medians ${formatBytes(m.firstHalfKiB * 1024)} then ${formatBytes(m.secondHalfKiB * 1024)}, ${m.messages} messages`,
    }),
  );
  const i = r.idle;
  return [
    ...http,
    stdioTarget(s),
    ...memory,
    ...listenerTargets(r.listener),
    judge({
      target: `wymcp proxy, ${i.sockets} idle keep-alive client connections: RSS cost ≤ 64 MiB`,
      measured: i.costKiB * 1024,
      limit: 64 * 1024 * 1024,
      unit: "B",
      atLeast: false,
      context: `RSS ${formatBytes(i.beforeKiB * 1024)} before, ${formatBytes(i.idleKiB * 1024)} with them idle (${i.open} of ${i.sockets} open when read), ${formatBytes((i.costKiB * 1024) / i.sockets)} each; load ${i.load.toFixed(2)}`,
    }),
  ];
}

/** The live page listener's budgets (bench/listener.ts), with the load average of its run. */
export function listenerTargets(l: ListenerBench): Target[] {
  const load = `load ${l.load.before} before, ${l.load.after} after`;
  return [
    judge({
      target: `wymcp proxy --ui, a full ring: p99 of valid calls with ${l.unread.readers} readers of /rows that never read ÷ none ≤ 1.10`,
      measured: l.ratio.median,
      limit: l.targets.p99,
      unit: "×",
      atLeast: false,
      context: `${l.p99Ms.readers.median.toFixed(1)} vs ${l.p99Ms.none.median.toFixed(1)} ms; median of ${l.ratio.samples.length} rounds, ${formatRatio(l.ratio.min)}–${formatRatio(l.ratio.max)}; ${load}`,
    }),
    judge({
      target: `wymcp proxy --ui, a full ring: RSS added by ${l.unread.readers} readers of /rows that never read ≤ 2 × the ring's bound (32 MiB)`,
      measured: l.unread.ratio,
      limit: l.targets.rss,
      unit: "×",
      atLeast: false,
      context: `${formatBytes(l.unread.beforeKiB * 1024)} before, ${formatBytes(l.unread.peakKiB * 1024)} at most while held; ${load}`,
    }),
  ];
}

/** The stdio budget of `npm run bench -- --proxy` (and of `--proxy --only stdio`), with the load average of its rounds. */
export function stdioTarget(s: StdioBench): Target {
  const x = s.vsPassThrough;
  return judge({
    target: `wymcp stdio ÷ its --pass-through, tools/call lines/s ≥ ${STDIO_TARGET}`,
    measured: x.median,
    limit: STDIO_TARGET,
    unit: "×",
    atLeast: true,
    context: `${s.linesPerSec.gated.median.toFixed(0)} vs ${s.linesPerSec["pass-through"].median.toFixed(0)} lines/s; median of ${x.samples.length} rounds, ${formatRatio(x.min)}–${formatRatio(x.max)}; load ${Math.min(...s.load).toFixed(2)}–${Math.max(...s.load).toFixed(2)}`,
  });
}

export function targetsTable(ts: Target[]): string {
  const fmt = (t: Target, x: number) => formatIn(t.unit, x);
  const rows = ts.map((t) => [
    t.target,
    fmt(t, t.measured),
    `${t.atLeast ? "≥" : "≤"} ${fmt(t, t.limit)}`,
    t.pass ? "PASS" : "MISS",
    t.missBy ?? "",
  ]);
  return [table(["target", "measured", "limit", "result", "missed by"], rows), "", ...ts.map((t) => `- ${t.target}: ${t.context}`)].join(
    "\n",
  );
}
