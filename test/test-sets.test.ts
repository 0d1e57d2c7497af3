/**
 * The fast loop (`npm run test:unit`) and the full run (`npm test`), read from the source by scripts/test-sets.ts: a
 * file is in the fast loop exactly when nothing it runs leaves the process, and no file falls out of the full run.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { allTestFiles, outOfProcess, SLOW_IN_PROCESS, unitTestFiles } from "../scripts/test-sets.js";
import { repoRoot } from "./support/spec.js";

describe("the scan, on a tree made for it", () => {
  const root = mkdtempSync(join(tmpdir(), "wymcp-test-sets-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  // Each file's source, by path: data, so that this file's own text names none of what the scan looks for.
  const files = JSON.parse(readFileSync(join(repoRoot, "test", "fixtures", "test-sets.json"), "utf8")) as Record<string, string>;
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }

  test("each way out of the process is found, through the helpers a test imports; src/ is not followed", () => {
    const seen = Object.fromEntries(allTestFiles(root).map((file) => [file, outOfProcess(file, root)]));
    assert.deepEqual(seen, {
      "test/dist.test.ts": { module: "test/dist.test.ts", means: "the build (npm run build)" },
      "test/guarded.test.ts": undefined,
      "test/hono.test.ts": { module: "test/hono.test.ts", means: "a server on a socket" },
      "test/pure.test.ts": undefined,
      "test/serves.test.ts": { module: "test/serves.test.ts", means: "a server on a socket" },
      "test/spawns.test.ts": { module: "examples/launch.ts", means: "a child process" },
      "test/thread.test.ts": { module: "test/thread.test.ts", means: "a worker thread" },
    });
    assert.deepEqual(unitTestFiles(root), ["test/guarded.test.ts", "test/pure.test.ts"]);
  });
});

describe("the repository's sets", () => {
  const all = allTestFiles();
  const unit = unitTestFiles();

  test("npm test runs every test file (test:src's glob); test:unit runs the fast set after the spec check", () => {
    const { scripts } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> };
    assert.match(scripts["test:src"] ?? "", / test\/\*\.test\.ts$/);
    assert.equal(scripts["test:unit"], "tsx scripts/check-spec.ts && tsx scripts/test-unit.ts");
  });

  test("the fast set is in the full set, and holds the in-process suites (the core's validation) but none that spawns or serves", () => {
    assert.ok(unit.every((file) => all.includes(file)));
    for (const file of ["test/validate.test.ts", "test/admission-stage.test.ts", "test/test-sets.test.ts"])
      assert.ok(unit.includes(file), file);
    for (const file of ["test/proxy.test.ts", "test/stdio.test.ts", "test/legacy-clients.test.ts", "test/node-http.test.ts"])
      assert.ok(!unit.includes(file), file);
  });

  test("each file left out of the fast loop for its time alone exists and is in-process (else the entry is stale)", () => {
    for (const [file, reason] of Object.entries(SLOW_IN_PROCESS)) {
      assert.ok(all.includes(file), `${file} is no test file`);
      assert.equal(outOfProcess(file), undefined, `${file} leaves the process anyway: drop its entry`);
      assert.ok(reason.length > 0);
    }
  });
});
