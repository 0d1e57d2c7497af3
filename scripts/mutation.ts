/**
 * @module `npm run mutation`: Stryker (stryker.config.mjs) mutates the core and the shared host admission, runs the
 * in-process test subset (test/mutation/*.ts) against each mutant, and writes its JSON report to
 * reports/mutation/mutation.json; this then writes docs/mutation.md from that report: the score per file, the date,
 * the machine, how long the run took, and every surviving mutant with its explanation from scripts/mutation/explained.ts.
 * Exits 1 when the score is under the target or a survivor is unexplained, after writing the page.
 * `-- --report-only` rewrites the page from the last report without running Stryker.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { explanationFor, type Survivor } from "./mutation/explained.js";
import { SPEC_DIR_SETTING, specDir } from "./spec-dir.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const REPORT = join(root, "reports", "mutation", "mutation.json");
const INCREMENTAL = join(root, "reports", "mutation", "stryker-incremental.json");
/** How the last run went (Stryker's report has no duration), for `--report-only`. */
const RUN = join(root, "reports", "mutation", "run.json");
const PAGE = join(root, "docs", "mutation.md");
/**
 * What the tests are, beyond the suites Stryker runs by name: its incremental mode diffs those files itself (a
 * changed suite's mutants run again) but not the helpers, data and settings they read, so a change to any of these
 * drops the incremental results and the run is a full one.
 */
const TEST_SIDE = ["test", "generated", "bench", "tsconfig.json", "stryker.config.mjs", "package-lock.json"];
// @ts-expect-error: a plain .mjs config (checked with // @ts-check), no declaration file.
const { default: strykerConfig } = (await import("../stryker.config.mjs")) as {
  default: { tap: { testFiles: string[] }; mutate: string[] };
};
/** The suites Stryker runs by name, and the explanations, which change no verdict: edits to them cost no full run. */
const DIFFED_BY_STRYKER = new Set([...strykerConfig.tap.testFiles, "scripts/mutation/explained.ts"].map((file) => join(root, file)));

/**
 * Whether a file can change what the mutation run's suites do: not one Stryker diffs itself, and not a suite it never
 * runs (`test/*.test.ts` outside its list), unless a wrapper in test/mutation/ imports that suite.
 */
export function readByTheRun(file: string): boolean {
  if (DIFFED_BY_STRYKER.has(file)) return false;
  const suite = /^test\/[^/]+\.test\.ts$/.exec(file.slice(root.length + 1));
  return !suite || WRAPPED.has(file);
}

const WRAPPED = new Set(
  readdirSync(join(root, "test", "mutation"))
    .filter((name) => name.endsWith(".ts"))
    .flatMap((name) => [...readFileSync(join(root, "test", "mutation", name), "utf8").matchAll(/["']\.\.\/([\w.-]+\.test)\.js["']/g)])
    .map((match) => join(root, "test", `${match[1]}.ts`)),
);

export function fingerprint(): string {
  const hash = createHash("sha256");
  for (const file of testSideFiles().filter(readByTheRun)) hash.update(file.slice(root.length)).update(readFileSync(file));
  return hash.digest("hex");
}

/**
 * The files of TEST_SIDE, sorted: those git tracks or would track (what .gitignore leaves out, such as the bench's
 * results, is no test input), or every file when this is no git checkout.
 */
function testSideFiles(): string[] {
  const git = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...TEST_SIDE], {
    cwd: root,
    encoding: "utf8",
  });
  const listed =
    git.status === 0
      ? git.stdout
          .split("\0")
          .filter((name) => name !== "")
          .map((name) => join(root, name))
          .filter((file) => existsSync(file))
      : TEST_SIDE.flatMap((entry) => {
          const full = join(root, entry);
          return statSync(full).isDirectory()
            ? readdirSync(full, { recursive: true, withFileTypes: true })
                .filter((e) => e.isFile())
                .map((e) => join(e.parentPath ?? e.path, e.name))
            : [full];
        });
  return [...new Set(listed)].sort();
}

/** Killed and timed out over all valid mutants, in percent. */
export const TARGET_SCORE = 85;

interface Mutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: "Killed" | "Survived" | "NoCoverage" | "Timeout" | "CompileError" | "RuntimeError" | "Ignored" | "Pending";
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

interface Tally {
  file: string;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  invalid: number;
}

const score = (t: Tally) => {
  const valid = t.killed + t.timeout + t.survived + t.noCoverage;
  return valid === 0 ? 100 : (100 * (t.killed + t.timeout)) / valid;
};

/** The text a mutant replaced, from its 1-based line and column range. */
function originalOf(source: string, { start, end }: Mutant["location"]): string {
  const lines = source.split("\n");
  if (start.line === end.line) return lines[start.line - 1]!.slice(start.column - 1, end.column - 1);
  const middle = lines.slice(start.line, end.line - 1);
  return [lines[start.line - 1]!.slice(start.column - 1), ...middle, lines[end.line - 1]!.slice(0, end.column - 1)].join("\n");
}

const oneLine = (text: string, max = 90) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
const code = (text: string) => `\`${text.replace(/`/g, "'").replace(/\|/g, "\\|")}\``;

