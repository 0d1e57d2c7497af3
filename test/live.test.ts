/**
 * `--ui` and `--record` on `wymcp proxy` and `wymcp stdio`, in real processes (the built bin, as installed) without a
 * browser: the stdio gate's live feed read as the page reads it (`/rows`, then the `/events` stream), in front of the
 * official SDK's McpServer; `--record` read back by `wymcp check`; the flags' usage errors; a record that cannot be
 * written; and the feed's own bounds (nothing judged while no page follows, the ring's bound).
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { once } from "node:events";
import http from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { parseCheckOptions } from "../src/cli/check/options.js";
import { type InspectRow, rowFacts } from "../src/inspect/row.js";
import { type Capture, JUDGE_BATCH_CHARS, JUDGE_SLICE_UNITS, LiveFeed, textOf } from "../src/inspect/live/feed.js";
import { BLOCK_BYTES, HeldCaptures } from "../src/inspect/live/held.js";
import { JsonRows, ROW_BLOCK_BYTES } from "../src/inspect/live/json-rows.js";
import { RowRing } from "../src/inspect/ring.js";
import { listen } from "../src/inspect/listener.js";
import { Chain } from "../src/core/chain.js";
import { NodeAnswer, nodeRun } from "../src/hosts/shared/node-chain.js";
import { httpFeed, type HttpTapOptions } from "../src/inspect/live/http-tap.js";
import { createLog } from "../src/log/gate-log.js";
import { createProxy, listen as listenProxy } from "../src/hosts/proxy/proxy.js";
import { parseProxyArgs } from "../src/cli/proxy/proxy-command.js";
import { stdioTap } from "../src/inspect/live/stdio-tap.js";
import { liveArgs } from "../src/cli/live/live.js";
import { parseStdioArgs } from "../src/cli/stdio/stdio-command.js";
import { liveJudgeOptions } from "../src/inspect/live/start.js";
import { resolveGate } from "../src/hosts/shared/gate-flags.js";
import { toolsFromFlags } from "../src/cli/tools-flags.js";
import { liveHooks } from "../src/cli/face-start.js";
import { type JudgeContext, judge } from "../src/check/judge.js";
import { assertFreshDist } from "./support/built.js";
import { assertNothingListens, NO_UPSTREAM, startProxy, until } from "./support/proxy.js";

const CLI = "dist/cli.js";
const SERVER = "bench/stdio-server.mjs";
const work = mkdtempSync(join(tmpdir(), "wymcp-live-"));

before(assertFreshDist);
after(() => rmSync(work, { recursive: true, force: true }));

const initialize = (id: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "live-test", version: "1" } },
  });
const call = (id: number, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });

/** `wymcp stdio <flags> -- node bench/stdio-server.mjs`, with its stderr (the log, the page's address) gathered. */
function stdioGate(flags: string[]) {
  const child = spawn(process.execPath, [CLI, "stdio", ...flags, "--", process.execPath, SERVER], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const guard = () => child.kill("SIGKILL");
  process.once("exit", guard);
  const exited = new Promise<number | null>((resolve) =>
    child.once("close", (code) => {
      process.off("exit", guard);
      resolve(code);
    }),
  );
  const answers = () =>
    stdout
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as { id?: unknown; result?: unknown; error?: { code: number } });
  return { child, stdout: () => stdout, stderr: () => stderr, exited, answers, write: (line: string) => child.stdin!.write(`${line}\n`) };
}

/** The page's address, from the log line the face writes once it listens. */
async function pageAddress(stderr: () => string): Promise<string> {
  await until(() => /live page at (http:\/\/\S+)/.test(stderr()));
  return /live page at (http:\/\/\S+)/.exec(stderr())![1]!;
}

/** A row from its event as the page reads it: its data lines joined, the row's JSON first and its text, if sent apart, after. */
function eventRow(event: string): InspectRow {
  const data = event
    .split("\n")
    .map((line) => line.replace(/^data: ?/, ""))
    .join("\n");
  const end = data.indexOf("\n");
  if (end < 0) return JSON.parse(data) as InspectRow;
  return { ...(JSON.parse(data.slice(0, end)) as InspectRow), text: data.slice(end + 1) };
}

/** Reads `/events` as an EventSource does, collecting each row. */
async function follow(url: string) {
  const controller = new AbortController();
  const answer = await fetch(new URL("events", url), { signal: controller.signal });
  assert.equal(answer.status, 200);
  assert.match(answer.headers.get("content-type")!, /^text\/event-stream/);
  const rows: InspectRow[] = [];
  const reading = (async () => {
    const decoder = new TextDecoder();
    let text = "";
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      let end = text.indexOf("\n\n");
      while (end >= 0) {
        const event = text.slice(0, end);
        text = text.slice(end + 2);
        if (event.startsWith("data: ")) rows.push(eventRow(event));
        end = text.indexOf("\n\n");
      }
    }
  })().catch(() => undefined);
  return { rows, stop: () => (controller.abort(), reading) };
}

