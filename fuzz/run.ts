/**
 * @module `npm run fuzz`: the HTTP fuzzer. Starts the example server as a child process (gated, and with
 * `WYMCP_GATE=off` for comparison), sends it seeded mutations of the official examples over raw sockets, and
 * judges every answer. `npm run fuzz -- --count 20000 --seed 7 [--gate on|off|both] [--concurrency 8]`.
 * Exits 1 when the gated server broke a rule or gave more 5xx than the ungated one. `--adversarial` runs the
 * schema-driven adversarial cases instead (fuzz/adversarial.ts, long member names included); `--transport` the chunk
 * sizes and pipelining after refusals (fuzz/transport.ts), gated vs ungated, then hostile upstreams, smuggling shapes,
 * awkward clients and stdio peers, with wymcp and without (fuzz/hostile.ts; `--family` picks families).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { launchExample } from "../examples/launch.js";
import { loadBases, makeCase, type FuzzCase } from "./cases.js";
import { send, type Outcome } from "./send.js";

/** The bound every error answer must keep (docs/validation.md#the-answer-to-a-bad-message; `MAX_ANSWER_BYTES`). */
export const ANSWER_BOUND_BYTES = 8192;

export interface FuzzOptions {
  count: number;
  seed: number;
  gate: "on" | "off";
  concurrency?: number;
  /**
   * A request with neither an answer nor a close within this is a hang. 60 s: a 10^5-key body costs the SDK
   * seconds in both variants, and requests queued behind it on a shared machine wait that long too; a request
   * that is never answered still shows.
   */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface Finding {
  index: number;
  kind: string;
  base: string;
  framing: string;
  status: number | "none" | "hung";
  problem: string;
}

export interface FuzzReport {
  gate: "on" | "off";
  seed: number;
  count: number;
  /** Per status ("200", "400", ..., "none" for a close without an answer, "hung"). */
  statuses: Record<string, number>;
  /** Per mutation kind, per status. */
  byKind: Record<string, Record<string, number>>;
  fiveXx: number;
  hangs: number;
  reflected: number;
  overBound: number;
  notEnvelope: number;
  /** Closed without an answer although the request was framed correctly. */
  dropped: number;
  /** Error answers whose marker could be judged (the mutation left the marker's bytes whole). */
  markersJudged: number;
  maxErrorAnswerBytes: number;
  /** Time to the answer (or the close), over all cases: median, 99th percentile, slowest. */
  latencyMs: { p50: number; p99: number; max: number };
  /** Status per case index (0 none, -1 hung), to pair the two variants case by case. */
  statusByIndex: number[];
  findings: Finding[];
  rssKb: { before: number; after: number; growth: number };
  /** The status of a normal modern tools/call and a normal legacy tools/list sent after the run. */
  finalCheck: { modern: number | "none" | "hung"; legacy: number | "none" | "hung"; ok: boolean };
  seconds: number;
}

const KEEP_FINDINGS = 25;

/** The server's RSS may grow this much over a run: 1.4 MB bodies of 10^5 keys grow V8's heap in both variants. */
export const RSS_GROWTH_BOUND_KB = 256 * 1024;

function rssKb(pid: number): number {
  return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim());
}

const statusOf = (o: Outcome): number | "none" | "hung" => (o.hung ? "hung" : (o.status ?? "none"));

/** The rules a single answer must keep; returns the broken ones (empty when it kept them all). */
export function judge(c: FuzzCase, o: Outcome): string[] {
  if (o.hung) return ["hung"];
  if (o.status === undefined) {
    // A client that broke the framing may be dropped; one that framed its request correctly is owed an answer.
    return c.framing === "length-over" || c.framing === "disconnect" ? [] : ["closed without an answer"];
  }
  const problems: string[] = [];
  if (o.status >= 500) problems.push(`${o.status}`);
  if (o.status < 300) return problems;
  if (o.bodyBytes > ANSWER_BOUND_BYTES) problems.push(`answer of ${o.bodyBytes} bytes`);
  const text = Buffer.from(o.body).toString("utf8");
  let answer: {
    jsonrpc?: unknown;
    id?: unknown;
    error?: { code?: unknown; message?: unknown; data?: { errors?: { instancePath?: unknown }[] } };
  };
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    return [...problems, "not JSON"];
  }
  const envelope =
    (o.headers["content-type"] ?? "").startsWith("application/json") &&
    answer.jsonrpc === "2.0" &&
    "id" in answer &&
    Number.isInteger(answer.error?.code) &&
    typeof answer.error?.message === "string";
  if (!envelope) problems.push("not a JSON-RPC error envelope");
  if (c.marker && text.includes(c.marker)) {
    // The only client strings an answer may carry are a bounded id and the keys of instance locations.
    let rest = text;
    const allowed = [answer.id, ...(answer.error?.data?.errors ?? []).map((e) => e.instancePath)].filter(
      (s): s is string => typeof s === "string",
    );
    for (const s of allowed) rest = rest.split(JSON.stringify(s).slice(1, -1)).join("");
    if (rest.includes(c.marker)) problems.push("reflects the planted marker");
  }
  return problems;
}

