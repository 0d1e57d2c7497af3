import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { MAX_ROWS, MethodTally } from "../src/check/by-method.js";
import { Exchange, MAX_PENDING } from "../src/check/exchange.js";
import { checkFiles } from "../src/check/check-files.js";
import { HarError, harMessages, readHar } from "../src/check/har.js";
import { parseCheckOptions } from "../src/cli/check/options.js";
import { eachEventData } from "../src/wire/sse.js";
import { CLI_EXAMPLES } from "../scripts/cli-examples.js";
import { FIXTURES, wymcp } from "./support/cli.js";
import { assertFreshDist } from "./support/built.js";
import { assertGoldenText } from "./support/golden.js";

type JsonVerdict = {
  line: number;
  part?: string;
  direction: "in" | "out";
  era: string | null;
  eraSignal: string | null;
  outcome: string;
  kind: string | null;
  definition: string | null;
  method?: string;
  /** The legacy revision that judged it. */
  revision?: string;
  answers?: { line: number; part?: string };
};

const verdicts = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .filter((l) => !l.startsWith('{"summary":'))
    .map((l) => JSON.parse(l) as JsonVerdict);

/** The messages of a fixture, as `wymcp check` reads them: by line, or by HAR entry and part. */
function messagesOf(file: string): Map<string, Record<string, unknown> | undefined> {
  const text = readFileSync(join(FIXTURES, file), "utf8");
  const out = new Map<string, Record<string, unknown> | undefined>();
  const parse = (t: string) => {
    try {
      return JSON.parse(t) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  if (file.endsWith(".har")) {
    for (const m of readHar(text, 1 << 30).messages) out.set(`${m.entry} ${m.part}`, parse(new TextDecoder().decode(m.bytes!)));
  } else text.split("\n").forEach((l, i) => out.set(String(i + 1), parse(l)));
  return out;
}

function runExample(golden: string): void {
  assertFreshDist();
  const example = CLI_EXAMPLES.find((e) => e.golden === golden)!;
  const run = wymcp(example.args);
  assert.equal(run.status, example.status, run.stdout + run.stderr);
  assert.equal(run.stderr, "");
  assertGoldenText(golden, run.stdout);
}

describe("wymcp check on recorded captures (npm run record:captures: the SDK's client and server)", () => {
  test("the HAR file, as pinned", () => runExample("cli/session-har.txt"));
  test("the same session as JSON lines, --quiet, as pinned", () => runExample("cli/session-jsonl-quiet.txt"));
  test("a headerless 2025-11-25 stdio session with elicitation and sampling, as pinned", () => runExample("cli/legacy-elicitation.txt"));

  for (const file of ["session.har", "session.jsonl"]) {
    test(`${file}: every response is judged against the request with its id, in its era; requests by their own method`, () => {
      assertFreshDist();
      const run = wymcp(["--json", file]);
      const messages = messagesOf(file);
      const all = verdicts(run.stdout);
      const key = (v: { line: number; part?: string }) => (v.part === undefined ? String(v.line) : `${v.line} ${v.part}`);
      const byKey = new Map(all.map((v) => [key(v), v]));
      let paired = 0;
      for (const v of all) {
        if (!v.answers) continue;
        paired++;
        const request = messages.get(key(v.answers))!;
        const response = messages.get(key(v))!;
        assert.equal(request.id, response.id, `${file} ${key(v)} answers a request with its own id`);
        assert.equal(v.method, request.method, `${file} ${key(v)} takes its request's method`);
        assert.equal(v.era, byKey.get(key(v.answers))!.era, `${file} ${key(v)} takes its request's era`);
        assert.equal(v.eraSignal, "request");
      }
      // Every result or error of the session has its request in it, but the answer to the body that was not JSON.
      const responses = all.filter((v) => v.kind === "result" || v.kind === "error");
      assert.equal(paired, responses.length - 1, `${file}: ${paired} of ${responses.length} responses paired`);
      assert.equal(paired, 17);
      // The two legacy sessions reuse ids 0, 1, 2: each response finds its own session's request.
      const initializes = all.filter((v) => v.method === "initialize" && v.answers);
      assert.equal(initializes.length, 2);
      assert.notEqual(initializes[0]!.answers!.line, initializes[1]!.answers!.line);
      // What each request was judged against: a legacy one by its revision's definition of its method, a modern one by
      // its method; a legacy response by the revision its request was judged by.
      assert.ok(
        all.some((v) => v.era === "legacy" && v.kind === "request" && v.definition === "ListToolsRequest" && v.revision !== undefined),
      );
      for (const v of all.filter((v) => v.era === "legacy" && v.answers)) {
        assert.equal(v.revision, byKey.get(key(v.answers!))!.revision, `${file} ${key(v)} takes its request's revision`);
      }
      assert.ok(all.some((v) => v.method === "server/discover" && v.definition === "DiscoverResult"));
    });
  }

  test("a server/discover result is judged as DiscoverResult, whatever --method says (--method names a lone response only)", () => {
    assertFreshDist();
    const lines = readFileSync(join(FIXTURES, "session.jsonl"), "utf8").split("\n").slice(0, 2).join("\n");
    const run = wymcp(["--json", "--method", "tools/list", "-"], { input: `${lines}\n` });
    const [, result] = verdicts(run.stdout);
    assert.equal(result!.definition, "DiscoverResult");
    assert.equal(result!.method, "server/discover");
    assert.equal(result!.era, "modern");
    const lone = wymcp(["--json", "--method", "tools/list", "-"], { input: `${lines.split("\n")[1]}\n` });
    assert.equal(verdicts(lone.stdout)[0]!.definition, "ListToolsResult", "with no request in the capture, --method names it");
  });

  test("in human words: the table counts per method, responses under the method they answer", () => {
    assertFreshDist();
    const run = wymcp(["session.jsonl"]);
    assert.match(run.stdout, /\nby method +pass +rejected +bypassed\n/);
    assert.match(run.stdout, /\ntools\/list result +3 +0 +0\n/);
    assert.match(run.stdout, /\nserver\/discover result +1 +0 +0\n/);
    assert.match(run.stdout, /\n\(not JSON\) +0 +1 +0\n/);
    assert.match(run.stdout, /, answering line 3\n/);
    // A legacy initialize is judged by the revision it asks for, and its result by the same one.
    assert.match(run.stdout, /initialize request \(InitializeRequest, revision 2025-11-25\)\n/);
    assert.match(run.stdout, /out: initialize result \(InitializeResult, revision 2025-11-25\), answering line 13\n/);
    // With --rule params=off, the legacy lane's seed rule: the framing alone.
    assert.match(wymcp(["--rule", "params=off", "session.jsonl"]).stdout, /initialize request \(JSONRPCRequest; framing only\)\n/);
  });
});

describe("HAR files", () => {
  const entry = (request: Record<string, unknown>, response: Record<string, unknown> = {}) => ({ request, response });
  const post = (url: string, text: string, headers: Array<{ name: string; value: string }> = []) => ({
    method: "POST",
    url,
    headers,
    postData: { mimeType: "application/json", text },
  });
  const har = (...entries: unknown[]) => JSON.stringify({ log: { version: "1.2", entries } });
  const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

  test("only the endpoints some POST of which carries JSON-RPC or an MCP header; other requests are left out", () => {
    const { messages } = readHar(
      har(
        entry(post("https://app.test/api/login", '{"user":"a"}')),
        entry({ method: "GET", url: "https://app.test/index.html" }, { content: { mimeType: "text/html", text: "<html>" } }),
        entry(post("https://app.test/mcp?x=1", ping), {
          content: { mimeType: "application/json", text: '{"jsonrpc":"2.0","id":1,"result":{}}' },
        }),
        entry(post("https://app.test/mcp", "{cut off")),
      ),
      1 << 20,
    );
    assert.deepEqual(
      messages.map((m) => [m.entry, m.part, m.from]),
      [
        [3, "request", "client"],
        [3, "response", "server"],
        [4, "request", "client"],
      ],
    );
  });

  test("an event stream is split into its messages; base64 content is decoded; a GET stream on the endpoint is read", () => {
    const stream = 'event: message\nid: 1\ndata: \n\nevent: message\ndata: {"jsonrpc":"2.0",\n';
    const body = `${stream}data: "method":"notifications/message","params":{"level":"info","data":1}}\n\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n`;
    const { messages } = readHar(
      har(
        entry(post("http://h/mcp", ping, [{ name: "Mcp-Session-Id", value: "s" }]), {
          content: { mimeType: "text/event-stream", text: Buffer.from(body).toString("base64"), encoding: "base64" },
        }),
        entry(
          { method: "GET", url: "http://h/mcp", headers: [{ name: "mcp-session-id", value: "s" }] },
          { content: { mimeType: "text/event-stream", text: 'data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n' } },
        ),
      ),
      1 << 20,
    );
    assert.deepEqual(
      messages.map((m) => [m.entry, m.part, m.headers["mcp-session-id"]]),
      [
        [1, "request", "s"],
        [1, "event 1", "s"],
        [1, "event 2", "s"],
        [2, "event 1", "s"],
      ],
    );
    assert.equal(
      JSON.parse(new TextDecoder().decode(messages[1]!.bytes!)).method,
      "notifications/message",
      "data lines joined by newlines",
    );
  });

  test("a message over --max-bytes is marked too large; a POST whose body the capture left out is counted", () => {
    const reading = readHar(har(entry(post("http://h/mcp", ping)), entry({ method: "POST", url: "http://h/mcp", headers: [] })), 10);
    assert.equal(reading.messages[0]!.bytes, undefined);
    assert.equal(reading.withoutBody, 1);
  });

  test("base64 content that does not decode is counted, not read as empty, and wymcp check reports it on stderr", () => {
    const bad = entry(post("http://h/mcp", ping), { content: { mimeType: "application/json", text: "e30=!", encoding: "base64" } });
    const good = entry(post("http://h/mcp", ping), {
      content: {
        mimeType: "application/json",
        text: Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}').toString("base64"),
        encoding: "base64",
      },
    });
    const reading = readHar(har(bad, good), 1 << 20);
    assert.deepEqual(
      reading.messages.map((m) => [m.entry, m.part]),
      [
        [1, "request"],
        [2, "request"],
        [2, "response"],
      ],
    );
    assert.equal(reading.undecodable, 1);
    assert.equal(reading.withoutBody, 0);
    assertFreshDist();
    const run = wymcp(["--format", "har", "-"], { input: har(bad, bad, good) });
    assert.match(run.stderr, /^wymcp check: <stdin>: 2 responses on the MCP endpoint held base64 content that does not decode/m);
    assert.match(run.stdout, /^4 messages: 4 pass/m);
  });

  const tinyEvents = (count: number) =>
    har(entry(post("http://h/mcp", ping), { content: { mimeType: "text/event-stream", text: "data: {}\n\n".repeat(count) } }));

  test("an event stream of many tiny events is read one message at a time: none is made before the loop asks for it", () => {
    let made = 0;
    let read = 0;
    let ahead = 0;
    const reading = harMessages(tinyEvents(300_000), 1 << 20, () => made++);
    assert.equal(made, 0, "nothing is made before the first message is asked for");
    assert.equal(reading.lastEntry, 1);
    for (const message of reading.messages) {
      read++;
      ahead = Math.max(ahead, made - read);
      if (read === 2) assert.deepEqual([message.entry, message.part, message.from], [1, "event 1", "server"]);
    }
    assert.equal(ahead, 0, "each message is made when it is asked for, never ahead of the loop");
    assert.equal(read, 300_001);
    assert.equal(made, read);
  });

  test("wymcp check judges a HAR of 300,000 tiny events to the end, each event its own message, in order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wymcp-har-"));
    try {
      const file = join(dir, "tiny.har");
      writeFileSync(file, tinyEvents(300_000));
      const { options, files } = parseCheckOptions(["--quiet", file]);
      let last = "";
      let judged = 0;
      const { exitCode, tally } = await checkFiles(files, options, { write: () => true }, ({ verdict }) => {
        judged++;
        last = `${verdict.line} ${verdict.part}`;
      });
      assert.equal(exitCode, 1);
      assert.deepEqual(tally, { pass: 1, reject: 300_000, bypass: 0, reported: 0, refused: 0, failed: 0 });
      assert.equal(judged, 300_001);
      assert.equal(last, "1 event 300000");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a file that is not a HAR file: a clear error, exit 2, the other inputs still judged", () => {
    assert.throws(() => readHar("[]", 1 << 20), HarError);
    assert.throws(() => readHar("{", 1 << 20), /not JSON/);
    assertFreshDist();
    const dir = mkdtempSync(join(tmpdir(), "wymcp-har-"));
    try {
      writeFileSync(join(dir, "bad.har"), "{}");
      const run = wymcp([join(dir, "bad.har"), "bad-tools-call.json"]);
      assert.equal(run.status, 2);
      assert.match(run.stderr, /^wymcp check: cannot read ".*bad\.har": no log\.entries: not a HAR file$/m);
      assert.match(run.stdout, /bad-tools-call\.json:1 +reject/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a server's notification in a response stream is judged as the server's, in the era of the request that opened it", () => {
    assertFreshDist();
    const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}';
    const call = `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{${meta},"name":"slow","arguments":{}}}`;
    const stream = `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}\n\ndata: {"jsonrpc":"2.0","id":"c","result":{"content":[]}}\n\n`;
    const run = wymcp(["--json", "--format", "har", "-"], {
      input: har(entry(post("http://h/mcp", call), { content: { mimeType: "text/event-stream", text: stream } })),
    });
    const [request, progress, result] = verdicts(run.stdout);
    assert.equal(request!.era, "modern");
    assert.deepEqual([progress!.direction, progress!.era, progress!.eraSignal], ["out", "modern", "request"]);
    assert.deepEqual(
      [result!.direction, result!.method, result!.answers],
      ["out", "tools/call", { line: 1, part: "request", from: "client" }],
    );
  });

  test("a request body is refused for its entry's Content-Type as the gates refuse it (415); the server's answer is not", () => {
    assertFreshDist();
    const plain = [{ name: "Content-Type", value: "text/plain" }];
    const json = [{ name: "Content-Type", value: "application/json; charset=utf-8" }];
    const run = wymcp(["--json", "--format", "har", "-"], {
      input: har(
        entry(post("http://h/mcp", ping, plain), {
          content: { mimeType: "application/json", text: '{"jsonrpc":"2.0","id":1,"result":{}}' },
        }),
        entry(post("http://h/mcp", ping, json)),
      ),
    });
    const [refused, answer, accepted] = verdicts(run.stdout) as Array<JsonVerdict & { status?: number; reason?: string }>;
    assert.deepEqual(
      [refused!.part, refused!.outcome, refused!.status, refused!.reason],
      ["request", "reject", 415, "unsupported-media-type"],
    );
    assert.deepEqual([answer!.part, answer!.direction, answer!.outcome], ["response", "out", "pass"]);
    assert.deepEqual([accepted!.line, accepted!.outcome], [2, "pass"]);
    assert.equal(run.status, 1);
    // In words: the refusal says what the gates would, and the table counts it on a row of its own.
    const human = wymcp(["--format", "har", "-"], { input: har(entry(post("http://h/mcp", ping, plain))) });
    assert.match(human.stdout, /<stdin>:1 request +reject +- +not application\/json +-32600\n/);
    assert.match(human.stdout, /^\(not application\/json\) +0 +1 +0$/m);
  });
});

