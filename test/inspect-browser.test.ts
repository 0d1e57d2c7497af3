/**
 * `wymcp inspect` in real headless Chromium (Debian's package, driven by playwright-core; one browser for the file):
 * the page loads a HAR file and a headerless JSONL capture, marks a failing location, judges a pasted message in the
 * browser, exports what it shows for `wymcp check` to read back, renders hostile strings as text, and holds ten
 * thousand rows. Each state's screenshot is written under reports/ui/.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type Browser, chromium, type Page } from "playwright-core";
import { startInspect } from "../src/cli/inspect/command.js";
import type { Listener } from "../src/inspect/listener.js";
import { judgeText } from "../src/inspect/page/judge-text.js";
import type { RowRing } from "../src/inspect/ring.js";
import { ensureAptBinary } from "./support/apt.js";
import { assertFreshDist } from "./support/built.js";

const HAR = "test/fixtures/cli/session.har";
const JSONL = "test/fixtures/cli/legacy-elicitation.jsonl";
const SHOTS = "reports/ui";

let browser: Browser;
let page: Page;
let listener: Listener;
let held: number;
let ring: RowRing;
const work = mkdtempSync(join(tmpdir(), "wymcp-inspect-"));

before(async () => {
  assertFreshDist();
  const executablePath = await ensureAptBinary({ pkg: "chromium", binaries: ["/usr/bin/chromium"] });
  // Root in a container has no user namespace for Chromium's sandbox.
  browser = await chromium.launch({ executablePath, args: ["--no-sandbox"], timeout: 0 });
  const started = await startInspect([HAR, JSONL]);
  listener = started.listener;
  ring = started.ring;
  held = ring.rows().length;
  page = await browser.newPage({ viewport: { width: 1400, height: 800 }, acceptDownloads: true });
  page.setDefaultTimeout(0);
  mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  await browser?.close();
  await listener?.close();
  rmSync(work, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
const rowsShown = () => page.locator("#rows .row").count();

test("the page loads the HAR file's and the headerless JSONL capture's messages, one row each, as wymcp check judges them", async () => {
  await page.goto(listener.url);
  await page.waitForSelector("body[data-ready=true]");
  assert.equal(await page.textContent("#status"), "connected");
  assert.match((await page.textContent("#count"))!, new RegExp(`^${held} of ${held} rows`));
  assert.ok(held > 20, "both captures' messages are held");
  assert.ok((await rowsShown()) > 0);
  // The JSONL capture's elicitation, a server's request judged outbound in the revision its session negotiated.
  await page.fill("#filter-method", "elicitation/create");
  const row = page.locator("#rows .row").first();
  assert.match((await row.textContent())!, /← out.*legacy 2025-11-25.*elicitation\/create.*pass/);
  await page.fill("#filter-method", "");
  await shot("rows");
});

test("a response opens beside the request it answers: the pair button goes to the request", async () => {
  await page.fill("#filter-text", "legacy-elicitation");
  await page.fill("#filter-method", "tools/list");
  await page.locator("#rows .row", { hasText: "← out" }).first().click();
  const pair = page.locator("#pair");
  assert.match((await pair.textContent())!, /^request: line \d+$/);
  await pair.click();
  assert.match((await page.textContent("#detail .head"))!, /tools\/list/);
  assert.match((await page.locator("#pair").textContent())!, /^response: line \d+$/);
  await page.fill("#filter-text", "");
  await page.fill("#filter-method", "");
});

test("a rejected message opens with its failing location marked in the JSON and the message beside it", async () => {
  await page.selectOption("#filter-verdict", "reject");
  await page.locator("#rows .row", { hasText: "tools/call" }).first().click();
  const marked = page.locator("#detail .json .line.fail");
  assert.ok((await marked.count()) > 0, "a line is marked");
  const note = (await marked.first().locator(".note").textContent())!;
  const listed = (await page.locator("#detail .locations li .messages").allTextContents()).join("; ");
  assert.ok(note.length > 0 && listed.includes(note.split("; ")[0]!.replace(/^\/[^:]*: /, "")), `${note} is among ${listed}`);
  await shot("location");
  await page.selectOption("#filter-verdict", "");
});

test("a row pushed into the ring after the page loaded arrives through the event stream", async () => {
  const before = (await page.textContent("#count"))!;
  ring.push(judgeText('{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"pushed-live"}}', "live", { era: "auto" })[0]!);
  await page.fill("#filter-method", "pushed-live");
  await page.waitForSelector("#rows .row >> text=tools/call pushed-live");
  await page.fill("#filter-method", "");
  assert.notEqual(await page.textContent("#count"), before);
});

test("a HAR file dropped on the page is judged in the browser exactly as wymcp inspect judged it on the server", async () => {
  const har = readFileSync(HAR, "utf8");
  const handle = await page.evaluateHandle(
    `(() => { const d = new DataTransfer(); d.items.add(new File([${JSON.stringify(har)}], "session.har")); return d; })()`,
  );
  await page.dispatchEvent("body", "drop", { dataTransfer: handle });
  // A locator waits by Playwright's own selector engine; a string handed to waitForFunction is evaluated as code, which
  // the page's Content-Security-Policy refuses once the condition is not already true on the first poll.
  await page.locator("#detail .where", { hasText: /^pasted/ }).waitFor();
  const columns = (source: string) =>
    page.evaluate(`(() => {
      const input = document.getElementById("filter-text");
      input.value = ${JSON.stringify(source)};
      input.dispatchEvent(new Event("input"));
      document.getElementById("list").scrollTop = 0;
      return [...document.querySelectorAll("#rows .row")].map((r) =>
        [...r.children].slice(1).map((c) => c.textContent.replace(/^.*?:(?=\\d)/, "")).join(" | "));
    })()`);
  const server = (await columns(HAR)) as string[];
  const browserSide = (await columns("pasted ")) as string[];
  assert.ok(server.length > 10);
  assert.deepEqual(browserSide.slice(0, server.length), server);
  await page.fill("#filter-text", "");
});

/** A tools/call whose arguments are no object: rejected, with hostile strings in its name and arguments. */
const HOSTILE = JSON.stringify({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "</textarea><script>window.__xss = 1</script>", arguments: '<img src=x onerror="window.__xss = 2">' },
});

