/**
 * `wymcp inspect` without a browser: the ring's bound, the export's redaction, the listener's answers (its own paths
 * only, the Content-Security-Policy, the Host and token checks) and the refusal of a non-loopback address without a
 * token.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { after, before, describe, test } from "node:test";
import { parseInspectArgs, startInspect } from "../src/cli/inspect/command.js";
import { exportHar, exportJsonl, REDACTED, redact } from "../src/inspect/export.js";
import { CONTENT_SECURITY_POLICY, type Listener, listen } from "../src/inspect/listener.js";
import { RowRing } from "../src/inspect/ring.js";
import { rowFacts } from "../src/inspect/row.js";
import { judgeText } from "../src/inspect/page/judge-text.js";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RowInput } from "../src/inspect/row.js";
import { assertFreshDist } from "./support/built.js";

const JSONL = "test/fixtures/cli/legacy-elicitation.jsonl";

describe("the ring of rows", () => {
  test("holds at most its capacity, oldest dropped first, and tells each listener of each row pushed", () => {
    const ring = new RowRing(3);
    const seen: number[] = [];
    const stop = ring.subscribe((row) => seen.push(row.seq));
    const [row] = judgeText('{"jsonrpc":"2.0","id":1,"method":"ping"}', "t", { era: "auto" });
    for (let i = 0; i < 5; i++) ring.push(row!);
    stop();
    ring.push(row!);
    assert.deepEqual(
      ring.rows().map((r) => r.seq),
      [4, 5, 6],
    );
    assert.deepEqual(seen, [1, 2, 3, 4, 5]);
    assert.throws(() => new RowRing(0), RangeError);
  });

  test("drops the oldest rows past its bound on text, whatever their count, keeping the newest", () => {
    const ring = new RowRing(100, 100);
    const [row] = judgeText(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"${"x".repeat(20)}"}}}`, "t", {
      era: "auto",
    });
    const size = row!.text!.length;
    for (let i = 0; i < 10; i++) ring.push(row!);
    assert.equal(ring.rows().length, Math.floor(100 / size));
    assert.equal(ring.rows().at(-1)!.seq, 10);
    const big = { ...row!, text: "y".repeat(500) };
    ring.push(big);
    assert.deepEqual(
      ring.rows().map((r) => r.seq),
      [11],
    );
  });
});

describe("judging in the page's module", () => {
  test("a pasted message is judged under the revision picked, and its failing location is in the row's facts", () => {
    const text = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 42, arguments: {} } });
    const [legacy] = judgeText(text, "p", { era: "auto", revision: "2025-06-18" });
    const [modern] = judgeText(text, "p", { era: "auto", revision: "2026-07-28" });
    assert.deepEqual([rowFacts(legacy!).era, rowFacts(legacy!).revision, rowFacts(legacy!).verdict], ["legacy", "2025-06-18", "reject"]);
    assert.equal(rowFacts(modern!).era, "modern");
    assert.deepEqual(
      rowFacts(legacy!).locations.map((l) => l.instancePath),
      ["/params/name"],
    );
    assert.equal(rowFacts(legacy!).code, -32602);
  });

  test("a JSONL capture pairs each response with its request, as wymcp check does", () => {
    const text = ['{"jsonrpc":"2.0","id":1,"method":"tools/list"}', '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'].join("\n");
    const rows = judgeText(text, "p", { era: "auto" });
    assert.equal(rows[1]!.verdict.method, "tools/list");
    assert.deepEqual(rows[1]!.verdict.answers, { line: 1, from: "client" });
  });
});

describe("the export", () => {
  test("redacts tool arguments, result texts and data, structured content and _meta values, keeping the protocol's own _meta keys", () => {
    const call = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "search",
        arguments: { q: "secret" },
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", trace: "t-1" },
      },
    };
    assert.deepEqual(redact(call), {
      ...call,
      params: {
        name: "search",
        arguments: { q: REDACTED },
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", trace: REDACTED },
      },
    });
    const result = {
      jsonrpc: "2.0",
      id: 1,
      result: {
        content: [
          { type: "text", text: "secret" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ],
        structuredContent: { n: 1 },
      },
    };
    assert.deepEqual(redact(result), {
      jsonrpc: "2.0",
      id: 1,
      result: {
        content: [
          { type: "text", text: REDACTED },
          { type: "image", data: "", mimeType: REDACTED },
        ],
        structuredContent: { n: 0 },
      },
    });
  });

  test("keeps every value when asked, one message per line, and leaves out (counting) a message over the size limit", () => {
    const rows = judgeText('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"q":"x"}}}', "p", {
      era: "auto",
    });
    assert.equal(
      exportJsonl(rows, true).text,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"q":"x"}}}\n',
    );
    assert.deepEqual(exportJsonl([{ ...rows[0]!, text: undefined }], false), { text: "", left: 1 });
  });
});

describe("the HAR export", () => {
  const columns = (rows: RowInput[]) =>
    rows.map((row) => {
      const f = rowFacts(row);
      return `${f.verdict} ${f.direction} ${f.era} ${f.revision} ${f.method} ${f.code}`;
    });
  for (const file of [JSONL, "test/fixtures/cli/session.har", "test/fixtures/cli/mixed.jsonl"])
    test(`${file}: every message is judged from the export, redacted or not, with the verdict, era, revision and method it had`, () => {
      const rows = judgeText(readFileSync(file, "utf8"), file, { era: "auto" });
      for (const reveal of [true, false]) {
        const back = judgeText(exportHar(rows, reveal).text, "export", { era: "auto" });
        // A server's answer moves up beside its request in a HAR file: the same messages, in the order of the exchanges.
        assert.deepEqual(columns(back).sort(), columns(rows).sort(), `reveal: ${reveal}`);
      }
    });
});

describe("the listener", () => {
  let listener: Listener;
  let base: string;
  before(async () => {
    assertFreshDist();
    ({ listener } = await startInspect([JSONL]));
    base = listener.url.replace(/\/$/, "");
  });
  after(() => listener?.close());

  test("serves the page with a Content-Security-Policy of its own origin only and no inline script", async () => {
    const answer = await fetch(`${base}/`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
    assert.match(CONTENT_SECURITY_POLICY, /default-src 'self'/);
    assert.doesNotMatch(CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval|\*/);
    const html = await answer.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "no inline script");
    assert.doesNotMatch(html, /https?:\/\//, "nothing from another origin");
  });

  test("answers its own paths only: 404 for anything else, 405 for a method other than GET", async () => {
    for (const path of ["/nope", "/../package.json", "/cli.js", "/index.d.ts", "/inspect/index.html"])
      assert.equal((await fetch(`${base}${path}`)).status, 404, path);
    assert.equal((await fetch(`${base}/rows`, { method: "POST" })).status, 405);
    const rows = (await (await fetch(`${base}/rows`)).json()) as { rows: unknown[]; capacity: number };
    assert.equal(rows.capacity, 10_000);
    assert.ok(rows.rows.length > 10);
  });

  test("refuses a request naming another Host (a page of another site reaching it through DNS rebinding)", async () => {
    const { request } = await import("node:http");
    const status = await new Promise<number>((done, fail) => {
      request(`${base}/rows`, { headers: { host: "attacker.example:80" } }, (res) => {
        res.resume();
        done(res.statusCode!);
      })
        .on("error", fail)
        .end();
    });
    assert.equal(status, 421);
  });

  test("with a token, the rows and their stream need it (a Bearer header, or ?token=), the page's own files do not, and no cookie is set", async () => {
    const ring = new RowRing();
    const token = "0123456789abcdef0123";
    const guarded = await listen({ ring, host: "127.0.0.1", port: 0, token });
    try {
      const root = new URL(guarded.url);
      for (const path of ["/rows", "/events", "/rows?token=wrong-token-wrong-token"])
        assert.equal((await fetch(`${root.origin}${path}`)).status, 401, path);
      assert.equal((await fetch(`${root.origin}/rows`, { headers: { authorization: "Bearer wrong-token-wrong-token" } })).status, 401);
      const page = await fetch(guarded.url);
      assert.equal(page.status, 200);
      assert.equal((await fetch(`${root.origin}/page.css`)).status, 200, "the page's files are the package's, the same for all");
      for (const answer of [page, await fetch(`${root.origin}/rows?token=${token}`)]) assert.equal(answer.headers.get("set-cookie"), null);
      assert.equal((await fetch(`${root.origin}/rows`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
      // A cookie of an earlier version is no token now.
      assert.equal((await fetch(`${root.origin}/rows`, { headers: { cookie: `wymcp-ui=${token}` } })).status, 401);
      const events = new AbortController();
      assert.equal((await fetch(`${root.origin}/events?token=${token}`, { signal: events.signal })).status, 200);
      events.abort();
    } finally {
      await guarded.close();
    }
  });

  test("a non-loopback address is refused without --ui-token, by the parser and by the command (exit 2)", () => {
    assert.throws(() => parseInspectArgs(["--listen", "0.0.0.0:0", JSONL], {}), /not a loopback address/);
    assert.equal(parseInspectArgs(["--listen", "[::1]:0", JSONL], {}).host, "::1");
    assert.equal(parseInspectArgs(["--listen", "0.0.0.0:0", "--ui-token", "0123456789abcdef", JSONL], {}).token, "0123456789abcdef");
    assert.equal(parseInspectArgs(["--listen", "0.0.0.0:0", JSONL], { WYMCP_UI_TOKEN: "fedcba9876543210" }).token, "fedcba9876543210");
    assert.throws(() => parseInspectArgs(["--listen", "0.0.0.0:0", JSONL], { WYMCP_UI_TOKEN: "" }), /not a loopback address/);
    const env = { ...process.env, WYMCP_UI_TOKEN: "" };
    const run = spawnSync(process.execPath, ["dist/cli.js", "inspect", "--listen", "0.0.0.0:0", JSONL], { encoding: "utf8", env });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /not a loopback address.*--ui-token/);
  });

  test("a run that could read no message says so and exits 2 without serving: a missing file, a HAR whose POSTs kept no body", () => {
    const dir = mkdtempSync(join(tmpdir(), "wymcp-inspect-"));
    try {
      const har = join(dir, "no-bodies.har");
      const entry = {
        startedDateTime: "2026-12-07T10:00:00.000Z",
        time: 1,
        request: {
          method: "POST",
          url: "http://127.0.0.1:3000/mcp",
          httpVersion: "HTTP/1.1",
          headers: [],
          queryString: [],
          cookies: [],
          headersSize: -1,
          bodySize: 42,
        },
        response: {
          status: 200,
          statusText: "OK",
          httpVersion: "HTTP/1.1",
          headers: [],
          cookies: [],
          content: { size: 0, mimeType: "application/json" },
          redirectURL: "",
          headersSize: -1,
          bodySize: -1,
        },
        cache: {},
        timings: { send: 0, wait: 1, receive: 0 },
      };
      writeFileSync(har, JSON.stringify({ log: { version: "1.2", creator: { name: "t", version: "1" }, entries: [entry] } }));
      for (const input of [join(dir, "missing.jsonl"), har]) {
        const run = spawnSync(process.execPath, ["dist/cli.js", "inspect", "--listen", "127.0.0.1:0", input], { encoding: "utf8" });
        assert.equal(run.status, 2, `${input}: ${run.stdout}${run.stderr}`);
        assert.match(run.stderr, /nothing to show: the page is not served/, input);
        assert.doesNotMatch(run.stdout, /http:\/\//, "no page address printed");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the bin prints the page's address, serves the rows there, and exits 0 when interrupted", async () => {
    const child = spawn(process.execPath, ["dist/cli.js", "inspect", JSONL], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    const url = await new Promise<string>((done, fail) => {
      child.stdout.on("data", (text: string) => {
        out += text;
        const match = /the page is at (http:\/\/127\.0\.0\.1:\d+\/)\n/.exec(out);
        if (match) done(match[1]!);
      });
      child.once("exit", (code) => fail(new Error(`exited ${code} before listening: ${out}`)));
    });
    assert.match(out, /^wymcp inspect: \d+ messages judged; /);
    const rows = (await (await fetch(`${url}rows`)).json()) as { rows: { verdict: { source: string } }[] };
    assert.ok(rows.rows.length > 0 && rows.rows.every((r) => r.verdict.source === JSONL));
    child.kill("SIGINT");
    const [code] = await once(child, "exit");
    assert.equal(code, 0);
  });
});
