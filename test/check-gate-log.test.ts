/**
 * `wymcp check` on the JSON log of `wymcp proxy --log json`: the gate's verdicts read back, shown in the gate's words
 * and counted, never judged again as messages (the log holds no bodies).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { gateLogRecord } from "../src/check/gate-log-record.js";
import { createLog } from "../src/log/gate-log.js";
import { assertFreshDist } from "./support/built.js";
import { lineFor, locationsFor, wymcp } from "./support/cli.js";
import { rawPost } from "./support/gate-fixtures.js";
import { MODERN_META } from "./support/messages.js";
import { recordingUpstream, startProxy, until } from "./support/proxy.js";

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const SECRET = "s3cr3t-value-from-the-body";

let dir: string;
before(() => {
  assertFreshDist();
  dir = mkdtempSync(join(tmpdir(), "wymcp-check-log-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A log's record, as the gate wrote it (line 1-based). */
const record = (text: string, line: number) => JSON.parse(text.split("\n")[line - 1]!) as Record<string, unknown>;

describe("wymcp check reads a gate's JSON log", () => {
  test("a real proxy's log: each refusal shown as the gate's verdict, counted, the log's other events as log lines", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href, "--log", "json"]);
    try {
      const endpoint = new URL("/mcp", proxy.url).href;
      const bad = {
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: 5, arguments: { secret: SECRET }, _meta: MODERN_META },
      };
      await rawPost(endpoint, { ...JSON_HEADERS, "mcp-protocol-version": "2026-07-28" }, JSON.stringify(bad));
      await rawPost(endpoint, JSON_HEADERS, "{not json");
      // A framing failure of a prompts/get whose name would drive a terminal, and a batch whose second item fails.
      const framing = { jsonrpc: "1.0", id: 3, method: "prompts/get", params: { name: "greet\u001b[2J" } };
      await rawPost(endpoint, { ...JSON_HEADERS, "mcp-protocol-version": "2025-06-18" }, JSON.stringify(framing));
      const batch = [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: {}, method: "tools/call", params: { name: "search", arguments: { secret: SECRET } } },
      ];
      await rawPost(endpoint, { ...JSON_HEADERS, "mcp-protocol-version": "2025-03-26" }, JSON.stringify(batch));
      await until(() => proxy.stderr().split('"refused"').length === 5);
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
    const file = join(dir, "proxy.log");
    writeFileSync(file, proxy.stderr());

    const run = wymcp([file]);
    assert.equal(run.status, 1, "a refusal in the log is a rejection");
    assert.equal(run.stderr, "");
    const refused = lineFor(run.stdout, `${file}:2`);
    // When and from which client, as the gate logged them.
    const { time, remote } = record(proxy.stderr(), 2);
    assert.match(String(time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(String(remote), /^(::ffff:)?127\.0\.0\.1$/);
    // The method of a refused body that parsed, as the gate logged it (this tool's name is no string: none shown).
    assert.match(
      refused,
      /reject {2}modern \(gate log\) +tools\/call message \(refused by wymcp proxy: invalid-message, id 9; at \S+ from \S+\) {2}400 -32602$/,
    );
    assert.ok(refused.includes(`; at ${time} from ${remote})`), refused);
    assert.deepEqual(locationsFor(run.stdout, `${file}:2`), [
      "Invalid tools/call request (CallToolRequest): 1 invalid location; first: /params/name must be string",
    ]);
    assert.match(
      lineFor(run.stdout, `${file}:3`),
      /reject {2}- \(gate log\) .*message \(refused by wymcp proxy: parse-error, id null; at \S+ from \S+\) {2}400 -32700$/,
    );
    assert.match(lineFor(run.stdout, `${file}:1`), /log {5}- +wymcp proxy listening url=/);
    assert.ok(lineFor(run.stdout, `${file}:1`).endsWith(` at ${record(proxy.stderr(), 1).time}`), "an event says when");
    // The prompt's name, escaped by the gate and again by check; the batch named by the item its error locates (the
    // second: the first is a ping). Both bodies break the legacy framing, so the SDK's router reads them as modern.
    assert.match(
      lineFor(run.stdout, `${file}:4`),
      /reject {2}modern \(gate log\) +prompts\/get "greet\\\\u001b\[2J" message \(refused by wymcp proxy: invalid-message, id 3; at \S+ from \S+\) {2}400 -32600$/,
    );
    assert.match(
      lineFor(run.stdout, `${file}:5`),
      /reject {2}modern \(gate log\) +tools\/call "search" message \(refused by wymcp proxy: invalid-message, id null; at \S+ from \S+\) {2}400 -32600$/,
    );
    assert.deepEqual([record(proxy.stderr(), 4).method, record(proxy.stderr(), 4).name], ["prompts/get", "greet\\u001b[2J"]);
    assert.deepEqual([record(proxy.stderr(), 5).method, record(proxy.stderr(), 5).name], ["tools/call", "search"]);
    assert.match(run.stdout, /^tools\/call +0 +2 +0$/m);
    assert.match(run.stdout, /^prompts\/get +0 +1 +0$/m);
    assert.match(run.stdout, /^\(not JSON\) +0 +1 +0$/m);
    assert.doesNotMatch(run.stdout, /^\(no method\)/m);
    assert.match(run.stdout, /^4 messages: 0 pass, 4 rejected, 0 bypassed$/m);
    assert.match(run.stdout, /^7 lines of a wymcp gate log .*: 4 refused or dropped, 0 outbound violations, 3 other events$/m);
    assert.ok(!run.stdout.includes(SECRET));

    const json = wymcp(["--json", file]);
    assert.equal(json.status, 1);
    const records = json.stdout
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith('{"summary":'))
      .map((l) => JSON.parse(l) as { line: number; log: Record<string, unknown> });
    assert.deepEqual(records[1], {
      source: file,
      line: 2,
      log: {
        face: "proxy",
        event: "refused",
        era: "modern",
        id: "9",
        method: "tools/call",
        reason: "invalid-message",
        rule: "params",
        status: 400,
        code: -32602,
        message: "Invalid tools/call request (CallToolRequest): 1 invalid location; first: /params/name must be string",
        time,
        remote,
      },
    });
    assert.match(json.stderr, /^4 messages: 0 pass, 4 rejected, 0 bypassed\n7 lines of a wymcp gate log/);

    const quiet = wymcp(["--quiet", file]);
    assert.ok(!quiet.stdout.includes("listening"), "--quiet leaves the log's events out");
    assert.match(quiet.stdout, /refused by wymcp proxy: invalid-message/);
  });

  test("a real proxy's log under --rule params=report: the report line reads as a pass with the rule and what was reported, counted so", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href, "--log", "json", "--rule", "params=report"]);
    try {
      const bad = { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: 5, arguments: { secret: SECRET } } };
      const answer = await rawPost(
        new URL("/mcp", proxy.url).href,
        { ...JSON_HEADERS, "mcp-protocol-version": "2025-06-18" },
        JSON.stringify(bad),
      );
      assert.equal(upstream.received.length, 1, "handed on");
      assert.equal(answer.status, 200);
      await until(() => proxy.stderr().includes('"event":"report"'));
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
    const file = join(dir, "proxy-report.log");
    writeFileSync(file, proxy.stderr());
    const run = wymcp([file]);
    assert.equal(run.status, 0, "a reported message is no rejection");
    assert.match(
      lineFor(run.stdout, `${file}:2`),
      /pass +legacy \(gate log\) +tools\/call message \(handed on and reported by wymcp proxy, id 8; at \S+\) {2}reported params -32602$/,
    );
    const { time } = record(proxy.stderr(), 2);
    assert.ok(lineFor(run.stdout, `${file}:2`).includes(`; at ${time})`));
    // The report carries the answer's locations: they are shown as a verdict's are.
    assert.deepEqual(locationsFor(run.stdout, `${file}:2`), ["/params/name  must be string"]);
    assert.match(run.stdout, /^tools\/call +1 +0 +0$/m);
    assert.match(
      run.stdout,
      /^params +enforce +0 +1$/m,
      "the table by rule counts the gate's report under its rule (the state is this run's)",
    );
    assert.match(run.stdout, /^1 message: 1 pass \(1 reported\), 0 rejected, 0 bypassed$/m);
    assert.match(run.stdout, /: 0 refused or dropped, 1 reported, 0 outbound violations, \d+ other events$/m);
    assert.ok(!run.stdout.includes(SECRET));
  });

  test("an outbound violation and a dropped notification, written by the log's own writer, with their locations", () => {
    let text = "";
    const log = createLog("stdio", "json", (line) => {
      text += line;
    });
    log.verdict({
      outcome: "dropped",
      era: "legacy",
      kind: "notification",
      id: undefined,
      method: "notifications/initialized",
      reason: "invalid-message",
      code: -32600,
      message: "Invalid notification",
    });
    log.line(
      "outbound-violation",
      {
        era: "modern",
        method: "tools/list",
        id: 3,
        message: "Invalid result",
        errors: [{ instancePath: "/result/tools/0/name", messages: ["must be string"] }],
        omitted: 2,
      },
      "",
    );
    const file = join(dir, "stdio.log");
    writeFileSync(file, text);
    const run = wymcp([file]);
    assert.equal(run.status, 1);
    assert.match(
      lineFor(run.stdout, `${file}:1`),
      /reject {2}legacy \(gate log\) +notifications\/initialized message \(dropped, not answered, by wymcp stdio: invalid-message; at \S+\) {2}-32600$/,
    );
    // The stdio gate's log has no client address: only the time is shown.
    assert.ok(lineFor(run.stdout, `${file}:1`).includes(`; at ${record(text, 1).time})`));
    assert.match(
      lineFor(run.stdout, `${file}:2`),
      /reject {2}modern \(gate log\) +out: tools\/list message \(an outbound violation logged by wymcp stdio, id 3; at \S+\)$/,
    );
    assert.deepEqual(locationsFor(run.stdout, `${file}:2`), [
      "Invalid result",
      "/result/tools/0/name  must be string",
      "… 2 more problems not listed",
    ]);
    assert.match(run.stdout, /^tools\/list \(out\) +0 +1 +0$/m);
  });

  test("a forged record cannot drive the terminal: its text, time and address are escaped again, its locations bounded", () => {
    const forged = {
      time: "2026-01-01T00:00:00.000Z\u2028",
      remote: `10.0.0.1\u001b[2J${"x".repeat(500)}`,
      face: "proxy",
      event: "refused",
      method: "tools/call\u202e\u001b[31m",
      id: "x\u2028y",
      message: "bad\u0007\u202etext",
      errors: Array.from({ length: 100 }, (_, i) => ({ instancePath: `/a\u001b${i}`, messages: ["m\u202e"] })),
    };
    const file = join(dir, "forged.log");
    writeFileSync(file, `${JSON.stringify(forged)}\n`);
    const run = wymcp([file]);
    assert.equal(run.status, 1);
    assert.ok(!/[\u0007\u001b\u2028\u202e]/.test(run.stdout), "no raw control, separator or bidi unit reaches the output");
    assert.match(run.stdout, /tools\/call\\u202e\\u001b\[31m message/);
    assert.match(run.stdout, /… 36 more problems not listed/);
    assert.match(
      run.stdout,
      /; at 2026-01-01T00:00:00\.000Z\\u2028 from 10\.0\.0\.1\\u001b\[2Jx+…\)/,
      "time and address escaped and bounded",
    );
    assert.ok(!run.stdout.includes("x".repeat(100)), "the address is cut");
  });

  test("what is not a record is judged as a message: a JSON-RPC body that begins with time, an unknown face, junk", () => {
    assert.equal(gateLogRecord(Buffer.from('{"time":"t","face":"proxy","event":"refused","jsonrpc":"2.0"}')), undefined);
    assert.equal(gateLogRecord(Buffer.from('{"time":"t","face":"gateway","event":"refused"}')), undefined);
    assert.equal(gateLogRecord(Buffer.from('{"time":"t","face":"proxy","event":5}')), undefined);
    assert.equal(gateLogRecord(Buffer.from('{"time":"t","face":"proxy","event":"refused"')), undefined);
    assert.equal(gateLogRecord(Buffer.from('{"face":"proxy","event":"refused","time":"t"}')), undefined, "a record begins with time");
    assert.deepEqual(gateLogRecord(Buffer.from('{"time":"t","face":"stdio","event":"stopped"}')), {
      face: "stdio",
      event: "stopped",
      fields: { time: "t", face: "stdio", event: "stopped" },
    });
    const file = join(dir, "mixed.jsonl");
    writeFileSync(file, '{"time":"t","jsonrpc":"2.0","id":1,"method":"ping"}\n');
    const run = wymcp(["--era", "legacy", file]);
    assert.equal(run.status, 0);
    assert.match(lineFor(run.stdout, `${file}:1`), /pass {4}legacy/);
  });
});
