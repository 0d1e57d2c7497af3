/**
 * @module bench/header-cost: what the transport's header rules (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`
 * against the body) cost a face, in one process. A valid 2026-07-28 `tools/call`, from its bytes, admitted as the
 * gates admit it (`gateBytes`: the media type, the size, UTF-8, `JSON.parse`, the nesting bound, the era,
 * `validateMcpRequest`, the verdict), on a face with the header rules on against the same face with `rules: { headers: "off" }`, for the three
 * ways a face holds the headers: the Node faces' reader (the exchange `judgeNode` builds over a
 * real `IncomingMessage`), a plain object with lower-case keys (Node's `req.headers` itself) and a Fetch `Headers`
 * (the exchange `judgeRequest` builds over a `Request`). Budget: on ÷ off ≤ 1.05× the time on Node's headers and a plain
 * object, ≤ 1.12× on a Fetch `Headers`. Beside it, for
 * information, the narrow ratio: `validateMcpRequest` on the parsed body with the same headers ÷ without them. Every
 * pair is timed in the same interleaved rounds, on the bench's `tools/call` (the spec's example) and on the smallest
 * realistic one (a tool without arguments, only the `_meta` the revision requires).
 *
 * Beside those rows, for the Fetch face, the admission as `gateFetch` runs it from a `Request` carrying its body
 * (`screenRequest`, then `judgeRequest` reading the body itself: `arrayBuffer()`, `gateBody` and its promises), rules on
 * ÷ off, in its own interleaved rounds after the others. The `Request`s are made between the timed parts, a batch at a
 * time: a whole slice's worth made at once (thousands, megabytes) would stay live through the slice, and every young
 * collection in it would copy them, a cost no server pays that would dilute the ratio.
 */
import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import { loadavg } from "node:os";
import { validateMcpRequest } from "../src/core/validate.js";
import { type GateAction, type GateInput, gateBytes } from "../src/core/pipeline.js";
import { nodeExchange } from "../src/hosts/shared/node-gate.js";
import { resolveNodeFace } from "../src/hosts/node/guard.js";
import { judgeRequest, requestExchange, resolveFetchFace, screenRequest } from "../src/hosts/fetch/guard.js";
import { formatRatio, spread, table, type Spread } from "./measure.js";
import type { Timing } from "./per-message.js";
import type { Target } from "./report.js";

/**
 * The budget: the header rules on ÷ off, in time, per admitted request, by the way a face holds the headers. A Fetch
 * `Headers` pays for its reads before any comparison (`Headers.get` walks its list), so its budget is wider.
 */
export const HEADER_BUDGETS: Readonly<Record<Reader, number>> = { node: 1.05, plain: 1.05, fetch: 1.12 };

export const READERS = ["node", "plain", "fetch"] as const;
export type Reader = (typeof READERS)[number];

const READER_LABELS: Record<Reader, string> = {
  node: "Node's headers (the Node faces')",
  plain: "a plain object",
  fetch: "a Fetch Headers",
};

export interface HeaderCostRow {
  message: string;
  bytes: number;
  reader: Reader;
  /** Admissions per second of CPU time with the header rules off and on, per round. */
  offPerSec: Spread;
  onPerSec: Spread;
  /** On ÷ off in CPU time (off ops/s ÷ on ops/s), per round: the budget's ratio. */
  admission: Spread;
  /** On ÷ off of the fastest round of each: the rounds least disturbed by the rest of a shared machine. */
  admissionBest: number;
  /** validateMcpRequest with the headers ÷ without them, on the parsed body, per round: for information. */
  validateOnly: Spread;
  /** Nanoseconds per request, the medians: the admission with the rules off, and what the rules add to it. */
  offNs: number;
  addedNs: number;
}

