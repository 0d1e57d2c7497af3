/**
 * @module The hostile families of `npm run fuzz -- --transport`: peers that misbehave on the wire, each case run once
 * without wymcp (the client talking to the server directly) and once with wymcp between them, on the same input:
 * - `upstream`: a raw upstream (node:net) behind `wymcp proxy` answers a valid request with a bad status line, bad or
 *   huge headers, bad framing (chunk sizes, a Content-Length that lies), a reset mid-answer, an answer that never ends
 *   or drips; the client is Node's own HTTP client, as strict as the proxy's;
 * - `smuggling`: a raw client sends framing that two parsers may read apart (CL.TE, TE.CL, two Content-Lengths,
 *   `Transfer-Encoding: chunked, identity`, obs-fold, bare LF), a valid request hidden after it, to examples/server.ts
 *   with the SDK alone, directly and through `wymcp proxy`;
 * - `client`: `Expect: 100-continue`, pipelining, a request written a few bytes at a time, a half-closed socket;
 * - `stdio`: `wymcp stdio` in front of fuzz/stdio-peer.mjs: a last line without its end, NUL and invalid UTF-8, a client
 *   that never reads a flooding server, a server that exits mid-line.
 *
 * A case is worse behind wymcp ({@link worse}) when, on the same input:
 * - `crash`: wymcp's process ended (stdio: with a code other than the server's own);
 * - `hang`: the side without wymcp finished within the case's bound and the side with wymcp did not (no answer, or
 *   stdio: no exit);
 * - `unbounded answer`: wymcp relayed more than its --max-answer-bytes of one answer that is not an event stream;
 * - `memory`: the proxy's peak resident set grew more than {@link MEMORY_BOUND_MB} over the case, or `wymcp stdio`'s
 *   peaked above {@link STDIO_PEAK_MB};
 * - `5xx`: wymcp answered a 5xx where the server alone gave a well-formed answer that was not one (a 502 for an answer
 *   that is not valid HTTP, or a reset, is the proxy's documented translation, not a finding);
 * - `smuggled`: more answers behind wymcp than from the server alone (a request the server alone refused reached it);
 * - `fewer answers` (`client` family: every request there is valid): fewer answers behind wymcp;
 * - `stopped serving` / `desync` (`upstream`): after the case the proxy does not answer a probe request, or answers it
 *   with bytes of an earlier answer.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { launchExample, launchProxy, type LaunchedExample, type LaunchedProxy } from "../examples/launch.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export const HOSTILE_FAMILIES = ["upstream", "smuggling", "client", "stdio"] as const;
export type HostileFamily = (typeof HOSTILE_FAMILIES)[number];

/** The proxy's bounds in these cases: what the verdicts hold it to. */
export const PROXY_TIMEOUT_MS = 2_000;
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Most a case may grow the proxy's peak resident set by. */
export const MEMORY_BOUND_MB = 64;
/** Most `wymcp stdio`'s peak resident set may reach in a case (a fresh process each, start-up included). */
export const STDIO_PEAK_MB = 128;
/** How long a side has to finish (answer, close or exit) before it counts as hung. */
export const BOUND_MS = 4_000;

/** One step of a raw peer's script. */
type Step =
  | { write: Buffer | string }
  | { wait: number }
  | { drip: Buffer | string; everyMs: number }
  | { forever: Buffer | string }
  | { end: true }
  | { reset: true };

export interface HostileCase {
  index: number;
  family: HostileFamily;
  label: string;
  /** upstream: what the raw upstream answers a request with. */
  answer?: Step[];
  /** smuggling, client: what the raw client writes. */
  request?: Step[];
  /** client: how many answers the server alone gives. */
  requests?: number;
  /** stdio: the peer's behaviour, what the client writes, whether it ends its input and whether it reads. */
  stdio?: { peer: string[]; input: Buffer; endInput: boolean; reads: boolean };
}

/** What one side saw. */
export interface Seen {
  statuses: number[];
  /** Body bytes read (upstream), all bytes read (smuggling, client, stdio). */
  bytes: number;
  /** Finished within the bound: answered and ended, closed, or (stdio) exited. */
  finished: boolean;
  /** Node's error for the answer (upstream), or none. */
  error?: string;
  /** The answer was read to its end as HTTP (upstream). */
  complete?: boolean;
  /** The answer is an event stream (upstream): no bound on its length. */
  stream?: boolean;
  /** stdio: the exit code. */
  exitCode?: number | null;
  /** The proxy's peak resident set over the case, less its resident set before. */
  peakGrowthMb?: number;
  /** `wymcp stdio`'s peak resident set over its life (sampled every 50 ms while it runs). */
  peakMb?: number;
  ms: number;
}

