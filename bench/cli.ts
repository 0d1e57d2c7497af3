/**
 * @module `wymcp check` in the benchmark: start-up of the bin against an empty `node -e ''` (every run), and, with
 * `--cli`, throughput and peak RSS on a generated JSONL capture of at least 200 MB, against a read + split +
 * JSON.parse floor. All in fresh plain-`node` processes, variants alternated round by round, ratios per round.
 * Also runs alone: `tsx bench/cli.ts [--large] [--quick]` (expects dist/ built).
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { benchMessages, type BenchMessages } from "./messages.js";
import { spread, type Spread } from "./measure.js";
import { specDir as resolveSpecDir } from "../scripts/spec-dir.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const cli = join(root, "dist", "cli.js");
const floor = join(root, "bench", "cli-floor.mjs");
const maxRss = join(root, "bench", "max-rss.cjs");

export interface CliStartup {
  rounds: number;
  /** Spawn to exit, seen by the parent (ms). */
  emptyMs: Spread;
  cliMs: Spread;
  /** cli ÷ empty, per round. */
  ratio: Spread;
  /** User + system CPU time (ms), and cli ÷ empty per round. */
  emptyCpuMs: Spread;
  cliCpuMs: Spread;
  cpuRatio: Spread;
  /** Peak RSS (MiB) of the CLI on the one message, and of the empty node. */
  cliRssMiB: Spread;
  emptyRssMiB: Spread;
}

export interface LargeVariant {
  label: string;
  wallMs: Spread;
  messagesPerSecond: Spread;
  /** Messages per second ÷ the floor's, per round. */
  ratio: Spread;
  /** User + system CPU time of the process, and the floor's ÷ this variant's, per round. */
  cpuMs: Spread;
  cpuRatio: Spread;
  /** Messages per CPU second. */
  messagesPerCpuSecond: Spread;
  rssMiB: Spread;
}

export interface CliLarge {
  rounds: number;
  bytes: number;
  messages: number;
  expected: Tally;
  variants: Record<string, LargeVariant>;
}

interface Tally {
  pass: number;
  rejected: number;
  bypassed: number;
}

function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  // Plain node: no loader or option inherited from the tsx parent, no colour.
  for (const name of Object.keys(env)) if (name === "NODE_OPTIONS" || name.startsWith("TSX") || name === "FORCE_COLOR") delete env[name];
  return env;
}