/** One run of Stryker: how long it took, whether it reused earlier results, the 1-minute load average before and after. */
export interface RunTiming {
  minutes: number | undefined;
  incremental: boolean;
  date: string;
  load?: [number, number];
}

/** What run.json keeps: the last run, the last full one (incremental runs are shorter), the test side's fingerprint. */
interface RunRecord extends RunTiming {
  full?: RunTiming;
  tests?: string;
}

const loadText = (load: [number, number] | undefined) =>
  load ? `, load average ${load[0].toFixed(1)} before and ${load[1].toFixed(1)} after` : "";
const timingText = (t: RunTiming) =>
  t.minutes === undefined
    ? ""
    : `${t.minutes.toFixed(1)} minutes${t.incremental ? " (incremental: results of unchanged mutants and tests reused)" : " (a full run, nothing reused)"}${loadText(t.load)}`;

export function renderPage(report: Report, run: RunTiming & { full?: RunTiming }): { page: string; total: number; unexplained: number } {
  const tallies: Tally[] = [];
  const survivors: Array<Survivor & { line: number; status: string; reason: string | undefined }> = [];
  for (const [file, { source, mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
    const t: Tally = { file, killed: 0, timeout: 0, survived: 0, noCoverage: 0, invalid: 0 };
    for (const m of mutants) {
      if (m.status === "Killed") t.killed++;
      else if (m.status === "Timeout") t.timeout++;
      else if (m.status === "Survived" || m.status === "NoCoverage") {
        if (m.status === "Survived") t.survived++;
        else t.noCoverage++;
        const survivor: Survivor = {
          file,
          mutator: m.mutatorName,
          original: originalOf(source, m.location),
          replacement: m.replacement ?? "",
        };
        survivors.push({ ...survivor, line: m.location.start.line, status: m.status, reason: explanationFor(survivor) });
      } else t.invalid++;
    }
    tallies.push(t);
  }
  const sum: Tally = { file: "all", killed: 0, timeout: 0, survived: 0, noCoverage: 0, invalid: 0 };
  for (const t of tallies) for (const k of ["killed", "timeout", "survived", "noCoverage", "invalid"] as const) sum[k] += t[k];
  const total = score(sum);
  const unexplained = survivors.filter((s) => s.reason === undefined).length;
  const cpu = cpus();
  const row = (t: Tally) =>
    `| ${t.file === "all" ? "**all**" : `\`${t.file}\``} | ${t.killed + t.timeout + t.survived + t.noCoverage} | ${t.killed} | ${t.timeout} | ${t.survived} | ${t.noCoverage} | ${score(t).toFixed(1)} % |`;
  const lines = [
    "# Mutation testing",
    "",
    "<!-- Written by `npm run mutation` (scripts/mutation.ts) from reports/mutation/mutation.json; do not edit. -->",
    "",
    "How well the tests catch a small change to the core: the mutation score per module and every surviving mutant.",
    "",
    "`npm run mutation` runs StrykerJS (`stryker.config.mjs`) on the core modules its `mutate` lists",
    `(${strykerConfig.mutate.map((file) => code(basename(file, ".ts"))).join(", ")}):`,
    "each mutant is a small change to the source, and the in-process suites the config lists must fail",
    "against it. Each suite runs in a process of its own, under plain Node on a transpiled copy of Stryker's sandbox",
    "(`test/mutation/transpile.mjs`); a mutant goes only to the suites whose run executed it, its own module's first,",
    "and stops at the first that fails.",
    "The score is killed and timed-out mutants over all valid ones (no coverage counts as survived).",
    "Runs are incremental: Stryker reuses the results of unchanged mutants while the tests that cover them are unchanged;",
    "a changed suite's mutants run again, and a change to anything else the suites read (helpers, fixtures and goldens",
    "under `test/`, `generated/`, `bench/`, the settings) starts a full run.",
    `Target: ≥ ${TARGET_SCORE} %. Each survivor below is either explained (an equivalent mutant, or why no test can see`,
    "it) in `scripts/mutation/explained.ts`, or marked **unexplained**, which makes the command exit 1.",
    "",
    `Run ${run.date} on ${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}` +
      (run.minutes === undefined ? "." : `: ${timingText(run)}.`) +
      (run.incremental && run.full?.minutes !== undefined ? ` The last full run (${run.full.date}): ${timingText(run.full)}.` : ""),
    "",
    `**Mutation score: ${total.toFixed(1)} %** (${sum.killed} killed, ${sum.timeout} timed out, ${sum.survived} survived, ${sum.noCoverage} without coverage${sum.invalid ? `, ${sum.invalid} invalid` : ""}).`,
    "",
    "| file | mutants | killed | timed out | survived | no coverage | score |",
    "|---|---:|---:|---:|---:|---:|---:|",
    ...tallies.map(row),
    row(sum),
    "",
    "## Surviving mutants",
    "",
  ];
  if (survivors.length === 0) lines.push("None.");
  else {
    lines.push("| where | mutator | original → replacement | why it survives |", "|---|---|---|---|");
    for (const s of survivors) {
      const why = s.reason ?? "**unexplained**: kill it with a test, or explain it in scripts/mutation/explained.ts";
      lines.push(
        `| \`${s.file}:${s.line}\`${s.status === "NoCoverage" ? " (no coverage)" : ""} | ${s.mutator} | ${code(oneLine(s.original))} → ${code(oneLine(s.replacement))} | ${why} |`,
      );
    }
  }
  return { page: `${lines.join("\n")}\n`, total, unexplained };
}

