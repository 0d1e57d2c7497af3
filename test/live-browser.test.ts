/**
 * `wymcp proxy --ui` in real headless Chromium (Debian's package, driven by playwright-core): the built bin in front
 * of the example server with the official SDK alone (its own gate off), the page open before the traffic; a served and
 * a refused call appear live, each in its row with its verdict and code, the refused one opens with its failing
 * location marked, request beside response, a message carrying `<script>` and `</textarea>` renders as text, and a
 * message written over several lines (LF or CRLF) reaches the page as it was sent. Each
 * state's screenshot is written under reports/ui/.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { type LaunchedExample, type LaunchedProxy, launchExample, launchProxy } from "../examples/launch.js";
import { ensureAptBinary } from "./support/apt.js";
import { assertFreshDist } from "./support/built.js";
import { until } from "./support/proxy.js";
import { modernCallHeaders } from "./support/messages.js";

const SHOTS = "reports/ui";

let browser: Browser;
let page: Page;
let upstream: LaunchedExample;
let proxy: LaunchedProxy;
let ui: string;

before(async () => {
  assertFreshDist();
  const executablePath = await ensureAptBinary({ pkg: "chromium", binaries: ["/usr/bin/chromium"] });
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox"], timeout: 0 });
  upstream = await launchExample({ env: { WYMCP_GATE: "off" } });
  proxy = await launchProxy(upstream.url, { args: ["--ui", "127.0.0.1:0"] });
  await until(() => /live page at (http:\/\/\S+)/.test(proxy.stderr()));
  ui = /live page at (http:\/\/\S+)/.exec(proxy.stderr())![1]!;
  page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  page.setDefaultTimeout(0);
  mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  await upstream?.stop();
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "live-browser-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A tools/call's bytes posted to the proxy with the transport headers the official client sends (`Mcp-Name`: `name`). */
function postCall(name: string, body: string): Promise<Response> {
  return fetch(proxy.url, {
    method: "POST",
    headers: modernCallHeaders(name),
    body,
  });
}

/** A modern tools/call as the official client sends it: its transport headers and its `_meta`. */
async function callTool(
  id: number,
  name: unknown,
  args: unknown,
): Promise<{ status: number; body: { result?: unknown; error?: { code: number } } }> {
  const answer = await postCall(
    String(name),
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: META } }),
  );
  const text = await answer.text();
  const data = answer.headers.get("content-type")?.startsWith("text/event-stream") ? /^data: (.*)$/m.exec(text)![1]! : text;
  return { status: answer.status, body: JSON.parse(data) };
}

test("the live page opens on the proxy's --ui address, under the page's own Content-Security-Policy", async () => {
  const answer = await page.goto(ui);
  assert.match(answer!.headers()["content-security-policy"]!, /default-src 'self'; script-src 'self'/);
  await page.waitForSelector("body[data-ready=true]");
  assert.equal(await page.textContent("#status"), "connected");
  assert.equal(await page.textContent("#title"), "wymcp proxy (live)");
  assert.match((await page.textContent("#count"))!, /^0 of 0 rows/);
});

test("a served call and a refused one appear live, each message in its row with its verdict and JSON-RPC code", async () => {
  const served = await callTool(1, "echo", { text: "hello from the browser test" });
  assert.equal(served.status, 200);
  assert.ok(served.body.result);
  const refused = await callTool(2, "echo", ["not", "an", "object"]);
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error?.code, -32602);
  await page.locator("#count", { hasText: /^4 of 4 rows/ }).waitFor();
  const rows = await page.locator("#rows .row").allTextContents();
  assert.match(rows[0]!, /proxy:1 request.*→ in.*modern 2026-07-28.*tools\/call echo.*pass/);
  assert.match(rows[1]!, /proxy:1 response.*← out.*modern 2026-07-28.*tools\/call.*pass/);
  assert.match(rows[2]!, /proxy:2 request.*→ in.*modern 2026-07-28.*tools\/call echo.*reject.*-32602/);
  // The refusal is wymcp's own answer, said so in its row: the server never saw the call.
  assert.match(rows[3]!, /proxy:2 response.*← wymcp.*tools\/call.*refused.*-32602/);
  await shot("live-rows");
});