export interface HostileResult {
  index: number;
  family: HostileFamily;
  label: string;
  direct: Seen;
  wymcp: Seen;
  verdict: string;
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const JSON_BODY = '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}';
const ok = (extra = "", body = JSON_BODY) =>
  `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** The upstream shapes: a name and the script, given a random draw. */
const UPSTREAM: [string, (r: () => number) => Step[]][] = [
  ["status 99", () => [{ write: "HTTP/1.1 99 Odd\r\nContent-Length: 0\r\n\r\n" }]],
  ["status 1000", () => [{ write: "HTTP/1.1 1000 Odd\r\nContent-Length: 0\r\n\r\n" }]],
  ["status not a number", () => [{ write: "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n" }]],
  ["HTTP/2 in an HTTP/1.1 status line", () => [{ write: "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n" }]],
  ["not HTTP at all", (r) => [{ write: Buffer.from(Array.from({ length: 1 + Math.floor(r() * 64) }, () => Math.floor(r() * 256))) }]],
  ["a NUL in the reason phrase", () => [{ write: `HTTP/1.1 200 O\0K\r\nContent-Length: 0\r\n\r\n` }]],
  ["103 Early Hints then 200", () => [{ write: `HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n${ok()}` }]],
  ["100 Continue unasked then 200", () => [{ write: `HTTP/1.1 100 Continue\r\n\r\n${ok()}` }]],
  [
    "101 unasked",
    () => [{ write: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n" }, { wait: 200 }],
  ],
  ["a header without a colon", () => [{ write: ok("X-Bad\r\n") }]],
  ["a space before the colon", () => [{ write: ok("X-Bad : 1\r\n") }]],
  ["a control byte in a header value", () => [{ write: ok("X-Bad: a\x01b\r\n") }]],
  ["obs-fold in an answer header", () => [{ write: ok("X-Folded: a\r\n b\r\n") }]],
  ["a 100 KiB header", (r) => [{ write: ok(`X-Huge: ${"h".repeat(Math.floor((64 + r() * 64) * 1024))}\r\n`) }]],
  ["10,000 headers", () => [{ write: ok("X-Many: 1\r\n".repeat(10_000)) }]],
  ["two different Content-Lengths", () => [{ write: `HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde` }]],
  [
    "Content-Length and chunked",
    () => [{ write: `HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n` }],
  ],
  ["a chunk size not hex", () => [{ write: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n" }]],
  [
    "a chunk size of 2^64",
    () => [{ write: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nabc\r\n" }, { end: true }],
  ],
  [
    "a chunk larger than sent, then close",
    () => [{ write: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n100\r\nabc" }, { end: true }],
  ],
  [
    "Content-Length longer than the body, then close",
    (r) => [{ write: `HTTP/1.1 200 OK\r\nContent-Length: ${100 + Math.floor(r() * 1e6)}\r\n\r\nabc` }, { end: true }],
  ],
  [
    "Content-Length shorter than the body",
    () => [
      { write: `${ok("", "{}").replace("Content-Length: 2", "Content-Length: 1")}HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nstale!` },
    ],
  ],
  [
    "Content-Length past --max-answer-bytes",
    () => [{ write: `HTTP/1.1 200 OK\r\nContent-Length: ${MAX_ANSWER_BYTES * 4}\r\n\r\n` }, { forever: "x".repeat(16 * 1024) }],
  ],
  ["reset after the headers", () => [{ write: "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" }, { wait: 20 }, { reset: true }]],
  [
    "reset mid-chunk",
    (r) => [
      { write: `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000\r\n${"a".repeat(Math.floor(r() * 4096))}` },
      { wait: 20 },
      { reset: true },
    ],
  ],
  ["reset before any byte", () => [{ reset: true }]],
  ["close before any byte", () => [{ end: true }]],
  ["close mid status line", () => [{ write: "HTTP/1.1 20" }, { end: true }]],
  [
    "a chunked answer that never ends",
    () => [
      { write: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" },
      { forever: `4000\r\n${"y".repeat(0x4000)}\r\n` },
    ],
  ],
  [
    "an answer with no length that never ends",
    () => [{ write: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n" }, { forever: "z".repeat(16 * 1024) }],
  ],
  [
    "an event stream that never ends",
    () => [
      { write: "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" },
      { forever: `f\r\ndata: {"a":1}\n\n\r\n` },
    ],
  ],
  ["the status line dripped a byte every 50 ms", () => [{ drip: ok(), everyMs: 50 }]],
  [
    "the body dripped a byte every 100 ms",
    () => [
      { write: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n" },
      { drip: '{"a":"drip"}', everyMs: 100 },
    ],
  ],
  ["headers after the proxy's timeout", () => [{ wait: PROXY_TIMEOUT_MS + 500 }, { write: ok() }]],
];

const MCP_HEADERS =
  "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n";
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const callBody = (id: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: META, name: "echo", arguments: { text: "hi" } } });
const BODY = callBody(1);
const HIDDEN = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${MCP_HEADERS}Content-Length: ${Buffer.byteLength(callBody(666))}\r\n\r\n${callBody(666)}`;
const start = (extra: string, eol = "\r\n") =>
  `POST /mcp HTTP/1.1${eol}Host: 127.0.0.1${eol}Content-Type: application/json${eol}${MCP_HEADERS.replaceAll("\r\n", eol)}${extra}`;
const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;

/** The smuggling shapes: each hides {@link HIDDEN} behind framing two parsers may read apart. */
const SMUGGLING: [string, () => Step[]][] = [
  [
    "CL.TE",
    () => [
      { write: `${start(`Content-Length: ${BODY.length + 5}\r\nTransfer-Encoding: chunked\r\n\r\n`)}${chunk(BODY)}0\r\n\r\n${HIDDEN}` },
    ],
  ],
  ["TE.CL", () => [{ write: `${start(`Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n`)}${chunk(BODY)}0\r\n\r\n${HIDDEN}` }]],
  [
    "two equal Content-Lengths",
    () => [{ write: `${start(`Content-Length: ${BODY.length}\r\nContent-Length: ${BODY.length}\r\n\r\n`)}${BODY}${HIDDEN}` }],
  ],
  [
    "two different Content-Lengths",
    () => [{ write: `${start(`Content-Length: ${BODY.length}\r\nContent-Length: 0\r\n\r\n`)}${BODY}${HIDDEN}` }],
  ],
  ["Content-Length: 5, 5", () => [{ write: `${start(`Content-Length: ${BODY.length}, ${BODY.length}\r\n\r\n`)}${BODY}${HIDDEN}` }]],
  [
    "Transfer-Encoding: chunked, identity",
    () => [{ write: `${start("Transfer-Encoding: chunked, identity\r\n\r\n")}${chunk(BODY)}0\r\n\r\n${HIDDEN}` }],
  ],
  [
    "Transfer-Encoding: identity, chunked",
    () => [{ write: `${start("Transfer-Encoding: identity, chunked\r\n\r\n")}${chunk(BODY)}0\r\n\r\n${HIDDEN}` }],
  ],
  [
    "Transfer-Encoding: xchunked",
    () => [{ write: `${start(`Transfer-Encoding: xchunked\r\nContent-Length: ${BODY.length}\r\n\r\n`)}${BODY}${HIDDEN}` }],
  ],
  [
    "Transfer-Encoding twice",
    () => [{ write: `${start("Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n")}${chunk(BODY)}0\r\n\r\n${HIDDEN}` }],
  ],
  [
    "a space before the colon of Transfer-Encoding",
    () => [{ write: `${start(`Transfer-Encoding : chunked\r\nContent-Length: ${BODY.length}\r\n\r\n`)}${BODY}${HIDDEN}` }],
  ],
  [
    "obs-fold in Transfer-Encoding",
    () => [{ write: `${start(`Content-Length: ${BODY.length}\r\nTransfer-Encoding:\r\n chunked\r\n\r\n`)}${BODY}${HIDDEN}` }],
  ],
  [
    "obs-fold in Content-Type",
    () => [{ write: `${start(`X-Folded: a\r\n b\r\nContent-Length: ${BODY.length}\r\n\r\n`)}${BODY}${HIDDEN}` }],
  ],
  ["bare LF line ends", () => [{ write: `${start(`Content-Length: ${BODY.length}\n\n`, "\n")}${BODY}${HIDDEN}` }]],
  [
    "bare LF after a chunk size",
    () => [{ write: `${start("Transfer-Encoding: chunked\r\n\r\n")}${BODY.length.toString(16)}\n${BODY}\r\n0\r\n\r\n${HIDDEN}` }],
  ],
  [
    "bare CR in a header",
    () => [{ write: `${start(`X-A: 1\rContent-Length: 0\r\nContent-Length: ${BODY.length}\r\n\r\n`)}${BODY}${HIDDEN}` }],
  ],
  [
    "a chunk extension with a quote",
    () => [{ write: `${start("Transfer-Encoding: chunked\r\n\r\n")}${BODY.length.toString(16)};a="\r\n${BODY}\r\n0\r\n\r\n${HIDDEN}` }],
  ],
  [
    "a chunk size with a sign",
    () => [{ write: `${start("Transfer-Encoding: chunked\r\n\r\n")}+${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n${HIDDEN}` }],
  ],
  [
    "GET with a body and Content-Length",
    () => [
      { write: `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nContent-Length: ${HIDDEN.length}\r\n\r\n${HIDDEN}` },
    ],
  ],
];

const VALID = `${start(`Content-Length: ${BODY.length}\r\n\r\n`)}${BODY}`;
const DELETE = "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n";

/** The client shapes: every request valid, so that each gets an answer from the server alone. */
const CLIENT: [string, (r: () => number) => { steps: Step[]; requests: number }][] = [
  [
    "Expect: 100-continue, the body after the 100",
    () => ({
      steps: [{ write: start(`Expect: 100-continue\r\nContent-Length: ${BODY.length}\r\n\r\n`) }, { wait: 300 }, { write: BODY }],
      requests: 1,
    }),
  ],
  [
    "Expect: 100-continue, the body at once",
    () => ({
      steps: [{ write: `${start(`Expect: 100-continue\r\nContent-Length: ${BODY.length}\r\n\r\n`)}${BODY}` }],
      requests: 1,
    }),
  ],
  [
    "Expect: 100-continue, chunked",
    () => ({
      steps: [
        { write: start("Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n") },
        { wait: 200 },
        { write: `${chunk(BODY)}0\r\n\r\n` },
      ],
      requests: 1,
    }),
  ],
  [
    "pipelined requests",
    (r) => {
      const n = 2 + Math.floor(r() * 30);
      return { steps: [{ write: Array.from({ length: n }, () => VALID).join("") }], requests: n };
    },
  ],
  [
    "pipelined POST and DELETE",
    (r) => {
      const n = 2 + Math.floor(r() * 6);
      return { steps: [{ write: Array.from({ length: n }, (_, i) => (i % 2 ? DELETE : VALID)).join("") }], requests: n };
    },
  ],
  ["written a few bytes every 10 ms", (r) => ({ steps: [{ drip: VALID, everyMs: 10 + Math.floor(r() * 10) }], requests: 1 })],
  ["half-closed after the request", () => ({ steps: [{ write: VALID }, { end: true }], requests: 1 })],
  ["half-closed after two pipelined requests", () => ({ steps: [{ write: VALID + VALID }, { end: true }], requests: 2 })],
  ["idle 500 ms, then the request", () => ({ steps: [{ wait: 500 }, { write: VALID }], requests: 1 })],
  [
    "the head, a pause, then the body",
    () => ({
      steps: [{ write: start(`Content-Length: ${BODY.length}\r\n\r\n`) }, { wait: 400 }, { write: BODY }],
      requests: 1,
    }),
  ],
];

const line = (text: string) => Buffer.from(`${text}\n`);
const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
const STDIO: [string, (r: () => number) => NonNullable<HostileCase["stdio"]>][] = [
  ["the last line without its end", () => ({ peer: ["echo"], input: Buffer.from(PING), endInput: true, reads: true })],
  [
    "a NUL after a line's JSON",
    () => ({ peer: ["echo"], input: Buffer.concat([Buffer.from(PING), Buffer.from([0]), line("")]), endInput: true, reads: true }),
  ],
  [
    "a NUL inside a string",
    () => ({ peer: ["echo"], input: line('{"jsonrpc":"2.0","id":1,"method":"pi\u0000ng"}'), endInput: true, reads: true }),
  ],
  [
    "invalid UTF-8 in a string",
    (r) => ({
      peer: ["echo"],
      input: Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":"'),
        Buffer.from([0xff, 0xfe, 0xc0 + Math.floor(r() * 8)]),
        line('"}}}'),
      ]),
      endInput: true,
      reads: true,
    }),
  ],
  [
    "a lone surrogate escaped",
    () => ({
      peer: ["echo"],
      input: line('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":"\\ud800"}}}'),
      endInput: true,
      reads: true,
    }),
  ],
  [
    "junk lines then a ping",
    (r) => ({
      peer: ["echo"],
      input: Buffer.concat([...Array.from({ length: 1 + Math.floor(r() * 200) }, () => line("\u0000\u00ff not json")), line(PING)]),
      endInput: true,
      reads: true,
    }),
  ],
  ["a 4 MiB line without end", () => ({ peer: ["echo"], input: Buffer.alloc(4 * 1024 * 1024, 0x61), endInput: true, reads: true })],
  ["input never ended", () => ({ peer: ["echo"], input: line(PING), endInput: false, reads: true })],
  ["a server that floods 8 MiB", () => ({ peer: ["flood", "8"], input: Buffer.alloc(0), endInput: true, reads: true })],
  ["a client that never reads a server that floods", () => ({ peer: ["forever"], input: Buffer.alloc(0), endInput: false, reads: false })],
  ["a server that exits mid-line", () => ({ peer: ["mid-line"], input: Buffer.alloc(0), endInput: false, reads: true })],
];

