import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { launchExample, type LaunchedExample } from "../examples/launch.js";
import { gatedWorse, runFuzz, type FuzzReport } from "../fuzz/run.js";

const COUNT = 80;
const SEED = 8;

describe(`HTTP fuzz, ${COUNT} seeded requests against the example server with and without wymcp`, () => {
  let gated: FuzzReport;
  let ungated: FuzzReport;
  before(async () => {
    // Both servers at once: the same cases, half the wall time.
    [gated, ungated] = await Promise.all([
      runFuzz({ count: COUNT, seed: SEED, gate: "on" }),
      runFuzz({ count: COUNT, seed: SEED, gate: "off" }),
    ]);
  });

  test("the gated server gives no 5xx, no hang, and answers every correctly framed request", () => {
    assert.deepEqual(gated.findings, []);
    assert.deepEqual([gated.fiveXx, gated.hangs, gated.dropped], [0, 0, 0]);
  });

  test("every error answer of the gated server is a JSON-RPC envelope of at most 8 KiB reflecting no planted marker", () => {
    assert.deepEqual([gated.notEnvelope, gated.overBound, gated.reflected], [0, 0, 0]);
    assert.ok(gated.maxErrorAnswerBytes <= 8192);
    assert.ok(gated.markersJudged > 0, "some error answers were checked for the marker");
  });

  test("the mutations reached the server: every kind was sent and both refusals and passes occurred", () => {
    for (const kind of [
      "valid",
      "flip",
      "truncate",
      "wrong-type",
      "deep",
      "content-type",
      "chunked",
      "length-over",
      "length-under",
      "disconnect",
    ]) {
      assert.ok(gated.byKind[kind], `no ${kind} case in ${COUNT}`);
    }
    assert.ok((gated.statuses["200"] ?? 0) > 0 && (gated.statuses["400"] ?? 0) > 0 && (gated.statuses["415"] ?? 0) > 0);
  });

  // The server's RSS growth over a run is bounded by `npm run fuzz` (RSS_GROWTH_BOUND_KB), on runs long enough to show it.
  test("after the run the gated server answers normal requests", (t) => {
    assert.equal(gated.finalCheck.ok, true, JSON.stringify(gated.finalCheck));
    t.diagnostic(`RSS growth ${(gated.rssKb.growth / 1024).toFixed(0)} MiB`);
  });

  test("no case the ungated server answered below 500 got a 5xx from the gated one; the gated 5xx count is not higher", () => {
    assert.deepEqual(gatedWorse(gated, ungated), []);
    assert.ok(gated.fiveXx <= ungated.fiveXx);
  });
});

describe("the nesting bound fixes the 500 the gate used to cause", () => {
  const META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2026-07-28",
    "Mcp-Method": "tools/call",
    "Mcp-Name": "echo",
  };
  const call = (extra: string) =>
    `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":${JSON.stringify(META)},"name":"echo","arguments":{"text":"hi","extra":${extra}}}}`;
  const deep = (levels: number) => call(`${"[".repeat(levels)}${"]".repeat(levels)}`);
  let server: LaunchedExample;
  before(async () => {
    server = await launchExample();
  });
  after(() => server?.stop());
  const post = (body: string) => fetch(server.url, { method: "POST", headers, body });

  test("a tools/call whose arguments nest 5,000 arrays deep gets 400/-32600 naming the limit, and the next request 200", async () => {
    const refused = await post(deep(5_000));
    assert.equal(refused.status, 400);
    const answer = (await refused.json()) as { id: unknown; error: { code: number; message: string } };
    assert.deepEqual([answer.id, answer.error.code], [5, -32600]);
    assert.match(answer.error.message, /limit of 64 levels/);
    const next = await post(call('"fine"'));
    assert.equal(next.status, 200);
    assert.match(await next.text(), /echo \(modern\): hi/);
  });

  test("20,000 levels too; arguments within the bound still reach the tool", async () => {
    assert.equal((await post(deep(20_000))).status, 400);
    const within = await post(deep(60));
    assert.equal(within.status, 200);
    assert.match(await within.text(), /echo \(modern\): hi/);
  });
});
