import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../..");

test("the benchmark runs end to end in quick mode and prints every section", () => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-bench-smoke-"));
  try {
    const out = join(dir, "results.json");
    const run = spawnSync(process.execPath, ["--import", "tsx", "bench/run.ts", "--quick"], {
      cwd: root,
      env: { ...process.env, BENCH_OUT: out },
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(run.status, 0, `bench exited with ${run.status ?? run.signal}:\n${run.stderr}`);
    for (const heading of ["## Start-up", "## Per message", "## Error path", "## Size", "## Targets"]) {
      assert.ok(run.stdout.includes(heading), `missing heading ${heading}`);
    }
    const results = JSON.parse(readFileSync(out, "utf8")) as { quick: boolean; targets: { pass: boolean }[]; perMessage: unknown[] };
    assert.equal(results.quick, true);
    assert.equal(results.perMessage.length, 5);
    assert.equal(results.targets.length, 6);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
