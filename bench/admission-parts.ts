/**
 * @module bench/admission-parts: where the time of admitting a request from its bytes goes, in one process. The
 * bench's valid modern tools/call and its legacy one (MCP-Protocol-Version 2025-11-25), each admitted as the stdio gate
 * admits a line (`gateBytes` on the gate's own kind of exchange) and as `admitBytes` alone, beside the sum of the parts
 * called directly on fresh bytes: strict UTF-8 decode, `JSON.parse`, the nesting bound, the era (`classifyEra`, no
 * headers) and `validateMcpRequest`, then those parts one by one. Every variant is timed in CPU time
 * (`process.cpuUsage`), in interleaved rounds whose order turns round by round, so that figures compare under the
 * same noise. `npx tsx bench/admission-parts.ts [--face stdio|node] [--rounds N] [--slice-ms N] [--only KEY]`;
 * `--face node` times the Node faces' exchange (headers, the header rules) and their promised read (`gateBody`) instead;
 * `--only` runs one variant in a loop for `--seconds N` (for `node --cpu-prof`).
 */
import type { IncomingMessage } from "node:http";
import { loadavg } from "node:os";
import { type AdmissionSettings, admitBytes, judgeBody } from "../src/core/admission.js";
import { exceedsDepth } from "../src/core/depth.js";
import { classifyEra } from "../src/core/era.js";
import { type GateFace, type GateInput, gateBody, gateBytes, type TraceFacts } from "../src/core/pipeline.js";
import { validateMcpRequest } from "../src/core/validate.js";
import { resolveGate } from "../src/hosts/shared/gate-flags.js";
import { nodeExchange } from "../src/hosts/shared/node-gate.js";
import { resolveNodeFace } from "../src/hosts/node/guard.js";
import { JoinedHeaders } from "../src/core/header-body.js";
import { specDir } from "../scripts/spec-dir.js";
import { nodeRequest } from "./header-cost.js";
import { benchMessages } from "./messages.js";
import { spread } from "./measure.js";

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const rounds = arg("--rounds", 15);
const sliceMs = arg("--slice-ms", 60);
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;

const messages = benchMessages(specDir());
const PIPE: TraceFacts = {
  transport: { network: "pipe", protocol: undefined, client: undefined, header: undefined },
  headers: { protocolVersion: undefined, sessionId: undefined },
};
const pipeFacts = () => PIPE;
const NO_CHUNKS: Uint8Array[] = [];

// The stdio gate's face and exchange, built as src/hosts/stdio/gate.ts builds them (getters included).
const { settings, era: eraOf } = resolveGate<undefined>(
  {
    limits: { maxBodyBytes: 4 * 1024 * 1024, maxDepth: 64 },
    log: "off" as never,
    passThrough: false,
    otel: false,
  },
  { headersOf: () => undefined },
);
const face: GateFace = { settings, tracer: undefined };

