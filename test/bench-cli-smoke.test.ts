import assert from "node:assert/strict";
import { test } from "node:test";
import { runBench } from "./support/bench-run.js";

test("the CLI benchmark runs in quick mode: start-up ratio, and a small capture judged to the expected counts", async (t) => {
  // bench/cli.ts checks every run's exit code and --quiet summary against the generated counts, and throws otherwise.
  const run = await runBench(t, "bench/cli.ts", ["--quick", "--large"]);
  assert.equal(run.status, 0, `bench/cli.ts exited with ${run.status ?? run.signal}:\n${run.stderr}`);
  assert.match(run.stdout, /## CLI start-up\n/);
  assert.match(run.stdout, /wymcp check <one tools\/call>\.json +[\d.]+ \[[\d.]+–[\d.]+\] +[\d.]+×/);
  assert.match(run.stdout, /## CLI on a large JSONL capture\ncapture: [\d.]+ MB, \d+ messages/);
  for (const variant of ["floor", "human output", "--json", "--quiet"]) assert.ok(run.stdout.includes(variant), `no ${variant} row`);
});
