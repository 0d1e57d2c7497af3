import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { before, test } from "node:test";
import { repoRoot } from "./support/spec.js";

const dist = join(repoRoot, "dist");
const OTEL = /^@opentelemetry\//;

before(() => {
  if (!existsSync(join(dist, "otel.js"))) execFileSync("npm", ["run", "-s", "build"], { cwd: repoRoot });
});

/** The modules a built file loads (static and dynamic imports, through relative paths) and the packages they import. */
function graph(entry: string): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const code = readFileSync(file, "utf8");
    const specifiers = [
      ...code.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"/gm),
      ...code.matchAll(/^\s*import\s*"([^"]+)"/gm),
      ...code.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
    ].map((m) => m[1]!);
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier));
      else bare.add(specifier);
    }
  };
  visit(entry);
  return { files, bare };
}

test("@opentelemetry/api is an optional peer dependency, and a development dependency pinned exactly", () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as Record<string, Record<string, unknown>>;
  assert.equal(pkg.peerDependencies?.["@opentelemetry/api"], "^1.7.0");
  assert.deepEqual(pkg.peerDependenciesMeta?.["@opentelemetry/api"], { optional: true });
  assert.match(String(pkg.devDependencies?.["@opentelemetry/api"]), /^\d+\.\d+\.\d+$/);
  assert.equal(pkg.dependencies, undefined);
});

for (const entry of ["index.js", "node-http.js", "fetch.js", "outbound.js", "cli.js"]) {
  test(`dist/${entry} never loads @opentelemetry/*, not even lazily`, () => {
    const { files, bare } = graph(join(dist, entry));
    assert.deepEqual(
      [...bare].filter((s) => OTEL.test(s)),
      [],
    );
    for (const file of files) assert.doesNotMatch(readFileSync(file, "utf8"), /["']@opentelemetry\//, file);
  });
}

test("dist/otel.js imports @opentelemetry/api and nothing else of a package; its declarations name only the API", () => {
  assert.deepEqual([...graph(join(dist, "otel.js")).bare], ["@opentelemetry/api"]);
  const declarations = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".d.ts"));
  for (const file of declarations) {
    for (const [, spec] of readFileSync(join(dist, file), "utf8").matchAll(/from\s*["'](@opentelemetry\/[^"']+)["']/g)) {
      assert.equal(spec, "@opentelemetry/api", file);
      assert.ok(file.startsWith("otel"), `${file} names ${spec}`);
    }
  }
});

test("nothing in src/ outside src/otel/ (and the otel entry) imports @opentelemetry/*", () => {
  const sources = readdirSync(join(repoRoot, "src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  const importing = sources.filter((f) => /from\s*["']@opentelemetry\//.test(readFileSync(join(repoRoot, "src", f), "utf8")));
  assert.deepEqual(importing.sort(), ["otel/telemetry.ts"]);
});

test("with @opentelemetry/api unresolvable, every other entry still loads and serves; wymcp/otel alone fails, naming the package", () => {
  // A resolve hook that refuses @opentelemetry/* as a missing optional peer would be refused.
  const hooks = `export async function resolve(s, c, next) { if (/^@opentelemetry\\//.test(s)) throw Object.assign(new Error("Cannot find package '" + s + "'"), { code: "ERR_MODULE_NOT_FOUND" }); return next(s, c); }`;
  const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  const url = (name: string) => pathToFileURL(join(dist, name)).href;
  const script = `
    const { gateNode } = await import(${JSON.stringify(url("node-http.js"))});
    const { gateFetch } = await import(${JSON.stringify(url("fetch.js"))});
    await import(${JSON.stringify(url("index.js"))});
    await import(${JSON.stringify(url("outbound.js"))});
    const gated = gateFetch({ fetch: async () => new Response("{}", { headers: { "content-type": "application/json" } }) });
    const res = await gated(new Request("http://x/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }));
    console.log("served", res.status, typeof gateNode);
    try { await import(${JSON.stringify(url("otel.js"))}); console.log("otel loaded"); } catch (e) { console.log("otel:", e.message); }
  `;
  const run = spawnSync(
    process.execPath,
    ["--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", script],
    {
      encoding: "utf8",
    },
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^served 200 function$/m);
  assert.match(run.stdout, /^otel: Cannot find package '@opentelemetry\/api'$/m);
});
