import assert from "node:assert/strict";
import { describe, test } from "node:test";
import "./support/built.js";
import {
  HOSTILE_FAMILIES,
  hostileCases,
  MAX_ANSWER_BYTES,
  MEMORY_BOUND_MB,
  runHostileFuzz,
  type Seen,
  SHAPES,
  STDIO_PEAK_MB,
  worse,
} from "../fuzz/hostile.js";
import { memoryFinding, runTransportFuzz, transportCases } from "../fuzz/transport.js";

describe("npm run fuzz -- --transport", () => {
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

describe("npm run fuzz -- --transport: the hostile families, with wymcp and without", () => {
  test("a run of as many cases as a family has shapes covers every shape once, and the same seed gives the same cases", () => {
    for (const family of HOSTILE_FAMILIES) {
      const cases = hostileCases({ seed: 5, count: SHAPES[family], families: [family] });
      const shapes = new Set(cases.map((c) => c.label.replace(/ \(\d+\)$/, "")));
      assert.equal(shapes.size, SHAPES[family], family);
    }
    const labels = (seed: number) => hostileCases({ seed, count: 6 }).map((c) => c.label);
    assert.deepEqual(labels(9), labels(9));
  });

  test("worse is a crash, a hang, an unbounded answer, memory, a 5xx the server alone did not give, or more answers", () => {
    const seen = (s: Partial<Seen>): Seen => ({ statuses: [], bytes: 0, finished: true, ms: 10, ...s });
    const upstream = { family: "upstream" as const };
    assert.equal(worse(upstream, seen({ statuses: [200] }), seen({ statuses: [200] }), false), "crash");
    assert.equal(worse(upstream, seen({}), seen({ finished: false }), true), "hang");
    assert.equal(worse(upstream, seen({ finished: false }), seen({ finished: false }), true), "ok");
    assert.equal(worse(upstream, seen({ bytes: 9e6 }), seen({ bytes: MAX_ANSWER_BYTES * 2 }), true), "unbounded answer");
    assert.equal(worse(upstream, seen({ bytes: 9e6, stream: true }), seen({ bytes: 9e6, stream: true }), true), "ok");
    assert.equal(worse(upstream, seen({}), seen({ peakGrowthMb: MEMORY_BOUND_MB + 1 }), true), "memory");
    // A 502 for an answer Node's client cannot read either is the proxy's translation; for one it reads, a finding.
    assert.equal(worse(upstream, seen({ error: "HPE_INVALID_STATUS" }), seen({ statuses: [502] }), true), "ok");
    assert.equal(worse(upstream, seen({ statuses: [200], complete: true }), seen({ statuses: [502] }), true), "5xx");
    // A 504 once --timeout has passed is the bound the proxy was given.
    assert.equal(worse(upstream, seen({ statuses: [200], complete: true, ms: 2_500 }), seen({ statuses: [504] }), true), "ok");
    const smuggling = { family: "smuggling" as const };
    assert.equal(worse(smuggling, seen({ statuses: [400] }), seen({ statuses: [200, 200] }), true), "smuggled");
    assert.equal(worse(smuggling, seen({ statuses: [400] }), seen({ statuses: [400] }), true), "ok");
    const client = { family: "client" as const };
    assert.equal(worse(client, seen({ statuses: [200, 200] }), seen({ statuses: [200] }), true), "fewer answers");
    const stdio = { family: "stdio" as const };
    assert.match(worse(stdio, seen({ exitCode: 3 }), seen({ exitCode: 1 }), true), /^crash/);
    assert.equal(worse(stdio, seen({ exitCode: 0 }), seen({ exitCode: 0, peakMb: STDIO_PEAK_MB + 1 }), true), "memory");
  });

  test("a seeded sample of every hostile family finds nothing worse with wymcp than without it", async () => {
    const cases = hostileCases({ seed: 7, count: 3 });
    const { results } = await runHostileFuzz(cases);
    assert.deepEqual(
      HOSTILE_FAMILIES.map((f) => results.filter((r) => r.family === f).length),
      [3, 3, 3, 3],
    );
    assert.deepEqual(
      results.filter((r) => r.verdict !== "ok").map((r) => `${r.family} ${r.label}: ${r.verdict}`),
      [],
    );
  });
});
