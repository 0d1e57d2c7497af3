/**
 * @module live-feed-cost: the live feed's own work per exchange while a page follows, in one process and no sockets, a
 * measure the machine's other load barely moves: valid modern tools/call requests and their JSON answers captured as
 * the proxy captures them (a request with the gate's admission of it), judged in batches, each row made into the event
 * stream's text. The gate's own judging is timed apart and taken off. Runs the sources of this checkout, and with
 * `--base DIR` those of another checkout too, alternately:
 *   npx tsx bench/live-feed-cost.ts [--exchanges 100000] [--rounds 3] [--base DIR]
 */
import { constants, PerformanceObserver } from "node:perf_hooks";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1]! : fallback;
}

const exchanges = Number(option("exchanges", "100000"));
const rounds = Number(option("rounds", "3"));
const base = option("base", "");
const roots = [fileURLToPath(new URL("..", import.meta.url)), ...(base ? [resolve(base)] : [])];

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "flood", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const headers = {
  "content-type": "application/json",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "echo",
};
const request = (id: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: META, name: "echo", arguments: { text: "hello" } } });
const answer = (id: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "hello" }], resultType: "complete" } });

let gcMs = 0;
let scavenges = 0;
let major = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMs += entry.duration;
    if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
    else major++;
  }
}).observe({ entryTypes: ["gc"] });

/** One checkout's feed, a page following it as the listener does (each row's event-stream text, sent in 64 KiB batches). */
async function feedOf(root: string) {
  const { LiveFeed } = await import(`${root}/src/inspect/live/feed.ts`);
  const { liveJudgeOptions } = await import(`${root}/src/inspect/live/start.ts`);
  const { resolveGate } = await import(`${root}/src/hosts/shared/gate-flags.ts`);
  const { parseProxyArgs } = await import(`${root}/src/cli/proxy/proxy-command.ts`);
  const { admitBytes } = await import(`${root}/src/core/admission.ts`);
  // The proxy's gate: its settings, and its era as the SDK routes it (from the request's headers and body).
  const resolved = resolveGate(
    parseProxyArgs(["--upstream", "http://127.0.0.1:9/mcp"]).options,
    (req: { headers: unknown }) => req.headers,
  );
  const { settings } = resolved;
  const req = { headers };
  const feed = new LiveFeed("proxy", liveJudgeOptions(settings));
  // What the feed's batch timer and the turns after it judge, at once (private: the traffic never calls them): a slice at
  // a time until none waits, or a checkout's whole batch at once where the feed has no slices.
  const inner = feed as unknown as { judgeBatch(): void; judgeSlice?(): void; waiting: number };
  const judgeBatch = () => {
    if (inner.judgeSlice === undefined) return inner.judgeBatch();
    while (inner.waiting > 0) inner.judgeSlice();
  };
  let batch = "";
  let sent = 0;
  feed.subscribe((row: unknown, event?: string) => {
    batch += event ?? `data: ${JSON.stringify(row)}\n\n`;
    if (batch.length >= 64 * 1024) {
      sent += Buffer.byteLength(batch);
      batch = "";
    }
  });
  const gate = (bytes: Buffer) =>
    admitBytes(
      bytes,
      { contentType: "application/json", era: (body: unknown) => resolved.era(req, body), protocolVersion: "2026-07-28", headers },
      settings,
    );
  let entry = 0;
  /** `count` exchanges through the gate alone (`feed` false) or the gate and the feed; CPU µs. */
  const run = (count: number, fed: boolean) => {
    const began = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      const id = ++entry;
      const bytes = Buffer.from(request(id));
      const admitted = gate(bytes);
      const back = Buffer.from(answer(id));
      if (!fed) continue;
      feed.capture({
        entry: id,
        part: "request",
        from: "client",
        text: undefined,
        bytes,
        headers,
        time: id,
        admitted: admitted.ok ? admitted : undefined,
      });
      feed.capture({ entry: id, part: "response", from: "server", text: undefined, bytes: back, headers, time: id });
      // The batch a busy proxy judges when its 20 ms timer fires (some hundreds of exchanges), judged here at once.
      if (id % 200 === 0) judgeBatch();
    }
    judgeBatch();
    const used = process.cpuUsage(began);
    return used.user + used.system;
  };
  return { run, sent: () => sent };
}

const feeds = await Promise.all(roots.map(feedOf));
for (const feed of feeds) feed.run(30_000, true);
const results = roots.map(() => ({ us: 0, gcMs: 0, scavenges: 0, major: 0 }));
for (let round = 0; round < rounds; round++)
  for (let i = 0; i < feeds.length; i++) {
    const feed = feeds[(i + round) % feeds.length]!;
    const result = results[(i + round) % feeds.length]!;
    const gateOnly = feed.run(exchanges, false);
    const before = { gcMs, scavenges, major };
    const both = feed.run(exchanges, true);
    // The GC entries of the run are told on a later turn.
    await new Promise((done) => setTimeout(done, 20));
    result.us += (both - gateOnly) / exchanges;
    result.gcMs += gcMs - before.gcMs;
    result.scavenges += scavenges - before.scavenges;
    result.major += major - before.major;
  }
roots.forEach((root, i) => {
  const r = results[i]!;
  console.log(
    `${root}: the feed's CPU ${(r.us / rounds).toFixed(2)} µs per exchange (request and answer); GC ${((r.gcMs * 1000) / (rounds * exchanges)).toFixed(2)} µs per exchange, ` +
      `${((r.scavenges * 1000) / (rounds * exchanges)).toFixed(2)} scavenges and ${r.major} full collections per ${rounds * exchanges} exchanges; ${feeds[i]!.sent()} bytes of events`,
  );
});
