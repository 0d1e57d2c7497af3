/**
 * The tests' one bound on time is the runner's limit (docs/testing.md): every `node --test` run sets it, and no test
 * source bounds a wait by the clock, so that a loaded machine makes the suite slower, never failing.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, test } from "node:test";
import { HUNG_CHILD_MS } from "../examples/hung-child.js";
import { repoRoot } from "./support/spec.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> };
const LIMIT = /--test-timeout=(\d+)/;

/** The runner's limit as test:src sets it: the one every run of the runner must set. */
function runnerLimit(): number {
  const found = LIMIT.exec(pkg.scripts["test:src"] ?? "");
  assert.ok(found, "package.json's test:src sets no --test-timeout");
  return Number(found[1]);
}

/** A wall-clock bound in a test's source, as it is written: each form with what it does. */
const BOUNDS: { pattern: RegExp; does: string }[] = [
  // A test's or suite's option, a child process's, a request's (SDK, node:http, Playwright): `timeout: 0` is none.
  { pattern: /\btimeout:\s*(?!0\b)[\d(]/, does: "a timeout option" },
  { pattern: /AbortSignal\.timeout\(/, does: "a request aborted after a time" },
  { pattern: /\.setTimeout\(\s*[\d(]/, does: "a request or socket given up after a time" },
  { pattern: /setDefault(?:Navigation)?Timeout\(\s*(?!0\s*\))/, does: "a browser page's actions bounded" },
  { pattern: /setTimeout\(\s*\(\)\s*=>\s*\{?\s*(?:reject|done|resolve)\(/, does: "a wait settled by a timer" },
  { pattern: /\b(?:deadline|giveUp|GIVE_UP)\b\s*=/, does: "a deadline for a wait" },
  { pattern: /\bfail_after\(/, does: "a Python wait failed after a time" },
];

/** The test sources: test/**.ts, .mjs and .py, fixtures and golden files aside, this file aside (it names the forms). */
function sources(): string[] {
  const dir = join(repoRoot, "test");
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(?:ts|mjs|py)$/.test(e.name))
    .map((e) => relative(repoRoot, join(e.parentPath ?? e.path, e.name)))
    .filter((file) => !/^test\/(?:fixtures|golden)\//.test(file) && file !== "test/wall-clock.test.ts")
    .sort();
}

describe("the runner's limit is the tests' only bound on time", () => {
  test("every run of node --test (test:src, test:dist, golden:update, test:unit) sets the same --test-timeout", () => {
    const limit = runnerLimit();
    const runs = Object.entries(pkg.scripts).filter(([, script]) => /\bnode\b.*\s--test\s/.test(script));
    assert.deepEqual(runs.map(([name]) => name).sort(), ["golden:update", "test:dist", "test:src"]);
    for (const [name, script] of runs) assert.equal(Number(LIMIT.exec(script)?.[1]), limit, name);
    const unit = readFileSync(join(repoRoot, "scripts", "test-unit.ts"), "utf8");
    assert.equal(Number(LIMIT.exec(unit)?.[1]), limit, "scripts/test-unit.ts");
  });

  test("the limit is generous (minutes, for a loaded machine), and a hung child is killed before it fires", () => {
    const limit = runnerLimit();
    assert.ok(limit >= 10 * 60_000, `${limit} ms`);
    assert.ok(HUNG_CHILD_MS < limit, `HUNG_CHILD_MS (${HUNG_CHILD_MS} ms) must stay under the runner's limit (${limit} ms)`);
  });

  test("no test source bounds a wait by the clock: no timeout option, timed abort, deadline or timer that settles a wait", () => {
    const found: string[] = [];
    for (const file of sources()) {
      const lines = readFileSync(join(repoRoot, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        for (const { pattern, does } of BOUNDS) if (pattern.test(line)) found.push(`${file}:${i + 1}: ${does}: ${line.trim()}`);
      });
    }
    assert.deepEqual(found, []);
  });

  test("the forms are found where they are written", () => {
    const hits = (line: string) => BOUNDS.filter(({ pattern }) => pattern.test(line)).map(({ does }) => does);
    for (const line of [
      'describe("x", { timeout: 30_000 }, () => {',
      "  await client.connect(transport, { timeout: 5_000 });",
      "  spawnSync(node, args, { timeout: 60_000 });",
      "  fetch(url, { signal: AbortSignal.timeout(5_000) });",
      '  req.setTimeout(10_000, () => req.destroy(new Error("late")));',
      "  page.setDefaultTimeout(5_000);",
      "  const timer = setTimeout(() => reject(new Error(`no answer within 60 s`)), 60_000);",
      "  setTimeout(() => done(found), 5000);",
      "  const deadline = Date.now() + ms;",
      "        with anyio.fail_after(20):",
    ])
      assert.equal(hits(line).length, 1, line);
    for (const line of [
      "  page.setDefaultTimeout(0);",
      '  browser = await chromium.launch({ executablePath, args: ["--no-sandbox"], timeout: 0 });',
      '  const proxy = await startProxy([...args, "--timeout", "5000"]);',
      "  spawnSync(node, args, { timeout: HUNG_CHILD_MS });",
      "  const guard = wymcpNode({ maxBodyBytes: 100, discardTimeoutMs: 300 });",
      "  if (slow) setTimeout(() => json(answer), SLOW_MS);",
    ])
      assert.deepEqual(hits(line), [], line);
  });
});
