/**
 * `npm run conformance`: runs the pinned official MCP conformance suite (server mode, from `conformance/`,
 * on the Node 22 installed there) against `examples/conformance-server.ts`, with the wymcp gate and
 * without it, for the 2026-07-28 requirements and every 2025-11-25 scenario. Prints one table per era
 * and fails when the gate loses a check the ungated server passes, when the gated server fails a check
 * its era's baseline does not name, when a baseline entry has gone stale (the suite's own rule), or when the
 * gated server, in outbound report mode (WYMCP_OUTBOUND=report), reports any message it sent as a violation. A third
 * run puts `wymcp proxy` (outbound report mode) in front of the ungated server, as in front of a server in another
 * language, and fails when it loses a check the server alone passes or reports a violation.
 * `--legacy-checks M` runs the gated server with that legacyChecks mode, `--era NAME` one era only; such a run prints its
 * tables but writes nothing into docs/conformance.md, which holds the default run of both eras.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchExample, launchProxy } from "../examples/launch.js";
import { provenance, writeDocSection } from "./doc-sections.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SUITE_DIR = join(ROOT, "conformance");
const NODE_22 = join(SUITE_DIR, "node_modules", ".bin", "node");
const CONFORMANCE_DOC = join(ROOT, "docs", "conformance.md");
const SUITE_CLI = join(SUITE_DIR, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

interface EraRun {
  name: string;
  /** How the suite is told which scenarios to run. */
  args: string[];
  /** The suite's `--expected-failures` file for this era, relative to the repository root. */
  baseline: string;
}

const ERAS: EraRun[] = [
  { name: "2026-07-28", args: ["--requirements", "2026-07-28"], baseline: "conformance/expected-failures-2026-07-28.yml" },
  // `--suite all` adds the revision's pending scenarios (SSE polling and resumption, JSON Schema 2020-12): more traffic through the gate.
  {
    name: "2025-11-25",
    args: ["--spec-version", "2025-11-25", "--suite", "all"],
    baseline: "conformance/expected-failures-2025-11-25.yml",
  },
];

type Mode = "gated" | "ungated" | "proxied";

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
};
const LEGACY_CHECKS = flag("--legacy-checks");
/** The `params` rule's state each legacyChecks mode of the gated server is, for the proxy's `--rule`. */
const PARAMS_STATE: Record<string, string> = { params: "enforce", report: "report", framing: "off" };
const ONLY_ERA = flag("--era");

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

interface SuiteResult {
  exitCode: number;
  output: string;
  /** Checks per scenario, in the order the suite wrote them. */
  scenarios: Map<string, Check[]>;
  /** Scenarios the suite ran but does not score for the requirement set, with the reason it gives. */
  unscored: Map<string, string>;
}

function runSuite(url: URL, era: EraRun, outDir: string, baseline: boolean): Promise<SuiteResult> {
  const args = [SUITE_CLI, "server", "--url", url.href, ...era.args, "-o", outDir];
  if (baseline) args.push("--expected-failures", join(ROOT, era.baseline));
  return new Promise((resolve, reject) => {
    const child = spawn(NODE_22, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (output += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text));
    // The suite bounds each scenario (30 s); this bounds a hung run as a whole.
    const timer = setTimeout(() => child.kill("SIGKILL"), 10 * 60_000);
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ exitCode: code ?? (signal ? 128 : 1), output, scenarios: readChecks(outDir), unscored: readUnscored(output) });
    });
  });
}

/** The suite writes `<outDir>/server-<scenario>-<timestamp>/checks.json` per scenario. */
function readChecks(outDir: string): Map<string, Check[]> {
  const scenarios = new Map<string, Check[]>();
  for (const entry of readdirSync(outDir).sort()) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(entry);
    const file = join(outDir, entry, "checks.json");
    if (!match?.[1] || !existsSync(file)) continue;
    scenarios.set(match[1], JSON.parse(readFileSync(file, "utf8")) as Check[]);
  }
  return scenarios;
}

/** Lines such as `  ✗ tasks-lifecycle (extension)` under the suite's "Not scored" heading. */
function readUnscored(output: string): Map<string, string> {
  const unscored = new Map<string, string>();
  const start = output.indexOf("Not scored");
  if (start < 0) return unscored;
  for (const match of output.slice(start).matchAll(/^\s+[✓✗] (\S+) \(([\w-]+)\)$/gmu)) unscored.set(match[1]!, match[2]!);
  return unscored;
}