test("paste mode judges a message in the browser, under each era picked, and shows hostile strings as text", async () => {
  await page.fill("#paste", HOSTILE);
  await page.selectOption("#pick-revision", "2025-06-18");
  await page.click("#judge");
  const head = (await page.textContent("#detail .head"))!;
  assert.match(head, /tools\/call <\/textarea><script>window.__xss = 1<\/script>/);
  assert.match(head, /reject.*legacy 2025-06-18/);
  assert.ok((await page.locator("#detail .json .line.fail").count()) > 0);
  assert.match((await page.locator("#detail .json").textContent())!, /onerror=\\"window.__xss = 2\\"/);
  assert.equal(await page.evaluate("window.__xss"), undefined, "no script ran");
  assert.equal(await page.evaluate("document.scripts.length"), 1, "the page's own module is its only script");
  assert.equal(await page.locator("#detail img").count(), 0);
  await shot("paste-hostile");
  await page.selectOption("#pick-revision", "2026-07-28");
  await page.click("#judge");
  assert.match((await page.textContent("#detail .head"))!, /reject.*modern 2026-07-28/);
  // A HAR file with no MCP exchange in it: said beside the box, and the page goes on.
  await page.fill("#paste", '{"log":{"entries":[{"request":{"method":"POST","url":"not a url"}}]}}');
  await page.click("#judge");
  assert.match((await page.textContent("#paste-note"))!, /^0 messages judged as pasted \d+$/);
  // A valid message passes.
  await page.fill("#paste", JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }));
  await page.selectOption("#pick-revision", "");
  await page.click("#judge");
  assert.match((await page.textContent("#detail .head"))!, /ping.*pass/);
});

test("the export of what the page shows, as JSONL and as HAR, is read back by wymcp check with the same verdicts, values redacted", async () => {
  await page.fill("#filter-text", "legacy-elicitation");
  const shown = await page.locator("#count").textContent();
  const count = Number(/^(\d+) of/.exec(shown!)![1]);
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
  const file = join(work, "export.jsonl");
  await download.saveAs(file);
  const text = readFileSync(file, "utf8");
  assert.equal(text.trimEnd().split("\n").length, count);
  assert.match(text, /\[redacted\]/);
  const original = spawnSync(process.execPath, ["dist/cli.js", "check", "--json", JSONL], { encoding: "utf8" });
  const exported = spawnSync(process.execPath, ["dist/cli.js", "check", "--json", file], { encoding: "utf8" });
  assert.equal(exported.status, original.status, exported.stderr);
  const verdicts = (out: string) =>
    out
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith('{"summary":'))
      .map((l) => {
        const v = JSON.parse(l);
        return [v.line, v.outcome, v.era, v.revision, v.method];
      });
  assert.deepEqual(verdicts(exported.stdout), verdicts(original.stdout));
  // The same rows as a HAR file: each answer beside its request, so compared as sets.
  const [harDownload] = await Promise.all([page.waitForEvent("download"), page.click("#export-har")]);
  const harFile = join(work, "export.har");
  await harDownload.saveAs(harFile);
  const fromHar = spawnSync(process.execPath, ["dist/cli.js", "check", "--json", harFile], { encoding: "utf8" });
  assert.equal(fromHar.status, original.status, fromHar.stderr);
  const unordered = (out: string) =>
    verdicts(out)
      .map((v) => JSON.stringify(v.slice(1)))
      .sort();
  assert.deepEqual(unordered(fromHar.stdout), unordered(original.stdout));
  await shot("export");
  await page.fill("#filter-text", "");
});

test("ten thousand rows: the page holds its capacity, filters through them and renders only what is in view", async (t) => {
  const lines = Array.from({ length: 10_000 }, (_, i) =>
    JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: i % 2 ? "ping" : "tools/list" }),
  );
  // Set at once: typing ten thousand lines would be the test's whole time. (Page code is run as text: this program has no DOM types.)
  await page.evaluate(`document.getElementById("paste").value = ${JSON.stringify(lines.join("\n"))}`);
  const judged = (await page.evaluate(`(() => {
    const start = performance.now();
    document.getElementById("judge").click();
    return performance.now() - start;
  })()`)) as number;
  assert.match((await page.textContent("#count"))!, /^10000 of 10000 rows \(at most 10000\)$/);
  assert.ok((await rowsShown()) < 100, "a virtual list: only the rows in view are in the DOM");
  const ms = (await page.evaluate(`(() => {
    const input = document.getElementById("filter-text");
    const start = performance.now();
    input.value = "tools/list";
    input.dispatchEvent(new Event("input"));
    return performance.now() - start;
  })()`)) as number;
  assert.match((await page.textContent("#count"))!, /^5000 of 10000 rows/);
  // Reported, not asserted: wall-clock figures belong in the benchmark.
  t.diagnostic(`ten thousand pasted lines judged and listed in ${judged.toFixed(0)} ms`);
  t.diagnostic(`filter input over 10000 rows handled in ${ms.toFixed(1)} ms`);
  await shot("ten-thousand");
});