describe("wymcp stdio --ui: the live feed without a browser", () => {
  let gate: ReturnType<typeof stdioGate>;
  let url: string;
  const record = join(work, "stdio.jsonl");

  before(async () => {
    gate = stdioGate(["--ui", "127.0.0.1:0", "--record", record]);
    url = await pageAddress(gate.stderr);
  });
  after(async () => {
    gate.child.stdin!.end();
    await gate.exited;
  });

  test("the messages passed before a page opened are judged when it reads /rows: request and answer paired", async () => {
    gate.write(initialize(1));
    await until(() => gate.answers().some((answer) => answer.id === 1));
    await until(() => readFileSync(record, "utf8").split("\n").length >= 3);
    const { rows, title } = (await (await fetch(new URL("rows", url))).json()) as { rows: InspectRow[]; title: string };
    assert.equal(title, "wymcp stdio (live)");
    assert.equal(rows.length, 2);
    const [request, answer] = rows;
    assert.deepEqual([request!.verdict.direction, request!.verdict.outcome, request!.verdict.era], ["in", "pass", "legacy"]);
    assert.equal(answer!.verdict.direction, "out");
    assert.equal(answer!.verdict.method, "initialize");
    assert.deepEqual(answer!.verdict.answers, { line: request!.verdict.line, from: "client" });
  });

  test("a served call and a refused one stream live on /events once a page follows, each message in its row", async () => {
    const feed = await follow(url);
    gate.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const sent = Date.now();
    gate.write(call(2, { name: "echo", arguments: { text: "hello" } }));
    gate.write(call(3, { name: 42 }));
    const byId = (id: number, direction: string) =>
      feed.rows.find((row) => row.verdict.direction === direction && (JSON.parse(row.text!) as { id?: number }).id === id);
    await until(() => [byId(2, "in"), byId(2, "out"), byId(3, "in"), byId(3, "out")].every(Boolean));
    const served = byId(2, "in")!;
    const answer = byId(2, "out")!;
    const refused = byId(3, "in")!;
    const refusal = byId(3, "out")!;
    assert.equal(served.verdict.outcome, "pass");
    assert.equal(answer.verdict.outcome, "pass");
    assert.equal(answer.verdict.method, "tools/call");
    assert.equal(refused.verdict.outcome, "reject");
    // A legacy call's params judged by its session's revision: -32602, and wymcp's own answer as the client received it.
    assert.equal(refused.verdict.outcome === "reject" && refused.verdict.response.error.code, -32602);
    assert.equal((JSON.parse(refusal.text!) as { error: { code: number } }).error.code, -32602);
    // Each came on the stream after it was sent (how soon is measured by npm run bench -- --proxy, not here).
    for (const row of [served, answer, refused, refusal]) assert.ok(row.time >= sent - 1, `row ${row.seq} is of this exchange`);
    await feed.stop();
  });

  test("--record holds every message as the page's redacted JSONL export, and wymcp check reads it back", async () => {
    await until(() => readFileSync(record, "utf8").trim().split("\n").length >= 7);
    const lines = readFileSync(record, "utf8").trim().split("\n");
    const echo = lines.map((line) => JSON.parse(line) as { id?: number; method?: string; params?: { arguments?: unknown } });
    assert.deepEqual(echo.find((m) => m.id === 2 && m.method === "tools/call")?.params?.arguments, { text: "[redacted]" });
    assert.doesNotMatch(readFileSync(record, "utf8"), /hello/);
    const check = spawnSync(process.execPath, [CLI, "check", "--json", record], { encoding: "utf8" });
    const verdicts = check.stdout
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith('{"summary":'))
      .map((line) => JSON.parse(line) as { outcome: string; direction: string });
    assert.equal(verdicts.length, lines.length);
    const rows = ((await (await fetch(new URL("rows", url))).json()) as { rows: InspectRow[] }).rows;
    assert.deepEqual(
      verdicts.map((v) => `${v.direction} ${v.outcome}`),
      rows.map((row) => `${row.verdict.direction} ${row.verdict.outcome}`),
    );
    assert.equal(check.status, 1, "the refused call is a rejection for wymcp check too");
  });
});

describe("the live flags", () => {
  test("--ui on an address that is not loopback without a token is a usage error (exit 2), proxy and stdio alike", () => {
    const env = { ...process.env, WYMCP_UI_TOKEN: "" };
    const proxy = spawnSync(process.execPath, [CLI, "proxy", "--upstream", "http://127.0.0.1:9/mcp", "--ui", "0.0.0.0:0"], {
      encoding: "utf8",
      env,
    });
    assert.equal(proxy.status, 2);
    assert.match(proxy.stderr, /--ui 0\.0\.0\.0 is not a loopback address.*--ui-token/);
    const stdio = spawnSync(process.execPath, [CLI, "stdio", "--ui", "0.0.0.0:0", "--", process.execPath, SERVER], {
      encoding: "utf8",
      env,
    });
    assert.equal(stdio.status, 2);
    assert.match(stdio.stderr, /not a loopback address/);
  });

  test("a token makes a non-loopback --ui acceptable; a short one, a stray --ui-token or --record-unredacted alone are refused", () => {
    assert.deepEqual(liveArgs({ ui: "0.0.0.0:0", "ui-token": "x".repeat(16) }, {}).ui, { host: "0.0.0.0", port: 0 });
    assert.throws(() => liveArgs({ ui: "127.0.0.1:0", "ui-token": "short" }, {}), /at least 16/);
    assert.throws(() => liveArgs({ "ui-token": "x".repeat(16) }, {}), /goes with --ui/);
    assert.throws(() => liveArgs({ "record-unredacted": true }, {}), /goes with --record/);
    assert.throws(() => liveArgs({ ui: "nowhere" }, {}), /HOST:PORT/);
  });

  test("the flags after stdio's -- are the server's, left alone", () => {
    const { live, options } = parseStdioArgs(["--record", "a.jsonl", "--", "server", "--ui", "x"], {});
    assert.equal(live.record, "a.jsonl");
    assert.equal(live.ui, undefined);
    assert.deepEqual([options.command, ...options.args], ["server", "--ui", "x"]);
  });

  test("a record that cannot be written is reported once and the traffic keeps flowing", async () => {
    const gate = stdioGate(["--record", "/dev/full"]);
    gate.write(initialize(1));
    for (let id = 2; id < 40; id++) gate.write(call(id, { name: "echo", arguments: { text: "x".repeat(2000) } }));
    await until(() => gate.answers().filter((answer) => answer.result !== undefined).length === 39);
    gate.child.stdin!.end();
    assert.equal(await gate.exited, 0);
    assert.equal(gate.stderr().match(/cannot write \/dev\/full/g)?.length, 1, gate.stderr());
  });

  test("wymcp proxy --record writes each request and answer as their text, read from the bytes the proxy passed on", async () => {
    const answer = '{"jsonrpc":"2.0","id":7,"result":{"note":"é ✓"}}';
    const upstream = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(answer));
    });
    await new Promise<void>((done) => upstream.listen(0, "127.0.0.1", done));
    const record = join(work, "proxy.jsonl");
    const proxy = await startProxy([
      "--upstream",
      `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`,
      "--record",
      record,
      "--record-unredacted",
    ]);
    try {
      const request = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping", params: { _meta: { note: "ü" } } });
      const got = await fetch(proxy.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
        },
        body: request,
      });
      assert.equal(await got.text(), answer);
      await until(() => readFileSync(record, "utf8").split("\n").length >= 3);
      const lines = readFileSync(record, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown);
      assert.deepEqual(lines, [JSON.parse(request), JSON.parse(answer)]);
    } finally {
      await proxy.stop();
      upstream.close();
    }
  });

  test("a record in a folder that does not exist stops the command before any traffic", () => {
    const run = spawnSync(process.execPath, [CLI, "stdio", "--record", join(work, "none", "x.jsonl"), "--", process.execPath, SERVER], {
      encoding: "utf8",
    });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^wymcp stdio: --record: cannot write ".*x\.jsonl": no such folder$/m);
  });
});

