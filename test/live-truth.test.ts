/**
 * What `wymcp proxy --ui --record` says about the traffic, as a new user meets it: the official Python SDK's
 * MCPServer (every feature) behind the built bin, driven by the official TypeScript SDK v1 client, then the refusals
 * a client meets before its body is read (a foreign Host, a media type, a size) and one the body alone does not show
 * (a modern request whose `Mcp-Name` header disagrees with it). The record keeps no value of the session's and is its
 * owner's alone; each refusal is a row with its own status and reason, and wymcp's answer to it a row of wymcp's,
 * paired with it; the record's closing summary names each reason; `wymcp check` on the record tells the refused calls
 * from the served ones. Then the pieces one by one: the record's mode, the stdio gate's own answers, the proxy's
 * forwarding of the page's old cookie, a row's columns, a forged mark.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { forwardedHeaders } from "../src/hosts/proxy/forward.js";
import { jsonlLine } from "../src/inspect/export.js";
import { type Capture, textOf } from "../src/inspect/live/feed.js";
import { httpFeed } from "../src/inspect/live/http-tap.js";
import { createLog } from "../src/log/gate-log.js";
import { createProxy, listen as listenProxy } from "../src/hosts/proxy/proxy.js";
import { parseProxyArgs } from "../src/cli/proxy/proxy-command.js";
import { toolsFromFlags } from "../src/cli/tools-flags.js";
import { Recorder, RECORD_MODE } from "../src/inspect/live/record.js";
import { stdioTap } from "../src/inspect/live/stdio-tap.js";
import { judgeText } from "../src/inspect/page/judge-text.js";
import { type InspectRow, rowFacts } from "../src/inspect/row.js";
import { assertFreshDist } from "./support/built.js";
import { rawPost } from "./support/gate-fixtures.js";
import { MODERN_META } from "./support/messages.js";
import { assertNothingListens, NO_UPSTREAM, recordingUpstream, type RunningProxy, startProxy, until } from "./support/proxy.js";
import { startMcpServerHttp, type PythonHttpServer } from "./support/python-servers.js";

const work = mkdtempSync(join(tmpdir(), "wymcp-truth-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** Values of the session nobody may read in a redacted record: the client's, the server's, both ways. */
const SECRETS = [
  "ARG-SECRET", // a tool's argument, and the server's echo of it
  "SAMPLED-SECRET", // the client's answer to the server's sampling request
  "ELICITED-SECRET", // the client's answer to an elicitation
  "ROOT-SECRET", // a root the client lists
  "LOG-SECRET", // a log notification's data
  "Say café", // the server's own sampling request
  "Your name?", // the server's elicitation message
  "José", // a completion the server offers
  "Łukasz", // a prompt's argument, and a resource's URI
  "Method not found", // an error's message
];

