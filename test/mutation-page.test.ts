import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { join } from "node:path";
import { readByTheRun, renderPage } from "../scripts/mutation.js";
import { EXPLAINED } from "../scripts/mutation/explained.js";

const source = "export const limit = 4;\nexport function over(n: number) {\n  return n > limit;\n}\n";
const mutant = (id: string, status: string, line: number, column: number, endColumn: number, mutatorName: string, replacement: string) => ({
  id,
  status,
  mutatorName,
  replacement,
  location: { start: { line, column }, end: { line, column: endColumn } },
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

  test("an incremental run's page also gives the last full run's duration, and each run's load average", () => {
    const full = { minutes: 18.2, incremental: false, date: "2026-12-02", load: [1.1, 3.6] as [number, number] };
    const { page } = renderPage(report as never, { minutes: 5.4, incremental: true, date: "2026-12-03", load: [0.5, 2.5], full });
    assert.match(
      page,
      /5\.4 minutes \(incremental: results of unchanged mutants and tests reused\), load average 0\.5 before and 2\.5 after\. The last full run \(2026-12-02\): 18\.2 minutes \(a full run, nothing reused\), load average 1\.1 before and 3\.6 after\./,
    );
    assert.doesNotMatch(renderPage(report as never, { ...full, full }).page, /The last full run/);
  });

  test("a full run follows a change to what the suites read, but not to a suite Stryker diffs itself or never runs", () => {
    const at = (file: string) => join(process.cwd(), file);
    assert.equal(readByTheRun(at("test/support/messages.ts")), true, "a helper");
    assert.equal(readByTheRun(at("test/golden/legacy-parse-error.json")), true, "a golden");
    assert.equal(readByTheRun(at("test/routing-differential.test.ts")), true, "a suite a wrapper imports");
    assert.equal(readByTheRun(at("test/era-signals.test.ts")), false, "a suite Stryker runs by name");
    assert.equal(readByTheRun(at("scripts/mutation/explained.ts")), false, "the explanations");
    assert.equal(readByTheRun(at("test/cli.test.ts")), false, "a suite the run never runs");
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
