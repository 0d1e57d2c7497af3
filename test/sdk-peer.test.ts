import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { repoRoot } from "./support/spec.js";

const dist = join(repoRoot, "dist");
before(() => {
  if (!existsSync(join(dist, "node-http.js"))) execFileSync("npm", ["run", "-s", "build"], { cwd: repoRoot });
});

// An import, a dynamic import, a require or a bare `import "..."` of a package of the SDK, in code or declarations.
const SDK_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s*)["'](@modelcontextprotocol\/[^"']*)["']/gm;

test("the SDK is an optional peer dependency, and nothing built imports it, not even its types", () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as Record<string, Record<string, unknown> | undefined>;
  assert.equal(pkg.dependencies, undefined);
  assert.equal(pkg.peerDependencies?.["@modelcontextprotocol/server"], "^2.4.0");
  assert.deepEqual(pkg.peerDependenciesMeta?.["@modelcontextprotocol/server"], { optional: true });
  const built = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((f) => /\.(js|d\.ts)$/.test(f));
  assert.ok(built.includes("node-http.js") && built.includes("fetch.d.ts"));
  const importers: string[] = [];
  for (const file of built) {
    for (const [, specifier] of readFileSync(join(dist, file), "utf8").matchAll(SDK_IMPORT)) {
      // The one exception: `wymcp compile --from` asks a server through the official client (compile-lean-entries.test.ts).
      assert.ok(
        /^from-server-\w+\.js$/.test(file) && /^@modelcontextprotocol\/client(?:\/|$)/.test(specifier!),
        `${file} imports ${specifier}`,
      );
      importers.push(file);
    }
  }
  assert.equal(new Set(importers).size, 1, "the --from chunk imports the client");
});

test("the official client is an optional peer too, for wymcp compile --from and --from-stdio alone", () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as Record<string, Record<string, unknown> | undefined>;
  assert.equal(pkg.peerDependencies?.["@modelcontextprotocol/client"], "^2.4.0");
  assert.deepEqual(pkg.peerDependenciesMeta?.["@modelcontextprotocol/client"], { optional: true });
});