describe("the live feed's bounds", () => {
  const options = parseCheckOptions([]).options;
  const message = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

  test("with no page following, nothing is judged and only the ring's bound of messages is kept", () => {
    const feed = new LiveFeed("stdio", options, 100);
    for (let i = 1; i <= 1_000; i++) feed.capture({ entry: i, from: "client", text: message(i), time: i });
    assert.equal(feed.waiting, 100);
    const rows = feed.rows();
    assert.equal(rows.length, 100);
    assert.equal(JSON.parse(rows[0]!.text!).id, 901);
    assert.equal(feed.waiting, 0);
    assert.ok(rows.every((row) => row.verdict.outcome === "pass" && row.body === undefined));
  });

  test("while a page follows, the messages are judged together off the traffic's path and told to the page; it stops when the page goes", async () => {
    const feed = new LiveFeed("stdio", options, 100);
    const told: InspectRow[] = [];
    let heard: () => void = () => undefined;
    const stop = feed.subscribe((row) => {
      told.push(row);
      heard();
    });
    const both = new Promise<void>((done) => (heard = () => told.length === 2 && done()));
    feed.capture({ entry: 1, from: "client", text: message(1), time: 1 });
    feed.capture({ entry: 2, from: "client", text: message(2), bytes: Buffer.from(message(2)), time: 2 });
    // Not judged on the capture's own call: the batch is, a moment later, in order.
    assert.equal(told.length, 0);
    assert.equal(feed.waiting, 2);
    await both;
    assert.deepEqual(
      told.map((row) => [JSON.parse(row.text!).id, row.verdict.outcome]),
      [
        [1, "pass"],
        [2, "pass"],
      ],
    );
    assert.equal(feed.waiting, 0);
    // A message captured while the page followed is judged after it left, in order: those after it wait behind it.
    feed.capture({ entry: 3, from: "client", text: message(3), time: 3 });
    stop();
    feed.capture({ entry: 4, from: "client", text: message(4), bytes: Buffer.from(message(4)), time: 4 });
    assert.equal(feed.waiting, 2);
    await until(() => feed.waiting === 0);
    assert.equal(told.length, 2);
    // Once none waits, with no page following, a message is held, its text read back from its bytes when judged.
    feed.capture({ entry: 5, from: "client", text: undefined, bytes: Buffer.from(message(5)), time: 5 });
    assert.equal(feed.waiting, 1);
    assert.deepEqual(
      feed.rows().map((row) => JSON.parse(row.text!).id),
      [1, 2, 3, 4, 5],
    );
  });

  test("while a page follows, a batch whose text reaches its bound is judged from the next turn on, not after the batch's delay, a slice a turn", async () => {
    const feed = new LiveFeed("stdio", options, 100);
    const told: InspectRow[] = [];
    const stop = feed.subscribe((row) => told.push(row));
    const big = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: "z".repeat(300 * 1024) } });
    const batch = Math.ceil(JUDGE_BATCH_CHARS / big.length);
    for (let sent = 1; sent <= batch; sent++) feed.capture({ entry: sent, from: "server", text: big, time: sent });
    // Nothing on the capture's own call; then one message a turn, each over a slice's text.
    assert.equal(told.length, 0);
    assert.ok(big.length > JUDGE_SLICE_UNITS);
    for (let turn = 1; turn <= batch; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(told.length, turn);
    }
    assert.equal(feed.waiting, 0);
    stop();
  });

  test("rows judged while a page followed and messages kept since share one bound", async () => {
    const feed = new LiveFeed("stdio", options, 100);
    let told = 0;
    const stop = feed.subscribe(() => told++);
    for (let i = 1; i <= 100; i++) feed.capture({ entry: i, from: "client", text: message(i), time: i });
    await until(() => told === 100);
    stop();
    for (let i = 101; i <= 160; i++) feed.capture({ entry: i, from: "client", text: message(i), time: i });
    assert.equal(feed.waiting, 60);
    const rows = feed.rows();
    assert.equal(rows.length, 100);
    assert.deepEqual([JSON.parse(rows[0]!.text!).id, JSON.parse(rows.at(-1)!.text!).id], [61, 160]);
  });

  test("a page that does not read its event stream is let go past the bound, and the listener serves on", async () => {
    const feed = new LiveFeed("stdio", options, 1_000);
    const listener = await listen({ ring: feed, host: "127.0.0.1", port: 0 });
    let socket: Socket | undefined;
    try {
      const { port } = listener.server.address() as AddressInfo;
      const accepted = once(listener.server, "connection") as Promise<[Socket]>;
      socket = connect(port, "127.0.0.1");
      await once(socket, "connect");
      const [serverSide] = await accepted;
      socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      // The stream is open once its first bytes come; then the reader stops reading.
      await once(socket, "data");
      socket.pause();
      // The reader reads nothing, so it sees no end: the listener's side of the connection says when it was let go.
      const closed = once(serverSide, "close");
      const big = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: "z".repeat(60_000) } });
      let sent = 0;
      let gone = false;
      void closed.then(() => (gone = true));
      while (!gone && sent < 2_000) {
        feed.capture({ entry: ++sent, from: "server", text: big, time: sent });
        await new Promise((resolve) => setImmediate(resolve));
      }
      await closed;
      assert.ok(sent < 2_000, `let go after ${sent} rows of 60 kB`);
      const rows = (await (await fetch(`http://127.0.0.1:${port}/rows`)).json()) as { rows: unknown[] };
      assert.ok(rows.rows.length > 0, "the listener still answers");
    } finally {
      socket?.destroy();
      await listener.close();
    }
  });

  test("messages kept with no page following come back as they were captured, each field and each character", () => {
    const headers = { "content-type": "application/json", "mcp-session-id": "s-1", "mcp-method": "tools/call" };
    const big = JSON.stringify({ jsonrpc: "2.0", id: 9, result: { t: "é😀".repeat(BLOCK_BYTES / 2) } });
    const given: Capture[] = [
      { entry: 1, from: "client", text: message(1), time: 1 },
      { entry: 2, part: "request", from: "client", text: message(2), bytes: Buffer.from(message(2)), headers, time: 2 },
      { entry: 2, part: "event 1", from: "server", text: '{"x":"ünï €"}', headers, session: "s-2", time: 3 },
      { entry: 3, part: "response", from: "server", text: undefined, headers: {}, time: 4 },
      { entry: 4, part: "response", from: "server", text: "", session: "", time: 5 },
      // Larger than one buffer, then small ones after it.
      { entry: 5, part: "response", from: "server", text: big, headers, time: 6 },
      { entry: 6, from: "server", text: '{"lone":"\\ud800 \uFFFD"}', time: 7 },
      // What UTF-8 or the compact form cannot carry as it is: a lone surrogate, NUL in a header.
      { entry: 7, from: "client", text: '{"x":"\ud800"}', time: 8 },
      { entry: 8, part: "request", from: "client", text: message(8), headers: { "mcp-name": "a\0b" }, time: 9 },
    ];
    const held = new HeldCaptures(100);
    for (const capture of given) held.add({ ...capture });
    assert.equal(held.size, given.length);
    assert.equal(
      held.textUnits,
      given.reduce((sum, c) => sum + (c.text?.length ?? 0), 0),
    );
    const taken = held.take();
    assert.equal(held.size, 0);
    assert.equal(held.blockBytes, 0);
    assert.deepEqual(
      taken.map(({ bytes: _, ...rest }) => rest),
      given.map(({ bytes: _, ...rest }) => rest),
    );
    // Bytes come back only as the text's own UTF-8, which the row is judged from whether they came back or not.
    for (const capture of taken)
      if (capture.bytes !== undefined) assert.deepEqual(Buffer.from(capture.bytes), Buffer.from(capture.text!, "utf8"));
  });

  test("the oldest messages kept are taken a slice at a time, by count and by text, each as captured; the rest stay held and the buffers behind them go", () => {
    const held = new HeldCaptures(1_000);
    const text = (i: number) => JSON.stringify({ jsonrpc: "2.0", id: i, result: { t: "y".repeat(1000) } });
    // One whose fields NUL makes odd, kept as it came: its place in the order holds.
    for (let i = 1; i <= 500; i++)
      held.add({ entry: i, part: "response", from: "server", text: text(i), headers: { "mcp-name": i === 7 ? "a\0b" : "x" }, time: i });
    const before = held.blockBytes;
    const entries = (captures: Capture[]) => captures.map((c) => c.entry);
    assert.deepEqual(entries(held.takeOldest(5, Number.POSITIVE_INFINITY)), [1, 2, 3, 4, 5]);
    // Past `units` of text no more is taken; one at least.
    const bySize = held.takeOldest(100, 2 * text(6).length);
    assert.deepEqual(entries(bySize), [6, 7]);
    assert.deepEqual(bySize[1]!.headers, { "mcp-name": "a\0b" });
    assert.deepEqual(entries(held.takeOldest(100, 1)), [8]);
    assert.equal(held.size, 492);
    assert.equal(
      held.textUnits,
      Array.from({ length: 492 }, (_, k) => text(9 + k).length).reduce((a, b) => a + b),
    );
    const rest = held.takeOldest(400, Number.POSITIVE_INFINITY);
    assert.deepEqual([rest[0]!.entry, rest[0]!.text, rest.at(-1)!.entry], [9, text(9), 408]);
    // Ninety-two messages of a kilobyte lie in two buffers, three at most: the six behind them went.
    assert.ok(held.blockBytes <= 3 * BLOCK_BYTES && before >= 8 * BLOCK_BYTES, `${held.blockBytes} of ${before} bytes held`);
    assert.deepEqual(
      held.take().map((c) => [c.entry, c.text]),
      Array.from({ length: 92 }, (_, k) => [409 + k, text(409 + k)]),
    );
    assert.deepEqual([held.size, held.textUnits, held.blockBytes], [0, 0, 0]);
  });

  test("messages kept with no page following let their buffers go as the oldest give way to the newest", () => {
    const held = new HeldCaptures(10);
    const text = (i: number) => JSON.stringify({ jsonrpc: "2.0", id: i, result: { t: "y".repeat(1000) } });
    for (let i = 1; i <= 5_000; i++) {
      held.add({ entry: i, part: "response", from: "server", text: text(i), headers: { "mcp-method": "ping" }, time: i });
      while (held.size > 10) held.dropOldest();
    }
    // Ten messages of a kilobyte lie in two buffers at most.
    assert.ok(held.blockBytes <= 2 * BLOCK_BYTES, `${held.blockBytes} bytes held`);
    assert.deepEqual(
      held.take().map((c) => [c.entry, c.text]),
      Array.from({ length: 10 }, (_, k) => [4_991 + k, text(4_991 + k)]),
    );
  });

  test("messages of the same fields kept across many buffers, the oldest giving way, each come back with their own fields", () => {
    const held = new HeldCaptures(300);
    const first = { "content-type": "application/json", "mcp-protocol-version": "2025-06-18" };
    const second = { ...first, "mcp-session-id": "s-9" };
    const given: Capture[] = [];
    const text = (i: number) => JSON.stringify({ jsonrpc: "2.0", id: i, result: { t: "w".repeat(i % 700) } });
    // Runs of one headers object then another, requests and answers, over some forty buffers that turn over.
    for (let i = 1; i <= 4_000; i++) {
      const headers = Math.floor(i / 150) % 2 === 0 ? first : second;
      const capture: Capture = {
        entry: i,
        part: i % 2 === 0 ? "request" : "response",
        from: i % 2 === 0 ? "client" : "server",
        text: undefined,
        bytes: Buffer.from(text(i)),
        headers,
        time: i,
      };
      if (i % 7 === 0) capture.session = `s-${i}`;
      given.push(capture);
      held.add(capture);
      while (held.size > 300) held.dropOldest();
    }
    assert.ok(held.blockBytes <= 4 * BLOCK_BYTES, `${held.blockBytes} bytes held`);
    assert.deepEqual(
      held.take().map((c) => [c.entry, c.part, c.from, c.text, c.headers, c.session, c.time]),
      given.slice(-300).map((c) => [c.entry, c.part, c.from, text(c.entry), c.headers, c.session, c.time]),
    );
  });

  test("a message over the size limit is a row without its text", () => {
    const feed = new LiveFeed("stdio", options, 10);
    feed.capture({ entry: 1, from: "client", text: undefined, time: 1 });
    const [row] = feed.rows();
    assert.equal(row!.text, undefined);
    assert.equal(row!.verdict.outcome, "reject");
  });
});

