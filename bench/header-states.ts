/**
 * @module bench/header-states: what the header rules add to a face's admission across many fresh processes, each brought
 * into a chosen state first. `npm run bench -- --header-cost` times one process; a cost that depends on what else the
 * process has run (the shapes of the objects the rules have been handed, and so the state of V8's inline caches) shows
 * only across processes. Each child, bundled as the package ships (bench/bundled.ts): primes the forms named by
 * `--prime` (`node`, `plain`, `fetch`: that face's admission, rules on and off, with `validateMcpRequest` on the parsed
 * call with the same headers, as the header-cost bench warms them; `shapes`: 200 plain records of different shapes
 * through `validateMcpRequest`, as a process that has judged many clients' headers has seen), then times the smallest
 * modern `tools/call`'s admission from its bytes, rules on and off, in interleaved slices of CPU time, and
 * `headersAgree` alone on the parsed call. Prints a line per process, then per form the median and range of the
 * nanoseconds the rules add, and how many processes the Node form cost more than `--slow` ns in.
 *
 *   npx tsx bench/header-states.ts [--processes 16] [--prime shapes,node,plain,fetch] [--measure-ms 1200] [--slow 90]
 *
 * Not part of `npm run bench`: a process-to-process question, for the header rules' code (src/core/header-body.ts) when
 * it changes. Run it in two trees to compare code; it writes nothing.
 */
import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { FetchHeaders, headersAgree } from "../src/core/header-body.js";
import { type GateInput, gateBytes } from "../src/core/pipeline.js";
import { validateMcpRequest } from "../src/core/validate.js";
import { requestExchange, resolveFetchFace } from "../src/hosts/fetch/guard.js";
import { resolveNodeFace } from "../src/hosts/node/guard.js";
import { nodeExchange } from "../src/hosts/shared/node-gate.js";
import { bundle } from "./bundled.js";
import { spread } from "./measure.js";
import { nodeRequest, SMALL_TOOLS_CALL } from "./header-cost.js";

const FORMS = ["node", "plain", "fetch"] as const;
type Form = (typeof FORMS)[number];

/** One process's figures: per form timed, the rules' added ns, the admission with them off, `headersAgree` alone. */
export type StateFigures = Partial<Record<`${Form}.${"added" | "off" | "agree"}`, number>> & { load: number };

function cpuNs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
}

/** A copy, character by character: a header value is never the very string JSON.parse makes of the body. */
const own = (value: string) => [...value].join("");

const median = (xs: number[]) => spread(xs).median;