describe("wymcp proxy --ui --record in front of the Python SDK's MCPServer, the TypeScript SDK v1 client driving it", () => {
  let python: PythonHttpServer;
  let proxy: RunningProxy;
  let ui: string;
  let target: URL;
  const record = join(work, "session.jsonl");
  const base = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  /** The status of each refusal, by what it was. */
  const refused: Record<string, number> = {};

  before(async () => {
    assertFreshDist();
    python = await startMcpServerHttp("features-http");
    proxy = await startProxy(["--upstream", python.url.href, "--ui", "127.0.0.1:0", "--record", record, "--max-body-bytes", "65536"]);
    await until(() => /live page at (http:\/\/\S+)/.test(proxy.stderr()));
    ui = /live page at (http:\/\/\S+)/.exec(proxy.stderr())![1]!;
    target = new URL(python.url.pathname, proxy.url);
    const client = new Client(
      { name: "truth", version: "1" },
      { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: "assistant",
      content: { type: "text", text: "SAMPLED-SECRET" },
      model: "m",
    }));
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "ELICITED-SECRET" } }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///ROOT-SECRET", name: "r" }] }));
    await client.connect(new StreamableHTTPClientTransport(target));
    await client.callTool({ name: "echo", arguments: { text: "ARG-SECRET" } });
    await client.callTool({ name: "log", arguments: { text: "LOG-SECRET" } });
    await client.callTool({ name: "ask", arguments: {} });
    await client.getPrompt({ name: "greet", arguments: { name: "Łukasz" } });
    await client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "J" } });
    await client.readResource({ uri: "C:/Users/Łukasz/report (final).docx" });
    // This server has no logging/setLevel: its error answer, with a message of its own.
    await assert.rejects(client.setLoggingLevel("info"), /Method not found/);
    await client.close();
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 90, method: "ping" });
    refused.host = (await rawPost(target.href, { ...base, host: "elsewhere.example" }, ping)).status;
    refused.media = (await rawPost(target.href, { ...base, "content-type": "text/plain" }, ping)).status;
    refused.size = (
      await rawPost(target.href, base, JSON.stringify({ jsonrpc: "2.0", id: 91, method: "ping", params: { pad: "x".repeat(100_000) } }))
    ).status;
    // The body alone is a fine call: only its header, which no JSONL line keeps, is wrong.
    const call = { jsonrpc: "2.0", id: 92, method: "tools/call", params: { name: "echo", arguments: { text: "x" }, _meta: MODERN_META } };
    const modern = { ...base, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "not-echo" };
    refused.header = (await rawPost(target.href, modern, JSON.stringify(call))).status;
  });
  after(async () => {
    await proxy?.stop();
    await python?.stop();
  });

  test("the refusals are the gate's: 403 for the Host, 415 for the media type, 413 for the size, 400 for the header", () => {
    assert.deepEqual(refused, { host: 403, media: 415, size: 413, header: 400 });
  });

  test("each refusal before the body was read is a row with its own status and reason, and wymcp's answer to it a row of wymcp's, paired with it", async () => {
    const rows = ((await (await fetch(new URL("rows", ui))).json()) as { rows: InspectRow[] }).rows;
    for (const [reason, status] of [
      ["forbidden-host", 403],
      ["unsupported-media-type", 415],
      ["body-too-large", 413],
    ] as const) {
      const request = rows.find((row) => row.verdict.outcome === "reject" && row.verdict.reason === reason);
      assert.ok(request, `a row for the ${status}`);
      assert.equal(request.verdict.outcome === "reject" && request.verdict.status, status);
      assert.equal(request.verdict.part, "request");
      const answer = rows.find((row) => row.verdict.answers?.line === request.verdict.line && row.verdict.part !== "request");
      assert.deepEqual(answer?.verdict.own, { answer: "refused", status, reason });
      assert.equal(rowFacts({ ...answer!, body: JSON.parse(answer!.text!) }).shown, "refused");
    }
    // The header refusal: its request reads as the gate judged it, its answer as wymcp's.
    const headerAnswer = rows.find((row) => row.verdict.own?.status === 400);
    assert.deepEqual(headerAnswer?.verdict.own, { answer: "refused", status: 400, reason: "invalid-message" });
    // Every answer the server wrote is no answer of wymcp's.
    const own = rows.filter((row) => row.verdict.own !== undefined);
    assert.equal(own.length, 4);
  });

  test("the record keeps no value of the session's, either way, and is its owner's alone; the names it keeps are the tools' and prompts'", () => {
    const text = readFileSync(record, "utf8");
    for (const secret of SECRETS) assert.ok(!text.includes(secret), `${secret} is in the record`);
    assert.match(text, /"name":"echo"/);
    assert.match(text, /"name":"greet"/);
    assert.equal(statSync(record).mode & 0o777, 0o600);
  });

  test("the record's closing summary names each reason: the 413 over the size limit, the 403 and the 415 refused before their body was read", async () => {
    await proxy.stop();
    assert.match(proxy.stderr(), /1 over the size limit left out, 2 refused before their body was read/);
  });

  test("wymcp check on the record tells the refused calls from the served ones", () => {
    const check = spawnSync(process.execPath, ["dist/cli.js", "check", record], { encoding: "utf8" });
    assert.equal(check.status, 1, check.stdout);
    assert.match(check.stdout, /4 answered by wymcp, not served \(4 refused, 0 upstream failed\)/);
    assert.match(check.stdout, /wymcp\s+.*refused by wymcp: 415 unsupported-media-type/);
    assert.match(check.stdout, /refused by wymcp: 400 invalid-message/);
    // --quiet keeps them: they were not served.
    const quiet = spawnSync(process.execPath, ["dist/cli.js", "check", "--quiet", record], { encoding: "utf8" });
    assert.equal(quiet.stdout.match(/refused by wymcp: \d+/g)?.length, 4, quiet.stdout);
    // The header-refused call's own line passes: only the mark on its answer tells that it was not served.
    const json = spawnSync(process.execPath, ["dist/cli.js", "check", "--json", record], { encoding: "utf8" });
    const verdicts = json.stdout
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith('{"summary":'))
      .map((line) => JSON.parse(line) as { line: number; outcome: string; own?: unknown; answers?: { line: number } });
    const answer = verdicts.find((v) => (v.own as { status?: number } | undefined)?.status === 400)!;
    assert.equal(verdicts.find((v) => v.line === answer.answers?.line)?.outcome, "pass");
  });
});

