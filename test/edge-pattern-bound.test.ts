import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { PATTERN_SHAPES, patternCase } from "../fuzz/adversarial/edge.js";
import { edgeCompiler } from "../src/compile/at-edge.js";
import type { ToolSchemaCompiler } from "../src/tools/tools-at-edge.js";

let compile: ToolSchemaCompiler;
before(async () => {
  const compiler = await edgeCompiler();
  if (typeof compiler !== "function") throw new Error(compiler.missing);
  compile = compiler;
});

/**
 * CPU microseconds of one `run`: calls are batched until a batch takes at least 2 ms, so that a call of a few
 * microseconds is measured as well as a long one; the least of `samples` batches (the machine is shared: the least is
 * the one least disturbed).
 */
function cpuPerCall(run: () => void, samples: number): number {
  let calls = 1;
  const batch = () => {
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) run();
    const used = process.cpuUsage(start);
    return used.user + used.system;
  };
  while (batch() < 2000 && calls < 1 << 20) calls *= 2;
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < samples; i++) best = Math.min(best, batch() / calls);
  return best;
}

describe("every argument of n bytes costs O(n) at the edge, whatever the server's pattern", () => {
  for (const shape of PATTERN_SHAPES)
    test(`${shape.key ? "patternProperties key" : "pattern"} /${shape.pattern}/ (${shape.growth} on RegExp): refused at the edge, and 10× the argument costs at most 15× the time`, async () => {
      const { tools, body } = patternCase(shape, compile);
      await tools.settled();
      const small = body(10_000);
      const large = body(100_000);
      // Judged, not passed on: the pattern runs at the edge.
      const verdict = tools.judge({ body: large, era: "modern", protocolVersion: undefined, headers: {} });
      assert.ok(!(verdict instanceof Promise));
      assert.equal(verdict?.check, "arguments");
      const judgeSmall = () => tools.judge({ body: small, era: "modern", protocolVersion: undefined, headers: {} });
      const judgeLarge = () => tools.judge({ body: large, era: "modern", protocolVersion: undefined, headers: {} });
      const ratio = cpuPerCall(judgeLarge, 7) / cpuPerCall(judgeSmall, 7);
      assert.ok(ratio <= 15, `10× the argument cost ${ratio.toFixed(1)}× the time`);
    });
});