/** The child's work: prime the forms named, then time each form primed (the Node form always). */
export function runStates(prime: readonly string[], measureMs: number): StateFigures {
  const bytes = new TextEncoder().encode(SMALL_TOOLS_CALL);
  const parsed = JSON.parse(SMALL_TOOLS_CALL);
  const raw = [
    ...["Host", "127.0.0.1:3000", "Content-Type", "application/json", "Accept", "application/json, text/event-stream"],
    ...["Content-Length", String(bytes.byteLength), "MCP-Protocol-Version", own("2026-07-28"), "Mcp-Method", own("tools/call")],
    ...["Mcp-Name", own("ping"), "User-Agent", "node", "Connection", "keep-alive"],
  ];
  const req = nodeRequest(raw);
  const sent = new Headers();
  for (let i = 0; i < raw.length; i += 2) sent.append(raw[i]!, raw[i + 1]!);
  const request = new Request("http://127.0.0.1:3000/mcp", { method: "POST", headers: sent });
  const nodeOn = resolveNodeFace({});
  const nodeOff = resolveNodeFace({ rules: { headers: "off" } });
  const fetchOn = resolveFetchFace({});
  const fetchOff = resolveFetchFace({ rules: { headers: "off" } });
  const node = (face: typeof nodeOn) => () => {
    const exchange = nodeExchange(req, face);
    return gateBytes(face, bytes, exchange, exchange.facts);
  };
  const plain = (face: typeof nodeOn) => () => {
    const exchange: GateInput = { ...nodeExchange(req, face), headers: req.headers };
    return gateBytes(face, bytes, exchange, exchange.facts);
  };
  const fetch = (face: typeof fetchOn) => () => {
    const exchange = requestExchange(request, face, "own");
    return gateBytes(face, bytes, exchange, exchange.facts);
  };
  const runs: Record<Form, { off: () => unknown; on: () => unknown; direct: unknown; agree: unknown }> = {
    node: { off: node(nodeOff), on: node(nodeOn), direct: nodeExchange(req, nodeOn).headers, agree: nodeExchange(req, nodeOn).headers },
    plain: { off: plain(nodeOff), on: plain(nodeOn), direct: req.headers, agree: req.headers },
    fetch: { off: fetch(fetchOff), on: fetch(fetchOn), direct: sent, agree: new FetchHeaders(sent, sent.get("mcp-protocol-version")) },
  };
  for (const step of prime) {
    if (step === "shapes") {
      for (let k = 0; k < 200; k++) {
        const record: Record<string, string> = {};
        for (let j = 0; j < k % 13; j++) record[`x-h${(k * 7 + j) % 31}`] = "v";
        Object.assign(record, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "ping" });
        for (let i = 0; i < 50; i++) validateMcpRequest(parsed, "modern", { headers: record });
      }
      continue;
    }
    const run = runs[step as Form];
    if (run === undefined) throw new Error(`--prime: ${step} is none of shapes, ${FORMS.join(", ")}`);
    const began = cpuNs();
    while (cpuNs() - began < 150e6) {
      for (let i = 0; i < 64; i++) {
        run.off();
        run.on();
        validateMcpRequest(parsed, "modern", { headers: run.direct as never });
      }
    }
  }
  const figures: StateFigures = { load: 0 };
  for (const form of FORMS.filter((f) => f === "node" || prime.includes(f))) {
    const { off, on, agree } = runs[form];
    const n = 4000;
    const offs: number[] = [];
    const ons: number[] = [];
    const began = cpuNs();
    for (let round = 0; round < 400 && cpuNs() - began < measureMs * 1e6; round++) {
      for (const rulesOn of round % 2 === 0 ? [true, false] : [false, true]) {
        const run = rulesOn ? on : off;
        const t = cpuNs();
        for (let i = 0; i < n; i++) run();
        (rulesOn ? ons : offs).push((cpuNs() - t) / n);
      }
    }
    figures[`${form}.off`] = median(offs);
    figures[`${form}.added`] = median(ons) - median(offs);
    const calls = 200_000;
    const agrees: number[] = [];
    for (let k = 0; k < 10; k++) {
      const t = cpuNs();
      for (let i = 0; i < calls; i++) headersAgree(parsed, agree as never, "2026-07-28");
      if (k > 0) agrees.push((cpuNs() - t) / calls);
    }
    figures[`${form}.agree`] = median(agrees);
  }
  figures.load = loadavg()[0]!;
  return figures;
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1]! : fallback;
}

async function main(): Promise<void> {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const processes = Number(option("--processes", "16"));
  const prime = option("--prime", "shapes,node,plain,fetch").split(",").filter(Boolean);
  const measureMs = Number(option("--measure-ms", "1200"));
  const slow = Number(option("--slow", "90"));
  const outfile = await bundle(root, "bench/header-states.ts");
  const script = `const m = await import(${JSON.stringify(pathToFileURL(outfile).href)}); console.log(JSON.stringify(m.runStates(${JSON.stringify(prime)}, ${measureMs})));`;
  const all: StateFigures[] = [];
  for (let p = 0; p < processes; p++) {
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    if (child.status !== 0) throw new Error(`a child failed: ${child.stderr}`);
    const figures = JSON.parse(child.stdout) as StateFigures;
    all.push(figures);
    console.log(
      `process ${p + 1}: ` +
        FORMS.filter((f) => figures[`${f}.added`] !== undefined)
          .map(
            (f) =>
              `${f} +${figures[`${f}.added`]!.toFixed(0)} ns of ${figures[`${f}.off`]!.toFixed(0)}, headersAgree ${figures[`${f}.agree`]!.toFixed(0)} ns`,
          )
          .join("; ") +
        `; load ${figures.load.toFixed(2)}`,
    );
  }
  console.log(`\n${processes} processes, primed with ${prime.join(", ") || "nothing"}; the smallest modern tools/call, CPU time:`);
  for (const form of FORMS) {
    const samples = all.map((f) => f[`${form}.added`]).filter((x) => x !== undefined);
    if (samples.length === 0) continue;
    const added = spread(samples);
    const off = median(all.map((f) => f[`${form}.off`]!));
    const agree = spread(all.map((f) => f[`${form}.agree`]!));
    console.log(
      `${form}: added ${added.median.toFixed(0)} ns [${added.min.toFixed(0)}–${added.max.toFixed(0)}] of ${off.toFixed(0)} ns ` +
        `(${(1 + added.median / off).toFixed(3)}×); headersAgree alone ${agree.median.toFixed(0)} ns [${agree.min.toFixed(0)}–${agree.max.toFixed(0)}]` +
        (form === "node" ? `; over ${slow} ns added in ${samples.filter((x) => x > slow).length} of ${samples.length}` : ""),
    );
  }
  const loads = all.map((f) => f.load);
  console.log(`load average (1 min) ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