/** The feed stage alone in a chain, each response it is given answered through the chain's Node adapter, as the proxy's are. */
function feedOn(capture: (c: Capture) => void, options: HttpTapOptions) {
  const chain = new Chain([httpFeed(capture, options).stage]);
  return ({ req, res, body }: { req: http.IncomingMessage; res: http.ServerResponse; body: Uint8Array }) => {
    new NodeAnswer(res, nodeRun(chain, req, { era: "legacy", bytes: body })!).patch();
  };
}

describe("the proxy's tap: what goes back, read after it is written", () => {
  /** A server whose every exchange is tapped, then answered by `answer`; resolves to the captures once the answer ends. */
  async function tapped(
    answer: (res: http.ServerResponse) => void,
    body: string | Uint8Array = '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  ) {
    const captures: Capture[] = [];
    const exchange = feedOn((c) => captures.push(c), { maxBytes: 64 });
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        exchange({ req, res, body: Buffer.concat(chunks) });
        answer(res);
      });
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    const got = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", "mcp-protocol-version": "2025-06-18", authorization: "Bearer secret" },
      body,
    });
    const text = await got.text();
    server.close();
    return { captures, text };
  }

  test("an event stream written in pieces split mid-line is one capture per event, its data lines joined", async () => {
    const { captures, text } = await tapped((res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream", "Mcp-Session-Id": "s-1" });
      res.write(': priming\n\nevent: message\ndata: {"a"');
      res.write(":1}\n\ndata: line one\r\ndata: line two\r\n\n");
      res.end(`data: ${"x".repeat(100)}\n\ndata: {"b":2}\n\n`);
    });
    assert.match(text, /line two/, "the client got every byte");
    assert.deepEqual(
      captures.map((c) => [c.part, c.from, textOf(c)]),
      [
        ["request", "client", '{"jsonrpc":"2.0","id":1,"method":"ping"}'],
        ["event 1", "server", '{"a":1}'],
        ["event 2", "server", "line one\nline two"],
        ["event 3", "server", undefined],
        ["event 4", "server", '{"b":2}'],
      ],
    );
    assert.equal(captures[1]!.session, "s-1");
    // The request's headers kept are the media type and MCP's own, never its credentials.
    assert.deepEqual(captures[0]!.headers, { "content-type": "application/json", "mcp-protocol-version": "2025-06-18" });
  });

  test("a CRLF split across two writes ends one line, not a line and a blank one that would end the event early", async () => {
    const { captures } = await tapped((res) => {
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      res.write("data: a\r");
      res.write("\ndata: b\r");
      res.write("\n");
      res.end("\r\n");
    });
    assert.deepEqual(
      captures.slice(1).map((c) => [c.part, c.text]),
      [["event 1", "a\nb"]],
    );
  });

  test("a JSON answer is one capture; one past the size limit is captured without its text", async () => {
    const small = await tapped((res) => {
      res.setHeader("content-type", "application/json");
      res.write('{"jsonrpc":"2.0",');
      res.end('"id":1,"result":{}}');
    });
    assert.deepEqual(textOf(small.captures.at(-1)!), '{"jsonrpc":"2.0","id":1,"result":{}}');
    const large = await tapped((res) => {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { t: "y".repeat(100) } }));
    });
    assert.equal(large.captures.length, 2);
    assert.equal(textOf(large.captures[1]!), undefined);
    assert.match(large.text, /y{100}/);
  });

  test("a request and a JSON answer are captured as their bytes, decoded only when read; bytes that are not UTF-8 read as U+FFFD and are judged as that text, page or not", async () => {
    const answer = (res: http.ServerResponse) =>
      res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
    const valid = await tapped(answer);
    // Nothing decoded on the traffic's path: the text is read from the bytes when a page or --record asks.
    assert.deepEqual(
      valid.captures.map((c) => [c.text, Buffer.from(c.bytes!).toString("utf8")]),
      [
        [undefined, '{"jsonrpc":"2.0","id":1,"method":"ping"}'],
        [undefined, '{"jsonrpc":"2.0","id":1,"result":{}}'],
      ],
    );
    // A lone 0xff: the text holds U+FFFD, and the row is judged from that text, not from the bytes (which would refuse).
    const broken = await tapped(
      answer,
      Buffer.from([...Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","x":"'), 0xff, ...Buffer.from('"}')]),
    );
    assert.match(textOf(broken.captures[0]!)!, /\uFFFD/);
    const options = parseCheckOptions([]).options;
    const judged = (follow: boolean, asText = false) => {
      const feed = new LiveFeed("proxy", options, 10);
      const stop = follow ? feed.subscribe(() => undefined) : undefined;
      for (const capture of broken.captures)
        feed.capture(asText ? { ...capture, text: textOf(capture), bytes: undefined } : { ...capture });
      // A page that stops has what was captured while it followed judged at once.
      stop?.();
      return feed.rows().map((row) => [row.verdict.outcome, "reason" in row.verdict ? row.verdict.reason : undefined, row.text]);
    };
    // The row of the bytes is the row of their text captured as text, whether a page followed or not.
    assert.deepEqual(judged(false), judged(false, true));
    assert.notEqual(judged(false)[0]![1], "parse-error");
    assert.deepEqual(judged(true), judged(false));
  });

  test("like requests hand on one headers object; a request whose headers differ gets its own", async () => {
    const captures: Capture[] = [];
    const exchange = feedOn((c) => captures.push(c), { maxBytes: 64 });
    const server = http.createServer((req, res) => {
      exchange({ req, res, body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}') });
      res.writeHead(202).end();
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    const send = (headers: Record<string, string>) => fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", headers, body: "{}" });
    const json = { "content-type": "application/json", "mcp-protocol-version": "2025-06-18" };
    for (const headers of [
      json,
      { ...json, authorization: "Bearer x" },
      { ...json, "mcp-session-id": "s-1" },
      json,
      { "content-type": "text/plain" },
    ])
      await (await send(headers)).text();
    server.close();
    const kept = captures.map((c) => c.headers!);
    // The credentials are never kept, so the second request's kept headers are the first's.
    assert.equal(kept[1], kept[0]);
    assert.notEqual(kept[2], kept[1]);
    assert.deepEqual(kept[2], { ...json, "mcp-session-id": "s-1" });
    assert.notEqual(kept[3], kept[2]);
    assert.deepEqual(kept[3], json);
    assert.deepEqual(kept[4], { "content-type": "text/plain" });
  });

  test("a compressed or empty answer is not read", async () => {
    const gz = await tapped((res) =>
      res
        .writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
        .end(gzipSync('{"jsonrpc":"2.0","id":1,"result":{}}')),
    );
    assert.equal(gz.captures.length, 1);
    const accepted = await tapped((res) => res.writeHead(202).end());
    assert.equal(accepted.captures.length, 1);
  });
});

describe("the proxy's feed: a stage of its chain, what it relays read write by write", () => {
  /**
   * A proxy in this process in front of `upstream`, the live feed its chain's `feed` stage; each response the feed saw,
   * and, as each response finished, whether anything stood in for its `write` (a patch of the response).
   */
  async function proxied(upstream: URL) {
    const captures: Capture[] = [];
    const live = httpFeed((c) => captures.push(c), { maxBytes: 1024 });
    const tapped: boolean[] = [];
    const { options } = parseProxyArgs(["--upstream", upstream.href]);
    const built = createProxy(
      options,
      createLog("proxy", "text", () => undefined),
      { observer: { stage: live.stage } },
    );
    const { server, address } = await listenProxy(built, "127.0.0.1", 0);
    server.on("request", (_req: http.IncomingMessage, res: http.ServerResponse) =>
      res.once("finish", () => tapped.push(Object.hasOwn(res, "write"))),
    );
    return { captures, tapped, url: `http://127.0.0.1:${address.port}/mcp`, close: () => built.drain(server) };
  }

  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
  };
  const post = (url: string, body: string) => fetch(url, { method: "POST", headers, body }).then((got) => got.text());
  const seen = (captures: Capture[]) => captures.map((c) => [c.entry, c.part, c.from, textOf(c), c.session, c.headers]);

  test("a JSON answer, an event stream and a GET's stream relayed, a refusal and an upstream's failure: captured as a tap captures them, no response tapped but the refusal's", async () => {
    const upstream = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (req.method === "GET") return void res.writeHead(200, { "content-type": "text/event-stream" }).end('data: {"c":3}\n\n');
        const { id, method } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: number; method: string };
        if (method === "tools/list") {
          res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s-1" });
          res.write('data: {"a"');
          return void res.end(`:${id}}\n\ndata: {"b":2}\n\n`);
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"jsonrpc":"2.0",');
        res.end(`"id":${id},"result":{}}`);
      });
    });
    await new Promise<void>((done) => upstream.listen(0, "127.0.0.1", done));
    await assertNothingListens();
    const target = new URL(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`);
    const proxy = await proxied(target);
    const gone = await proxied(NO_UPSTREAM);
    try {
      assert.equal(await post(proxy.url, '{"jsonrpc":"2.0","id":1,"method":"ping"}'), '{"jsonrpc":"2.0","id":1,"result":{}}');
      assert.match(await post(proxy.url, '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'), /data: \{"b":2\}/);
      assert.match(await post(proxy.url, "{"), /-32700/);
      const stream = await fetch(proxy.url, { headers: { accept: "text/event-stream", "mcp-protocol-version": "2025-06-18" } });
      assert.match(await stream.text(), /"c":3/);
      assert.match(await post(gone.url, '{"jsonrpc":"2.0","id":4,"method":"ping"}'), /Bad Gateway/);
      await until(() => proxy.tapped.length === 4 && gone.tapped.length === 1);
      const captures = [...seen(proxy.captures), ...seen(gone.captures)];
      const json = { "content-type": "application/json", "mcp-protocol-version": "2025-06-18" };
      assert.deepEqual(captures, [
        [1, "request", "client", '{"jsonrpc":"2.0","id":1,"method":"ping"}', undefined, json],
        [1, "response", "server", '{"jsonrpc":"2.0","id":1,"result":{}}', undefined, json],
        [2, "request", "client", '{"jsonrpc":"2.0","id":2,"method":"tools/list"}', undefined, json],
        [2, "event 1", "server", '{"a":2}', "s-1", json],
        [2, "event 2", "server", '{"b":2}', "s-1", json],
        [3, "request", "client", "{", undefined, json],
        [3, "response", "server", captures[6]![3], undefined, json],
        [4, "event 1", "server", '{"c":3}', undefined, { "mcp-protocol-version": "2025-06-18" }],
        [1, "request", "client", '{"jsonrpc":"2.0","id":4,"method":"ping"}', undefined, json],
        [1, "response", "server", captures[9]![3], undefined, json],
      ]);
      assert.match(String(captures[6]![3]), /"code":-32700/);
      assert.match(String(captures[9]![3]), /Bad Gateway/);
      // Only the refusal, which the proxy's relay does not write, was read through a patch of its response.
      assert.deepEqual([...proxy.tapped, ...gone.tapped], [false, false, true, false, false]);
    } finally {
      await proxy.close();
      await gone.close();
      upstream.close();
    }
  });
});

describe("the stdio gate's tap: each side's bytes, one capture a line", () => {
  const tap = (maxBytes = 16) => {
    const captures: Capture[] = [];
    return { captures, chunk: stdioTap((message) => captures.push(message), { maxBytes }) };
  };
  const seen = (captures: Capture[]) => captures.map((c) => [c.entry, c.from, c.text]);

  test("a line cut across writes is one capture; its CR (even in the next write) is not text; blank lines are none", () => {
    const { captures, chunk } = tap();
    const first = Buffer.from("ab");
    chunk("client", first);
    // The caller may reuse a chunk's memory once it has been handed over.
    first.fill(0x7a);
    chunk("client", Buffer.from("c\r"));
    chunk("client", new Uint8Array(Buffer.from("\n \t\r\n\nd\n")));
    chunk("server", "e\r\n");
    chunk("wymcp", "f\n");
    assert.deepEqual(seen(captures), [
      [1, "client", "abc"],
      [2, "client", "d"],
      [3, "server", "e"],
      [4, "server", "f"],
    ]);
  });

  test("a line of other whitespace (a form feed, a no-break space), which the gate judges and answers, is captured", () => {
    const { captures, chunk } = tap();
    chunk("client", "\f\n\u00a0\r\n \t\n");
    assert.deepEqual(seen(captures), [
      [1, "client", "\f"],
      [2, "client", "\u00a0"],
    ]);
  });

  test("a character cut between two writes is read whole; a line past the limit is captured without its text, and the next is read", () => {
    const { captures, chunk } = tap();
    const e = Buffer.from("é");
    chunk("server", e.subarray(0, 1));
    chunk("server", Buffer.concat([e.subarray(1), Buffer.from("\n")]));
    chunk("server", `${"x".repeat(17)}\n${"y".repeat(16)}\n`);
    chunk("client", "z".repeat(10));
    chunk("client", "z".repeat(10));
    chunk("client", "\nok\n");
    assert.deepEqual(seen(captures), [
      [1, "server", "é"],
      [2, "server", undefined],
      [3, "server", "y".repeat(16)],
      [4, "client", undefined],
      [5, "client", "ok"],
    ]);
  });
});

describe("the live feed takes the proxy's own verdict on a request it admitted", () => {
  const MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "live-test", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const modern = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
  };
  const legacy = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-03-26",
  };
  const modernCall = (id: number, args: unknown) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: MODERN_META, name: "echo", arguments: args } });
  const callHeaders = { ...modern, "mcp-method": "tools/call", "mcp-name": "echo" };
  /** The requests sent: a valid call, invalid params, a framing failure, a header mismatch, legacy ones, a batch, a tool's arguments refused. */
  const requests: Array<{ headers: Record<string, string>; body: string }> = [
    { headers: callHeaders, body: modernCall(1, { text: "hi" }) },
    { headers: callHeaders, body: modernCall(2, "not an object") },
    { headers: callHeaders, body: '{"jsonrpc":"2.0","id":3,' },
    { headers: { ...modern, "mcp-method": "tools/list", "mcp-name": "echo" }, body: modernCall(4, { text: "hi" }) },
    { headers: legacy, body: call(5, { name: "echo", arguments: { text: "hi" } }) },
    { headers: legacy, body: call(6, { name: 7 }) },
    {
      headers: legacy,
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 7, method: "ping" },
        { jsonrpc: "2.0", method: "notifications/initialized" },
      ]),
    },
    { headers: callHeaders, body: modernCall(8, { text: 42 }) },
    // A header holding a comma: the gate reads its values apart, the capture keeps it whole.
    { headers: { ...callHeaders, "mcp-name": "echo, echo" }, body: modernCall(9, { text: "hi" }) },
    // A legacy session's initialize, then a request of that session with no version header: its revision is the session's.
    { headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: initialize(10) },
    {
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": "s-1" },
      body: call(11, { name: "echo", arguments: { text: "hi" } }),
    },
  ];

  /** An upstream answering every request with a result (initialize with a session), a body it cannot parse with -32700. */
  async function upstream(): Promise<{ url: URL; close: () => void }> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        let body: { id?: number; method?: string } | unknown[];
        try {
          body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as typeof body;
        } catch {
          const parseError = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"upstream: not JSON"}}';
          return void res.writeHead(400, { "content-type": "application/json" }).end(parseError);
        }
        if (Array.isArray(body))
          return void res.writeHead(200, { "content-type": "application/json" }).end('[{"jsonrpc":"2.0","id":7,"result":{}}]');
        if (body.id === undefined) return void res.writeHead(202).end();
        const result =
          body.method === "initialize"
            ? { protocolVersion: "2025-03-26", capabilities: {}, serverInfo: { name: "up", version: "1" } }
            : { content: [{ type: "text", text: "hi" }] };
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (body.method === "initialize") headers["mcp-session-id"] = "s-1";
        res.writeHead(200, headers).end(JSON.stringify({ jsonrpc: "2.0", id: body.id, result }));
      });
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), close: () => server.close() };
  }

  for (const flags of [[], ["--rule", "params=report"]])
    test(`each row is the verdict judging the capture again gives, the gate's own taken for what it admitted${flags.length ? ` (${flags.join(" ")})` : ""}`, async () => {
      const tools = join(work, "tools.json");
      writeFileSync(
        tools,
        JSON.stringify({ tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] }),
      );
      const up = await upstream();
      const parsed = parseProxyArgs(["--upstream", up.url.href, "--tools", tools, ...flags]);
      const log = createLog("proxy", "text", () => undefined);
      const judging = liveJudgeOptions(resolveGate(parsed.options, { headersOf: () => undefined }).settings);
      // The same captures twice: as the proxy hands them on, and without the gate's admission (judged from the bytes).
      const given = new LiveFeed("proxy", judging);
      const again = new LiveFeed("proxy", judging);
      const rows: InspectRow[] = [];
      const stopGiven = given.subscribe((row) => rows.push(row));
      const stopAgain = again.subscribe(() => undefined);
      let admitted = 0;
      const observer = httpFeed(
        (capture) => {
          if (capture.admitted !== undefined) admitted++;
          given.capture(capture);
          again.capture({ ...capture, admitted: undefined });
        },
        { maxBytes: 1024 * 1024 },
      );
      const built = createProxy({ ...parsed.options, tools: await toolsFromFlags(parsed.toolFlags, log, parsed.options) }, log, {
        observer: { stage: observer.stage },
      });
      const { server, address } = await listenProxy(built, "127.0.0.1", 0);
      const url = `http://127.0.0.1:${address.port}/mcp`;
      try {
        const answers: string[] = [];
        for (const { headers, body } of requests) answers.push(await (await fetch(url, { method: "POST", headers, body })).text());
        // The tool's arguments (text a number) refused by the proxy itself: admitted by the gate all the same.
        assert.match(answers[7]!, /Invalid arguments for tool echo/);
        // Each request and its answer, told to the page following.
        await until(() => rows.length === 2 * requests.length);
        const a = given.rows();
        const b = again.rows();
        assert.equal(a.length, b.length);
        assert.deepEqual(
          a.map((row) => [row.verdict, row.text]),
          b.map((row) => [row.verdict, row.text]),
        );
        // The valid, legacy, batch, refused-tool, comma and session requests came with the gate's admission.
        // With params in report, the modern and the legacy params failures are admitted too, each reported.
        assert.equal(admitted, flags.length ? 9 : 7);
        const outcomes = a.filter((row) => row.verdict.part === "request").map((row) => row.verdict.outcome);
        assert.deepEqual(outcomes, [
          "pass",
          flags.length ? "pass" : "reject",
          "reject",
          "reject",
          "pass",
          flags.length ? "pass" : "reject",
          "pass",
          "pass",
          "pass",
          "pass",
          "pass",
        ]);
      } finally {
        stopGiven();
        stopAgain();
        await built.drain(server);
        up.close();
      }
    });

  test("--report: each request a rule would refuse reaches the upstream and its row says so by rule; the page's filter 'would refuse' shows those rows and no other", async () => {
    const tools = join(work, "tools-report.json");
    writeFileSync(
      tools,
      JSON.stringify({ tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] }),
    );
    const up = await upstream();
    const parsed = parseProxyArgs(["--upstream", up.url.href, "--tools", tools, "--report"]);
    const log = createLog("proxy", "text", () => undefined);
    const feed = new LiveFeed("proxy", liveJudgeOptions(resolveGate(parsed.options, { headersOf: () => undefined }).settings));
    const rows: InspectRow[] = [];
    const stop = feed.subscribe((row) => rows.push(row));
    const observer = httpFeed((capture) => feed.capture(capture), { maxBytes: 1024 * 1024 });
    const built = createProxy(
      { ...parsed.options, tools: await toolsFromFlags(parsed.toolFlags, log, parsed.options) },
      log,
      liveHooks({ observer: { stage: observer.stage }, feed }),
    );
    const { server, address } = await listenProxy(built, "127.0.0.1", 0);
    const url = `http://127.0.0.1:${address.port}/mcp`;
    try {
      const answers: string[] = [];
      for (const { headers, body } of requests) answers.push(await (await fetch(url, { method: "POST", headers, body })).text());
      // Nothing refused: every request reaches the upstream (the one that is not JSON gets the upstream's own answer).
      assert.match(answers[2]!, /upstream: not JSON/);
      assert.match(answers[7]!, /"text":"hi"/);
      assert.doesNotMatch(answers.join("\n"), /Invalid arguments/);
      await until(() => rows.length === 2 * requests.length);
      // The request rows in the order sent: request n is id n (the batch is 7).
      const facts = feed
        .rows()
        .filter((row) => row.verdict.part === "request")
        .map((row) => rowFacts(row));
      assert.equal(facts.length, requests.length);
      const rulesOf = (id: number) => facts[id - 1]!.reports.map((report) => report.rule);
      // Params (modern and legacy), a body not JSON, a header disagreeing, a tool's arguments: each row marked by its rule, once.
      // Arguments that are not an object fail two rules: the params one first, and the tool's schema after admission.
      assert.deepEqual(rulesOf(2), ["params", "toolArguments"]);
      // A body that is not JSON: the limits rule (-32700).
      assert.deepEqual(rulesOf(3), ["limits"]);
      assert.deepEqual(rulesOf(4), ["headers"]);
      assert.deepEqual(rulesOf(6), ["params"]);
      assert.deepEqual(rulesOf(8), ["toolArguments"]);
      assert.equal(facts[7]!.shown, "would refuse");
      assert.equal(facts[7]!.verdict, "pass");
      // The page's filter keeps a row when it carries a report: exactly those five; the valid ones carry none.
      const wouldRefuse = facts.flatMap((row, i) => (row.reports.length > 0 ? [i + 1] : []));
      assert.deepEqual(wouldRefuse, [2, 3, 4, 6, 8]);
    } finally {
      stop();
      await built.drain(server);
      up.close();
    }
  });

  test("the gate's admission is the row's verdict unless the capture judges the message otherwise: another era, a session's revision, a header holding a comma", () => {
    const { options } = parseCheckOptions([]);
    const body = JSON.parse(modernCall(1, { text: "hi" })) as unknown;
    const bytes = Buffer.from(modernCall(1, { text: "hi" }));
    // A result no validation gives: seen in the verdict only when the gate's admission is taken.
    const marked = { body, era: "modern" as const, result: { outcome: "pass" as const, kind: "request" as const, definition: "marked" } };
    const definition = (context: JudgeContext) =>
      (judge({ source: "proxy", line: 1, bytes, context }, options).verdict as { definition?: unknown }).definition;
    assert.equal(definition({ from: "client", headers: callHeaders, admitted: marked as never }), "marked");
    assert.equal(definition({ from: "client", headers: callHeaders }), "CallToolRequest");
    assert.notEqual(definition({ from: "client", headers: callHeaders, admitted: { ...marked, era: "legacy" } as never }), "marked");
    assert.notEqual(
      definition({ from: "client", headers: { ...callHeaders, "mcp-name": "echo, x" }, admitted: marked as never }),
      "marked",
    );
    assert.notEqual(
      definition({
        from: "client",
        headers: { "content-type": "application/json" },
        admitted: marked as never,
        negotiated: { revision: "2025-03-26", line: 1 } as never,
      }),
      "marked",
    );
    // Judged as a server's message, or under --era: the gate's admission is not the verdict.
    assert.notEqual(definition({ from: "server", headers: callHeaders, admitted: marked as never }), "marked");
    const flagged = parseCheckOptions(["--era", "modern"]).options;
    assert.notEqual(
      (
        judge({ source: "proxy", line: 1, bytes, context: { from: "client", headers: callHeaders, admitted: marked as never } }, flagged)
          .verdict as {
          definition?: unknown;
        }
      ).definition,
      "marked",
    );
  });
});