test("the refused call opens with its failing location marked, and its response is one click away", async () => {
  await page.selectOption("#filter-verdict", "reject");
  assert.match((await page.textContent("#count"))!, /^1 of 4 rows/);
  await page.locator("#rows .row").first().click();
  assert.match((await page.locator("#detail .locations").textContent())!, /\/params\/arguments/);
  assert.ok((await page.locator("#detail .json .line.fail").count()) > 0, "a line of the message is marked");
  await shot("live-location");
  await page.click("#pair");
  assert.match((await page.textContent("#detail .head"))!, /tools\/call.*refused/);
  assert.match((await page.textContent("#detail .own-note"))!, /wymcp's own answer: the call was refused.*\(400 invalid-message\)/);
  assert.match((await page.locator("#detail .json").textContent())!, /-32602/);
  await page.selectOption("#filter-verdict", "");
});

test("the filters narrow the live rows by method and by text", async () => {
  await callTool(3, "missing", {});
  await page.locator("#count", { hasText: /^6 of 6 rows/ }).waitFor();
  await page.fill("#filter-method", "tools/call missing");
  assert.match((await page.textContent("#count"))!, /^1 of 6 rows/);
  await page.fill("#filter-method", "");
  await page.fill("#filter-text", "hello from the browser");
  assert.match((await page.textContent("#count"))!, /^2 of 6 rows/);
  await page.fill("#filter-text", "");
});

test("a message carrying <script> and </textarea> renders as text: no script runs, no element is made of it", async () => {
  const hostile = '</textarea><script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">';
  const answer = await callTool(4, "echo", { text: hostile });
  assert.ok(answer.body.result, "the server echoed it");
  await page.fill("#filter-text", "window.__xss");
  await page.locator("#count", { hasText: /^2 of \d+ rows/ }).waitFor();
  await page.locator("#rows .row", { hasText: "← out" }).first().click();
  const json = (await page.locator("#detail .json").textContent())!;
  assert.ok(json.includes("</textarea><script>window.__xss = 1</script>"), "the echoed text is shown as it is");
  assert.equal(await page.evaluate("window.__xss"), undefined, "no script ran");
  assert.equal(await page.evaluate("document.scripts.length"), 1, "the page's own module is its only script");
  assert.equal(await page.locator("#detail img").count(), 0);
  await shot("live-hostile");
  await page.fill("#filter-text", "");
});

test("a message written over several lines, with LF or CRLF line ends, reaches the page whole and reads back as sent", async () => {
  // The browser's own EventSource, beside the page's: each request row's event data as the browser hands it over.
  // A string, not a function: the test's compiler would add helpers of its own to a function's text.
  const heard = page.evaluate(`new Promise((done) => {
    const events = new EventSource("events");
    const found = [];
    events.onmessage = (event) => {
      if (/ lines \\d/.test(event.data) && event.data.includes('"part":"request","direction"')) found.push(event.data);
      if (found.length === 2) {
        events.close();
        done(found);
      }
    };
  })`) as Promise<string[]>;
  await page.waitForFunction("true");
  const sent: string[] = [];
  for (const [id, end] of [
    [5, "\n"],
    [6, "\r\n"],
  ] as const) {
    const body = JSON.stringify(
      { jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: ` lines ${id}` }, _meta: META } },
      null,
      2,
    ).replaceAll("\n", end);
    sent.push(body);
    const answer = await postCall("echo", body);
    assert.equal(answer.status, 200);
    await answer.text();
  }
  // As the page reads an event: the row's JSON on the first line, a text sent apart on the lines after it.
  const texts = (await heard).map((data) => {
    const end = data.indexOf("\n");
    return end < 0 ? (JSON.parse(data) as { text?: string }).text : data.slice(end + 1);
  });
  assert.deepEqual(texts, sent);
  for (const id of [5, 6]) {
    await page.fill("#filter-text", ` lines ${id}`);
    await page.locator("#count", { hasText: /^2 of \d+ rows/ }).waitFor();
    await page.locator("#rows .row", { hasText: "→ in" }).first().click();
    assert.match((await page.textContent("#detail .head"))!, /tools\/call.*pass/);
    assert.ok((await page.locator("#detail .json").textContent())!.includes(` lines ${id}`), `request ${id} opens as JSON`);
  }
  await page.fill("#filter-text", "");
});
