import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { PATTERN_SHAPES, patternCase } from "../fuzz/adversarial/edge.js";
import { edgeCompiler } from "../src/compile/at-edge.js";
import type { ToolSchemaCompiler } from "../src/core/tools-at-edge.js";

let compile: ToolSchemaCompiler;
before(async () => {
  const compiler = await edgeCompiler();
  if (typeof compiler !== "function") throw new Error(compiler.missing);
  compile = compiler;
});

/** CPU time of `run`, the least of `samples` tries (the machine is shared: the least is the one least disturbed). */
function cpuTime(run: () => void, samples: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < samples; i++) {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    best = Math.min(best, used.user + used.system);
  }
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
      const verdict = tools.judge(large, "modern", undefined, {});
      assert.ok(!(verdict instanceof Promise));
      assert.equal(verdict?.check, "arguments");
      // Ten small calls against one large one, so that each sample is of the same order of work.
      const judgeSmall = () => {
        for (let i = 0; i < 10; i++) tools.judge(small, "modern", undefined, {});
      };
      const judgeLarge = () => tools.judge(large, "modern", undefined, {});
      judgeSmall();
      judgeLarge();
      const ratio = (cpuTime(judgeLarge, 7) * 10) / cpuTime(judgeSmall, 7);
      assert.ok(ratio <= 15, `10× the argument cost ${ratio.toFixed(1)}× the time`);
    });
});