/** `count` cases per family (the shapes in turn, the draws seeded), or the families named. */
export function hostileCases({
  seed = 1,
  count = 40,
  families = HOSTILE_FAMILIES,
}: {
  seed?: number;
  count?: number;
  families?: readonly HostileFamily[];
} = {}): HostileCase[] {
  const r = random(seed);
  const cases: HostileCase[] = [];
  let index = 0;
  for (const family of families) {
    const offset = Math.floor(r() * 1000);
    for (let i = 0; i < count; i++) {
      const at = offset + i;
      if (family === "upstream") {
        const [label, make] = UPSTREAM[at % UPSTREAM.length]!;
        cases.push({ index: index++, family, label, answer: make(r) });
      } else if (family === "smuggling") {
        const [label, make] = SMUGGLING[at % SMUGGLING.length]!;
        cases.push({ index: index++, family, label, request: make() });
      } else if (family === "client") {
        const [label, make] = CLIENT[at % CLIENT.length]!;
        const { steps, requests } = make(r);
        cases.push({ index: index++, family, label: requests > 1 ? `${label} (${requests})` : label, request: steps, requests });
      } else {
        const [label, make] = STDIO[at % STDIO.length]!;
        cases.push({ index: index++, family, label, stdio: make(r) });
      }
    }
  }
  return cases;
}