describe("the pieces", () => {
  test("the record is made 0600 whatever the umask, an existing file is set to 0600 before anything is written, and a device is left as it is", async () => {
    const fresh = join(work, "fresh.jsonl");
    const old = join(work, "old.jsonl");
    writeFileSync(old, "an older record\n");
    chmodSync(old, 0o644);
    const previous = process.umask(0o000);
    try {
      for (const path of [fresh, old]) {
        const recorder = new Recorder(path, { reveal: false, report: () => undefined });
        assert.equal(statSync(path).mode & 0o777, RECORD_MODE, path);
        assert.equal(readFileSync(path, "utf8"), "", "truncated");
        await recorder.close();
      }
    } finally {
      process.umask(previous);
    }
    const device = statSync("/dev/null").mode;
    await new Recorder("/dev/null", { reveal: false, report: () => undefined }).close();
    assert.equal(statSync("/dev/null").mode, device);
  });

  test("the proxy tells which answers are its own: the server's tools' refusal, its 502 for an upstream it cannot reach; a served answer is the server's", async () => {
    await assertNothingListens();
    const tools = join(work, "tools.json");
    writeFileSync(
      tools,
      JSON.stringify({
        tools: [{ name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }],
      }),
    );
    const up = await recordingUpstream();
    const captures: Capture[] = [];
    const observer = { stage: httpFeed((capture) => captures.push(capture), { maxBytes: 1024 * 1024 }).stage };
    const log = createLog("proxy", "text", () => undefined);
    const started: Array<{ url: string; close: () => Promise<number> }> = [];
    for (const upstream of [up.url, NO_UPSTREAM]) {
      const parsed = parseProxyArgs(["--upstream", upstream.href, "--tools", tools, "--no-learn-tools"]);
      const proxy = createProxy({ ...parsed.options, tools: await toolsFromFlags(parsed.toolFlags, log, parsed.options) }, log, {
        observer,
      });
      const { server, address } = await listenProxy(proxy, "127.0.0.1", 0);
      started.push({ url: `http://127.0.0.1:${address.port}/mcp`, close: () => proxy.drain(server) });
    }
    try {
      const headers = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      };
      const post = (url: string, id: number, args: unknown) =>
        rawPost(url, headers, JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: args } }));
      assert.equal((await post(started[0]!.url, 1, { text: "fine" })).status, 200);
      assert.match((await post(started[0]!.url, 2, { text: 42 })).text, /"isError":true/);
      assert.equal((await post(started[1]!.url, 3, { text: "fine" })).status, 502);
      const answers = captures.filter((c) => c.from === "server").map((c) => [JSON.parse(textOf(c)!).id, c.own]);
      assert.deepEqual(answers, [
        [1, undefined],
        [2, { answer: "refused", status: 200, reason: "tool-arguments" }],
        [3, { answer: "failed", status: 502, reason: "upstream-unreachable" }],
      ]);
    } finally {
      for (const proxy of started) await proxy.close();
      await up.close();
    }
  });

  test("the stdio gate's own lines are captured as wymcp's answers; the server's are not", () => {
    const captures: Capture[] = [];
    const chunk = stdioTap((c) => captures.push(c), { maxBytes: 1024 });
    chunk("server", '{"jsonrpc":"2.0","id":1,"result":{}}\n');
    chunk("wymcp", '{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"m"}}\n');
    assert.deepEqual(
      captures.map((c) => [c.from, c.own]),
      [
        ["server", undefined],
        ["server", { answer: "refused" }],
      ],
    );
  });

  test("the proxy forwards no cookie of the live page's (an earlier version set one on the proxy's host), and every other as it came", () => {
    const req = {
      headers: { host: "127.0.0.1:3000" },
      rawHeaders: ["Host", "127.0.0.1:3000", "Cookie", "session=abc; wymcp-ui=0123456789abcdef; theme=dark", "Cookie", "wymcp-ui=x"],
      socket: { remoteAddress: "127.0.0.1" },
    } as unknown as IncomingMessage;
    const upstream = { url: new URL("http://127.0.0.1:8000/mcp"), rewriteHost: false, trustProxy: false };
    assert.equal(forwardedHeaders(req, upstream, undefined).cookie, "session=abc; theme=dark");
    const plain = { ...req, rawHeaders: ["Cookie", "session=abc;theme=dark"] } as unknown as IncomingMessage;
    assert.equal(forwardedHeaders(plain, upstream, undefined).cookie, "session=abc;theme=dark", "left as it came");
  });

  test("a row's verdict column says what it is: an error answer, a tool's error, wymcp's own answer, the verdict", () => {
    const rows = judgeText(
      [
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{}}}',
        '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"no"}],"isError":true}}',
        '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}',
        '{"jsonrpc":"2.0","id":3,"method":"ping"}',
        '{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"refused"},"wymcp":{"answer":"refused","status":400,"reason":"invalid-message"}}',
      ].join("\n"),
      "t",
      { era: "auto" },
    );
    assert.deepEqual(
      rows.map((row) => rowFacts(row).shown),
      ["pass", "tool error", "pass", "error", "pass", "refused"],
    );
    assert.deepEqual(rowFacts(rows[5]!).own, { answer: "refused", status: 400, reason: "invalid-message" });
  });

  test("a message nested deeper than the stack walks is written as a line that says so, redacted or not, and nothing throws", () => {
    const depth = 200_000;
    const deep = `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":${"[".repeat(depth)}${"]".repeat(depth)}}}`;
    for (const reveal of [false, true]) assert.equal(jsonlLine(deep, reveal), "[redacted] (nested too deeply to write)");
  });

  test("a message of the traffic that carries wymcp's mark itself loses it in the record: only wymcp's own answers have one", () => {
    const forged = '{"jsonrpc":"2.0","id":1,"result":{},"wymcp":{"answer":"refused","status":403}}';
    for (const reveal of [true, false]) assert.equal(jsonlLine(forged, reveal), '{"jsonrpc":"2.0","id":1,"result":{}}');
    assert.equal(
      jsonlLine('{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"m"}}', false, { answer: "refused", status: 400 }),
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"m"},"wymcp":{"answer":"refused","status":400}}',
    );
  });
});