interface Timed {
  wallMs: number;
  rssKiB: number;
  cpuMs: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

/** One fresh process: its wall time from spawn to exit and its peak RSS (from the preload). */
function timed(args: string[], tmp: string, stdout: "pipe" | "ignore" = "pipe"): Timed {
  const rssFile = join(tmp, "rss");
  const env = { ...childEnv(), WYMCP_BENCH_RSS: rssFile };
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ["-r", maxRss, ...args], {
    env,
    encoding: "utf8",
    stdio: ["ignore", stdout, "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const usage = JSON.parse(readFileSync(rssFile, "utf8")) as { maxRssKiB: number; cpuMs: number };
  return { wallMs, rssKiB: usage.maxRssKiB, cpuMs: usage.cpuMs, status: run.status, stdout: run.stdout ?? "", stderr: run.stderr ?? "" };
}

const MiB = 1024 * 1024;

/** `wymcp check message.json` against `node -e ''`, alternated; one discarded round first warms the disk cache. */
export function runCliStartup(options: { rounds: number; messageFile: string; tmp: string; log?: (s: string) => void }): CliStartup {
  const empty = () => timed(["-e", ""], options.tmp);
  const check = () => {
    const run = timed([cli, "check", options.messageFile], options.tmp);
    if (run.status !== 0) throw new Error(`wymcp check on the start-up message exited ${run.status}: ${run.stdout}${run.stderr}`);
    return run;
  };
  empty();
  check();
  const e: Timed[] = [];
  const c: Timed[] = [];
  for (let round = 0; round < options.rounds; round++) {
    e.push(empty());
    c.push(check());
  }
  options.log?.(`cli start-up: ${options.rounds} round(s)`);
  return {
    rounds: options.rounds,
    emptyMs: spread(e.map((r) => r.wallMs)),
    cliMs: spread(c.map((r) => r.wallMs)),
    ratio: spread(c.map((r, i) => r.wallMs / e[i]!.wallMs)),
    emptyCpuMs: spread(e.map((r) => r.cpuMs)),
    cliCpuMs: spread(c.map((r) => r.cpuMs)),
    cpuRatio: spread(c.map((r, i) => r.cpuMs / e[i]!.cpuMs)),
    cliRssMiB: spread(c.map((r) => r.rssKiB / 1024)),
    emptyRssMiB: spread(e.map((r) => r.rssKiB / 1024)),
  };
}

/**
 * Writes a JSONL capture of at least `bytes`: per 500 lines, the official tools/call (modern pass), a legacy initialize,
 * notification and client response (pass, pass, pass: --direction auto judges a response outbound, on its framing
 * alone without --method), the bad tools/call (reject), a cut-off line (not JSON),
 * and one 50 KiB tools/call. Returns how many of each the CLI must report.
 */
export function writeCapture(file: string, bytes: number, m: BenchMessages): { messages: number; expected: Tally } {
  const cycle: Array<[string, keyof Tally]> = [];
  for (let i = 0; i < 100; i++) {
    const k = i % 20;
    if (k < 8) cycle.push([m.toolsCall.text, "pass"]);
    else if (k < 11) cycle.push([m.initialize.text, "pass"]);
    else if (k < 14) cycle.push([m.notification.text, "pass"]);
    else if (k < 16) cycle.push([m.response.text, "pass"]);
    else if (k < 19) cycle.push([m.badToolsCall.text, "rejected"]);
    else cycle.push([m.toolsCall.text.slice(0, 100), "rejected"]);
  }
  const block: Array<[string, keyof Tally]> = [
    ...cycle,
    ...cycle,
    ...cycle,
    ...cycle,
    ...cycle.slice(0, 99),
    [m.bigToolsCall.text, "pass"],
  ];
  const text = `${block.map(([line]) => line).join("\n")}\n`;
  const counts: Tally = { pass: 0, rejected: 0, bypassed: 0 };
  for (const [, outcome] of block) counts[outcome]++;
  const fd = openSync(file, "w");
  let written = 0;
  let blocks = 0;
  try {
    const chunk = Buffer.from(text.repeat(8));
    while (written < bytes) {
      written += writeSync(fd, chunk);
      blocks += 8;
    }
  } finally {
    closeSync(fd);
  }
  const expected = { pass: counts.pass * blocks, rejected: counts.rejected * blocks, bypassed: counts.bypassed * blocks };
  return { messages: block.length * blocks, expected };
}

const LARGE_VARIANTS: Array<{ key: string; label: string; args: (file: string) => string[]; stdout: "pipe" | "ignore" }> = [
  { key: "floor", label: "read + split + JSON.parse (floor)", args: (f) => [floor, f], stdout: "pipe" },
  { key: "human", label: "wymcp check (human output to /dev/null)", args: (f) => [cli, "check", f], stdout: "ignore" },
  { key: "json", label: "wymcp check --json (to /dev/null)", args: (f) => [cli, "check", "--json", f], stdout: "ignore" },
  { key: "quiet", label: "wymcp check --quiet (rejections only, piped)", args: (f) => [cli, "check", "--quiet", f], stdout: "pipe" },
];

/** Throughput and peak RSS on a generated capture of `bytes` (≥ 200 MB in a full run); the file is deleted after. */
export function runCliLarge(options: { rounds: number; bytes: number; specDir: string; log?: (s: string) => void }): CliLarge {
  const tmp = mkdtempSync(join(tmpdir(), "wymcp-bench-cli-"));
  try {
    const file = join(tmp, "capture.jsonl");
    const { messages, expected } = writeCapture(file, options.bytes, benchMessages(options.specDir));
    const size = statSync(file).size;
    options.log?.(`cli large file: ${(size / 1e6).toFixed(0)} MB, ${messages} messages; ${options.rounds} round(s)`);
    // A discarded first pass reads the file into the page cache for every variant alike.
    timed([floor, file], tmp);
    const samples = new Map<string, Timed[]>(LARGE_VARIANTS.map((v) => [v.key, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const v of LARGE_VARIANTS) {
        const run = timed(v.args(file), tmp, v.stdout);
        check(v.key, run, messages, expected);
        samples.get(v.key)!.push(run);
      }
      options.log?.(`cli large file: round ${round + 1}/${options.rounds}`);
    }
    const floorRuns = samples.get("floor")!;
    const variants: Record<string, LargeVariant> = {};
    for (const v of LARGE_VARIANTS) {
      const runs = samples.get(v.key)!;
      variants[v.key] = {
        label: v.label,
        wallMs: spread(runs.map((r) => r.wallMs)),
        messagesPerSecond: spread(runs.map((r) => messages / (r.wallMs / 1000))),
        ratio: spread(runs.map((r, i) => floorRuns[i]!.wallMs / r.wallMs)),
        cpuMs: spread(runs.map((r) => r.cpuMs)),
        cpuRatio: spread(runs.map((r, i) => floorRuns[i]!.cpuMs / r.cpuMs)),
        messagesPerCpuSecond: spread(runs.map((r) => messages / (r.cpuMs / 1000))),
        rssMiB: spread(runs.map((r) => r.rssKiB / 1024)),
      };
    }
    return { rounds: options.rounds, bytes: size, messages, expected, variants };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Every run must have judged every message as generated, or its figures mean nothing. */
function check(key: string, run: Timed, messages: number, expected: Tally): void {
  if (key === "floor") {
    if (run.status !== 0 || Number(run.stdout.trim()) !== messages)
      throw new Error(`floor read ${run.stdout.trim()} of ${messages} messages: ${run.stderr}`);
    return;
  }
  if (run.status !== 1)
    throw new Error(`wymcp check (${key}) exited ${run.status}, expected 1 (some rejected): ${run.stderr.slice(0, 500)}`);
  if (key === "human" || key === "json") return;
  const want = `${messages} messages: ${expected.pass} pass, ${expected.rejected} rejected, ${expected.bypassed} bypassed`;
  const last = run.stdout.trimEnd().split("\n").pop();
  if (last !== want) throw new Error(`wymcp check (${key}) summed up "${last}", expected "${want}"`);
}

const ms = (s: Spread) => `${s.median.toFixed(1)} [${s.min.toFixed(1)}–${s.max.toFixed(1)}]`;
const x = (s: Spread) => `${s.median.toFixed(2)}× [${s.min.toFixed(2)}×–${s.max.toFixed(2)}×]`;
const rate = (n: number) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} M/s` : `${(n / 1e3).toFixed(0)} k/s`);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export function cliStartupTable(s: CliStartup): string {
  return [
    table(
      ["process", "wall ms med [min–max]", "× node -e ''", "CPU ms med [min–max]", "× node -e '' (CPU)", "peak RSS MiB med"],
      [
        ["node -e '' (baseline)", ms(s.emptyMs), "—", ms(s.emptyCpuMs), "—", s.emptyRssMiB.median.toFixed(1)],
        ["wymcp check <one tools/call>.json", ms(s.cliMs), x(s.ratio), ms(s.cliCpuMs), x(s.cpuRatio), s.cliRssMiB.median.toFixed(1)],
      ],
    ),
    "",
    `wall: spawn to exit seen by the parent, ${s.rounds} rounds alternated; × is taken per round. Target ≤ 2×: ${s.ratio.median <= 2 ? "pass" : "**miss**"} (${s.ratio.median.toFixed(2)}×).`,
  ].join("\n");
}

export function cliLargeTable(l: CliLarge): string {
  const rows = Object.values(l.variants).map((v) => [
    v.label,
    ms(v.wallMs),
    rate(v.messagesPerSecond.median),
    x(v.ratio),
    ms(v.cpuMs),
    rate(v.messagesPerCpuSecond.median),
    x(v.cpuRatio),
    v.rssMiB.median.toFixed(1),
  ]);
  return [
    `capture: ${(l.bytes / 1e6).toFixed(1)} MB, ${l.messages} messages (${l.expected.pass} pass, ${l.expected.rejected} rejected, ${l.expected.bypassed} bypassed), ${l.rounds} round(s)`,
    table(
      [
        "variant",
        "wall ms med [min–max]",
        "msg/s (wall)",
        "× floor (wall)",
        "CPU ms med [min–max]",
        "msg/CPU-s",
        "× floor (CPU)",
        "peak RSS MiB med",
      ],
      rows,
    ),
    "",
    "Whole processes, start-up included. × floor = floor's time ÷ variant's time, per round; CPU = user + system time of the",
    "process, which other jobs on shared cores disturb far less than wall time.",
  ].join("\n");
}

async function main(): Promise<void> {
  const quick = process.argv.includes("--quick");
  const specDir = resolveSpecDir();
  const log = (s: string) => process.stderr.write(`bench: ${s}\n`);
  const tmp = mkdtempSync(join(tmpdir(), "wymcp-bench-cli-start-"));
  try {
    const messageFile = join(tmp, "message.json");
    writeFileSync(messageFile, benchMessages(specDir).toolsCall.text);
    console.log(`## CLI start-up\n${cliStartupTable(runCliStartup({ rounds: quick ? 1 : 9, messageFile, tmp, log }))}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (process.argv.includes("--large")) {
    const large = runCliLarge({ rounds: quick ? 1 : 3, bytes: quick ? 4 * MiB : 200 * 1e6, specDir, log });
    console.log(`\n## CLI on a large JSONL capture\n${cliLargeTable(large)}`);
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  main().catch((error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  });
}
