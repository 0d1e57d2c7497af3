import assert from "node:assert/strict";
import { describe, test } from "node:test";
import "./support/built.js";
import { memoryFinding, runTransportFuzz, transportCases } from "../fuzz/transport.js";

describe("npm run fuzz -- --transport", { timeout: 120_000 }, () => {
  test("the seeded cases cover every chunk size, both framings and every refusal, and the same seed gives the same bytes", () => {
    const cases = transportCases({ seed: 1, count: 60 });
    const labels = cases.map((c) => c.label).join("\n");
    for (const piece of ["in 1 B chunks", "in 4 B chunks", "in 64 KiB chunks", "declared"]) assert.match(labels, new RegExp(piece));
    for (const refusal of ["415 declared", "415 chunked", "400 not JSON", "400 invalid message", "300 ms after"])
      assert.ok(labels.includes(refusal), refusal);
    assert.deepEqual(
      transportCases({ seed: 1, count: 60 }).map((c) => c.bytes.length),
      cases.map((c) => c.bytes.length),
    );
    for (const c of cases) if (c.family === "pipeline") assert.ok(c.expected >= 2 && c.expected <= 21);
  });

  test("memory is a finding only past twice the ungated server's and 64 MB over it", () => {
    assert.equal(memoryFinding(121, 32), true);
    assert.equal(memoryFinding(60, 32), false);
    assert.equal(memoryFinding(90, 40), false);
    assert.equal(memoryFinding(8, 0), false);
  });

  test("a short run finds nothing: the gated server answers every pipelined request the SDK alone answers", async () => {
    const { results } = await runTransportFuzz(transportCases({ seed: 3, count: 8 }));
    assert.equal(results.length, 8);
    assert.deepEqual(
      results.filter((r) => r.verdict !== "ok").map((r) => `${r.label}: ${r.verdict}`),
      [],
    );
    for (const r of results.filter((x) => x.family === "pipeline"))
      assert.equal(r.gated.statuses.length, r.ungated.statuses.length, r.label);
  });
});