function main(): void {
  const reportOnly = process.argv.includes("--report-only");
  const last = existsSync(RUN) ? (JSON.parse(readFileSync(RUN, "utf8")) as RunRecord) : undefined;
  const tests = fingerprint();
  if (!reportOnly && last?.tests !== tests) rmSync(INCREMENTAL, { force: true });
  let run: RunRecord = {
    minutes: undefined,
    incremental: existsSync(INCREMENTAL),
    date: new Date().toISOString().slice(0, 10),
    tests,
    full: last?.full,
  };
  if (reportOnly && last) run = { ...last, tests: last.tests ?? tests };
  if (!reportOnly) {
    const started = performance.now();
    const loadBefore = loadavg()[0]!;
    // The sandbox sits two levels down, where the default place beside the repository does not resolve: pass it on.
    const env = { ...process.env, [SPEC_DIR_SETTING]: specDir() };
    const stryker = spawnSync(
      process.execPath,
      [join(root, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js"), "run", "stryker.config.mjs"],
      { cwd: root, env, stdio: "inherit" },
    );
    if (stryker.status !== 0) {
      console.error(`stryker exited with ${stryker.status}`);
      process.exit(stryker.status ?? 1);
    }
    run.minutes = (performance.now() - started) / 60_000;
    run.load = [loadBefore, loadavg()[0]!];
    if (!run.incremental) run.full = { minutes: run.minutes, incremental: false, date: run.date, load: run.load };
    writeFileSync(RUN, JSON.stringify(run));
  }
  const report = JSON.parse(readFileSync(REPORT, "utf8")) as Report;
  const { page, total, unexplained } = renderPage(report, run);
  writeFileSync(PAGE, page);
  console.log(`docs/mutation.md: score ${total.toFixed(1)} %, ${unexplained} unexplained survivor(s)`);
  if (total < TARGET_SCORE || unexplained > 0) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
