import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../..");

test("the CLI benchmark runs in quick mode: start-up ratio, and a small capture judged to the expected counts", () => {
  // bench/cli.ts checks every run's exit code and --quiet summary against the generated counts, and throws otherwise.
  const run = spawnSync(process.execPath, ["--import", "tsx", "bench/cli.ts", "--quick", "--large"], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
  });
  assert.equal(run.status, 0, `bench/cli.ts exited with ${run.status ?? run.signal}:\n${run.stderr}`);
  assert.match(run.stdout, /## CLI start-up\n/);
  assert.match(run.stdout, /wymcp check <one tools\/call>\.json +[\d.]+ \[[\d.]+–[\d.]+\] +[\d.]+×/);
  assert.match(run.stdout, /## CLI on a large JSONL capture\ncapture: [\d.]+ MB, \d+ messages/);
  for (const variant of ["floor", "human output", "--json", "--quiet"]) assert.ok(run.stdout.includes(variant), `no ${variant} row`);
});