/** How many shapes each family has: a run of this many cases per family covers all of them. */
export const SHAPES: Record<HostileFamily, number> = {
  upstream: UPSTREAM.length,
  smuggling: SMUGGLING.length,
  client: CLIENT.length,
  stdio: STDIO.length,
};

/** Plays a script on a socket; stops when the socket is gone or `signal` aborts. */
async function play(socket: net.Socket, steps: Step[], signal: AbortSignal): Promise<void> {
  const gone = () => socket.destroyed || signal.aborted;
  for (const step of steps) {
    if (gone()) return;
    if ("write" in step) socket.write(step.write);
    else if ("wait" in step) await sleep(step.wait, undefined, { signal }).catch(() => undefined);
    else if ("drip" in step) {
      const bytes = Buffer.from(step.drip);
      // A few bytes at a time: the whole drip stays within the bound.
      const piece = Math.max(1, Math.ceil(bytes.length / Math.max(1, (BOUND_MS * 0.4) / step.everyMs)));
      for (let at = 0; at < bytes.length && !gone(); at += piece) {
        socket.write(bytes.subarray(at, at + piece));
        await sleep(step.everyMs, undefined, { signal }).catch(() => undefined);
      }
    } else if ("forever" in step) {
      const bytes = Buffer.from(step.forever);
      while (!gone()) {
        if (!socket.write(bytes)) await Promise.race([new Promise((resolve) => socket.once("drain", resolve)), sleep(200)]);
      }
    } else if ("end" in step) socket.end();
    else socket.resetAndDestroy();
  }
}