function stdioExchange(revision: string | undefined): GateInput {
  const state = { declared: undefined as string | undefined, revision };
  return {
    contentType: "application/json",
    get contentLength() {
      return state.declared;
    },
    get protocolVersion() {
      return state.revision;
    },
    chunks: () => NO_CHUNKS,
    era: (body: unknown) => eraOf(undefined, body),
    facts: pipeFacts,
  };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

interface Variant {
  key: string;
  run: () => unknown;
}

function variants(text: string, revision: string | undefined, prefix: string): Variant[] {
  const bytes = new TextEncoder().encode(text);
  const exchange = stdioExchange(revision);
  const plain = { contentType: "application/json", protocolVersion: revision, era: exchange.era };
  const v: AdmissionSettings = settings;
  // The very shape judgeBody builds, so that validateMcpRequest's feedback stays as admission alone leaves it.
  const options = {
    rules: v.rules,
    mode: undefined,
    versions: v.versions,
    protocolVersion: revision,
    headers: undefined,
  };
  const max = settings.maxDepth;
  const out: Variant[] = [
    { key: "gateBytes", run: () => gateBytes(face, bytes, exchange, pipeFacts) },
    { key: "admitBytes", run: () => admitBytes(bytes, exchange, settings) },
    { key: "admitBytes-plain", run: () => admitBytes(bytes, plain, settings) },
    { key: "judgeBody(parse)", run: () => judgeBody(JSON.parse(utf8.decode(bytes)), exchange, settings) },
    {
      key: "parts",
      run: () => {
        const body = JSON.parse(utf8.decode(bytes));
        if (exceedsDepth(body, max)) return "deep";
        return validateMcpRequest(body, classifyEra(undefined, body).era, options);
      },
    },
    {
      key: "decode+parse+depth+era",
      run: () => {
        const body = JSON.parse(utf8.decode(bytes));
        if (exceedsDepth(body, max)) return "deep";
        return classifyEra(undefined, body).era;
      },
    },
    {
      key: "decode+parse+depth",
      run: () => {
        const body = JSON.parse(utf8.decode(bytes));
        return exceedsDepth(body, max);
      },
    },
    { key: "decode+parse", run: () => JSON.parse(utf8.decode(bytes)) },
    { key: "decode", run: () => utf8.decode(bytes) },
  ];
  return out.map((x) => ({ key: `${prefix} ${x.key}`, run: x.run }));
}

/** A Node request as `http` makes one (bench/header-cost.ts's `nodeRequest`): the headers a client sends with the body. */
function clientRequest(text: string, revision: string | undefined): IncomingMessage {
  const body = JSON.parse(text) as { method: string; params: { name: string } };
  const own = (value: string) => [...value].join("");
  const raw = ["Host", "127.0.0.1:3000", "Content-Type", "application/json", "Accept", "application/json, text/event-stream"];
  raw.push("Content-Length", String(Buffer.byteLength(text)));
  if (revision === undefined)
    raw.push("MCP-Protocol-Version", own("2026-07-28"), "Mcp-Method", own(body.method), "Mcp-Name", own(body.params.name));
  else raw.push("MCP-Protocol-Version", own(revision));
  raw.push("User-Agent", "node", "Connection", "keep-alive");
  return nodeRequest(raw);
}

const nodeFace = resolveNodeFace({});

/** The Node faces' admission (judgeNode's exchange, built per request) beside its parts with the same headers. */
function nodeVariants(text: string, revision: string | undefined, prefix: string): Variant[] {
  const bytes = new TextEncoder().encode(text);
  const req = clientRequest(text, revision);
  const built = nodeExchange(req, nodeFace);
  const value: unknown = JSON.parse(text);
  const v: AdmissionSettings = nodeFace.settings;
  const max = nodeFace.settings.maxDepth;
  return [
    {
      key: `${prefix} gateBytes(nodeExchange)`,
      run: () => {
        const exchange = nodeExchange(req, nodeFace);
        return gateBytes(nodeFace, bytes, exchange, exchange.facts);
      },
    },
    { key: `${prefix} gateBytes(node, built once)`, run: () => gateBytes(nodeFace, bytes, built, built.facts) },
    { key: `${prefix} admitBytes(node, built once)`, run: () => admitBytes(bytes, built, nodeFace.settings) },
    { key: `${prefix} nodeExchange alone`, run: () => nodeExchange(req, nodeFace) },
    {
      key: `${prefix} parts(node headers)`,
      run: () => {
        const body = JSON.parse(utf8.decode(bytes));
        if (exceedsDepth(body, max)) return "deep";
        const h = req.headers["mcp-protocol-version"];
        const options = {
          rules: v.rules,
          mode: undefined,
          versions: v.versions,
          protocolVersion: Array.isArray(h) ? h[0] : h,
          headers: new JoinedHeaders(req),
        };
        return validateMcpRequest(body, classifyEra(req.headers, body).era, options);
      },
    },
    {
      key: `${prefix} era(node headers)`,
      run: () => classifyEra(req.headers, value).era,
    },
  ];
}

// One face per process, as in production: a second face's exchanges would make the shared call sites polymorphic.
const faceName = process.argv.includes("--face") ? process.argv[process.argv.indexOf("--face") + 1] : "stdio";
const all =
  faceName === "node"
    ? [
        ...nodeVariants(messages.toolsCall.text, undefined, "modern"),
        ...nodeVariants(messages.legacyToolsCall.text, "2025-11-25", "legacy"),
      ]
    : [...variants(messages.toolsCall.text, undefined, "modern"), ...variants(messages.legacyToolsCall.text, "2025-11-25", "legacy")];

// Every admission variant must hand the call on, every parts variant pass: a benchmark of the wrong outcome measures nothing.
for (const x of all) {
  const r = x.run() as { action?: string; ok?: boolean; outcome?: string };
  if (x.key.includes("gateBytes") && !x.key.includes("await") && r.action !== "hand-on")
    throw new Error(`${x.key}: ${JSON.stringify(r).slice(0, 300)}`);
  if ((x.key.includes("admitBytes") || x.key.includes("judgeBody")) && r.ok !== true)
    throw new Error(`${x.key}: ${JSON.stringify(r).slice(0, 300)}`);
  if (x.key.includes(" parts") && r.outcome !== "pass") throw new Error(`${x.key}: ${JSON.stringify(r).slice(0, 300)}`);
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

let sink = 0;
function loop(run: () => unknown, n: number): void {
  for (let i = 0; i < n; i++) if (run() === undefined) sink++;
}

if (only !== undefined) {
  const chosen = all.filter((x) => x.key === only);
  if (chosen.length === 0) throw new Error(`--only takes one of: ${all.map((x) => JSON.stringify(x.key)).join(", ")}`);
  const seconds = arg("--seconds", 5);
  const began = cpuMs();
  let n = 0;
  while (cpuMs() - began < seconds * 1000) {
    loop(chosen[0]!.run, 10_000);
    n += 10_000;
  }
  console.log(`${only}: ${(((cpuMs() - began) * 1e6) / n).toFixed(0)} ns per run over ${n} runs`);
} else {
  // Calibrate: runs per slice, from a warm-up of each.
  const counts = all.map((x) => {
    const began = cpuMs();
    let n = 0;
    while (cpuMs() - began < 300) {
      loop(x.run, 256);
      n += 256;
    }
    return Math.max(256, Math.round((n * sliceMs) / 300));
  });
  const samples = all.map(() => [] as number[]);
  const loadBefore = loadavg()[0]!;
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < all.length; k++) {
      const i = (k + round) % all.length;
      const began = cpuMs();
      loop(all[i]!.run, counts[i]!);
      samples[i]!.push(((cpuMs() - began) * 1e6) / counts[i]!);
    }
  }
  const loadAfter = loadavg()[0]!;
  const width = Math.max(...all.map((x) => x.key.length));
  console.log(`node ${process.version}; ${rounds} rounds of ~${sliceMs} ms CPU each; ns per run, median [min–max]`);
  for (let i = 0; i < all.length; i++) {
    const s = spread(samples[i]!);
    console.log(`${all[i]!.key.padEnd(width)}  ${s.median.toFixed(0).padStart(6)}  [${s.min.toFixed(0)}–${s.max.toFixed(0)}]`);
  }
  console.log(`load average (1 min): ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after${sink < 0 ? "" : ""}`);
  if (faceName === "node") await asyncRounds();
}

