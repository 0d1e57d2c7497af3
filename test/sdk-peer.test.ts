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

test("the SDK is an optional peer dependency, and nothing built imports it, not even its types", () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as Record<string, Record<string, unknown> | undefined>;
  assert.equal(pkg.dependencies, undefined);
  assert.equal(pkg.peerDependencies?.["@modelcontextprotocol/server"], "^2.4.0");
  assert.deepEqual(pkg.peerDependenciesMeta?.["@modelcontextprotocol/server"], { optional: true });
  const built = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((f) => /\.(js|d\.ts)$/.test(f));
  assert.ok(built.includes("node-http.js") && built.includes("fetch.d.ts"));
  for (const file of built) assert.doesNotMatch(readFileSync(join(dist, file), "utf8"), /["']@modelcontextprotocol\//, file);
});