/** A raw upstream: probe requests (`X-Fuzz-Probe: n`) get `{"probe":n}`; any other request gets the current script. */
async function rawUpstream() {
  let script: Step[] = [];
  let stop = new AbortController();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let buffer = Buffer.alloc(0);
    socket.on("data", (data: Buffer) => {
      buffer = Buffer.concat([buffer, data]);
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString("latin1");
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        buffer = buffer.subarray(end + 4 + length);
        const probe = /\r\nx-fuzz-probe:\s*(\d+)/i.exec(head)?.[1];
        if (probe !== undefined) {
          const body = `{"probe":${probe}}`;
          socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        } else void play(socket, script, stop.signal);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    set(steps: Step[]) {
      script = steps;
    },
    /** Ends every script still playing (between cases); the connections stay, as the proxy's pool keeps them. */
    reset() {
      stop.abort();
      stop = new AbortController();
    },
    async close() {
      stop.abort();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function kb(pid: number, field: string): number {
  try {
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function resetPeak(pid: number): number {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    // Not Linux: the peak then counts from the start.
  }
  return kb(pid, "VmRSS");
}

const growthMb = (pid: number, before: number) => Math.max(0, kb(pid, "VmHWM") - before) / 1024;

/** One valid request with Node's HTTP client; the answer read to its end, its error, or the bound, whichever first. */
function nodeRequest(url: URL, headers: Record<string, string> = {}, body = BODY): Promise<Seen & { text: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    let bytes = 0;
    let status: number | undefined;
    let text = "";
    let stream = false;
    let settled = false;
    const finish = (finished: boolean, error?: string, complete?: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({
        statuses: status === undefined ? [] : [status],
        bytes,
        finished,
        error,
        complete,
        stream,
        ms: performance.now() - started,
        text,
      });
    };
    const agent = new http.Agent({ keepAlive: false });
    const req = http.request(url, {
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "echo",
        ...headers,
      },
    });
    const timer = setTimeout(() => finish(false), BOUND_MS);
    req.on("error", (error: NodeJS.ErrnoException) => finish(true, error.code ?? error.message));
    req.on("response", (res) => {
      status = res.statusCode;
      stream = String(res.headers["content-type"]).startsWith("text/event-stream");
      res.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (text.length < 4096) text += chunk.toString("latin1");
        // Past four times the proxy's bound the answer is unbounded: no need to read on.
        if (bytes > 4 * MAX_ANSWER_BYTES) finish(true, "unbounded", false);
      });
      res.on("end", () => finish(true, undefined, true));
      res.on("error", (error: NodeJS.ErrnoException) => finish(true, error.code ?? error.message, false));
      res.on("close", () => finish(true, res.complete ? undefined : "aborted", res.complete));
    });
    req.end(body);
  });
}

