/**
 * @module The adversarial families of the tools at the edge (fuzz/adversarial/edge.ts), part of `npm run bench --
 * --adversarial` (alone: `npm run bench -- --adversarial-edge`): per case, the whole path after the body and the header
 * lines are parsed (admission: the nesting bound, validateMcpRequest with the header rules; the tool's Mcp-Param headers and arguments) ÷
 * `JSON.parse` of the same bytes, the body and the header lines as one JSON text (`[body, [[name, value], …]]`), in
 * interleaved rounds; and the growth of the path's time for 4× n. Headers: n as large as Node's default header size
 * (16 KiB for the whole header section) allows, and a quarter of it. Schemas: n ×4 from 256 up to the body limit, a
 * step projected over the time budget not taken.
 */
import { edgeCompiler } from "../src/compile/at-edge.js";
import { DEFAULT_MAX_BODY_BYTES } from "../src/options/options.js";
import type { ToolSchemaCompiler } from "../src/tools/tools-at-edge.js";
import {
  type EdgeCase,
  type EdgeRequest,
  type Face,
  headerBytes,
  headerCases,
  judgeAtEdge,
  NODE_MAX_HEADER_BYTES,
  PATTERN_SHAPES,
  patternCase,
  reader,
  type SchemaCase,
  schemaCases,
} from "../fuzz/adversarial/edge.js";
import { pair, type Subject, timeOf } from "./adversarial.js";
import { formatRatio, type Spread, table } from "./measure.js";

export interface EdgeSettings {
  rounds: number;
  /** Schemas: n at the first step, and the time a single judgement may be projected to take at the next. */
  startN: number;
  budgetMs: number;
  /** Schemas: the largest n, where the smoke test stops; the body limit when absent. */
  maxN?: number;
}

export interface EdgeRow {
  family: "headers" | "schemas";
  label: string;
  face: Face | "-";
  n: number;
  /** Body bytes and header bytes at n. */
  bodyBytes: number;
  headerBytes: number;
  verdict: string;
  ratio: Spread;
  growth: Spread;
  note: string;
}

/** One pattern shape at the edge: the CPU time of judging a call whose argument has n and 10n characters. */
export interface PatternRow {
  label: string;
  /** How RegExp (the SDK's Ajv) grows on it. */
  growth: string;
  n: number;
  microsAtN: number;
  microsAt10N: number;
  /** Time at 10n ÷ time at n: linear is 10×, quadratic 100×. */
  ratio: number;
  verdict: string;
  /** RegExp's own ratio for n/10 → n, where it is polynomial (an exponential shape is not run). */
  nativeRatio: number | undefined;
}

export interface EdgeResult {
  settings: EdgeSettings;
  rows: EdgeRow[];
  patterns: PatternRow[];
  seconds: number;
}

/** The bound test/edge-pattern-bound.test.ts holds: 10× the argument, at most this many times the time. */
export const PATTERN_BOUND = 15;

export const EDGE_TARGET = 10;
/** Linear growth for 4× n is 4×; above this the bench calls it superlinear. */
export const LINEAR_GROWTH = 5;

function subject(request: EdgeRequest, face: Face): Subject & { verdict: string } {
  const text = JSON.stringify(request.body);
  const both = `[${text},${JSON.stringify(request.headers)}]`;
  const body = JSON.parse(text) as Record<string, unknown>;
  // The face's runtime parses the header lines (Node's req.headers and headersDistinct, a Fetch Headers) as it parses
  // the body: outside the path, as JSON.parse is.
  const read = reader(face, request.headers)();
  const run = () => judgeAtEdge({ ...request, body }, read);
  return { text: both, bytes: Buffer.byteLength(both), path: run, parse: () => JSON.parse(both), verdict: run() };
}