/**
 * The HTTP faces' path (`gateBody`: a body read through a promise, as `readNodeBody` gives it once the request has
 * ended) beside `gateBytes` on the same exchange, awaited one at a time.
 */
async function asyncRounds(): Promise<void> {
  const bytes = new TextEncoder().encode(messages.toolsCall.text);
  const req = clientRequest(messages.toolsCall.text, undefined);
  const source = () => Promise.resolve(bytes);
  const runs: { key: string; run: () => Promise<unknown> | unknown }[] = [
    {
      key: "modern gateBody(nodeExchange, promised bytes)",
      run: () => {
        const exchange = nodeExchange(req, nodeFace);
        exchange.chunks = source;
        return gateBody(nodeFace, exchange);
      },
    },
    {
      key: "modern await gateBytes(nodeExchange)",
      run: async () => {
        const exchange = nodeExchange(req, nodeFace);
        exchange.chunks = source;
        const read = (await exchange.chunks()) as Uint8Array;
        return gateBytes(nodeFace, read, exchange, exchange.facts);
      },
    },
  ];
  for (const r of runs) {
    const action = (await r.run()) as { action: string };
    if (action.action !== "hand-on") throw new Error(`${r.key}: ${JSON.stringify(action).slice(0, 300)}`);
  }
  const n = 20_000;
  const samples = runs.map(() => [] as number[]);
  for (let w = 0; w < 5; w++) for (const r of runs) for (let i = 0; i < n; i++) await r.run();
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < runs.length; k++) {
      const i = (k + round) % runs.length;
      const began = cpuMs();
      for (let j = 0; j < n; j++) await runs[i]!.run();
      samples[i]!.push(((cpuMs() - began) * 1e6) / n);
    }
  }
  for (let i = 0; i < runs.length; i++) {
    const s = spread(samples[i]!);
    console.log(`${runs[i]!.key.padEnd(48)}  ${s.median.toFixed(0).padStart(6)}  [${s.min.toFixed(0)}–${s.max.toFixed(0)}]`);
  }
}