/** Writes a raw request script and reads answers (heads, bodies by their framing) until the close, quiet or the bound. */
async function rawExchange(url: URL, steps: Step[], expected: number): Promise<Seen> {
  const started = performance.now();
  const socket = net.connect(Number(url.port), url.hostname);
  const statuses: number[] = [];
  let bytes = 0;
  let buffer = Buffer.alloc(0);
  let closed = false;
  let last = performance.now();
  socket.on("data", (data: Buffer) => {
    bytes += data.length;
    last = performance.now();
    buffer = Buffer.concat([buffer, data]);
    for (;;) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) break;
      const text = buffer.subarray(0, end).toString("latin1").toLowerCase();
      let rest = buffer.subarray(end + 4);
      const status = Number(text.slice(9, 12));
      const length = /\r\ncontent-length: (\d+)/.exec(text);
      if (length) {
        if (rest.length < Number(length[1])) break;
        rest = rest.subarray(Number(length[1]));
      } else if (/\r\ntransfer-encoding: chunked/.test(text)) {
        const ends = rest.indexOf("0\r\n\r\n");
        if (ends < 0) break;
        rest = rest.subarray(ends + 5);
      }
      // An interim answer (100 Continue) is not one of the answers counted.
      if (status >= 200) statuses.push(status);
      buffer = rest;
    }
  });
  socket.on("close", () => {
    closed = true;
  });
  socket.on("error", () => undefined);
  const stop = new AbortController();
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()).once("error", () => resolve()));
  const playing = play(socket, steps, stop.signal);
  const deadline = started + BOUND_MS;
  // Done: closed, every expected answer read, or (nothing expected) quiet for 500 ms after an answer.
  while (!closed && performance.now() < deadline) {
    if (expected > 0 && statuses.length >= expected) break;
    if (expected === 0 && statuses.length > 0 && performance.now() - last > 500) break;
    await sleep(20);
  }
  const finished = closed || (expected > 0 ? statuses.length >= expected : statuses.length > 0);
  stop.abort();
  socket.destroy();
  await playing;
  return { statuses, bytes, finished, ms: performance.now() - started };
}

