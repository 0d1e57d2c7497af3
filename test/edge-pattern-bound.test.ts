import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { edgeCompiler } from "../src/compile/at-edge.js";
import { type ToolSchemaCompiler, ToolsAtEdge } from "../src/core/tools-at-edge.js";
import { MODERN_META } from "./support/messages.js";

/**
 * The shapes that backtrack on RegExp, each with the argument that makes it: an unanchored run before `$` (quadratic:
 * it is entered from every start), nested and adjacent runs (exponential, polynomial), and a key of patternProperties.
 */
const SHAPES: Array<{ pattern: string; text: (n: number) => string; key?: true }> = [
  { pattern: "[^/]+$", text: (n) => `${"a".repeat(n)}/` },
  { pattern: "\\d+$", text: (n) => `${"0".repeat(n)}!` },
  { pattern: "\\w+$", text: (n) => `${"a".repeat(n)}!` },
  { pattern: "[a-z0-9]+$", text: (n) => `${"a".repeat(n)}!` },
  { pattern: "\\s+$", text: (n) => `${" ".repeat(n)}!` },
  { pattern: "^(a+)+$", text: (n) => `${"a".repeat(n)}!` },
  { pattern: "(a+)+b", text: (n) => "a".repeat(n) },
  { pattern: "^\\d*\\d*x$", text: (n) => `${"0".repeat(n)}!` },
  { pattern: "[a-z]+x", text: (n) => "a".repeat(n) },
  { pattern: "^[^@]+@[^@]+\\.[^@]+$", text: (n) => `a@${"a".repeat(n)}` },
  { pattern: "[^/]+$", text: (n) => `${"a".repeat(n)}/`, key: true },
];

const call = (args: unknown) => ({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { _meta: MODERN_META, name: "t", arguments: args },
});

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
  for (const shape of SHAPES)
    test(`${shape.key ? "patternProperties key" : "pattern"} /${shape.pattern}/: refused at the edge, and 10× the argument costs at most 15× the time`, async () => {
      const schema = shape.key
        ? { type: "object", patternProperties: { [shape.pattern]: {} }, additionalProperties: false }
        : { type: "object", properties: { s: { type: "string", pattern: shape.pattern } }, required: ["s"] };
      const tools = new ToolsAtEdge({ given: { tools: [{ name: "t", inputSchema: schema }] }, compile });
      await tools.settled();
      const body = (n: number) => call(shape.key ? { [shape.text(n)]: 1 } : { s: shape.text(n) });
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
