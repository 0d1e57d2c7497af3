import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { renderPage } from "../scripts/mutation.js";
import { EXPLAINED } from "./mutation/explained.js";

const source = "export const limit = 4;\nexport function over(n: number) {\n  return n > limit;\n}\n";
const mutant = (id: string, status: string, line: number, column: number, endColumn: number, mutatorName: string, replacement: string) => ({
  id, status, mutatorName, replacement, location: { start: { line, column }, end: { line, column: endColumn } },
});

describe("docs/mutation.md, as npm run mutation writes it", () => {
  const report = {
    files: {
      "src/x.ts": {
        source,
        mutants: [
          mutant("1", "Killed", 3, 10, 19, "EqualityOperator", "n >= limit"),
          mutant("2", "Timeout", 3, 10, 19, "BooleanLiteral", "true"),
          mutant("3", "Survived", 1, 22, 23, "ArithmeticOperator", "5"),
          mutant("4", "NoCoverage", 3, 10, 19, "ConditionalExpression", "false"),
          mutant("5", "CompileError", 3, 10, 19, "ConditionalExpression", "x"),
        ],
      },
    },
  };

  test("scores killed and timed out over valid mutants, no coverage counting as survived, invalid ones left out", () => {
    const { page, total } = renderPage(report as never, { minutes: 1.5, incremental: false, date: "2026-12-03" });
    assert.equal(total, 50);
    assert.match(page, /\| `src\/x\.ts` \| 4 \| 1 \| 1 \| 1 \| 1 \| 50\.0 % \|/);
    assert.match(page, /1\.5 minutes \(a full run, nothing reused\)/);
  });

  test("lists every survivor with the source text it replaced, and marks the unexplained ones", () => {
    const { page, unexplained } = renderPage(report as never, { minutes: undefined, incremental: true, date: "2026-12-03" });
    assert.equal(unexplained, 2);
    assert.match(page, /\| `src\/x\.ts:1` \| ArithmeticOperator \| `4` → `5` \| \*\*unexplained\*\*/);
    assert.match(page, /\| `src\/x\.ts:3` \(no coverage\) \| ConditionalExpression \| `n > limit` → `false` \|/);
  });

  test("every explanation names a file that the run mutates and says why", async () => {
    // @ts-expect-error: a plain .mjs config (checked with // @ts-check), no declaration file.
    const { mutate } = (await import("../stryker.config.mjs")).default as { mutate: string[] };
    for (const e of EXPLAINED) {
      assert.ok(mutate.includes(e.file), e.file);
      assert.ok(e.why.length > 20, e.why);
    }
  });
});