/** Runs one stdio case: the client's bytes in, its output counted, until the exit or the bound. */
async function stdioExchange(command: string[], c: NonNullable<HostileCase["stdio"]>, wymcp: boolean): Promise<Seen> {
  const started = performance.now();
  const child: ChildProcess = spawn(command[0]!, command.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
  let bytes = 0;
  let lines = 0;
  const pid = child.pid!;
  let peak = 0;
  const sampler = wymcp ? setInterval(() => (peak = Math.max(peak, kb(pid, "VmHWM"))), 50) : undefined;
  child.stdin!.on("error", () => undefined);
  if (c.reads)
    child.stdout!.on("data", (data: Buffer) => {
      bytes += data.length;
      for (const b of data) if (b === 10) lines++;
    });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code, signal) => resolve(code ?? (signal ? -1 : null))));
  child.stdin!.write(c.input);
  if (c.endInput) child.stdin!.end();
  const timer = sleep(c.reads && c.endInput ? BOUND_MS : Math.min(BOUND_MS, 2_000)).then(() => "bound" as const);
  const outcome = await Promise.race([exited, timer]);
  if (wymcp) peak = Math.max(peak, kb(pid, "VmHWM"));
  clearInterval(sampler);
  const finished = outcome !== "bound";
  if (!finished) {
    child.kill("SIGTERM");
    const late = await Promise.race([exited, sleep(3_000).then(() => "stuck" as const)]);
    if (late === "stuck") {
      child.kill("SIGKILL");
      await exited;
    }
  }
  return {
    statuses: Array.from({ length: lines }, () => 0),
    bytes,
    finished,
    exitCode: finished ? (outcome as number | null) : undefined,
    ...(wymcp && { peakMb: peak / 1024 }),
    ms: performance.now() - started,
  };
}

