import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { edgeCompiler } from "../src/compile/at-edge.js";
import type { ToolSchemaCompiler } from "../src/tools/tools-at-edge.js";
import {
  type EdgeCase,
  headerBytes,
  headerCases,
  judgeAtEdge,
  NODE_MAX_HEADER_BYTES,
  reader,
  schemaCases,
} from "../fuzz/adversarial/edge.js";

let compile: ToolSchemaCompiler;
before(async () => {
  const compiler = await edgeCompiler();
  if (typeof compiler !== "function") throw new Error(compiler.missing);
  compile = compiler;
});

/** The largest n (a power of two) whose header section fits Node's default. */
function fitting(c: EdgeCase): number {
  let n = 4;
  while (headerBytes(c.request(n * 2).headers) <= NODE_MAX_HEADER_BYTES) n *= 2;
  return n;
}

describe("the header family: each case is judged as it says, by a Node face and a Fetch face, small and at 16 KiB", () => {
  test("every case, both faces", async () => {
    const cases = headerCases(compile);
    for (const c of cases) {
      for (const n of [8, fitting(c)]) {
        const request = c.request(n);
        await request.tools.settled();
        assert.ok(headerBytes(request.headers) <= NODE_MAX_HEADER_BYTES, `${c.label}: n ${n} fits`);
        for (const face of ["node", "fetch"] as const) {
          const verdict = judgeAtEdge(request, reader(face, request.headers)());
          assert.equal(verdict, c.expect, `${c.label}, ${face}, n ${n}`);
        }
      }
    }
  });
});

describe("the schema family: exactly the risky schemas are not run at the edge, every other one is judged as the case says", () => {
  // The cases that multiply the schemas judged per value or compare every pair, and the one pattern too large for RE2 at the edge.
  const RISKY = /\{1,1000\}|500 deep|of 64 object|doubling|uniqueItems|enum of 2,000/;

  test("every case at a small n", async () => {
    for (const c of schemaCases(compile)) {
      const request = c.request(64);
      await request.tools.settled();
      const verdict = judgeAtEdge(request, reader("node", request.headers)());
      const notRun = c.notRun();
      assert.equal(notRun !== undefined, RISKY.test(c.label), `${c.label}: ${notRun ?? "run"}`);
      if (notRun) assert.equal(verdict, "pass", `${c.label}: passed on unjudged (${notRun})`);
      else assert.equal(verdict, c.expect, c.label);
    }
  });
});