/** The largest n whose request fits: its header section within Node's default, or its body within the body limit. */
function largestN(c: EdgeCase): number {
  const fits = (n: number) => {
    const r = c.request(n);
    return c.bound === "headers"
      ? headerBytes(r.headers) <= NODE_MAX_HEADER_BYTES
      : Buffer.byteLength(JSON.stringify(r.body)) <= DEFAULT_MAX_BODY_BYTES;
  };
  let lo = 4;
  let hi = 8;
  while (fits(hi) && hi < 1 << 24) [lo, hi] = [hi, hi * 2];
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

function row(c: EdgeCase, face: Face | "-", n: number, rounds: number, note: string): EdgeRow {
  const f: Face = face === "-" ? "node" : face;
  const small = subject(c.request(Math.max(1, Math.floor(n / 4))), f);
  const large = subject(c.request(n), f);
  const measured = pair(small, large, rounds);
  const r = c.request(n);
  return {
    family: c.family,
    label: c.label,
    face,
    n,
    bodyBytes: Buffer.byteLength(JSON.stringify(r.body)),
    headerBytes: headerBytes(r.headers),
    verdict: large.verdict,
    ratio: measured.ratio,
    growth: measured.growth,
    note,
  };
}

export async function runAdversarialEdge(settings: EdgeSettings, log: (line: string) => void): Promise<EdgeResult> {
  const started = performance.now();
  const compiler = await edgeCompiler();
  const compile = typeof compiler === "function" ? (compiler as ToolSchemaCompiler) : undefined;
  if (!compile) throw new Error("the bench needs ajv and ajv-formats (dev dependencies)");
  const rows: EdgeRow[] = [];
  const headers = headerCases(compile);
  // Compile every schema first (outside the timing): the wide tool's at the n measured, the lookup tool once.
  const bounds = headers.map((c) => largestN(c));
  for (const [i, c] of headers.entries()) {
    await c.request(bounds[i]!).tools.settled();
    await c.request(Math.max(1, Math.floor(bounds[i]! / 4))).tools.settled();
  }
  log(`adversarial edge: ${headers.length} header cases × 2 faces, up to ${NODE_MAX_HEADER_BYTES} bytes of headers`);
  for (const [i, c] of headers.entries())
    for (const face of ["node", "fetch"] as const) rows.push(row(c, face, bounds[i]!, settings.rounds, "Node's default header size"));

  const schemas = schemaCases(compile);
  for (const c of schemas) await c.request(1).tools.settled();
  log(`adversarial edge: ${schemas.length} schema cases, n ×4 from ${settings.startN} to ${settings.maxN ?? "the body limit"}`);
  for (const c of schemas) rows.push(measureSchema(c, settings));
  const n = settings.startN >= 256 ? 10_000 : 1_000;
  log(`adversarial edge: ${PATTERN_SHAPES.length} pattern shapes, arguments of ${n} and ${n * 10} characters`);
  const patterns = await measurePatterns(compile, n, settings.rounds);
  return { settings, rows, patterns, seconds: (performance.now() - started) / 1000 };
}

/**
 * CPU microseconds of one `run`: calls batched until a batch takes at least 2 ms (a call of a few microseconds is
 * measured as well as a long one), the least of `samples` batches.
 */
function cpuPerCall(run: () => void, samples: number): number {
  let calls = 1;
  const batch = () => {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) run();
    const used = process.cpuUsage(start);
    return used.user + used.system;
  };
  while (batch() < 2000 && calls < 1 << 20) calls *= 2;
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < samples; i++) best = Math.min(best, batch() / calls);
  return best;
}

/** The edge pattern bound: each shape's judgement at n and at 10n, CPU time per call. */
async function measurePatterns(compile: ToolSchemaCompiler, n: number, samples: number): Promise<PatternRow[]> {
  const rows: PatternRow[] = [];
  for (const shape of PATTERN_SHAPES) {
    const { tools, body } = patternCase(shape, compile);
    await tools.settled();
    const small = body(n);
    const large = body(n * 10);
    const judge = (b: Record<string, unknown>) => tools.judge({ body: b, era: "modern", protocolVersion: undefined, headers: {} });
    const refusal = judge(large);
    const verdict = refusal instanceof Promise ? "compiling" : refusal ? refusal.check : "pass";
    const microsAtN = cpuPerCall(() => judge(small), samples);
    const microsAt10N = cpuPerCall(() => judge(large), samples);
    let nativeRatio: number | undefined;
    if (shape.growth !== "exponential" && !shape.key) {
      const native = new RegExp(shape.pattern, "u");
      const [a, b] = [shape.text(n / 10), shape.text(n)];
      nativeRatio = cpuPerCall(() => native.test(b), Math.min(3, samples)) / cpuPerCall(() => native.test(a), Math.min(3, samples));
    }
    const label = `${shape.key ? "patternProperties key" : "pattern"} /${shape.pattern}/`;
    rows.push({ label, growth: shape.growth, n, microsAtN, microsAt10N, ratio: microsAt10N / microsAtN, verdict, nativeRatio });
  }
  return rows;
}

function measureSchema(c: SchemaCase, settings: EdgeSettings): EdgeRow {
  const maxN = settings.maxN ?? largestN(c);
  let n = Math.min(settings.startN, maxN);
  // A single call, twice where it is cheap: one GC pause must not stop the growth.
  const once = (k: number) => {
    const s = subject(c.request(k), "node");
    const first = timeOf(s.path, 0);
    return first * 8 < settings.budgetMs ? Math.min(first, timeOf(s.path, 0)) : first;
  };
  let ms = once(n);
  let previous: number | undefined;
  let note = settings.maxN === undefined ? "body limit" : `n capped at ${settings.maxN}`;
  while (n < maxN) {
    const next = Math.min(n * 4, maxN);
    const growth = Math.max(4, previous ? ms / previous : 4) * (next / n / 4);
    if (ms * growth > settings.budgetMs) {
      note = `stopped: next ×4 over ${settings.budgetMs} ms (${ms.toFixed(0)} ms at n)`;
      break;
    }
    previous = ms;
    n = next;
    ms = once(n);
  }
  const notRun = c.notRun();
  const rounds = ms > 200 ? Math.min(3, settings.rounds) : settings.rounds;
  return row(c, "-", n, rounds, notRun ? `not run at the edge: ${notRun}; ${note}` : note);
}

