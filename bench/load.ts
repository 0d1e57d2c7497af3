/**
 * @module The mixed load: `messages` requests over `concurrency` keep-alive connections to examples/server.ts, every kind
 * of message once in ten (valid and invalid, both eras, a wrong media type, one body in a hundred over 4 MiB), each
 * checked for its status. test/load.test.ts pins the behaviour (every message answered with its status); the bench
 * judges the time and the server's RSS growth against their targets (bench/report.ts).
 */
import { execFileSync } from "node:child_process";

/** The full run's size: 2,000 messages over 20 connections. */
export const LOAD_MESSAGES = 2_000;
export const LOAD_CONCURRENCY = 20;

const MODERN = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "load", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const JSON_TYPE = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
const MODERN_CALL = { ...JSON_TYPE, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "echo" };

/** One kind of message in the mix, and the status the server must give it. */
export interface Shot {
  name: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  status: number;
}

export const MIX: Shot[] = [
  { name: "legacy tools/list", headers: JSON_TYPE, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }), status: 200 },
  {
    name: "legacy tools/call",
    headers: JSON_TYPE,
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } }),
    status: 200,
  },
  {
    name: "modern tools/call",
    headers: MODERN_CALL,
    body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: "x" }, _meta: META } }),
    status: 200,
  },
  {
    name: "modern tools/call, bad arguments",
    headers: MODERN_CALL,
    body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "echo", arguments: [1], _meta: META } }),
    status: 400,
  },
  {
    name: "modern notification, junk",
    headers: { ...JSON_TYPE, "MCP-Protocol-Version": MODERN },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: 5 }),
    status: 202,
  },
  { name: "legacy response", headers: JSON_TYPE, body: JSON.stringify({ jsonrpc: "2.0", id: 9, result: {} }), status: 202 },
  { name: "wrong jsonrpc", headers: JSON_TYPE, body: JSON.stringify({ jsonrpc: "1.0", id: 5, method: "ping" }), status: 400 },
  { name: "not JSON", headers: JSON_TYPE, body: '{"jsonrpc":"2.0",', status: 400 },
  { name: "text/plain", headers: { ...JSON_TYPE, "Content-Type": "text/plain" }, body: "{}", status: 415 },
  { name: "an array", headers: JSON_TYPE, body: "[1,2,3]", status: 400 },
];
export const OVERSIZED: Shot = {
  name: "over 4 MiB",
  headers: JSON_TYPE,
  body: new Uint8Array(4 * 1024 * 1024 + 1).fill(0x20),
  status: 413,
};

export interface LoadFigures {
  messages: number;
  concurrency: number;
  /** Wall time of the measured run, ms. */
  elapsedMs: number;
  p50Ms: number;
  p99Ms: number;
  /** The server's RSS before and after the measured run, KiB. */
  rssBeforeKb: number;
  rssAfterKb: number;
  /** Messages answered (any status). */
  answered: number;
  /** A message whose status was not the one expected, or that got no answer. */
  failures: string[];
}

function rssKb(pid: number): number {
  return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim());
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function fire(url: URL, shots: Shot[], concurrency: number): Promise<{ latencies: number[]; failures: string[] }> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < shots.length) {
      const shot = shots[next++] as Shot;
      const started = performance.now();
      try {
        const res = await fetch(url, { method: "POST", headers: shot.headers, body: shot.body });
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        if (res.status !== shot.status) failures.push(`${shot.name}: ${res.status}, expected ${shot.status}`);
      } catch (error) {
        failures.push(`${shot.name}: ${(error as Error).cause ?? error}`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, failures };
}

/** Every message kind once (start-up allocations are not growth), then the measured run. */
export async function runLoad(server: { url: URL; pid: number }, messages: number, concurrency: number): Promise<LoadFigures> {
  await fire(server.url, MIX.concat(OVERSIZED), concurrency);
  const rssBeforeKb = rssKb(server.pid);
  const shots = Array.from({ length: messages }, (_, i) => (i % 100 === 99 ? OVERSIZED : (MIX[i % MIX.length] as Shot)));
  const started = performance.now();
  const { latencies, failures } = await fire(server.url, shots, concurrency);
  const elapsedMs = performance.now() - started;
  const rssAfterKb = rssKb(server.pid);
  latencies.sort((a, b) => a - b);
  return {
    messages,
    concurrency,
    elapsedMs,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    rssBeforeKb,
    rssAfterKb,
    answered: latencies.length,
    failures,
  };
}
