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
import { DEFAULT_MAX_BODY_BYTES } from "../src/core/options.js";
import type { ToolSchemaCompiler } from "../src/core/tools-at-edge.js";
import {
  type EdgeCase,
  type EdgeRequest,
  type Face,
  headerBytes,
  headerCases,
  judgeAtEdge,
  NODE_MAX_HEADER_BYTES,
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

export interface EdgeResult {
  settings: EdgeSettings;
  rows: EdgeRow[];
  seconds: number;
}

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
  return { settings, rows, seconds: (performance.now() - started) / 1000 };
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
  lines.push(...edgeSummary(result));
  return lines.join("\n");
}

export function edgeSummary(result: EdgeResult): string[] {
  const out = [
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