export function adversarialEdgeTable(result: EdgeResult): string {
  const lines: string[] = [];
  const kib = (b: number) => `${(b / 1024).toFixed(b < 10240 ? 1 : 0)} KiB`;
  for (const family of ["headers", "schemas"] as const) {
    const rows = result.rows.filter((r) => r.family === family);
    lines.push(
      family === "headers"
        ? "### Header values (a valid tools/call of a tool mirroring two arguments; Node face: req.headers, headersDistinct on a comma; Fetch face: Headers)"
        : "### Tool schemas a server declares (judged at the edge by wymcp compile's engine; the string or items of the arguments grow with n)",
    );
    lines.push(
      table(
        ["case", "face", "n", "body", "headers", "verdict", "× JSON.parse med [min–max]", "growth 4×", "note"],
        rows.map((r) => [
          r.label,
          r.face,
          String(r.n),
          kib(r.bodyBytes),
          kib(r.headerBytes),
          r.verdict,
          `${formatRatio(r.ratio.median)} [${formatRatio(r.ratio.min)}–${formatRatio(r.ratio.max)}]`,
          formatRatio(r.growth.median),
          r.note,
        ]),
        [2, 3, 4, 6, 7],
      ),
    );
    lines.push("");
  }
  lines.push("### Patterns a server declares (run at the edge on RE2, re2js; CPU time of the argument check, the least of the rounds)");
  lines.push(
    table(
      ["case", "on RegExp", "n", "µs at n", "µs at 10n", "µs per KiB at 10n", "growth 10×", "verdict", "RegExp growth n/10 → n"],
      result.patterns.map((p) => [
        p.label,
        p.growth,
        String(p.n),
        p.microsAtN.toFixed(0),
        p.microsAt10N.toFixed(0),
        ((p.microsAt10N / (p.n * 10)) * 1024).toFixed(1),
        formatRatio(p.ratio),
        p.verdict,
        p.nativeRatio === undefined ? "not run" : formatRatio(p.nativeRatio),
      ]),
      [2, 3, 4, 5, 6, 8],
    ),
  );
  lines.push("");
  lines.push(...edgeSummary(result));
  return lines.join("\n");
}

export function edgeSummary(result: EdgeResult): string[] {
  const out = [
    ...patternBound(result.patterns),
    `Worst per family (target ≤ ${EDGE_TARGET}× JSON.parse of the body and header bytes; linear growth is 4×, superlinear over ${LINEAR_GROWTH}×):`,
  ];
  for (const family of ["headers", "schemas"] as const) {
    const rows = result.rows.filter((r) => r.family === family);
    if (rows.length === 0) continue;
    const worst = rows.reduce((a, b) => (b.ratio.median > a.ratio.median ? b : a));
    const costly = rows.filter((r) => r.ratio.median >= 1);
    const steepest = (costly.length ? costly : rows).reduce((a, b) => (b.growth.median > a.growth.median ? b : a));
    const over = rows.filter((r) => r.ratio.median > EDGE_TARGET).length;
    const steep = rows.filter((r) => r.growth.median > LINEAR_GROWTH && r.ratio.median >= 1).length;
    out.push(
      `- ${family}: worst ${formatRatio(worst.ratio.median)} (${worst.label}${worst.face === "-" ? "" : `, ${worst.face}`}, n ${worst.n}); ` +
        `steepest growth ${formatRatio(steepest.growth.median)} (${steepest.label}${steepest.face === "-" ? "" : `, ${steepest.face}`}); ` +
        `${over} of ${rows.length} over ${EDGE_TARGET}×, ${steep} over ${LINEAR_GROWTH}× growth`,
    );
  }
  return out;
}

/** The edge pattern bound, one line: the steepest growth for 10× the argument, and the most time per KiB. */
export function patternBound(patterns: readonly PatternRow[]): string[] {
  if (patterns.length === 0) return [];
  const steepest = patterns.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  const perKiB = (p: PatternRow) => (p.microsAt10N / (p.n * 10)) * 1024;
  const slowest = patterns.reduce((a, b) => (perKiB(b) > perKiB(a) ? b : a));
  const unjudged = patterns.filter((p) => p.verdict !== "arguments").length;
  return [
    `Edge pattern bound: 10× the argument costs at most ${formatRatio(steepest.ratio)} the time (${steepest.label}; target ≤ ${PATTERN_BOUND}×, quadratic is 100×), ` +
      `at most ${perKiB(slowest).toFixed(1)} µs per KiB (${slowest.label}); ${unjudged} of ${patterns.length} shapes not judged at the edge`,
  ];
}