/** A normal modern tools/call and a normal legacy tools/list, as a healthy server answers them. */
function healthCases(): FuzzCase[] {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const json = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  const encode = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  return [
    {
      index: -1,
      kind: "health",
      base: "modern tools/call",
      framing: "content-length",
      headers: { ...json, "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo" },
      body: encode({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { _meta: meta, name: "echo", arguments: { text: "still here" } },
      }),
    },
    {
      index: -2,
      kind: "health",
      base: "legacy tools/list",
      framing: "content-length",
      headers: json,
      body: encode({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    },
  ];
}

export async function runFuzz({
  count,
  seed,
  gate,
  concurrency = 8,
  timeoutMs = 60_000,
  log = () => undefined,
}: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const bases = loadBases();
  const server = await launchExample({ env: { WYMCP_GATE: gate } });
  try {
    const statuses: Record<string, number> = {};
    const byKind: Record<string, Record<string, number>> = {};
    const statusByIndex = new Array<number>(count).fill(0);
    const findings: Finding[] = [];
    const latencies: number[] = [];
    const tally = { fiveXx: 0, hangs: 0, reflected: 0, overBound: 0, notEnvelope: 0, dropped: 0, markersJudged: 0, maxErrorAnswerBytes: 0 };

    // Warm-up outside the count (valid cases of another seed), so start-up allocations are not counted as growth.
    for (let i = 0; i < 40; i++) await send(server.url, makeCase(bases, seed + 1, i), timeoutMs);
    const before = rssKb(server.pid);

    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < count) {
        const c = makeCase(bases, seed, next++);
        const o = await send(server.url, c, timeoutMs);
        const status = statusOf(o);
        latencies.push(o.ms);
        statuses[status] = (statuses[status] ?? 0) + 1;
        const kind = (byKind[c.kind] ??= {});
        kind[status] = (kind[status] ?? 0) + 1;
        statusByIndex[c.index] = status === "hung" ? -1 : status === "none" ? 0 : status;
        if (typeof status === "number" && status >= 300) {
          tally.maxErrorAnswerBytes = Math.max(tally.maxErrorAnswerBytes, o.bodyBytes);
          if (c.marker) tally.markersJudged++;
        }
        const problems = judge(c, o);
        for (const problem of problems) {
          if (problem === "hung") tally.hangs++;
          else if (problem === "closed without an answer") tally.dropped++;
          else if (/^5\d\d$/.test(problem)) tally.fiveXx++;
          else if (problem.startsWith("answer of")) tally.overBound++;
          else if (problem.startsWith("reflects")) tally.reflected++;
          else tally.notEnvelope++;
        }
        if (problems.length && findings.length < KEEP_FINDINGS) {
          findings.push({ index: c.index, kind: c.kind, base: c.base, framing: c.framing, status, problem: problems.join("; ") });
        }
        if (++done % 1000 === 0) log(`${gate}: ${done}/${count}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));

    const after = rssKb(server.pid);
    const [modern, legacy] = await Promise.all(healthCases().map((c) => send(server.url, c, timeoutMs)));
    const finalCheck = {
      modern: statusOf(modern!),
      legacy: statusOf(legacy!),
      ok: modern!.status === 200 && Buffer.from(modern!.body).includes("still here") && legacy!.status === 200,
    };
    latencies.sort((a, b) => a - b);
    const at = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)] ?? 0;
    return {
      gate,
      seed,
      count,
      latencyMs: { p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] ?? 0 },
      statuses,
      byKind,
      ...tally,
      statusByIndex,
      findings,
      rssKb: { before, after, growth: after - before },
      finalCheck,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await server.stop();
  }
}

/** Cases the ungated server answered below 500 and the gated one with a 5xx (or not at all): must be none. */
export function gatedWorse(gated: FuzzReport, ungated: FuzzReport): number[] {
  const worse: number[] = [];
  gated.statusByIndex.forEach((g, i) => {
    const u = ungated.statusByIndex[i]!;
    if (u > 0 && u < 500 && (g >= 500 || g === -1)) worse.push(i);
  });
  return worse;
}

function summary(reports: FuzzReport[]): string {
  const rows: [string, (r: FuzzReport) => string][] = [
    ["requests", (r) => String(r.count)],
    [
      "2xx",
      (r) =>
        String(
          Object.entries(r.statuses)
            .filter(([s]) => s.startsWith("2"))
            .reduce((n, [, k]) => n + k, 0),
        ),
    ],
    [
      "4xx",
      (r) =>
        String(
          Object.entries(r.statuses)
            .filter(([s]) => s.startsWith("4"))
            .reduce((n, [, k]) => n + k, 0),
        ),
    ],
    ["5xx", (r) => String(r.fiveXx)],
    ["closed, no answer (broken framing: allowed)", (r) => String((r.statuses.none ?? 0) - r.dropped)],
    ["closed, no answer (framed correctly)", (r) => String(r.dropped)],
    ["hangs (no answer and no close within 60 s)", (r) => String(r.hangs)],
    [
      "time to answer p50 / p99 / slowest (ms)",
      (r) => `${r.latencyMs.p50.toFixed(0)} / ${r.latencyMs.p99.toFixed(0)} / ${r.latencyMs.max.toFixed(0)}`,
    ],
    ["reflected markers", (r) => `${r.reflected} of ${r.markersJudged} judged`],
    ["error answers > 8 KiB", (r) => String(r.overBound)],
    ["error answers not a JSON-RPC envelope", (r) => String(r.notEnvelope)],
    ["largest error answer (bytes)", (r) => String(r.maxErrorAnswerBytes)],
    ["server RSS before → after (MiB)", (r) => `${(r.rssKb.before / 1024).toFixed(0)} → ${(r.rssKb.after / 1024).toFixed(0)}`],
    ["normal requests answered after the run", (r) => (r.finalCheck.ok ? "yes" : `no (${r.finalCheck.modern}, ${r.finalCheck.legacy})`)],
    ["seconds", (r) => r.seconds.toFixed(1)],
  ];
  const header = ["", ...reports.map((r) => (r.gate === "on" ? "gated (wymcp)" : "ungated (WYMCP_GATE=off)"))];
  const table = [header, ...rows.map(([label, f]) => [label, ...reports.map(f)])];
  const widths = header.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const lines = table.map((row) => row.map((cell, i) => (i ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  "));
  lines.splice(1, 0, widths.map((w) => "-".repeat(w)).join("  "));
  const kinds = [...new Set(reports.flatMap((r) => Object.keys(r.byKind)))].sort();
  lines.push("", "statuses per mutation:");
  for (const kind of kinds) {
    const cells = reports.map((r) =>
      Object.entries(r.byKind[kind] ?? {})
        .sort()
        .map(([s, n]) => `${s}×${n}`)
        .join(" "),
    );
    lines.push(`  ${kind.padEnd(15)} ${cells.map((c, i) => `${reports[i]!.gate === "on" ? "gated" : "ungated"}: ${c}`).join(" | ")}`);
  }
  for (const r of reports) {
    for (const f of r.findings)
      lines.push(`${r.gate === "on" ? "gated" : "ungated"} #${f.index} ${f.kind} (${f.base}, ${f.framing}) → ${f.status}: ${f.problem}`);
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const arg = (name: string, fallback: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
  };
  const count = Number(arg("count", "2000"));
  const seed = Number(arg("seed", "1"));
  const concurrency = Number(arg("concurrency", "8"));
  const which = arg("gate", "both");
  const gates = which === "both" ? (["on", "off"] as const) : ([which === "off" ? "off" : "on"] as const);
  const log = (line: string) => process.stderr.write(`fuzz: ${line}\n`);
  // Both servers at once: the same cases under the same machine load, in half the wall time.
  log(`${count} requests, seed ${seed}, to ${gates.map((g) => (g === "on" ? "the gated" : "the ungated")).join(" and ")} server`);
  const reports = await Promise.all(gates.map((gate) => runFuzz({ count, seed, gate, concurrency, log })));
  console.log(`wymcp HTTP fuzz: seed ${seed}, ${count} requests per server, ${concurrency} connections at a time\n`);
  console.log(summary(reports));
  const gated = reports.find((r) => r.gate === "on");
  const ungated = reports.find((r) => r.gate === "off");
  let failed = false;
  if (gated) {
    const broken = gated.fiveXx + gated.hangs + gated.reflected + gated.overBound + gated.notEnvelope + gated.dropped;
    failed = broken > 0 || !gated.finalCheck.ok || gated.rssKb.growth > RSS_GROWTH_BOUND_KB;
    console.log(`\ngated server RSS growth ${(gated.rssKb.growth / 1024).toFixed(0)} MiB (bound ${RSS_GROWTH_BOUND_KB / 1024} MiB)`);
    if (ungated) {
      const worse = gatedWorse(gated, ungated);
      console.log(
        `\ncases the ungated server answered below 500 that the gated one answered 5xx or not at all: ${worse.length}${worse.length ? ` (${worse.slice(0, 10).join(", ")})` : ""}`,
      );
      console.log(`5xx: gated ${gated.fiveXx}, ungated ${ungated.fiveXx}`);
      failed ||= worse.length > 0 || gated.fiveXx > ungated.fiveXx;
    }
  }
  const out = arg("json", "");
  if (out)
    writeFileSync(
      out,
      `${JSON.stringify(
        reports.map(({ statusByIndex: _, ...r }) => r),
        null,
        2,
      )}\n`,
    );
  console.log(failed ? "\nFAIL: the gated server broke a rule (see above)" : "\nok");
  process.exitCode = failed ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  (process.argv.includes("--adversarial")
    ? import("./adversarial.js").then(async ({ mainAdversarial }) => void (process.exitCode = await mainAdversarial(process.argv)))
    : process.argv.includes("--transport")
      ? import("./transport.js").then(async ({ mainTransport }) => void (process.exitCode = await mainTransport(process.argv)))
      : main()
  ).catch((error: unknown) => {
    console.error(`fuzz failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  });
}