describe("the rows a page follows, kept as their JSON", () => {
  const { options } = parseCheckOptions([]);
  /** A row input as the feed makes it: a verdict and the message's text (or none, over the limit). */
  const input = (id: number, text: string | undefined) => {
    const { verdict } = judge(
      { source: "proxy", line: id, bytes: text === undefined ? undefined : Buffer.from(text), context: { from: "client" } },
      options,
    );
    return { verdict, body: undefined, text };
  };
  const texts = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      i % 7 === 3
        ? undefined
        : // Sent as it is, over several data lines, or in the row's JSON: a lone surrogate, a CR.
          `${JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping", params: { s: 'é😀"'.repeat(i % 50) } })}${["", "\n ", "\ud800", "\r\n", "\n\ndata: x\n"][i % 5]}`,
    );

  test("the rows read back, /rows's JSON and each row told are those a ring of row objects holds, under both bounds", () => {
    for (const [capacity, maxText] of [
      [10, 1 << 30],
      [1_000, 20_000],
      [1, 1 << 30],
    ] as const) {
      const kept = new JsonRows(capacity, maxText);
      const objects = new RowRing(capacity, maxText);
      const told: string[] = [];
      kept.subscribe((row, event) => {
        // The event, read as the page reads it, is the row.
        assert.match(event, /\n\n$/);
        assert.deepEqual(eventRow(event.slice(0, -2)), JSON.parse(JSON.stringify(row)));
        told.push(event);
      });
      const all = texts(3_000);
      all.forEach((text, i) => {
        const row = input(i, text);
        kept.push(row, i);
        objects.push(row, i);
        assert.equal(kept.size, objects.size);
        assert.equal(kept.textUnits, objects.textUnits);
      });
      const expected = JSON.stringify(objects.rows());
      assert.equal(kept.json().toString("utf8"), expected);
      assert.deepEqual(kept.rows(), JSON.parse(expected));
      assert.equal(told.length, all.length);
      // Only the buffers the rows held lie in are kept (64 KiB each, a larger row's own).
      assert.ok(kept.blockBytes <= Buffer.byteLength(expected) + 2 * ROW_BLOCK_BYTES, `${kept.blockBytes}`);
      while (kept.size > 0) {
        kept.dropOldest();
        objects.dropOldest();
        assert.equal(kept.textUnits, objects.textUnits);
      }
      assert.equal(kept.json().toString("utf8"), "[]");
      kept.push(input(1, "{}"), 1);
      assert.deepEqual(
        kept.rows().map((row) => [row.seq, row.text]),
        [[all.length + 1, "{}"]],
      );
    }
  });

  test("/rows on a live feed answers a page of the rows as a ring of row objects would, the capacity, title and cursor first", async () => {
    const feed = new LiveFeed("stdio", options, 5);
    for (let i = 1; i <= 8; i++)
      feed.capture({ entry: i, from: "client", text: JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" }), time: i });
    const listener = await listen({ ring: feed, host: "127.0.0.1", port: 0, title: "live" });
    try {
      const answer = await fetch(new URL("rows", listener.url));
      const text = await answer.text();
      assert.equal(text, JSON.stringify({ capacity: 5, title: "live", first: 1, dropped: 0, next: 5, more: false, rows: feed.rows() }));
      assert.deepEqual(
        (JSON.parse(text) as { rows: InspectRow[] }).rows.map((row) => [row.seq, (JSON.parse(row.text!) as { id: number }).id]),
        [
          [1, 4],
          [2, 5],
          [3, 6],
          [4, 7],
          [5, 8],
        ],
      );
    } finally {
      await listener.close();
    }
  });
});
