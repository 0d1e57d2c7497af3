/**
 * @module bench/tools-at-edge: what knowing the server's tools costs a face, in one process. A valid 2026-07-28
 * `tools/call` with a 1 KiB argument object, from its bytes: `JSON.parse` + `validateMcpRequest` alone, against the same
 * plus the tool's checks (its `Mcp-Param-*` header and its arguments, compiled by `wymcp compile`'s engine), in
 * interleaved rounds; target: with ÷ without ≤ 1.5× the time. And the worst cases a server's schema or a client's
 * arguments can make: compiling a deep `$ref` chain and the largest schema compiled, judging arguments nested to the
 * depth bound through a recursive `$ref`, and a pattern that backtracks on RegExp (timed as the SDK's Ajv runs it, and as
 * the edge runs it, on RE2). Then the same call judged by one caller's learned tools instead of given ones, its key (a
 * 1 KiB bearer token, the URL) hashed per call as each face hashes it, against the given tools, in interleaved rounds:
 * reported.
 */
import { validateMcpRequest } from "../src/core/validate.js";
import { DEFAULT_MAX_DEPTH } from "../src/core/depth.js";
import { MAX_CALLERS, MAX_COMPILED_SCHEMA_UNITS, type ToolSchemaCompiler, ToolsAtEdge } from "../src/tools/tools-at-edge.js";
import type { CallerSource, Sha256 } from "../src/tools/caller-key.js";
import { nodeSha256 } from "../src/hosts/shared/node-chain.js";
import { edgeCompiler } from "../src/compile/at-edge.js";
import { formatRatio, spread, table, type Spread } from "./measure.js";
import type { Timing } from "./per-message.js";
import type { Target } from "./report.js";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

export interface ToolsAtEdgeFigures {
  argumentBytes: number;
  /** Calls per second without and with the tool's checks, per round. */
  withoutPerSec: Spread;
  withPerSec: Spread;
  /** Time with ÷ time without, per round. */
  ratio: Spread;
  target: number;
  pass: boolean;
  worst: Array<{ case: string; ms: number; note: string }>;
  /** The call judged by one caller's learned tools, per face's hash: calls per second, and ns added per call. */
  perCaller: Array<{ hash: string; givenPerSec: Spread; learnedPerSec: Spread; addedNs: Spread }>;
}

/** A tool whose arguments exercise the usual keywords: strings with a pattern, integers, an array of small objects. */
function reportTool() {
  return {
    name: "report",
    inputSchema: {
      type: "object",
      properties: {
        station: { type: "string", pattern: "^[a-z][a-z0-9-]*$", "x-mcp-header": "Station" },
        day: { type: "integer", minimum: 0 },
        readings: {
          type: "array",
          items: {
            type: "object",
            properties: {
              at: { type: "integer" },
              value: { type: "number" },
              unit: { type: "string", enum: ["C", "F"] },
              ok: { type: "boolean" },
            },
            required: ["at", "value", "unit"],
            additionalProperties: false,
          },
        },
      },
      required: ["station", "readings"],
    },
  };
}

function argumentsOf(bytes: number): Record<string, unknown> {
  const readings: unknown[] = [];
  const args = { station: "north-7", day: 12, readings };
  for (let i = 0; JSON.stringify(args).length < bytes; i++) readings.push({ at: i, value: 12.5 + i / 4, unit: "C", ok: i % 3 !== 0 });
  return args;
}

function perSecond(run: () => unknown, ms: number): number {
  const end = performance.now() + ms;
  let n = 0;
  let now = performance.now();
  while (now < end) {
    for (let i = 0; i < 64; i++) run();
    n += 64;
    now = performance.now();
  }
  return n / (ms / 1000);
}

/** Calls per second of the process's CPU time, over about `ms` of it. */
function cpuPerSecond(run: () => unknown, ms: number): number {
  const began = process.cpuUsage();
  let used = 0;
  let n = 0;
  while (used < ms * 1000) {
    for (let i = 0; i < 64; i++) run();
    n += 64;
    const now = process.cpuUsage(began);
    used = now.user + now.system;
  }
  return n / (used / 1e6);
}

function timeMs(run: () => unknown): number {
  const began = performance.now();
  run();
  return performance.now() - began;
}

