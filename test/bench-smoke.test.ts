import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { drawFamilies, inputsOf } from "../bench/charts.js";
import { formatRatio } from "../bench/measure.js";
import { barChart } from "../bench/svg-chart.js";
import { runBench } from "./support/bench-run.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** What a run may write into the docs: docs/performance.md and docs/charts/, as bytes by file. */
function docsWritten(): Map<string, string> {
  const charts = join(root, "docs", "charts");
  const files = [join(root, "docs", "performance.md"), ...(existsSync(charts) ? readdirSync(charts).map((f) => join(charts, f)) : [])];
  return new Map(files.map((f) => [f, readFileSync(f, "latin1")]));
}

/**
 * The charts a quick run's results would draw, drawn in memory (a quick run's file is refused for docs/charts/): the
 * families read the real results' shapes. Returns each family's SVG.
 */
function chartsOf(results: Record<string, unknown>, file: string): Record<string, string> {
  const { inputs, provenance } = inputsOf({ ...results, quick: false }, file);
  return Object.fromEntries(drawFamilies(inputs, provenance).flatMap((d) => (d.chart ? [[d.family, barChart(d.chart)]] : [])));
}

// --smoke: every part and section of the bench with the least work, on dist/ as `npm test` built it.
test("the benchmark runs end to end in smoke mode, prints every section, and leaves the docs' tables and charts as they were", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-bench-smoke-"));
  const docs = docsWritten();
  try {
    const out = join(dir, "results.json");
    const run = await runBench(t, "bench/run.ts", ["--smoke"], { BENCH_OUT: out });
    assert.equal(run.status, 0, `bench exited with ${run.status ?? run.signal}:\n${run.stderr}`);
    assert.match(run.stdout, /^wymcp benchmark \(smoke: /);
    for (const heading of [
      "## Start-up",
      "## Per message",
      "## Error path",
      "## Size",
      "## Nesting",
      "## Targets",
      "## Tools at the edge",
      "## The transport headers",
      "## Adversarial bodies",
      "### Long member names",
      "### Patterns a server declares",
      "Edge pattern bound:",
    ]) {
      assert.ok(run.stdout.includes(heading), `missing heading ${heading}`);
    }
    const results = JSON.parse(readFileSync(out, "utf8")) as {
      quick: boolean;
      targets: { target: string }[];
      perMessage: { key: string; variants: { key: string }[] }[];
      nestingBreaks: { operation: string; firstFailingDepth: number | null }[];
    };
    assert.equal(results.quick, true);
    // The legacy tools/call joined the cases, with its own ≥ 10× JSON.parse target.
    assert.equal(results.perMessage.length, 6);
    // Each tools/call's ratio under formats: "strict" beside the default one, the bounds moved out of the tests, and
    // the whole-process cold start as a share of compiling at boot, the tools at the edge's argument checks, and the
    // transport headers' cost on a valid call's admission, per way of holding them and per message, and report mode's
    // throughput against enforce's.
    assert.equal(results.targets.length, 26);
    for (const start of [
      "codegen of both eras",
      "cold start, whole process",
      "mixed load, 200 messages",
      "the server's RSS growth over that load",
      "wymcp stdio, a 16 MiB line past --max-body-bytes",
      "wymcp stdio, a client that does not read",
      "wymcp stdio, a server that does not read",
      "tools at the edge: a valid tools/call with a 1 KiB argument object",
      'mode: "report", valid modern tools/call',
    ])
      assert.ok(
        results.targets.some((t) => t.target.startsWith(start)),
        start,
      );
    assert.ok(results.perMessage.some((c) => c.key === "legacy-tools-call"));
    assert.ok(results.targets.some((t) => t.target.startsWith("validateMcpRequest, valid legacy tools/call")));
    for (const era of ["modern", "legacy"])
      assert.ok(
        results.targets.some((t) => t.target.startsWith(`validateMcpRequest formats: "strict", valid ${era} tools/call`)),
        era,
      );
    for (const reader of ["Node's headers (the Node faces')", "a plain object", "a Fetch Headers"])
      for (const message of ["the bench's tools/call", "smallest modern tools/call"])
        assert.ok(
          results.targets.some((t) => t.target.startsWith(`the transport headers (${reader}), ${message}: its admission`)),
          `${reader}, ${message}`,
        );
    for (const key of ["vmr-headers", "vmr-headers-plain", "vmr-headers-fetch"])
      assert.ok(
        results.perMessage.find((c) => c.key === "tools-call")!.variants.some((v) => v.key === key),
        `header row ${key}`,
      );
    for (const key of ["tools-call", "legacy-tools-call"])
      assert.ok(
        results.perMessage.find((c) => c.key === key)!.variants.some((v) => v.key === "vmr-strict"),
        `strict row for ${key}`,
      );
    for (const key of ["tools-call", "tools-call-50k"]) {
      const variants = results.perMessage.find((c) => c.key === key)!.variants.map((v) => v.key);
      assert.ok(variants.includes("depth-parsed") && variants.includes("depth-bytes"), `depth rows for ${key}`);
    }
    // The default maxDepth must sit below every operation's breaking point measured in this very process.
    for (const b of results.nestingBreaks) assert.ok(b.firstFailingDepth === null || b.firstFailingDepth > 64, b.operation);
    // A quick run's figures mean nothing: no table and no chart of the docs changed. Its results still draw the three
    // charts of the full run, each holding its figures.
    assert.deepEqual(docsWritten(), docs);
    const charts = chartsOf(results as unknown as Record<string, unknown>, out);
    assert.deepEqual(Object.keys(charts), ["per-message", "cold-start", "adversarial"]);
    const vmr = results.perMessage.find((c) => c.key === "tools-call")!.variants.find((v) => v.key === "vmr") as unknown as {
      vsParse: { median: number };
    };
    assert.ok(charts["per-message"]!.includes(`>${formatRatio(vmr.vsParse.median)}</text>`), "the modern tools/call's ratio is drawn");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the soak and the body-memory bench run end to end in smoke mode, gated and ungated", async (t) => {
  for (const [flag, heading, rows] of [
    ["--soak", "## Soak: the Fetch face behind @hono/node-server", ["handler.fetch alone", "gateFetch(handler)", "request.arrayBuffer()"]],
    ["--body-memory", "## Body memory", ["chunked  4 B", "chunked  64 KiB"]],
  ] as const) {
    const run = await runBench(t, "bench/run.ts", [flag, "--smoke"], { BENCH_OUT: "" });
    assert.equal(run.status, 0, `${flag} exited with ${run.status ?? run.signal}:\n${run.stderr}`);
    assert.ok(run.stdout.includes(heading), `${flag}: missing heading`);
    for (const row of rows) assert.ok(run.stdout.includes(row), `${flag}: missing ${row}`);
    // Every request of the short soak was answered, the wrong media types with 415.
    if (flag === "--soak") assert.match(run.stdout, /gateFetch\(handler\)\s+\d+\s+\d+\s+[\d.]+ \/ [\d.]+\s+200×\d+ 415×\d+ /);
  }
});

test("the HTTP flood runs end to end in smoke mode against the three servers and prints its table", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-bench-http-smoke-"));
  try {
    const out = join(dir, "results-http.json");
    const run = await runBench(t, "bench/run.ts", ["--http", "--smoke"], { BENCH_OUT: out });
    assert.equal(run.status, 0, `bench --http exited with ${run.status ?? run.signal}:\n${run.stderr}`);
    assert.ok(run.stdout.includes("## HTTP flood"));
    type Flood = { statuses: Record<string, number> };
    const results = JSON.parse(readFileSync(out, "utf8")) as {
      http: { key: string; gated: Flood; bridge: Flood; sdk: Flood; load: number[] }[];
    };
    assert.equal(results.http.length, 5);
    assert.ok(
      results.http.every((w) => w.load.length === 1 && w.load[0]! >= 0),
      "one load average per round",
    );
    const statuses = Object.fromEntries(
      results.http.map((w) => [w.key, [w.gated, w.bridge, w.sdk].map((v) => Object.keys(v.statuses).join())]),
    );
    // Each workload met the answer it was chosen for: the gate refuses the invalid call and accepts the junk notification.
    assert.deepEqual(statuses, {
      "tools-call": ["200", "200", "200"],
      "tools-list": ["200", "200", "200"],
      "tools-call-50k": ["200", "200", "200"],
      "invalid-tools-call": ["400", "200", "200"],
      "junk-notification": ["202", "400", "400"],
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the stdio bench runs alone with --proxy --only stdio: its row and budget, with the load average of its rounds", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-bench-stdio-smoke-"));
  try {
    const out = join(dir, "results-stdio.json");
    const run = await runBench(t, "bench/run.ts", ["--proxy", "--only", "stdio", "--smoke"], { BENCH_OUT: out });
    assert.equal(run.status, 0, `bench --proxy --only stdio exited with ${run.status ?? run.signal}:\n${run.stderr}`);
    assert.match(run.stdout, /^SDK McpServer over stdio +\d+ +\d+ +\d+ /m);
    assert.match(run.stdout, /wymcp stdio ÷ its --pass-through, tools\/call lines\/s ≥ 0\.9: .*; load \d+\.\d\d–\d+\.\d\d$/m);
    // Only the stdio rounds ran: no HTTP workload, no memory run.
    assert.doesNotMatch(run.stdout, /## wymcp proxy|memory under mixed traffic/);
    const results = JSON.parse(readFileSync(out, "utf8")) as { stdio: { linesPerSec: Record<string, { median: number }>; load: number[] } };
    for (const variant of ["gated", "pass-through", "direct"]) assert.ok(results.stdio.linesPerSec[variant]!.median > 0, variant);
    assert.equal(results.stdio.load.length, 1);
    const refused = await runBench(t, "bench/run.ts", ["--proxy", "--only", "http", "--smoke"]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /--only takes stdio, tools, live or listener, not "http"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the proxy and stdio bench runs end to end in smoke mode and each workload meets the answer it was chosen for", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-bench-proxy-smoke-"));
  const docs = docsWritten();
  try {
    const out = join(dir, "results-proxy.json");
    const run = await runBench(t, "bench/run.ts", ["--proxy", "--smoke", "--memory-seconds", "1"], { BENCH_OUT: out });
    assert.equal(run.status, 0, `bench --proxy exited with ${run.status ?? run.signal}:\n${run.stderr}`);
    assert.deepEqual(docsWritten(), docs, "a quick run leaves the docs' tables and charts as they were");
    assert.ok(run.stdout.includes("## wymcp proxy and wymcp stdio"));
    const results = JSON.parse(readFileSync(out, "utf8")) as {
      settings: { idleSockets: number; pageRows: number };
      http: { key: string; statuses: Record<string, Record<string, number>> }[];
      stdio: { linesPerSec: Record<string, { median: number }> };
      memory: { face: string; rssKiB: number[]; messages: number }[];
      idle: { sockets: number; open: number };
      targets: { target: string }[];
      live: {
        reqPerSec: Record<string, { median: number }>;
        rowsRead: number;
        memory: { messages: number; rowsRead: number; noPageKiB: number; pageKiB: number };
        page: { rows: number; inputMs: { median: number } };
      };
      listener: {
        ring: { rows: number };
        read: { pages: number };
        unread: { readers: number; statuses: Record<string, number> };
        p99Ms: { none: { median: number }; readers: { median: number } };
      };
    };
    const statuses = Object.fromEntries(
      results.http.map((w) => [w.key, ["proxy", "otel", "pass-through", "direct"].map((v) => Object.keys(w.statuses[v]!).join())]),
    );
    // The proxy with --otel answers as the proxy does.
    assert.deepEqual(statuses, {
      "tools-call": ["200", "200", "200", "200"],
      "tools-list": ["200", "200", "200", "200"],
      "tools-call-50k": ["200", "200", "200", "200"],
      "invalid-tools-call": ["400", "400", "200", "200"],
      "junk-notification": ["202", "202", "400", "400"],
    });
    for (const v of ["gated", "pass-through", "direct"]) assert.ok(results.stdio.linesPerSec[v]!.median > 0, v);
    assert.deepEqual(
      results.memory.map((m) => m.face),
      ["proxy", "stdio"],
    );
    for (const m of results.memory) assert.ok(m.rssKiB.length > 0 && m.messages > 0, m.face);
    // Every idle connection was still open when the proxy's memory was read.
    const idle = results.settings.idleSockets;
    assert.deepEqual([results.idle.sockets, results.idle.open], [idle, idle]);
    // The budgets: valid workloads ÷ pass-through (3), invalid ÷ the server alone (2), stdio, memory of each face, the
    // listener's two, idle connections.
    assert.equal(results.targets.length, 11);
    for (const start of [
      "wymcp proxy ÷ its --pass-through, 50 KiB tools/call",
      "wymcp proxy ÷ the server alone, invalid tools/call",
      "wymcp stdio ÷ its --pass-through",
      "wymcp proxy, 1 s of mixed traffic",
      "wymcp stdio, 1 s of mixed traffic",
      `wymcp proxy, ${idle} idle keep-alive client connections`,
      "wymcp proxy --ui, a full ring: p99 of valid calls",
      "wymcp proxy --ui, a full ring: RSS added",
    ])
      assert.ok(
        results.targets.some((t) => t.target.startsWith(start)),
        start,
      );
    // The live page's four budgets: the proxy with --ui and no page, with a page reading the feed, and without; the
    // memory run's page read every message; the page in Chromium held its rows before its input events were timed.
    for (const v of ["plain", "ui", "page"]) assert.ok(results.live.reqPerSec[v]!.median > 0, v);
    assert.ok(results.live.rowsRead > 0, "the page's stream was read");
    assert.equal(results.live.memory.rowsRead, results.live.memory.messages);
    assert.ok(results.live.memory.noPageKiB > 0 && results.live.memory.pageKiB > 0);
    assert.equal(results.live.page.rows, results.settings.pageRows);
    assert.ok(results.live.page.inputMs.median > 0);
    assert.ok(run.stdout.includes("live page (--ui)"), "the live table is printed");
    assert.deepEqual(Object.keys(chartsOf(results as unknown as Record<string, unknown>, out)), ["proxy"]);
    // The listener's run: the ring read whole (the fill's 500 exchanges and the rounds' after them) and each reader answered.
    const l = results.listener;
    assert.ok(l.ring.rows > 1_000, `${l.ring.rows} rows read`);
    assert.ok(l.read.pages >= 1);
    assert.equal(
      Object.values(l.unread.statuses).reduce((a, b) => a + b, 0),
      l.unread.readers,
    );
    assert.ok(l.p99Ms.none.median > 0 && l.p99Ms.readers.median > 0);
    assert.ok(run.stdout.includes("live page's listener (--ui)"), "the listener table is printed");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