describe("Exchange: which request a response answers", () => {
  const request = (line: number, method = "tools/call", from: "client" | "server" = "client") => ({
    method,
    era: "legacy" as const,
    eraSignal: "default" as const,
    line,
    from,
  });

  test('ids are per sender and per session; 1 and "1" are two ids; an answered request is answered once', () => {
    const exchange = new Exchange();
    exchange.sent("a", 1, request(1));
    exchange.sent("b", 1, request(2, "tools/list"));
    exchange.sent("a", 1, request(3, "sampling/createMessage", "server"));
    exchange.sent("a", "1", request(4, "ping"));
    assert.equal(exchange.answer("b", 1)?.line, 2);
    assert.equal(exchange.answer("a", 1, "server")?.line, 1, "a server's response answers a client's request");
    assert.equal(exchange.answer("a", 1, "client")?.line, 3, "a client's response answers a server's request");
    assert.equal(exchange.answer("a", "1")?.line, 4);
    assert.equal(exchange.answer("a", 1), undefined);
  });

  test("without a sender, the most recent request of either side with that id", () => {
    const exchange = new Exchange();
    exchange.sent("", 7, request(1));
    exchange.sent("", 7, request(5, "roots/list", "server"));
    assert.equal(exchange.answer("", 7)?.method, "roots/list");
    assert.equal(exchange.answer("", 7)?.method, "tools/call");
  });

  test("ids that are not JSON-RPC ids are not kept; pending requests are bounded", () => {
    const exchange = new Exchange();
    for (const id of [null, undefined, {}, [], Number.NaN, true]) exchange.sent("", id, request(1));
    assert.equal(exchange.answer("", null), undefined);
    for (let i = 0; i <= MAX_PENDING; i++) exchange.sent("", i, request(i));
    assert.equal(exchange.answer("", 0), undefined, "the oldest is dropped past the bound");
    assert.equal(exchange.answer("", MAX_PENDING)?.line, MAX_PENDING);
  });
});

describe("event streams and the by-method table", () => {
  test("eachEventData: data lines joined, CRLF and CR, comments and other fields skipped, no trailing blank line needed", () => {
    assert.deepEqual(
      [...eachEventData("data: a\r\ndata: b\r\n\r\n: comment\nid: 3\nevent: x\ndata:c\n\ndata\n\ndata: d")],
      ["a\nb", "c", "d"],
    );
  });

  test("the table keeps its first methods in order and counts the rest together", () => {
    const tally = new MethodTally();
    for (let i = 0; i < MAX_ROWS + 10; i++) tally.add(`m${i}`, "pass");
    tally.add("m0", "reject");
    assert.equal(tally.size, MAX_ROWS + 1);
    assert.deepEqual(tally.toJSON().m0, { pass: 1, reject: 1, bypass: 0 });
    assert.deepEqual(tally.toJSON()["(other methods)"], { pass: 10, reject: 0, bypass: 0 });
  });
});