export async function runToolsAtEdgeBench(timing: Timing, log: (line: string) => void): Promise<ToolsAtEdgeFigures> {
  const compile = (await edgeCompiler()) as ToolSchemaCompiler;
  if (typeof compile !== "function") throw new Error("the bench needs ajv and ajv-formats (dev dependencies)");
  const tools = new ToolsAtEdge({ given: { tools: [reportTool()] }, compile });
  await tools.settled();
  const args = argumentsOf(1024);
  const text = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: META, name: "report", arguments: args } });
  const headers = {
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "report",
    "mcp-param-station": "north-7",
  };
  const without = () => validateMcpRequest(JSON.parse(text), "modern", { headers });
  const withTools = () => {
    const body = JSON.parse(text);
    const verdict = validateMcpRequest(body, "modern", { headers });
    if (verdict.outcome === "pass" && tools.judge({ body, era: "modern", protocolVersion: undefined, headers }) !== undefined)
      throw new Error("the valid call was refused");
    return verdict;
  };
  if (without().outcome !== "pass" || withTools().outcome !== "pass") throw new Error("the bench call does not pass");
  log("tools at the edge: a valid tools/call with a 1 KiB argument object, with and without the tool's checks");
  perSecond(without, timing.warmupMs);
  perSecond(withTools, timing.warmupMs);
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < timing.rounds; round++) {
    if (round % 2 === 0) {
      a.push(perSecond(without, timing.roundMs));
      b.push(perSecond(withTools, timing.roundMs));
    } else {
      b.push(perSecond(withTools, timing.roundMs));
      a.push(perSecond(without, timing.roundMs));
    }
  }
  const ratio = spread(a.map((x, i) => x / b[i]!));

  log("tools at the edge: the worst cases");
  const worst: ToolsAtEdgeFigures["worst"] = [];
  // A chain of $defs, each a $ref to the next: what a server's schema can make the compiler do.
  const chain: Record<string, unknown> = {};
  for (let i = 0; i < 500; i++) chain[`d${i}`] = i === 499 ? { type: "string" } : { $ref: `#/$defs/d${i + 1}` };
  const chained = { type: "object", $defs: chain, properties: { a: { $ref: "#/$defs/d0" } } };
  const began = performance.now();
  const chainOutcome = await compile(chained);
  worst.push({
    case: "compile a 500-deep $ref chain (one turn of the event loop)",
    ms: performance.now() - began,
    note: chainOutcome.ok ? "compiled" : chainOutcome.reason,
  });
  // The largest schema compiled: many properties, each with a pattern and bounds.
  const properties: Record<string, unknown> = {};
  const big = { type: "object", properties };
  for (let i = 0; JSON.stringify(big).length < MAX_COMPILED_SCHEMA_UNITS - 200; i++)
    properties[`p${i}`] = { type: "string", pattern: "^[a-z]+$", minLength: 1, maxLength: 64 };
  const bigBegan = performance.now();
  const bigOutcome = await compile(big);
  worst.push({
    case: `compile the largest schema compiled (${Math.round(JSON.stringify(big).length / 1024)} KiB, ${Object.keys(properties).length} properties; one turn)`,
    ms: performance.now() - bigBegan,
    note: bigOutcome.ok ? "compiled" : bigOutcome.reason,
  });
  // Arguments nested to the depth bound through a recursive $ref, all invalid at the bottom.
  const recursive = {
    type: "object",
    $defs: { n: { type: "object", properties: { next: { $ref: "#/$defs/n" }, v: { type: "integer" } } } },
    $ref: "#/$defs/n",
  };
  const deep = await compile(recursive);
  let nested: Record<string, unknown> = { v: "x" };
  for (let i = 0; i < DEFAULT_MAX_DEPTH - 6; i++) nested = { next: nested, v: "x" };
  if (deep.ok)
    worst.push({
      case: `judge arguments nested ${DEFAULT_MAX_DEPTH - 6} deep through a recursive $ref, every level invalid`,
      ms: timeMs(() => deep.validate(nested)),
      note: "bounded by maxDepth and the error budget",
    });
  // Why a pattern runs on RE2 at the edge: the SDK's Ajv takes exponential time on this one, the edge linear time.
  const risky = await import("ajv").then(({ Ajv }) => new Ajv({ strict: false }).compile({ type: "string", pattern: "^(a+)+$" }));
  for (const length of [18, 22])
    worst.push({
      case: `"^(a+)+$" on ${length} a's and a "!" (Ajv, as the SDK runs it)`,
      ms: timeMs(() => risky(`${"a".repeat(length)}!`)),
      note: "exponential in the length on RegExp",
    });
  const linear = await compile({ type: "object", properties: { w: { type: "string", pattern: "^(a+)+$" } } });
  if (linear.ok)
    worst.push({
      case: `"^(a+)+$" on 100,000 a's and a "!" (the edge, on RE2)`,
      ms: timeMs(() => linear.validate({ w: `${"a".repeat(100_000)}!` })),
      note: "linear: refused at the edge",
    });

  const perCaller = await perCallerRows(compile, text, headers, timing, log);

  return {
    argumentBytes: JSON.stringify(args).length,
    withoutPerSec: spread(a),
    withPerSec: spread(b),
    ratio,
    target: 1.5,
    pass: ratio.median <= 1.5,
    worst,
    perCaller,
  };
}

/**
 * The valid call judged by one caller's learned tools (the face full of callers, this one among them) against the same
 * tools given: what telling callers apart costs a call, for each face's hash.
 */
