/**
 * The live page's listener in real headless Chromium (Debian's package, driven by playwright-core), in front of the
 * example server behind the built bin: a page opened after more messages passed than one answer of `/rows` holds reads
 * them page after page, then follows the event stream, every request of its own marked same-origin by the browser and
 * served; another site's page (another port of the same host, another host name) reaching for the rows of a listener
 * in this process, as an image, a fetch or an event stream, is refused with 403 and nothing is judged.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Request } from "playwright-core";
import { type LaunchedExample, type LaunchedProxy, launchExample, launchProxy } from "../examples/launch.js";
import { parseCheckOptions } from "../src/cli/check/options.js";
import { listen } from "../src/inspect/listener.js";
import { LiveFeed } from "../src/inspect/live/feed.js";
import { ensureAptBinary } from "./support/apt.js";
import { assertFreshDist } from "./support/built.js";
import { until } from "./support/proxy.js";
import { modernCallHeaders } from "./support/messages.js";

let browser: Browser;
let upstream: LaunchedExample;
let proxy: LaunchedProxy;
let ui: URL;

before(async () => {
  assertFreshDist();
  const executablePath = await ensureAptBinary({ pkg: "chromium", binaries: ["/usr/bin/chromium"] });
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] });
  upstream = await launchExample({ env: { WYMCP_GATE: "off" } });
  proxy = await launchProxy(upstream.url, { args: ["--ui", "127.0.0.1:0"] });
  await until(() => /live page at (http:\/\/\S+)/.test(proxy.stderr()));
  ui = new URL(/live page at (http:\/\/\S+)/.exec(proxy.stderr())![1]!);
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  await upstream?.stop();
});

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "listener-browser-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** `count` valid modern tools/call through the proxy, `connections` at a time, each answered. */
async function calls(count: number, connections = 8): Promise<void> {
  let next = 0;
  const one = async () => {
    for (let id = ++next; id <= count; id = ++next) {
      const answer = await fetch(proxy.url, {
        method: "POST",
        headers: modernCallHeaders("echo"),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "echo", arguments: { text: `call ${id} ${"x".repeat(200)}` }, _meta: META },
        }),
      });
      assert.equal(answer.status, 200);
      await answer.text();
    }
  };
  await Promise.all(Array.from({ length: connections }, one));
}

test("a page opened after more messages than one answer holds reads them page after page, then follows the stream; the browser marks each of its requests same-origin", async () => {
  // Five hundred exchanges: a thousand rows of some 700 bytes, more than one answer's 64 KiB.
  await calls(500);
  const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  page.setDefaultTimeout(0);
  const own: Request[] = [];
  page.on("request", (request) => {
    if (request.url().startsWith(ui.origin)) own.push(request);
  });
  try {
    await page.goto(ui.href);
    await page.waitForSelector("body[data-ready=true]");
    await page.locator("#count", { hasText: /^1000 of 1000 rows/ }).waitFor();
    const reads = own.filter((request) => new URL(request.url()).pathname === "/rows");
    assert.ok(reads.length >= 3, `${reads.length} reads of /rows`);
    // Each read goes on from the last one's cursor.
    assert.deepEqual(
      reads.slice(0, 2).map((request) => new URL(request.url()).searchParams.get("after")),
      ["0", String(JSON.parse((await (await reads[0]!.response())!.text()) as string).next)],
    );
    await calls(3);
    await page.locator("#count", { hasText: /^1006 of 1006 rows/ }).waitFor();
    const events = own.find((request) => new URL(request.url()).pathname === "/events");
    assert.ok(events, "the page follows /events");
    for (const request of [...reads, events!]) {
      const headers = await request.allHeaders();
      assert.equal(headers["sec-fetch-site"], "same-origin", request.url());
      assert.equal((await request.response())?.status(), 200, request.url());
    }
    assert.equal((await own[0]!.allHeaders())["sec-fetch-site"], "none", "the page itself, opened by the user");
  } finally {
    await page.close();
  }
});

/** A server of another site's page: it reaches for the listener's rows as an image, a fetch and an event stream. */
async function anotherSite(target: string): Promise<{ port: number; close: () => Promise<void> }> {
  const html = `<!doctype html><title>another site</title>
<img src="${target}/rows">
<script>
  fetch(${JSON.stringify(`${target}/rows?after=0`)}, { mode: "no-cors" }).catch(() => undefined);
  new EventSource(${JSON.stringify(`${target}/events`)});
</script>`;
  const server = http.createServer((_, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

for (const host of ["127.0.0.1", "localhost"])
  test(`another site's page at ${host} reaching for the rows as an image, a fetch or an event stream is refused with 403, nothing judged`, async () => {
    // A listener in this process over messages not judged yet: what it was sent and answered is seen on its side.
    const { options } = parseCheckOptions([]);
    const feed = new LiveFeed("proxy", options);
    for (let id = 1; id <= 100; id++)
      feed.capture({ entry: id, from: "client", text: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }), time: id });
    const listener = await listen({ ring: feed, host: "127.0.0.1", port: 0 });
    const target = new URL(listener.url).origin;
    const seen: string[] = [];
    listener.server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) =>
      res.once("finish", () => seen.push(`${new URL(req.url!, target).pathname} ${res.statusCode} ${req.headers["sec-fetch-site"]}`)),
    );
    const site = await anotherSite(target);
    const page = await browser.newPage();
    try {
      await page.goto(`http://${host}:${site.port}/`);
      await until(() => seen.length >= 3);
      // Another port of the same host is the same site, another name a site of its own: both are another page's.
      const expected = host === "localhost" ? "cross-site" : "same-site";
      assert.deepEqual(seen.sort(), [`/events 403 ${expected}`, `/rows 403 ${expected}`, `/rows 403 ${expected}`]);
      assert.equal(feed.waiting, 100);
    } finally {
      await page.close();
      await site.close();
      await listener.close();
    }
  });