/** The Fetch face's admission of a `Request` with its body, as `gateFetch` runs it: rules on ÷ off. */
export interface RequestCostRow {
  message: string;
  bytes: number;
  /** Admissions per second of CPU time with the header rules off and on, per round. */
  offPerSec: Spread;
  onPerSec: Spread;
  /** On ÷ off in CPU time, per round. */
  admission: Spread;
  /** On ÷ off of the fastest round of each. */
  admissionBest: number;
  /** On ÷ off of the CPU time over every round at once: each collection counted where it fell. */
  pooled: number;
  /** Nanoseconds per request, the medians: the admission with the rules off, and what the rules add to it. */
  offNs: number;
  addedNs: number;
}

export interface HeaderCostFigures {
  rows: HeaderCostRow[];
  rounds: number;
  sliceMs: number;
  /** The 1-minute load average before and after the rounds. */
  load: [number, number];
  /** The Fetch face from a `Request` with its body (`gateFetch`'s admission), in rounds of its own after the others. */
  requests: RequestCostRow[];
  requestRounds: number;
  requestSliceMs: number;
  /** The 1-minute load average before and after those rounds. */
  requestLoad: [number, number];
}

const META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';
/** The smallest realistic modern tools/call: a tool without arguments, only the `_meta` the revision requires. */
export const SMALL_TOOLS_CALL = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{${META},"name":"ping"}}`;

interface Message {
  label: string;
  text: string;
}

/** A copy, character by character: a header value is never the very string JSON.parse makes of the body. */
const own = (value: string) => [...value].join("");

function rawHeaders(body: { method: string; params: { name: string; _meta: Record<string, unknown> } }, bytes: number): string[] {
  return [
    "Host",
    "127.0.0.1:3000",
    "Content-Type",
    "application/json",
    "Accept",
    "application/json, text/event-stream",
    "Content-Length",
    String(bytes),
    "MCP-Protocol-Version",
    own(body.params._meta["io.modelcontextprotocol/protocolVersion"] as string),
    "Mcp-Method",
    own(body.method),
    "Mcp-Name",
    own(body.params.name),
    "User-Agent",
    "node",
    "Connection",
    "keep-alive",
  ];
}

/** A Node request as `http` makes one: raw headers in the client's case, `req.headers` built by Node (lower-case). */
export function nodeRequest(raw: string[]): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.method = "POST";
  req.url = "/mcp";
  // What Node's HTTP parser calls once a request's headers are in (`parserOnHeadersComplete`).
  (req as unknown as { _addHeaderLines(headers: string[], n: number): void })._addHeaderLines(raw, raw.length);
  // Built once and kept by Node, as on the first read of a real request.
  void req.headers;
  return req;
}

function fetchRequest(raw: string[], body?: Uint8Array): Request {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return new Request("http://127.0.0.1:3000/mcp", { method: "POST", headers, ...(body && { body }) });
}

/** The process's CPU time in ms (user + system): on a shared machine, wall time counts other processes' slices too. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** How many runs fill about `ms` of CPU time, from a warm-up of that many ms. */
function calibrate(run: () => unknown, ms: number): number {
  const began = cpuMs();
  let n = 0;
  while (cpuMs() - began < ms) {
    for (let i = 0; i < 64; i++) run();
    n += 64;
  }
  return n;
}

/** Runs per second of CPU time, over `n` runs. */
function perCpuSecond(run: () => unknown, n: number): number {
  const began = cpuMs();
  for (let i = 0; i < n; i++) run();
  return n / ((cpuMs() - began) / 1000);
}

interface Pair {
  message: Message;
  bytes: number;
  reader: Reader;
  off: () => unknown;
  on: () => unknown;
  vmrOff: () => unknown;
  vmrOn: () => unknown;
}

function handedOn(action: unknown): boolean {
  return (action as GateAction).action === "hand-on";
}

function pairs(messages: Message[]): Pair[] {
  const nodeOn = resolveNodeFace({});
  const nodeOff = resolveNodeFace({ rules: { headers: "off" } });
  const fetchOn = resolveFetchFace({});
  const fetchOff = resolveFetchFace({ rules: { headers: "off" } });
  const out: Pair[] = [];
  for (const message of messages) {
    const bytes = new TextEncoder().encode(message.text);
    const parsed = JSON.parse(message.text);
    const raw = rawHeaders(parsed, bytes.byteLength);
    const req = nodeRequest(raw);
    const request = fetchRequest(raw);
    const nodeAdmit = (face: typeof nodeOn) => () => {
      const exchange = nodeExchange(req, face);
      return gateBytes(face, bytes, exchange, exchange.facts);
    };
    // The Node face's exchange with `req.headers` itself in place of its reader.
    const plainAdmit = (face: typeof nodeOn) => () => {
      const exchange: GateInput = { ...nodeExchange(req, face), headers: req.headers };
      return gateBytes(face, bytes, exchange, exchange.facts);
    };
    const fetchAdmit = (face: typeof fetchOn) => () => {
      const exchange = requestExchange(request, face, "own");
      return gateBytes(face, bytes, exchange, exchange.facts);
    };
    const vmr = (headers: unknown) => {
      const options = headers === undefined ? {} : { headers: headers as never };
      return () => validateMcpRequest(parsed, "modern", options);
    };
    const readerOf = nodeExchange(req, nodeOn).headers;
    out.push(
      {
        message,
        bytes: bytes.byteLength,
        reader: "node",
        off: nodeAdmit(nodeOff),
        on: nodeAdmit(nodeOn),
        vmrOff: vmr(undefined),
        vmrOn: vmr(readerOf),
      },
      {
        message,
        bytes: bytes.byteLength,
        reader: "plain",
        off: plainAdmit(nodeOff),
        on: plainAdmit(nodeOn),
        vmrOff: vmr(undefined),
        vmrOn: vmr(req.headers),
      },
      {
        message,
        bytes: bytes.byteLength,
        reader: "fetch",
        off: fetchAdmit(fetchOff),
        on: fetchAdmit(fetchOn),
        vmrOff: vmr(undefined),
        vmrOn: vmr(request.headers),
      },
    );
  }
  return out;
}

/** Before timing: every variant hands the call on, and the rules are on where they should be (a wrong Mcp-Name is refused). */
function check(all: Pair[]): void {
  for (const p of all) {
    for (const run of [p.off, p.on]) {
      const action = run();
      if (!handedOn(action))
        throw new Error(`${p.message.label}, ${p.reader}: the valid call was not handed on: ${JSON.stringify(action).slice(0, 300)}`);
    }
    for (const run of [p.vmrOff, p.vmrOn])
      if ((run() as { outcome: string }).outcome !== "pass") throw new Error(`${p.message.label}, ${p.reader}: validation failed`);
  }
  const wrong = new Headers({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "other" });
  const parsed = JSON.parse(SMALL_TOOLS_CALL);
  if (validateMcpRequest(parsed, "modern", { headers: wrong }).outcome !== "reject") throw new Error("the header rules are not on");
  if (validateMcpRequest(parsed, "modern", { headers: wrong, rules: { headers: "off" } }).outcome !== "pass")
    throw new Error("rules.headers off does not turn the header rules off");
}

/** `Request`s made per timed part: few enough that the live ones cost a young collection next to nothing. */
const REQUEST_BATCH = 32;

interface RequestPair {
  message: Message;
  bytes: number;
  /** A new `Request` carrying the body, its headers as the bytes rows' (an HTTP parser's, in the client's case). */
  make: () => Request;
  off: (request: Request) => Promise<GateAction>;
  on: (request: Request) => Promise<GateAction>;
}

function requestPairs(messages: Message[]): RequestPair[] {
  const on = resolveFetchFace({});
  const off = resolveFetchFace({ rules: { headers: "off" } });
  // gateFetch's steps before the handler, for the SDK's handler (the body read from the request itself); no host check
  // and no authInfo, as by default.
  const admit = (face: typeof on) => (request: Request) => {
    if (screenRequest(request, face) !== undefined) throw new Error("the bench's POST was screened out");
    return judgeRequest(request, face, "own");
  };
  return messages.map((message) => {
    const bytes = new TextEncoder().encode(message.text);
    const raw = rawHeaders(JSON.parse(message.text), bytes.byteLength);
    return { message, bytes: bytes.byteLength, make: () => fetchRequest(raw, bytes), off: admit(off), on: admit(on) };
  });
}

/** CPU ms spent admitting `n` new `Request`s, made `REQUEST_BATCH` at a time outside the timed parts. */
async function requestCpuMs(admit: (request: Request) => Promise<GateAction>, make: () => Request, n: number): Promise<number> {
  let spent = 0;
  const batch: Request[] = new Array(REQUEST_BATCH);
  for (let done = 0; done < n; done += REQUEST_BATCH) {
    const size = Math.min(REQUEST_BATCH, n - done);
    for (let i = 0; i < size; i++) batch[i] = make();
    const began = cpuMs();
    for (let i = 0; i < size; i++) await admit(batch[i]!);
    spent += cpuMs() - began;
  }
  return spent;
}

/**
 * The Fetch face's admission from a `Request` with its body, rules on and off, in interleaved rounds of CPU time. Reading
 * the body makes several times the garbage of the bytes rows: a young collection falls on some slices and not others, so
 * the slices are five times as long (and the rounds half as many) as theirs.
 */
async function runRequestRounds(
  messages: Message[],
  bytesTiming: Timing,
): Promise<Pick<HeaderCostFigures, "requests" | "requestRounds" | "requestSliceMs" | "requestLoad">> {
  const timing = { warmupMs: bytesTiming.warmupMs, roundMs: bytesTiming.roundMs * 5, rounds: Math.ceil(bytesTiming.rounds / 2) };
  const all = requestPairs(messages);
  for (const p of all) {
    for (const run of [p.off, p.on]) {
      const action = await run(p.make());
      if (!handedOn(action))
        throw new Error(`${p.message.label}, a Fetch Request: the valid call was not handed on: ${JSON.stringify(action).slice(0, 300)}`);
    }
    const wrong = new Request("http://127.0.0.1:3000/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "other",
      },
      body: p.message.text,
    });
    if ((await p.on(wrong)).action !== "refuse") throw new Error("the header rules are not on for a Fetch Request");
  }
  const runs = all.flatMap((p) => [p.off, p.on].map((admit) => ({ admit, make: p.make })));
  // Each run's slice: about `roundMs` of CPU time, by its warm-up's rate.
  const counts: number[] = [];
  for (const { admit, make } of runs) {
    let n = 0;
    let spent = 0;
    while (spent < timing.warmupMs) {
      spent += await requestCpuMs(admit, make, 4 * REQUEST_BATCH);
      n += 4 * REQUEST_BATCH;
    }
    counts.push(Math.max(REQUEST_BATCH, Math.round((n * timing.roundMs) / spent)));
  }
  const samples = runs.map(() => [] as number[]);
  const pooled = runs.map(() => ({ ms: 0, n: 0 }));
  const loadBefore = loadavg()[0]!;
  for (let round = 0; round < timing.rounds; round++) {
    const shift = round % all.length;
    for (let k = 0; k < all.length; k++) {
      const base = ((k + shift) % all.length) * 2;
      for (const j of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const { admit, make } = runs[base + j]!;
        const n = counts[base + j]!;
        const ms = await requestCpuMs(admit, make, n);
        samples[base + j]!.push(n / (ms / 1000));
        pooled[base + j]!.ms += ms;
        pooled[base + j]!.n += n;
      }
    }
  }
  const loadAfter = loadavg()[0]!;
  const requests = all.map((p, i): RequestCostRow => {
    const off = samples[i * 2]!;
    const on = samples[i * 2 + 1]!;
    const offPerSec = spread(off);
    const onPerSec = spread(on);
    return {
      message: p.message.label,
      bytes: p.bytes,
      offPerSec,
      onPerSec,
      admission: spread(off.map((x, r) => x / on[r]!)),
      admissionBest: Math.max(...off) / Math.max(...on),
      pooled: pooled[i * 2 + 1]!.ms / pooled[i * 2 + 1]!.n / (pooled[i * 2]!.ms / pooled[i * 2]!.n),
      offNs: 1e9 / offPerSec.median,
      addedNs: 1e9 / onPerSec.median - 1e9 / offPerSec.median,
    };
  });
  return { requests, requestRounds: timing.rounds, requestSliceMs: timing.roundMs, requestLoad: [loadBefore, loadAfter] };
}

export async function runHeaderCostBench(bench: { text: string }, timing: Timing, log: (line: string) => void): Promise<HeaderCostFigures> {
  const messages: Message[] = [
    { label: "the bench's tools/call", text: bench.text },
    { label: "smallest modern tools/call", text: SMALL_TOOLS_CALL },
  ];
  const all = pairs(messages);
  check(all);
  log(`header rules: ${all.length} readers × messages, admission and validateMcpRequest, on and off, ${timing.rounds} interleaved rounds`);
  const runs = all.flatMap((p) => [p.off, p.on, p.vmrOff, p.vmrOn]);
  const sizes = runs.map((run) => calibrate(run, timing.warmupMs));
  // Each run's slice: about `roundMs` of CPU time, by its warm-up's rate.
  const counts = sizes.map((n) => Math.max(64, Math.round((n * timing.roundMs) / timing.warmupMs)));
  const samples = runs.map(() => [] as number[]);
  const loadBefore = loadavg()[0]!;
  for (let round = 0; round < timing.rounds; round++) {
    // Each pair back to back, its order flipped every round; the pairs' order turned too, so no pair always runs first.
    const shift = round % all.length;
    for (let k = 0; k < all.length; k++) {
      const base = ((k + shift) % all.length) * 4;
      const order = round % 2 === 0 ? [0, 1, 2, 3] : [1, 0, 3, 2];
      for (const j of order) samples[base + j]!.push(perCpuSecond(runs[base + j]!, counts[base + j]!));
    }
  }
  const loadAfter = loadavg()[0]!;
  const rows = all.map((p, i): HeaderCostRow => {
    const [off, on, vmrOff, vmrOn] = [0, 1, 2, 3].map((j) => samples[i * 4 + j]!);
    const admission = spread(off!.map((x, r) => x / on![r]!));
    const offPerSec = spread(off!);
    const onPerSec = spread(on!);
    return {
      message: p.message.label,
      bytes: p.bytes,
      reader: p.reader,
      offPerSec,
      onPerSec,
      admission,
      admissionBest: Math.max(...off!) / Math.max(...on!),
      validateOnly: spread(vmrOff!.map((x, r) => x / vmrOn![r]!)),
      offNs: 1e9 / offPerSec.median,
      addedNs: 1e9 / onPerSec.median - 1e9 / offPerSec.median,
    };
  });
  log(`header rules: the Fetch face from a Request with its body (gateFetch's admission), on and off, ${timing.rounds} interleaved rounds`);
  const fromRequests = await runRequestRounds(messages, timing);
  return { rows, rounds: timing.rounds, sliceMs: timing.roundMs, load: [loadBefore, loadAfter], ...fromRequests };
}

