/**
 * The live page tells the truth, in real headless Chromium (Debian's package, driven by playwright-core) on
 * `wymcp proxy --ui --ui-token` in front of a server that records what reaches it: the page works with its token and
 * sets no cookie, so the proxy's upstream never receives one of the page's (nor an earlier version's); the text search
 * finds what the pane shows (an answer written as `\u0141ukasz` found by `Łukasz`); each request is paired with its
 * answer both ways with the latency; an error answer reads as an error; wymcp's own answers read as wymcp's, and a
 * refusal before the body is read is a row; the `where` column keeps the line whatever the source's length.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { startInspect } from "../src/cli/inspect/command.js";
import type { Listener } from "../src/inspect/listener.js";
import { ensureAptBinary } from "./support/apt.js";
import { assertFreshDist } from "./support/built.js";
import { rawPost } from "./support/gate-fixtures.js";
import { headerOf, type RunningProxy, recordingUpstream, startProxy, type Upstream, until } from "./support/proxy.js";

const TOKEN = "a-token-of-the-live-page-0123";
/** How long the upstream takes to answer a call of `slow`. */
const SLOW_MS = 150;

let browser: Browser;
let context: BrowserContext;
let page: Page;
let upstream: Upstream;
let proxy: RunningProxy;
let ui: string;
const work = mkdtempSync(join(tmpdir(), "wymcp-page-truth-"));

before(async () => {
  assertFreshDist();
  const executablePath = await ensureAptBinary({ pkg: "chromium", binaries: ["/usr/bin/chromium"] });
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox"], timeout: 0 });
  upstream = await recordingUpstream();
  upstream.handle((req, res, body) => {
    if (req.method !== "POST") return void res.writeHead(200, { "content-type": "text/plain" }).end("a page of the upstream\n");
    const message = JSON.parse(body.toString("utf8")) as { id: number; method: string; params?: { name?: string } };
    const json = (text: string) => res.writeHead(200, { "content-type": "application/json" }).end(text);
    if (message.method === "tools/list")
      return json(`{"jsonrpc":"2.0","id":${message.id},"error":{"code":-32601,"message":"no tools here"}}`);
    // Written as a server that escapes every non-ASCII character writes it.
    if (message.params?.name === "greet")
      return json(`{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"Hello, \\u0141ukasz"}]}}`);
    const answer = `{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"done"}]}}`;
    if (message.params?.name === "slow") setTimeout(() => json(answer), SLOW_MS);
    else json(answer);
  });
  proxy = await startProxy(["--upstream", upstream.url.href, "--ui", "127.0.0.1:0", "--ui-token", TOKEN]);
  await until(() => /live page at (http:\/\/\S+)/.test(proxy.stderr()));
  ui = /live page at (http:\/\/\S+)/.exec(proxy.stderr())![1]!;
  context = await browser.newContext({ viewport: { width: 1400, height: 800 } });
  page = await context.newPage();
  page.setDefaultTimeout(0);
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  await upstream?.close();
  rmSync(work, { recursive: true, force: true });
});

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
let nextId = 1;
/** A legacy call through the proxy, as a client posts it. */
function call(method: string, params?: unknown): Promise<{ status: number; text: string }> {
  return rawPost(
    proxy.url.href,
    HEADERS,
    JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, ...(params === undefined ? {} : { params }) }),
  );
}

/** The rows' text shown once `count` rows are held. */
async function rowsOnce(count: number): Promise<string[]> {
  await page.locator("#count", { hasText: new RegExp(`^${count} of ${count} rows`) }).waitFor();
  return page.locator("#rows .row").allTextContents();
}

test("with its token the page works, takes the token out of its address and sets no cookie; the upstream never receives one of the page's", async () => {
  const answer = await page.goto(`${ui}?token=${TOKEN}`);
  assert.equal(answer?.status(), 200);
  await page.waitForSelector("body[data-ready=true]");
  assert.equal(await page.textContent("#status"), "connected");
  assert.equal((await call("tools/call", { name: "echo", arguments: {} })).status, 200);
  await rowsOnce(2);
  // The browser goes to the proxy's own port: the upstream gets no cookie of the page's.
  const other = await context.newPage();
  await other.goto(proxy.url.href);
  const navigation = upstream.received.findLast((r) => r.method === "GET")!;
  assert.equal(headerOf(navigation, "cookie"), undefined);
  assert.deepEqual(await context.cookies(), [], "no cookie: one would go to every port of the host, the proxy's too");
  assert.doesNotMatch(page.url(), /token/);
  // A reload keeps the tab's token: the rows and the stream still come.
  await page.reload();
  await page.waitForSelector("body[data-ready=true]");
  await rowsOnce(2);
  // A cookie an earlier version of the page set is not forwarded either; the site's own cookies are.
  const host = new URL(proxy.url).hostname;
  await context.addCookies([
    { name: "wymcp-ui", value: TOKEN, domain: host, path: "/" },
    { name: "session", value: "abc", domain: host, path: "/" },
  ]);
  await other.goto(proxy.url.href);
  assert.equal(headerOf(upstream.received.findLast((r) => r.method === "GET")!, "cookie"), "session=abc");
  await other.close();
  await context.clearCookies();
});