async function perCallerRows(
  compile: ToolSchemaCompiler,
  text: string,
  headers: Record<string, string>,
  timing: Timing,
  log: (line: string) => void,
): Promise<ToolsAtEdgeFigures["perCaller"]> {
  log("tools at the edge: the same call judged by one caller's learned tools, its key hashed per call");
  const token = `Bearer ${"a1b2c3d4".repeat(128)}`;
  const source: CallerSource = { header: (name) => (name === "authorization" ? token : undefined), url: "127.0.0.1:3000/mcp" };
  const given = new ToolsAtEdge({ given: { tools: [reportTool()] }, compile });
  const learned = new ToolsAtEdge({ compile });
  for (let i = 0; i < MAX_CALLERS - 1; i++) learned.learnList([reportTool()], false, () => `caller-${i}`);
  learned.learnList([reportTool()], false, learned.callerOf(source));
  await Promise.all([given.settled(), learned.settled()]);
  const judging = (tools: ToolsAtEdge, sha256?: Sha256) => () => {
    const body = JSON.parse(text);
    const verdict = validateMcpRequest(body, "modern", { headers });
    const caller = sha256 === undefined && tools === given ? undefined : tools.callerOf(source, sha256);
    if (verdict.outcome === "pass" && tools.judge({ body, era: "modern", protocolVersion: undefined, headers, caller }) !== undefined)
      throw new Error("the valid call was refused");
    return verdict;
  };
  const rows: ToolsAtEdgeFigures["perCaller"] = [];
  for (const [hash, sha256] of [
    ["node:crypto (the Node faces, the proxy)", nodeSha256],
    ["the core's SHA-256 (the Fetch faces)", undefined],
  ] as const) {
    const [withGiven, withLearned] = [judging(given), judging(learned, sha256)];
    perSecond(withGiven, timing.warmupMs);
    perSecond(withLearned, timing.warmupMs);
    // CPU time, not the wall clock: on a shared machine other processes move the wall time far more than this does.
    const a: number[] = [];
    const b: number[] = [];
    for (let round = 0; round < timing.rounds; round++) {
      const [first, second] = round % 2 === 0 ? [a, b] : [b, a];
      first.push(cpuPerSecond(first === a ? withGiven : withLearned, timing.roundMs));
      second.push(cpuPerSecond(second === a ? withGiven : withLearned, timing.roundMs));
    }
    rows.push({ hash, givenPerSec: spread(a), learnedPerSec: spread(b), addedNs: spread(a.map((x, i) => 1e9 / b[i]! - 1e9 / x)) });
  }
  return rows;
}

export function toolsAtEdgeTable(f: ToolsAtEdgeFigures): string {
  const perSec = (s: Spread) => Math.round(s.median).toLocaleString("en-US");
  return [
    table(
      ["valid tools/call, arguments of", "without the tool's checks (calls/s)", "with them (calls/s)", "with ÷ without, time", "target"],
      [
        [
          `${f.argumentBytes} B`,
          perSec(f.withoutPerSec),
          perSec(f.withPerSec),
          `${formatRatio(f.ratio.median)} [${formatRatio(f.ratio.min)}–${formatRatio(f.ratio.max)}]`,
          `≤ ${formatRatio(f.target)}`,
        ],
      ],
    ),
    "",
    table(
      ["worst case", "ms", "note"],
      f.worst.map((w) => [w.case, w.ms.toFixed(2), w.note]),
    ),
    "",
    table(
      [
        `the same call, judged by one of ${MAX_CALLERS} callers' learned tools (key: a 1 KiB bearer token and the URL), hashed by`,
        "given tools (calls per CPU second)",
        "learned, per caller (calls per CPU second)",
        "added per call, ns",
      ],
      f.perCaller.map((row) => [
        row.hash,
        perSec(row.givenPerSec),
        perSec(row.learnedPerSec),
        `${Math.round(row.addedNs.median)} [${Math.round(row.addedNs.min)}–${Math.round(row.addedNs.max)}]`,
      ]),
    ),
  ].join("\n");
}

export function toolsAtEdgeTarget(f: ToolsAtEdgeFigures): Target {
  const measured = f.ratio.median;
  return {
    target: "tools at the edge: a valid tools/call with a 1 KiB argument object, its checks on ≤ 1.5× the time without them",
    measured,
    limit: f.target,
    unit: "×",
    atLeast: false,
    pass: f.pass,
    ...(f.pass
      ? {}
      : { missBy: `${formatRatio(measured)} of ${formatRatio(f.target)} (${((measured / f.target - 1) * 100).toFixed(0)}% over)` }),
    context: `JSON.parse + validateMcpRequest (header rules included), then the tool's Mcp-Param header and arguments; per-round ratio, median of ${f.ratio.samples.length} [${formatRatio(f.ratio.min)}–${formatRatio(f.ratio.max)}]`,
  };
}
