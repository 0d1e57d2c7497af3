import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { pathToFileURL } from "node:url";
import { before, describe, test } from "node:test";
import { entriesOf } from "../scripts/build.js";
import { documentedList, dryRun, fileList, type Packed } from "../scripts/package-doc.js";
import { repoRoot } from "./support/spec.js";

type Target = { types: string; default: string };
const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  main: string;
  types: string;
  exports: Record<string, Target | string>;
  typesVersions: Record<string, Record<string, string[]>>;
  scripts: Record<string, string>;
  files: string[];
};
const tsconfig = JSON.parse(readFileSync(join(repoRoot, "tsconfig.json"), "utf8")) as {
  compilerOptions: { paths: Record<string, string[]> };
};
const entries = entriesOf(pkg);
const distDir = join(repoRoot, "dist");

describe("package.json's exports are the one list of entries, and its mirrors follow it", () => {
  test("the entries are the core, the Node adapter and the Fetch adapter (at least)", () => {
    const subpaths = entries.map((e) => e.subpath);
    for (const want of [".", "./node", "./fetch"]) assert.ok(subpaths.includes(want), want);
  });
  for (const { subpath, source, name } of entries) {
    const target = pkg.exports[subpath] as Target;
    const specifier = subpath === "." ? "wymcp" : `wymcp/${subpath.slice(2)}`;
    test(`${specifier}: its source exists and its types sit beside its code`, () => {
      assert.ok(existsSync(join(repoRoot, source)), source);
      assert.equal(target.types, `./dist/${name}.d.ts`);
    });
    test(`${specifier}: tsconfig paths send it to ${source} (so tests, examples and README snippets run from source)`, () => {
      assert.deepEqual(tsconfig.compilerOptions.paths[specifier], [`./${source}`]);
    });
    if (subpath !== ".") {
      test(`${specifier}: typesVersions resolves it under moduleResolution node10`, () => {
        assert.deepEqual(pkg.typesVersions["*"]?.[subpath.slice(2)], [target.types]);
      });
    }
  }
  test("top-level main and types fall back to the core", () => {
    const core = pkg.exports["."] as Target;
    assert.equal(pkg.main, core.default);
    assert.equal(pkg.types, core.types);
  });
  test("no install-time script: consumers of the tarball run nothing; the tests and npm pack build dist first", () => {
    for (const name of ["preinstall", "install", "postinstall", "prepare"]) assert.equal(pkg.scripts[name], undefined, name);
    assert.match(pkg.scripts.pretest ?? "", /\bbuild\b/);
    assert.match(pkg.scripts.prepack ?? "", /\bbuild\b/, "npm pack and npm publish build dist/ first");
  });
});

describe("npm test runs the entry suites against dist/ too", () => {
  const distRun = (pkg.scripts["test:dist"] ?? "").split(/\s+/).filter((w) => w.startsWith("test/"));
  // The bin is dist/cli.js in both runs: these suites spawn it, and their in-process imports only cross-check it.
  // Suites of the bin (dist/cli.js, run as a child process), which import an entry only to compute what it should answer.
  const BIN_ONLY = new Set(["test/cli.test.ts", "test/cli-input.test.ts", "test/proxy.test.ts", "test/proxy-python.test.ts"]);

  test("npm test is the src/ run then the dist/ run, the dist/ run whatever the src/ run found, failing when either fails", () => {
    assert.equal(pkg.scripts.test, "npm run -s test:src; src=$?; npm run -s test:dist; dist=$?; exit $((src || dist))");
    // The script as npm runs it (sh -c): each failure alone fails it, and the second run happens after a failed first.
    const script = (src: string, dist: string) =>
      spawnSync("sh", ["-c", pkg.scripts.test!.replaceAll("npm run -s test:src", src).replaceAll("npm run -s test:dist", dist)], {
        encoding: "utf8",
      });
    assert.equal(script("true", "true").status, 0);
    assert.equal(script("false", "true").status, 1);
    assert.equal(script("true", "false").status, 1);
    assert.match(script("false", "echo dist-ran").stdout, /dist-ran/);
    assert.match(pkg.scripts["test:dist"] ?? "", /^TSX_TSCONFIG_PATH=tsconfig\.dist\.json node --import tsx --test /);
  });

  test("every suite that imports an entry of the package by name runs in the dist/ run", () => {
    const suites = readdirSync(join(repoRoot, "test"))
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `test/${f}`);
    const importsEntry = (file: string) =>
      /^import (?!type)[^;]*from "wymcp(?:\/\w+)?";$/m.test(readFileSync(join(repoRoot, file), "utf8"));
    const missing = suites.filter((f) => importsEntry(f) && !BIN_ONLY.has(f) && !distRun.includes(f));
    assert.deepEqual(missing, [], "add these to test:dist in package.json");
    for (const file of distRun) assert.ok(existsSync(join(repoRoot, file)), file);
  });

  test("under tsconfig.dist.json every entry resolves through package.json exports to dist/, under tsconfig.json to src/", () => {
    const specifiers = entries.map((e) => (e.subpath === "." ? "wymcp" : `wymcp/${e.subpath.slice(2)}`));
    const resolveAll = (tsconfig?: string) => {
      const env: Record<string, string | undefined> = { ...process.env };
      delete env.TSX_TSCONFIG_PATH;
      if (tsconfig) env.TSX_TSCONFIG_PATH = tsconfig;
      const code = `console.log(JSON.stringify(${JSON.stringify(specifiers)}.map((s) => import.meta.resolve(s))))`;
      const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
        cwd: repoRoot,
        env,
        encoding: "utf8",
      });
      return JSON.parse(out) as string[];
    };
    const url = (path: string) => pathToFileURL(join(repoRoot, path)).href;
    assert.deepEqual(
      resolveAll("tsconfig.dist.json"),
      entries.map((e) => url(`dist/${e.name}.js`)),
    );
    assert.deepEqual(
      resolveAll(undefined),
      entries.map((e) => url(e.source)),
    );
  });
});