/** Keys that tell repeated ids apart: the n-th occurrence of an id in a scenario. */
function keyed(checks: Check[]): Map<string, Check> {
  const seen = new Map<string, number>();
  const out = new Map<string, Check>();
  for (const check of checks) {
    const n = seen.get(check.id) ?? 0;
    seen.set(check.id, n + 1);
    out.set(`${check.id}#${n}`, check);
  }
  return out;
}

const count = (checks: Check[], status: string) => checks.filter((check) => check.status === status).length;

interface EraVerdict {
  table: string;
  lost: string[];
  wireSchemaFailures: string[];
  /** Gated scenarios in which the suite emitted no wire-schema-valid check at all. */
  wireSchemaAbsent: string[];
  scenarioCount: number;
}

function compare(era: EraRun, gated: SuiteResult, ungated: SuiteResult, subject: "gated" | "proxied" = "gated"): EraVerdict {
  const names = [...new Set([...gated.scenarios.keys(), ...ungated.scenarios.keys()])];
  // INFO and SKIPPED checks judge nothing, so a scenario is shown as passed and failed checks.
  const rows: string[][] = [["scenario", `${subject} passed`, `${subject} failed`, "ungated passed", "ungated failed", "difference"]];
  const lost: string[] = [];
  const wireSchemaFailures: string[] = [];
  const wireSchemaAbsent: string[] = [];
  const totals = [0, 0, 0, 0];
  for (const name of names) {
    const g = gated.scenarios.get(name) ?? [];
    const u = ungated.scenarios.get(name) ?? [];
    const gatedByKey = keyed(g);
    for (const [key, check] of keyed(u)) {
      if (check.status === "SUCCESS" && gatedByKey.get(key)?.status !== "SUCCESS")
        lost.push(`${era.name} ${name}: ${key.replace(/#\d+$/, "")}`);
    }
    for (const check of g)
      if (check.id === "wire-schema-valid" && check.status !== "SUCCESS") wireSchemaFailures.push(`${era.name} ${name}`);
    if (!g.some((check) => check.id === "wire-schema-valid")) wireSchemaAbsent.push(name);
    const note = gated.unscored.get(name) ?? ungated.unscored.get(name);
    const cells = [count(g, "SUCCESS"), count(g, "FAILURE"), count(u, "SUCCESS"), count(u, "FAILURE")];
    cells.forEach((value, i) => (totals[i] = totals[i]! + value));
    rows.push([note ? `${name} (${note}, not scored)` : name, ...cells.map(String), signed(cells[0]! - cells[2]!)]);
  }
  rows.push(["total", ...totals.map(String), signed(totals[0]! - totals[2]!)]);
  return { table: formatTable(rows), lost, wireSchemaFailures, wireSchemaAbsent, scenarioCount: names.length };
}

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

function formatTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  return [line(rows[0]!), `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}

/** One line of the proxy's `--log json`. */
interface ProxyLine {
  event: string;
  [field: string]: unknown;
}

function proxyLines(stderr: string): ProxyLine[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as ProxyLine);
}

/** One line of `WYMCP_OUTBOUND_FILE` (examples/outbound-from-env.ts). */
interface OutboundViolationRecord {
  kind: "violation";
  era: string;
  method?: string;
  id?: unknown;
  violations: { message: string; errors: { instancePath: string; messages: string[] }[]; omitted?: number };
}

interface OutboundReport {
  summary?: { checked: number; violations: number; byEra: Record<string, number> };
  violations: OutboundViolationRecord[];
}

function readOutboundReport(file: string): OutboundReport {
  const report: OutboundReport = { violations: [] };
  if (!existsSync(file)) return report;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const record = JSON.parse(line) as { kind: string };
    if (record.kind === "summary") report.summary = record as unknown as OutboundReport["summary"];
    else report.violations.push(record as OutboundViolationRecord);
  }
  return report;
}

function outboundLine({ summary, violations }: OutboundReport): string {
  if (!summary) return `outbound (report mode), gated: no summary; ${violations.length} violations`;
  const eras = Object.entries(summary.byEra ?? {})
    .map(([era, n]) => `${n} ${era}`)
    .join(", ");
  return `outbound (report mode), gated: ${summary.violations} violations in ${summary.checked} messages checked (${eras})`;
}

function describeViolation(v: OutboundViolationRecord): string {
  const where = v.violations.errors.map((e) => `${e.instancePath || "/"}: ${e.messages.join("; ")}`).join(", ");
  const id = v.id === undefined ? "" : ` id=${JSON.stringify(v.id)}`;
  return `${v.era} ${v.method ?? "(no method)"}${id}: ${where}${v.violations.omitted ? ` (+${v.violations.omitted} more)` : ""}`;
}

async function main(): Promise<number> {
  if (!existsSync(NODE_22) || !existsSync(SUITE_CLI)) {
    console.error("conformance: the suite is not installed; run `npm ci` in conformance/ first");
    return 2;
  }
  const started = performance.now();
  const work = mkdtempSync(join(tmpdir(), "wymcp-conformance-"));
  const results = new Map<string, SuiteResult>();
  const reports = new Map<string, OutboundReport>();
  const refusals = new Map<string, string[]>();
  const eras = ERAS.filter((era) => ONLY_ERA === undefined || era.name === ONLY_ERA);
  if (eras.length === 0) {
    console.error(`conformance: --era must be one of ${ERAS.map((e) => e.name).join(", ")}`);
    return 2;
  }
  const proxyLogs = new Map<string, { code: number | null; lines: ProxyLine[] }>();
  try {
    for (const mode of ["gated", "ungated", "proxied"] as Mode[]) {
      // One server per run, so each era's outbound report is its own (the summary is written when the server exits).
      for (const era of eras) {
        const file = join(work, `outbound-${era.name}.jsonl`);
        const env: Record<string, string> =
          mode === "gated"
            ? {
                WYMCP_GATE: "on",
                WYMCP_OUTBOUND: "report",
                WYMCP_OUTBOUND_FILE: file,
                // The flag's mode as the params rule's state the gate takes.
                ...(LEGACY_CHECKS && {
                  WYMCP_PARAMS: { params: "enforce", report: "report", framing: "off" }[LEGACY_CHECKS] ?? LEGACY_CHECKS,
                }),
              }
            : { WYMCP_GATE: "off" };
        const server = await launchExample({ script: "examples/conformance-server.ts", env });
        // The proxy runs from the source, like the example: no build needed, and never a stale one.
        const proxy =
          mode === "proxied"
            ? await launchProxy(server.url, {
                cli: "src",
                args: [
                  "--rule",
                  "outbound=report",
                  "--log",
                  "json",
                  ...(LEGACY_CHECKS ? ["--rule", `params=${PARAMS_STATE[LEGACY_CHECKS]}`] : []),
                ],
              })
            : undefined;
        try {
          const outDir = join(work, `${mode}-${era.name}`);
          const result = await runSuite(proxy?.url ?? server.url, era, outDir, mode === "gated");
          if (result.scenarios.size === 0)
            throw new Error(`the suite wrote no results (${mode}, ${era.name}):\n${result.output.slice(-4_000)}`);
          results.set(`${mode} ${era.name}`, result);
        } finally {
          const code = await proxy?.stop();
          await server.stop();
          // What the gate refused or reported, as the server logged it (the last 64 KiB of its stderr).
          if (mode === "gated")
            refusals.set(
              era.name,
              server
                .stderr()
                .split("\n")
                .filter((l) => /^wymcp (rejected|reported): /.test(l)),
            );
          if (proxy) proxyLogs.set(era.name, { code: code ?? null, lines: proxyLines(proxy.stderr()) });
        }
        if (mode === "gated") reports.set(era.name, readOutboundReport(file));
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  const problems: string[] = [];
  const sections = new Map<string, string>();
  for (const era of eras) {
    const gated = results.get(`gated ${era.name}`)!;
    const verdict = compare(era, gated, results.get(`ungated ${era.name}`)!);
    console.log(`\n## ${era.name} (${era.args.join(" ")}): checks passed, gated vs ungated\n`);
    console.log(verdict.table);
    const judged = verdict.scenarioCount - verdict.wireSchemaAbsent.length;
    console.log(
      `\nwire-schema-valid, gated: ${judged - verdict.wireSchemaFailures.length} of ${judged} scenarios that emit it passed; not emitted by: ${verdict.wireSchemaAbsent.join(", ") || "none"}`,
    );
    problems.push(...verdict.lost.map((check) => `lost to the gate: ${check}`));
    problems.push(...verdict.wireSchemaFailures.map((scenario) => `wire-schema-valid failed gated: ${scenario}`));
    const refused = refusals.get(era.name) ?? [];
    const refusalLine = `gated (legacyChecks ${LEGACY_CHECKS ?? "default"}): ${refused.length} requests refused or reported by the gate`;
    console.log(`\n${refusalLine}`);
    for (const line of new Set(refused)) console.log(`  ${line} ×${refused.filter((l) => l === line).length}`);
    const report = reports.get(era.name)!;
    console.log(`\n${outboundLine(report)}`);
    for (const v of report.violations) console.log(`  ${describeViolation(v)}`);
    sections.set(
      era.name,
      [
        `**${era.name}** (\`${era.args.join(" ")}\`): checks passed and failed per scenario, gated and ungated.`,
        "",
        verdict.table,
        "",
        `- wire-schema-valid, gated: ${judged - verdict.wireSchemaFailures.length} of ${judged} scenarios that emit it passed; not emitted by: ${verdict.wireSchemaAbsent.join(", ") || "none"}.`,
        `- ${outboundLine(report)}.`,
        `- ${refusalLine}${refused.length > 0 ? `: ${[...new Set(refused)].map((l) => `\`${l}\``).join(", ")}` : ""}.`,
      ].join("\n"),
    );
    if (!report.summary)
      problems.push(
        `outbound report ${era.name}: no summary line, so the gated server did not exit cleanly and its checks cannot be counted`,
      );
    else if (report.summary.checked === 0) problems.push(`outbound report ${era.name}: 0 messages checked, so report mode did not run`);
    else if (report.summary.violations !== report.violations.length) {
      problems.push(
        `outbound report ${era.name}: the summary counts ${report.summary.violations} violations, the file holds ${report.violations.length}`,
      );
    }
    problems.push(...report.violations.map((v) => `outbound violation, gated ${era.name}: ${describeViolation(v)}`));
    const proxied = compare(era, results.get(`proxied ${era.name}`)!, results.get(`ungated ${era.name}`)!, "proxied");
    const log = proxyLogs.get(era.name)!;
    const violations = log.lines.filter((line) => line.event === "outbound-violation");
    const proxyRefusals = log.lines.filter((line) => line.event === "refused");
    console.log(`\n## ${era.name}: checks passed through wymcp proxy (in front of the ungated server) vs the server alone\n`);
    console.log(proxied.table);
    const proxyLine = `wymcp proxy (outbound report mode): ${proxyRefusals.length} POSTs refused, ${violations.length} outbound violations, exit code ${log.code}`;
    console.log(`\n${proxyLine}`);
    problems.push(...proxied.lost.map((check) => `lost to the proxy: ${check}`));
    problems.push(...violations.map((v) => `outbound violation through the proxy, ${era.name}: ${JSON.stringify(v)}`));
    if (log.code !== 0) problems.push(`wymcp proxy exited ${log.code} after the ${era.name} run, not 0 (drained)`);
    sections.set(
      `proxy-${era.name}`,
      [
        `**${era.name}** through \`wymcp proxy\` in front of the ungated server, against the server alone: checks passed and failed per scenario.`,
        "",
        proxied.table,
        "",
        `- ${proxyLine}.`,
      ].join("\n"),
    );
    if (gated.exitCode !== 0) {
      // The suite judged the gated run against the baseline: an unexpected failure or a stale entry.
      const summary = gated.output
        .slice(gated.output.lastIndexOf("Total:"))
        .replace(/\x1b\[[0-9;]*m/g, "")
        .trim();
      problems.push(
        `the suite failed the gated ${era.name} run against ${era.baseline} (exit ${gated.exitCode}); its summary:\n${summary}`,
      );
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (problems.length > 0) {
    console.error(`\nconformance: FAILED (${seconds} s)\n- ${problems.join("\n- ")}`);
    return 1;
  }
  const checked = [...reports.values()].reduce((sum, r) => sum + (r.summary?.checked ?? 0), 0);
  const verdictLine = `no check lost to the gate or to wymcp proxy; every gated failure is in the baseline; 0 outbound violations in ${checked} messages checked (${seconds} s)`;
  console.log(`\nconformance: ${verdictLine}`);
  if (LEGACY_CHECKS !== undefined || ONLY_ERA !== undefined) {
    console.log("conformance: a run with --legacy-checks or --era writes nothing into docs/conformance.md");
    return 0;
  }
  // Only a passing run is written into docs/conformance.md: the document states what holds.
  const suite = JSON.parse(
    readFileSync(join(SUITE_DIR, "node_modules", "@modelcontextprotocol", "conformance", "package.json"), "utf8"),
  ) as { version: string };
  const head = `${provenance("npm run conformance")} Suite \`@modelcontextprotocol/conformance\` ${suite.version}. Verdict: ${verdictLine}.`;
  for (const [name, markdown] of sections) writeDocSection(CONFORMANCE_DOC, `conformance:${name}`, `${head}\n\n${markdown}`);
  console.log(`conformance: wrote ${sections.size} section(s) of ${CONFORMANCE_DOC}`);
  return 0;
}

process.exitCode = await main();