const cell = (s: Spread) => `${formatRatio(s.median)} [${formatRatio(s.min)}–${formatRatio(s.max)}]`;
/** Ratios this close to 1 need three decimals to be read against a budget of a few per cent. */
const fine = (s: Spread) => `${s.median.toFixed(3)}× [${s.min.toFixed(3)}–${s.max.toFixed(3)}]`;

export function headerCostTable(f: HeaderCostFigures): string {
  return [
    table(
      [
        "valid modern tools/call",
        "headers held as",
        "admitted per CPU s, rules off",
        "rules on",
        "added per request",
        "on ÷ off (budget ≤ 1.05×, Fetch ≤ 1.12×)",
        "fastest rounds",
        "validateMcpRequest only",
      ],
      f.rows.map((r) => [
        `${r.message} (${r.bytes} B)`,
        READER_LABELS[r.reader],
        Math.round(r.offPerSec.median).toLocaleString("en-US"),
        Math.round(r.onPerSec.median).toLocaleString("en-US"),
        `${r.addedNs.toFixed(0)} ns of ${r.offNs.toFixed(0)} ns`,
        fine(r.admission),
        `${r.admissionBest.toFixed(3)}×`,
        cell(r.validateOnly),
      ]),
      [2, 3],
    ),
    "",
    `Admission: gateBytes on the face's own exchange (judgeNode's, judgeRequest's; the plain object in place of the Node reader), bundled as dist/ is built (bench/bundled.ts), ` +
      `the face built with the headers rule enforced and off; median [min–max] of ${f.rounds} interleaved rounds of about ${f.sliceMs} ms of CPU time per variant, ratios per round (fastest rounds: on ÷ off of the fastest round of each); time is the process's CPU time (process.cpuUsage), as wall time on a shared machine counts other processes' slices. ` +
      `validateMcpRequest only: the parsed body, with the same headers ÷ without them, in the same rounds (information: ` +
      `it is not what a face pays). Load average (1 min) ${f.load[0].toFixed(2)} before the rounds, ${f.load[1].toFixed(2)} after.`,
    "",
    table(
      [
        "valid modern tools/call, a Fetch Request",
        "admitted per CPU s, rules off",
        "rules on",
        "added per request",
        "on ÷ off",
        "fastest rounds",
        "every round pooled",
      ],
      f.requests.map((r) => [
        `${r.message} (${r.bytes} B)`,
        Math.round(r.offPerSec.median).toLocaleString("en-US"),
        Math.round(r.onPerSec.median).toLocaleString("en-US"),
        `${r.addedNs.toFixed(0)} ns of ${r.offNs.toFixed(0)} ns`,
        fine(r.admission),
        `${r.admissionBest.toFixed(3)}×`,
        `${r.pooled.toFixed(3)}×`,
      ]),
      [1, 2],
    ),
    "",
    `A Fetch Request with its body, as gateFetch admits it for the SDK's handler: screenRequest, then judgeRequest reading the body from the request itself ` +
      `(arrayBuffer(), gateBody and its promises), the same headers as above; the Requests made ${REQUEST_BATCH} at a time between the timed parts (not timed). ` +
      `For information beside the Fetch rows above (the budget is counted from the bytes): median [min–max] of ${f.requestRounds} interleaved rounds of about ${f.requestSliceMs} ms of CPU time per variant, after those rounds; every round pooled: the CPU time per request over all the rounds, on ÷ off (a young or full collection costs the slice it falls in, and reading bodies collects often). ` +
      `Load average (1 min) ${f.requestLoad[0].toFixed(2)} before these rounds, ${f.requestLoad[1].toFixed(2)} after.`,
  ].join("\n");
}

/** One target per reader and message: the admission's ratio, the narrow ratio beside it. */
export function headerCostTargets(f: HeaderCostFigures): Target[] {
  return f.rows.map((r) => {
    const measured = r.admission.median;
    const budget = HEADER_BUDGETS[r.reader];
    const pass = measured <= budget;
    return {
      target: `the transport headers (${READER_LABELS[r.reader]}), ${r.message}: its admission from the bytes ≤ ${budget.toFixed(2)}× without them`,
      measured,
      limit: budget,
      unit: "×",
      atLeast: false,
      pass,
      ...(pass ? {} : { missBy: `${measured.toFixed(3)}× of ${budget.toFixed(2)}× (${((measured / budget - 1) * 100).toFixed(1)}% over)` }),
      context:
        `on ÷ off in CPU time, per-round ratio, median of ${r.admission.samples.length} ${fine(r.admission)}; ${r.addedNs.toFixed(0)} ns ` +
        `added to ${r.offNs.toFixed(0)} ns; fastest rounds ${r.admissionBest.toFixed(3)}×; validateMcpRequest alone with ÷ without the headers ${cell(r.validateOnly)} (information)`,
    };
  });
}
