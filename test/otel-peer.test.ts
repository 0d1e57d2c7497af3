import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { before, test } from "node:test";
import { HUNG_CHILD_MS } from "../examples/hung-child.js";
import { staticGraph } from "./support/graph.js";
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

for (const entry of ["index.js", "node-http.js", "fetch.js", "outbound.js"]) {
  test(`dist/${entry} never loads @opentelemetry/*, not even lazily`, () => {
    const { files, bare } = graph(join(dist, entry));
    assert.deepEqual(
      [...bare].filter((s) => OTEL.test(s)),
      [],
    );
    for (const file of files) assert.doesNotMatch(readFileSync(file, "utf8"), /["']@opentelemetry\//, file);
  });
}

/** An import of an OpenTelemetry package in built code: static, dynamic or `require`. */
const OTEL_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s*)["']@opentelemetry\//m;

test("dist/cli.js loads @opentelemetry/* for --otel alone: nothing it loads imports it, but one chunk that the proxy and stdio commands import lazily", () => {
  const cli = staticGraph(join(dist, "cli.js"));
  assert.deepEqual(
    [...cli.bare].filter((s) => OTEL.test(s)),
    [],
  );
  for (const file of cli.files) assert.doesNotMatch(readFileSync(file, "utf8"), OTEL_IMPORT, file);
  // Each command the bin loads lazily (check's, compile's, proxy's, stdio's), and what they load, import none either.
  const commands = [...cli.lazy].map((file) => staticGraph(file));
  const otelChunks = new Set<string>();
  for (const command of commands) {
    for (const file of command.files) assert.doesNotMatch(readFileSync(file, "utf8"), OTEL_IMPORT, file);
    for (const file of command.lazy) if (OTEL_IMPORT.test(readFileSync(file, "utf8"))) otelChunks.add(file);
  }
  assert.equal(otelChunks.size, 1, `one chunk imports OpenTelemetry: ${[...otelChunks].join(", ")}`);
  const [chunk] = [...otelChunks];
  assert.match(chunk!, /\/command-sdk-\w+\.js$/);
  assert.deepEqual([...staticGraph(chunk!).bare].filter((s) => OTEL.test(s)).sort(), ["@opentelemetry/api", "@opentelemetry/sdk-node"]);
});

test("@opentelemetry/sdk-node is an optional peer dependency for --otel, and a development dependency pinned exactly", () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as Record<string, Record<string, unknown>>;
  assert.equal(pkg.peerDependencies?.["@opentelemetry/sdk-node"], ">=0.209.0");
  assert.deepEqual(pkg.peerDependenciesMeta?.["@opentelemetry/sdk-node"], { optional: true });
  assert.match(String(pkg.devDependencies?.["@opentelemetry/sdk-node"]), /^\d+\.\d+\.\d+$/);
});

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

test("nothing in src/ outside src/otel/ (and the otel entry) imports @opentelemetry/*, but the module --otel loads", () => {
  const sources = readdirSync(join(repoRoot, "src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  const importing = sources.filter((f) =>
    /(?:from\s*|import\s*\(\s*)["']@opentelemetry\//.test(readFileSync(join(repoRoot, "src", f), "utf8")),
  );
  assert.deepEqual(importing.sort(), ["otel/command-sdk.ts", "otel/telemetry.ts"]);
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

/** Node's flags that make every `@opentelemetry/*` unresolvable, as a missing optional peer is. */
function withoutOpenTelemetry(): string[] {
  const hooks = `export async function resolve(s, c, next) { if (/^@opentelemetry\\//.test(s)) throw Object.assign(new Error("Cannot find package '" + s + "' imported from " + c.parentURL), { code: "ERR_MODULE_NOT_FOUND" }); return next(s, c); }`;
  const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return ["--import", `data:text/javascript,${encodeURIComponent(register)}`];
}

test("with the OpenTelemetry peers missing, --otel fails at start in one line naming them, exit 2; without --otel the commands run", async () => {
  const cli = join(dist, "cli.js");
  const line =
    /^wymcp (proxy|stdio): --otel needs the optional peer dependencies @opentelemetry\/api and @opentelemetry\/sdk-node, and @opentelemetry\/(api|sdk-node) is not installed: npm install @opentelemetry\/api @opentelemetry\/sdk-node\n$/;
  const proxy = spawnSync(process.execPath, [...withoutOpenTelemetry(), cli, "proxy", "--otel", "--upstream", "http://127.0.0.1:9/mcp"], {
    encoding: "utf8",
    timeout: HUNG_CHILD_MS,
  });
  assert.equal(proxy.status, 2, proxy.stderr);
  assert.match(proxy.stderr, line);
  const stdio = spawnSync(
    process.execPath,
    [...withoutOpenTelemetry(), cli, "stdio", "--otel", "--", process.execPath, "-e", "process.exit(7)"],
    {
      encoding: "utf8",
      timeout: HUNG_CHILD_MS,
    },
  );
  assert.equal(stdio.status, 2, stdio.stderr);
  assert.match(stdio.stderr, line);
  // Without the flag, neither command looks for the peers: the server runs, its exit code is wymcp's.
  const plain = spawnSync(process.execPath, [...withoutOpenTelemetry(), cli, "stdio", "--", process.execPath, "-e", "process.exit(7)"], {
    encoding: "utf8",
    timeout: HUNG_CHILD_MS,
  });
  assert.equal(plain.status, 7, plain.stderr);
  const listening = spawn(
    process.execPath,
    [...withoutOpenTelemetry(), cli, "proxy", "--upstream", "http://127.0.0.1:9/mcp", "--listen", "127.0.0.1:0"],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  listening.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<number | null>((done) => listening.once("exit", (code) => done(code)));
  // Its line saying it listens, or its exit.
  await new Promise<void>((resolve) => {
    listening.stderr.on("data", () => /listening on http/.test(stderr) && resolve());
    void exited.then(() => resolve());
  });
  assert.match(stderr, /listening on http/);
  listening.kill("SIGTERM");
  assert.equal(await exited, 0, stderr);
});