test("the text search finds what the pane shows: an answer written as \\u0141ukasz is found by Łukasz", async () => {
  await call("prompts/get", { name: "greet" });
  await rowsOnce(4);
  await page.fill("#filter-text", "Łukasz");
  assert.match((await page.textContent("#count"))!, /^1 of 4 rows/);
  await page.locator("#rows .row").first().click();
  assert.match((await page.locator("#detail .json").textContent())!, /"text": "Hello, Łukasz"/);
  // What the pane shows, spaces and all.
  await page.fill("#filter-text", '"text": "hello, ł');
  assert.match((await page.textContent("#count"))!, /^1 of 4 rows/);
  await page.fill("#filter-text", "");
});

test("each request is paired with its answer, both ways, with the latency; an error answer reads as an error, not as pass", async () => {
  await call("tools/call", { name: "slow", arguments: {} });
  await call("tools/list");
  const rows = await rowsOnce(8);
  const cells = await page.locator("#rows .row .latency").allTextContents();
  const slowRequest = rows.findIndex((row) => /tools\/call slow/.test(row));
  const latency = Number(/^(\d+) ms$/.exec(cells[slowRequest]!)?.[1]);
  assert.ok(latency >= SLOW_MS - 5, `${cells[slowRequest]} for an answer the upstream held ${SLOW_MS} ms`);
  assert.equal(cells[slowRequest + 1], cells[slowRequest], "the answer's row shows its request's latency");
  await page.locator("#rows .row").nth(slowRequest).click();
  assert.match((await page.textContent("#pair"))!, new RegExp(`^response: line \\d+ \\(${latency} ms\\)$`));
  await page.click("#pair");
  assert.match((await page.textContent("#pair"))!, new RegExp(`^request: line \\d+ \\(${latency} ms\\)$`));
  // The upstream's -32601: an error, with its code.
  assert.match(rows[7]!, /← out.*tools\/list.*error.*-32601/);
  await page.selectOption("#filter-verdict", "error");
  assert.match((await page.textContent("#count"))!, /^1 of 8 rows/);
  await page.selectOption("#filter-verdict", "");
});

test("wymcp's own answers read as wymcp's, and a request refused before its body was read is a row with its refusal", async () => {
  const ping = JSON.stringify({ jsonrpc: "2.0", id: 50, method: "ping" });
  assert.equal((await rawPost(proxy.url.href, { ...HEADERS, host: "elsewhere.example" }, ping)).status, 403);
  assert.equal((await rawPost(proxy.url.href, { ...HEADERS, "content-type": "text/plain" }, ping)).status, 415);
  const rows = await rowsOnce(12);
  assert.match(rows[8]!, /proxy:\d+ request.*→ in.*reject.*-32000/);
  assert.match(rows[9]!, /proxy:\d+ response.*← wymcp.*refused.*-32000/);
  assert.match(rows[10]!, /proxy:\d+ request.*→ in.*reject.*-32600/);
  assert.match(rows[11]!, /proxy:\d+ response.*← wymcp.*refused.*-32600/);
  await page.locator("#rows .row").nth(10).click();
  assert.match((await page.textContent("#detail .raw"))!, /^\(not read: refused 415 before its body was read\)$/);
  await page.click("#pair");
  assert.match((await page.textContent("#detail .own-note"))!, /refused, never handed to the server \(415 unsupported-media-type\)/);
  await page.selectOption("#filter-verdict", "wymcp");
  assert.match((await page.textContent("#count"))!, /^2 of 12 rows/);
  await page.selectOption("#filter-verdict", "");
});

test("the where column shows each row's line whatever the length of its source's name", async () => {
  const file = join(work, "a-capture-recorded-on-a-long-afternoon-with-a-long-name-2026-12-07.jsonl");
  copyFileSync("test/fixtures/cli/legacy-elicitation.jsonl", file);
  let inspect: Listener | undefined;
  try {
    ({ listener: inspect } = await startInspect([file]));
    const view = await context.newPage();
    await view.goto(inspect.url);
    await view.waitForSelector("body[data-ready=true]");
    // Each row's line: shown whole, inside its cell, however much of the source's name gives way.
    const lines = (await view.evaluate(`[...document.querySelectorAll("#rows .row .where")].map((cell) => {
      const at = cell.querySelector(".at");
      const box = cell.getBoundingClientRect();
      const own = at ? at.getBoundingClientRect() : undefined;
      return at && own.right <= box.right + 0.5 && at.scrollWidth <= at.clientWidth + 0.5 ? at.textContent : "cut";
    })`)) as string[];
    assert.deepEqual(
      lines,
      lines.map((_, i) => `:${i + 1}`),
    );
    await view.close();
  } finally {
    await inspect?.close();
  }
});
