import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { specProblems, specSource } from "../scripts/spec-dir.js";
import { repoRoot, specDir } from "./support/spec.js";

test("the spec folder the tests use holds every file schemas/spec/source.json names, as generated/ was compiled from it", () => {
  assert.deepEqual(specProblems(specDir), []);
});

test("npm test's first step, before the build, fails without the spec, naming the repository, the commit and MCP_SPEC_DIR", () => {
  const { scripts } = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> };
  for (const name of ["pretest", "test:unit"]) assert.match(scripts[name] ?? "", /^tsx scripts\/check-spec\.ts && /, name);
  const empty = mkdtempSync(join(tmpdir(), "wymcp-no-spec-"));
  try {
    const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/check-spec.ts"], {
      cwd: repoRoot,
      env: { ...process.env, MCP_SPEC_DIR: empty },
      encoding: "utf8",
    });
    assert.equal(run.status, 1);
    assert.match(run.stderr, /github\.com\/modelcontextprotocol\/modelcontextprotocol/);
    assert.ok(run.stderr.includes(specSource.commit), "names the commit");
    assert.match(run.stderr, /MCP_SPEC_DIR/);
    assert.match(run.stderr, /missing schema\/2026-07-28\/schema\.json/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

test("a spec folder from another commit is named file by file", () => {
  const other = mkdtempSync(join(tmpdir(), "wymcp-other-spec-"));
  try {
    for (const file of specSource.files) {
      mkdirSync(dirname(join(other, file)), { recursive: true });
      if (file.endsWith("/")) symlinkSync(join(specDir, file), join(other, file.slice(0, -1)));
      else cpSync(join(specDir, file), join(other, file));
    }
    writeFileSync(join(other, "schema/2026-07-28/schema.json"), "{}");
    assert.deepEqual(specProblems(other), ["schema/2026-07-28/schema.json differs from the one generated/ was compiled from"]);
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test("one resolver locates the spec: no script, test, bench or example computes the default folder itself", () => {
  const offenders: string[] = [];
  for (const folder of ["src", "scripts", "test", "bench", "fuzz", "examples"]) {
    for (const entry of readdirSync(join(repoRoot, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(?:ts|mts|mjs|js)$/.test(entry.name) || (entry.parentPath ?? entry.path).includes("node_modules"))
        continue;
      const file = join(entry.parentPath ?? entry.path, entry.name);
      const code = readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => !/^\s*(\*|\/\/)/.test(line))
        .join("\n");
      if (/shared\/mcp-spec|process\.env\.MCP_SPEC_DIR|env\.MCP_SPEC_DIR/.test(code)) offenders.push(file.slice(repoRoot.length));
    }
  }
  assert.deepEqual(offenders, ["scripts/spec-dir.ts"]);
});
