/**
 * `wymcp proxy --report --ui` in real headless Chromium: the built bin in front of the example server with its own gate
 * off; a call a rule would refuse reaches the server, and its row on the live page says `would refuse`, its detail
 * names the rule and what enforcing would have answered, and the verdict filter "would refuse" shows that row alone.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { type LaunchedExample, type LaunchedProxy, launchExample, launchProxy } from "../examples/launch.js";
import { ensureAptBinary } from "./support/apt.js";
import { assertFreshDist } from "./support/built.js";
import { until } from "./support/proxy.js";
import { modernCallHeaders } from "./support/messages.js";

let browser: Browser;
let page: Page;
let upstream: LaunchedExample;
let proxy: LaunchedProxy;

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "live-browser-report-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

before(async () => {
  assertFreshDist();
  const executablePath = await ensureAptBinary({ pkg: "chromium", binaries: ["/usr/bin/chromium"] });
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox"], timeout: 0 });
  upstream = await launchExample({ env: { WYMCP_GATE: "off" } });
  proxy = await launchProxy(upstream.url, { args: ["--report", "--ui", "127.0.0.1:0"] });
  await until(() => /live page at (http:\/\/\S+)/.test(proxy.stderr()));
  page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  page.setDefaultTimeout(0);
  await page.goto(/live page at (http:\/\/\S+)/.exec(proxy.stderr())![1]!);
  await page.waitForSelector("body[data-ready=true]");
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  await upstream?.stop();
});

/** A modern tools/call of `echo` as the official client sends it; resolves to the HTTP status. */
async function callEcho(id: number, args: unknown): Promise<number> {
  const answer = await fetch(proxy.url, {
    method: "POST",
    headers: modernCallHeaders("echo"),
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: args, _meta: META } }),
  });
  await answer.arrayBuffer();
  return answer.status;
}

test("a call the params rule would refuse reaches the server; its row says would refuse, and the filter shows it alone", async () => {
  assert.equal(await callEcho(1, { text: "fine" }), 200);
  // Arguments that are not an object: enforcing answers 400/-32602; in report mode the server answers it itself.
  assert.notEqual(await callEcho(2, ["not", "an", "object"]), 400);
  await page.locator("#count", { hasText: /^4 of 4 rows/ }).waitFor();
  const rows = await page.locator("#rows .row").allTextContents();
  assert.match(rows[2]!, /proxy:2 request.*tools\/call echo.*would refuse/);
  assert.doesNotMatch(rows[0]!, /would refuse/);
  await page.selectOption("#filter-verdict", "would-refuse");
  assert.match((await page.textContent("#count"))!, /^1 of 4 rows/);
  await page.locator("#rows .row").first().click();
  assert.match((await page.locator("#detail .report-note").first().textContent())!, /would refuse \(rule params\): 400 -32602/);
  await page.selectOption("#filter-verdict", "");
  assert.match((await page.textContent("#count"))!, /^4 of 4 rows/);
});