/** Whether the side with wymcp did worse than the side without, on the same input; "ok" when not. */
export function worse(c: Pick<HostileCase, "family" | "stdio">, direct: Seen, wymcp: Seen, aliveAfter: boolean): string {
  if (!aliveAfter) return "crash";
  if (c.family === "stdio") {
    if (direct.finished && wymcp.finished && wymcp.exitCode !== direct.exitCode)
      return `crash (exit ${wymcp.exitCode}, the server's ${direct.exitCode})`;
    if (direct.finished && !wymcp.finished) return "hang";
  } else if (direct.finished && !wymcp.finished) return "hang";
  if ((wymcp.peakGrowthMb ?? 0) > MEMORY_BOUND_MB || (wymcp.peakMb ?? 0) > STDIO_PEAK_MB) return "memory";
  if (c.family === "upstream") {
    if (wymcp.bytes > MAX_ANSWER_BYTES + 64 * 1024 && !wymcp.stream) return "unbounded answer";
    // A 504 once --timeout has passed with no answer is the bound the proxy was given, not a finding.
    const fiveXx = wymcp.statuses.some((s) => s >= 500 && !(s === 504 && direct.ms >= PROXY_TIMEOUT_MS));
    const directWellFormed = direct.complete === true && direct.statuses.every((s) => s < 500);
    if (fiveXx && directWellFormed) return "5xx";
  }
  if (c.family === "smuggling" || c.family === "client") {
    const fiveXx = wymcp.statuses.some((s) => s >= 500) && !direct.statuses.some((s) => s >= 500);
    if (fiveXx) return "5xx";
    const ok = (s: Seen) => s.statuses.filter((x) => x < 300).length;
    if (ok(wymcp) > ok(direct)) return "smuggled";
    if (c.family === "client" && wymcp.statuses.length < direct.statuses.length) return "fewer answers";
  }
  return "ok";
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Runs the cases, each without and with wymcp; restarts a proxy that crashed (and counts it a finding). */
export async function runHostileFuzz(cases: HostileCase[], log: (line: string) => void = () => undefined) {
  const started = performance.now();
  const results: HostileResult[] = [];
  const families = new Set(cases.map((c) => c.family));
  const upstream = families.has("upstream") ? await rawUpstream() : undefined;
  const example: LaunchedExample | undefined =
    families.has("smuggling") || families.has("client") ? await launchExample({ env: { WYMCP_GATE: "off" } }) : undefined;
  const proxyArgs = ["--timeout", String(PROXY_TIMEOUT_MS), "--max-answer-bytes", String(MAX_ANSWER_BYTES)];
  const proxies: Partial<Record<"raw" | "example", LaunchedProxy>> = {};
  const proxyFor = async (which: "raw" | "example") => {
    const p = proxies[which];
    if (p && alive(p.child)) return p;
    proxies[which] = await launchProxy(which === "raw" ? upstream!.url : example!.url, { args: proxyArgs });
    return proxies[which]!;
  };
  let probe = 0;
  try {
    for (const c of cases) {
      let direct: Seen;
      let wymcp: Seen;
      let aliveAfter = true;
      let after = "";
      if (c.family === "upstream") {
        upstream!.set(c.answer!);
        direct = await nodeRequest(upstream!.url);
        upstream!.reset();
        const proxy = await proxyFor("raw");
        const pid = proxy.child.pid!;
        const before = resetPeak(pid);
        wymcp = await nodeRequest(proxy.url);
        wymcp.peakGrowthMb = growthMb(pid, before);
        upstream!.reset();
        aliveAfter = alive(proxy.child);
        if (aliveAfter) {
          // The proxy still serves, and the next answer is the upstream's answer to that request.
          const n = ++probe;
          const next = await nodeRequest(proxy.url, { "x-fuzz-probe": String(n) });
          if (next.statuses[0] !== 200 || next.text !== `{"probe":${n}}`)
            after =
              next.statuses[0] === 200
                ? `desync (${JSON.stringify(next.text.slice(0, 40))})`
                : `stopped serving (${next.statuses[0] ?? next.error})`;
        }
      } else if (c.family === "smuggling" || c.family === "client") {
        const expected = c.family === "client" ? c.requests! : 0;
        direct = await rawExchange(example!.url, c.request!, expected);
        const proxy = await proxyFor("example");
        const pid = proxy.child.pid!;
        const before = resetPeak(pid);
        wymcp = await rawExchange(proxy.url, c.request!, expected);
        wymcp.peakGrowthMb = growthMb(pid, before);
        aliveAfter = alive(proxy.child);
      } else {
        const peer = [process.execPath, join(ROOT, "fuzz", "stdio-peer.mjs"), ...c.stdio!.peer];
        direct = await stdioExchange(peer, c.stdio!, false);
        wymcp = await stdioExchange([process.execPath, join(ROOT, "dist", "cli.js"), "stdio", "--", ...peer], c.stdio!, true);
      }
      const verdict = after || worse(c, direct, wymcp, aliveAfter);
      results.push({ index: c.index, family: c.family, label: c.label, direct, wymcp, verdict });
      if (verdict !== "ok") log(`#${c.index} ${c.family} ${c.label}: ${verdict} (${describe(wymcp)}; without wymcp ${describe(direct)})`);
    }
  } finally {
    for (const p of Object.values(proxies)) await p?.stop();
    await upstream?.close();
    await example?.stop();
  }
  return { results, seconds: (performance.now() - started) / 1000 };
}

function describe(s: Seen): string {
  const answers = s.statuses.length ? s.statuses.join(",") : "no answer";
  const ended = s.finished ? `${s.ms.toFixed(0)} ms` : "unfinished at the bound";
  return `${answers}, ${s.bytes} B${s.error ? `, ${s.error}` : ""}${s.exitCode !== undefined ? `, exit ${s.exitCode}` : ""}${s.peakGrowthMb !== undefined ? `, +${s.peakGrowthMb.toFixed(0)} MB` : ""}${s.peakMb !== undefined ? `, peak ${s.peakMb.toFixed(0)} MB` : ""}, ${ended}`;
}

export function hostileSummary({ results }: { results: HostileResult[] }): string {
  const lines = [
    "case  family     case                                               with wymcp                                    without wymcp                               verdict",
  ];
  for (const r of results)
    lines.push(
      [
        String(r.index).padStart(4),
        r.family.padEnd(9),
        r.label.slice(0, 50).padEnd(50),
        describe(r.wymcp).slice(0, 44).padEnd(44),
        describe(r.direct).slice(0, 42).padEnd(42),
        r.verdict,
      ].join("  "),
    );
  const byFamily = HOSTILE_FAMILIES.map((f) => {
    const of = results.filter((r) => r.family === f);
    return of.length ? `${f} ${of.length} (${of.filter((r) => r.verdict !== "ok").length} worse)` : undefined;
  }).filter(Boolean);
  return [`hostile cases: ${byFamily.join(", ")}`, "", ...lines].join("\n");
}
