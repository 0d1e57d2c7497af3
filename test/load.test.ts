import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, test } from "node:test";
import { launchExample, type LaunchedExample } from "../examples/launch.js";
import { MODERN_META as META } from "./support/messages.js";

const MESSAGES = 2_000;
const CONCURRENCY = 20;
const TIME_BOUND_MS = 30_000;
const RSS_GROWTH_BOUND_KB = 100 * 1024;

const MODERN = "2026-07-28";
const JSON_TYPE = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
const MODERN_CALL = { ...JSON_TYPE, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "echo" };

/** One kind of message in the mix, and the status the server must give it. */
interface Shot {
  name: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  status: number;
}

const MIX: Shot[] = [
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
const OVERSIZED: Shot = { name: "over 4 MiB", headers: JSON_TYPE, body: new Uint8Array(4 * 1024 * 1024 + 1).fill(0x20), status: 413 };

let server: LaunchedExample;

before(async () => {
  server = await launchExample();
});

after(async () => {
  await server?.stop();
});

function rssKb(pid: number): number {
  return Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)], { encoding: "utf8" }).trim());
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function fire(shots: Shot[]): Promise<{ latencies: number[]; failures: string[] }> {
  const latencies: number[] = [];
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < shots.length) {
      const shot = shots[next++] as Shot;
      const started = performance.now();
      try {
        const res = await fetch(server.url, {
          method: "POST",
          headers: shot.headers,
          body: shot.body,
          signal: AbortSignal.timeout(10_000),
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - started);
        if (res.status !== shot.status) failures.push(`${shot.name}: ${res.status}, expected ${shot.status}`);
      } catch (error) {
        failures.push(`${shot.name}: ${(error as Error).cause ?? error}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { latencies, failures };
}

test(`${MESSAGES} mixed messages over ${CONCURRENCY} connections: no 5xx, no dropped connection, bounded RSS`, {
  timeout: TIME_BOUND_MS + 15_000,
}, async (t) => {
  // Every message kind once before measuring, so start-up allocations are not counted as growth.
  await fire(MIX.concat(OVERSIZED));
  const rssBefore = rssKb(server.pid);
  const shots = Array.from({ length: MESSAGES }, (_, i) => (i % 100 === 99 ? OVERSIZED : (MIX[i % MIX.length] as Shot)));
  const started = performance.now();
  const { latencies, failures } = await fire(shots);
  const elapsed = performance.now() - started;
  const rssAfter = rssKb(server.pid);

  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  const growthKb = rssAfter - rssBefore;
  console.log(
    `load: ${MESSAGES} messages in ${elapsed.toFixed(0)} ms; p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms; ` +
      `server RSS ${(rssBefore / 1024).toFixed(1)} -> ${(rssAfter / 1024).toFixed(1)} MiB`,
  );
  t.diagnostic(`p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, RSS growth ${(growthKb / 1024).toFixed(1)} MiB`);

  assert.deepEqual(failures.slice(0, 10), [], `${failures.length} failures; server stderr tail: ${server.stderr().slice(-500)}`);
  assert.equal(latencies.length, MESSAGES);
  assert.ok(elapsed < TIME_BOUND_MS, `took ${elapsed.toFixed(0)} ms`);
  assert.ok(growthKb < RSS_GROWTH_BOUND_KB, `server RSS grew by ${growthKb} KiB`);
});