describe("the built dist/", () => {
  before(() => {
    if (!existsSync(join(distDir, "index.js"))) execFileSync("npm", ["run", "-s", "build"], { cwd: repoRoot });
  });

  const bins = Object.values((pkg as { bin?: Record<string, string> }).bin ?? {}).map((file) => join(repoRoot, file));
  // The bins count too: they import the same core and chunks as the entries.
  const modules = () =>
    readdirSync(distDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".js"))
      .map((e) => join(e.parentPath ?? e.path, e.name));

  // envelope.ts is a few stateless lines (the JSON-RPC error shape): a copy beside the adapters costs nothing. The
  // distiller (and what it uses) is pure functions: wymcp/outbound carries its own copy (~10 KB) so that it neither
  // loads the inbound core nor widens the core's public surface. log-safe.ts (the escaping of keys) and error-budget.ts
  // (a constant) go with it.
  const STATELESS_COPIES_ALLOWED = new Set([
    "src/core/envelope.ts",
    "src/core/distill.ts",
    "src/core/fact-words.ts",
    "src/core/likely-branch.ts",
    "src/core/utf8-length.ts",
    "src/core/log-safe.ts",
    "src/core/error-budget.ts",
    // The rules' names and states and the pure functions that resolve and word them (no module state), beside the
    // adapters and the bin that resolve their rules when built.
    "src/core/rules.ts",
    // The formats option's names, likewise.
    "src/core/formats.ts",
    // The format switch and its flag: the core's inbound validators read the copy the core's validateMcpRequest sets,
    // the outbound ones the copy wymcp/outbound's validateMcpResponse sets (test/formats.test.ts runs both built).
    "src/core/format-switch.ts",
    "generated/format-mode.js",
    // The header rules' readers (a decoder made once, constants), which the tools at the edge share with admission; the
    // gates' chunk carries its own copy of them, as the core does.
    "src/core/header-body.ts",
    "src/core/routing-shapes.ts",
    // Inside the compile runtime's text (a string the build writes into runtime-text.ts, copied into each compiled
    // module): wymcp compile and the edge's compiler both carry it, so its markers are data, not code.
    "src/compile/canonical.ts",
  ]);

  test("every other source module is bundled exactly once across the entries and the bin (one WeakMap, one set of validators)", () => {
    const counts = new Map<string, number>();
    for (const file of modules()) {
      // esbuild may mark one module twice in a file (code around a dynamic import): a copy is a second file.
      const sources = new Set([...readFileSync(file, "utf8").matchAll(/^\/\/ ((?:src|generated)\/\S+)$/gm)].map((m) => m[1]!));
      for (const source of sources) counts.set(source, (counts.get(source) ?? 0) + 1);
    }
    assert.ok(counts.has("src/hosts/fetch/guard.ts") && counts.has("generated/modern/validators.js"));
    for (const [source, count] of counts)
      if (!STATELESS_COPIES_ALLOWED.has(source)) assert.equal(count, 1, `${source} is bundled ${count} times`);
  });

  test("the core is one module: a cold import of wymcp loads dist/index.js alone", () => {
    assert.deepEqual([...closure(join(distDir, "index.js"))], [join(distDir, "index.js")]);
  });

  test("the core carries the generated validators minified and the code from src/ as written", () => {
    const core = readFileSync(join(distDir, "index.js"), "utf8");
    assert.match(readFileSync(join(repoRoot, "generated/legacy/validators.js"), "utf8"), /\bfunction validate\d+\(/);
    assert.doesNotMatch(core, /\bfunction validate\d+\(/, "a generated validator kept its name in the core");
    assert.match(core, /\bfunction validateMcpRequest\(/);
  });

  test("the adapters take the validator from the core module, not from a copy", () => {
    for (const entry of ["fetch.js", "node-http.js"]) assert.ok(closure(join(distDir, entry)).has(join(distDir, "index.js")), entry);
  });

  test("the bin takes the inbound validators from the core module and the outbound ones from wymcp/outbound's chunk", () => {
    assert.ok(bins.length > 0, "package.json names a bin");
    const outboundChunks = [...closure(join(distDir, "outbound.js"))].filter((f) => f !== join(distDir, "outbound.js"));
    for (const bin of bins) {
      const graph = closure(bin);
      assert.ok(graph.has(join(distDir, "index.js")), `${bin} imports the core`);
      assert.ok(
        outboundChunks.some((chunk) => graph.has(chunk) && readFileSync(chunk, "utf8").includes("// generated/modern/outbound.js")),
        `${bin} shares the outbound validators`,
      );
    }
  });

  test("the bins alone start with #!/usr/bin/env node, and are executable", () => {
    for (const file of modules()) {
      const isBin = bins.includes(file);
      assert.equal(readFileSync(file, "utf8").startsWith("#!/usr/bin/env node\n"), isBin, file);
      if (isBin) assert.ok(statSync(file).mode & 0o100, `${file} is executable`);
    }
  });

  /** A built module and every chunk it imports, transitively. */
  function closure(file: string, seen = new Set<string>()): Set<string> {
    seen.add(file);
    for (const [, spec] of readFileSync(file, "utf8").matchAll(/^(?:import|export)\b[^"']*["'](\.[^"']+)["']/gm)) {
      const next = normalize(join(dirname(file), spec!));
      if (!seen.has(next)) closure(next, seen);
    }
    return seen;
  }

  test("the core entry loads no adapter code, no node: module and no Node global", () => {
    const core = [...closure(join(distDir, "index.js"))];
    const code = core.map((f) => readFileSync(f, "utf8")).join("\n");
    for (const adapter of [
      "src/core/admission.ts",
      "src/hosts/fetch/guard.ts",
      "src/hosts/node/guard.ts",
      "src/fetch.ts",
      "src/node-http.ts",
    ])
      assert.ok(!code.includes(`// ${adapter}`), adapter);
    assert.doesNotMatch(code, /["']node:|\bBuffer\b|\bprocess\b/);
  });

  test("the core's declarations name no host type (no node:, no Request, no Headers)", () => {
    const seen = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, "utf8");
      for (const [, spec] of text.matchAll(/from\s*["'](\.[^"']+)\.js["']/g)) walk(normalize(join(dirname(file), `${spec}.d.ts`)));
    };
    walk(join(distDir, "index.d.ts"));
    assert.ok(seen.size > 5, "walked the declarations");
    // Comments may name host types; the generated MCP types have their own `Request`, so only dist/ is held to that.
    const code = (f: string) =>
      readFileSync(f, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/\/\/.*$/gm, "");
    const all = [...seen].map(code).join("\n");
    assert.doesNotMatch(all, /["']node:|\b(?:Buffer|IncomingMessage|ServerResponse|NodeJS)\b/);
    const ours = [...seen]
      .filter((f) => f.startsWith(distDir))
      .map(code)
      .join("\n");
    assert.doesNotMatch(ours, /\b(?:Request|Response|Headers|ReadableStream|TextDecoder)\b/);
  });

  test("wymcpOf reads what wymcpFetch wrote when both come from the built wymcp/fetch", async () => {
    const { wymcpFetch, wymcpOf } = (await import(pathToFileURL(join(distDir, "fetch.js")).href)) as typeof import("../src/fetch.js");
    const request = new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    assert.equal(await wymcpFetch()(request), undefined);
    assert.deepEqual(wymcpOf(request)?.result, { outcome: "pass", kind: "request", definition: "PingRequest", revision: "2025-03-26" });
  });
});

describe("the tarball (npm pack --dry-run)", () => {
  let files: string[] = [];
  let packed: Packed;
  before(() => {
    packed = dryRun();
    files = packed.files.map((f) => f.path);
  });

  test("is at most 1.5 MiB unpacked", () => {
    assert.ok(packed.unpackedSize <= 1.5 * 2 ** 20, `${packed.unpackedSize} bytes unpacked`);
  });

  test("docs/package.md lists its files as npm pack --dry-run does (npm run docs:package rewrites the list)", () => {
    assert.deepEqual(documentedList(), fileList(packed));
  });

  test("carries the licence, every entry's code and types, and no sourcemap or generated JavaScript", () => {
    assert.ok(files.includes("LICENSE"));
    for (const target of Object.values(pkg.exports)) {
      if (typeof target === "object") for (const path of [target.types, target.default]) assert.ok(files.includes(path.slice(2)), path);
    }
    assert.deepEqual(
      files.filter((f) => f.endsWith(".map") || /^generated\/.*\.js$/.test(f) || /^(src|test|scripts|bench|runtimes)\//.test(f)),
      [],
    );
  });

  test("every relative import in the packed declarations lands on a packed file", () => {
    const declarations = files.filter((f) => f.endsWith(".d.ts"));
    for (const file of declarations) {
      for (const [, spec] of readFileSync(join(repoRoot, file), "utf8").matchAll(/from\s*["'](\.[^"']+)\.js["']/g)) {
        const target = normalize(join(dirname(file), `${spec}.d.ts`));
        assert.ok(files.includes(target), `${file} imports ${spec}.js, whose ${target} is not packed`);
      }
    }
  });
});
