/**
 * @module `npm run build`: `dist/` from `src/`, one module per entry of package.json's `exports` (the one list of
 * entries), declarations from tsc. The core (`wymcp`) is one self-contained module, the fastest to import; the
 * other entries import the core's validator from it instead of carrying a copy, and share their own common code
 * through chunks. The bin (`wymcp`) is built with the other entries and imports the same modules. Adding an entry is one
 * line in `exports` (plus its mirrors, which test/package.test.ts checks).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build, transformSync, type BuildOptions, type Plugin } from "esbuild";
import { bundleCompileRuntime } from "../src/compile/runtime-bundle.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/**
 * Modules of the core that the other entries import from `./index.js` rather than bundle: the validator and, through
 * it, the generated code (~175 KB). Every value they import from these must be exported by src/index.ts.
 */
const FROM_CORE = ["src/core/validate.ts", "src/core/era.ts", "src/core/option-error.ts", "src/core/legacy-revision.ts"];

/** Sends the other entries' imports of `FROM_CORE` modules to the built core, `./index.js` beside them. */
const importTheCore: Plugin = {
  name: "import-the-core",
  setup(b) {
    const owned = new Set(FROM_CORE.map((f) => join(root, f)));
    b.onResolve({ filter: /^\./ }, ({ path, resolveDir }) => {
      const target = resolve(resolveDir, path.replace(/\.js$/, ".ts"));
      return owned.has(target) ? { path: "./index.js", external: true } : undefined;
    });
  },
};

/** `wymcp inspect`'s page: its module (dist/inspect-page.js) and its HTML and style (copied to dist/inspect/). */
const PAGE = { source: "src/inspect/page/main.ts", name: "inspect-page" };
const PAGE_ASSETS = "src/inspect/page";

/**
 * The generated validators go into the bundles minified (shorter names, folded syntax, no layout): a cold start parses
 * every byte of the core, and the generated code is nine tenths of it. Their names (validate22, schema9) say nothing
 * in a stack trace anyway; `src/` stays as written. esbuild re-prints the result, so the bundle keeps one statement a
 * line and its `// generated/…` markers.
 */
const minifyGenerated: Plugin = {
  name: "minify-generated",
  setup(b) {
    const generated = join(root, "generated") + sep;
    b.onLoad({ filter: /\.js$/ }, ({ path }) =>
      path.startsWith(generated)
        ? {
            contents: transformSync(readFileSync(path, "utf8"), { minify: true, format: "esm", target: "es2022", sourcefile: path }).code,
            loader: "js",
          }
        : undefined,
    );
  },
};

/**
 * `wymcp compile`'s runtime (src/compile/runtime-text.ts), bundled here once from the core's sources and put in that
 * module's place as a string: the bin carries the text and never loads esbuild.
 */
const bundledCompileRuntime: Plugin = {
  name: "bundled-compile-runtime",
  setup(b) {
    const text = join(root, "src/compile/runtime-text.ts");
    b.onLoad({ filter: /runtime-text\.ts$/ }, async ({ path }) =>
      path === text
        ? { contents: `export const COMPILE_RUNTIME = ${JSON.stringify(await bundleCompileRuntime(root))};\n`, loader: "js" }
        : undefined,
    );
  },
};

export interface Entry {
  /** The subpath consumers import, `.` for the package itself. */
  subpath: string;
  /** The module in `src/`. */
  source: string;
  /** The base name of its `dist/` files. */
  name: string;
}

/**
 * The entries, read from package.json `exports`: `./dist/<name>.js` is built from `src/<name>.ts`.
 * @example entriesOf(pkg).map((e) => e.subpath) // [".", "./node", "./fetch"]
 */
export function entriesOf(pkg: { exports: Record<string, unknown> }): Entry[] {
  const entries: Entry[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target !== "object" || target === null) continue;
    const code = (target as Record<string, unknown>).default;
    const match = typeof code === "string" ? /^\.\/dist\/([\w-]+)\.js$/.exec(code) : null;
    if (!match) throw new Error(`exports[${JSON.stringify(subpath)}].default must be ./dist/<name>.js, got ${JSON.stringify(code)}`);
    entries.push({ subpath, source: `src/${match[1]}.ts`, name: match[1]! });
  }
  return entries;
}

async function main(): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
    bin?: Record<string, string>;
  };
  const entries = entriesOf(pkg);
  for (const { subpath, source } of entries) {
    if (!existsSync(join(root, source))) throw new Error(`exports[${JSON.stringify(subpath)}] has no source: ${source} does not exist`);
  }
  rmSync(join(root, "dist"), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
  const common: BuildOptions = {
    absWorkingDir: root,
    outdir: "dist",
    bundle: true,
    format: "esm",
    // Web-standard output for every host; only the Node adapter names node:* modules, and only for types.
    platform: "neutral",
    target: "es2022",
    external: ["node:*"],
    logLevel: "warning",
    plugins: [minifyGenerated],
  };
  const [core, ...others] = entries;
  if (core?.subpath !== ".") throw new Error('the first entry of exports must be "."');
  // One module: each extra module a cold import loads costs about as much as a tenth of the whole core.
  await build({ ...common, entryPoints: [{ in: core.source, out: core.name }] });
  // A bin is a Node-only command line: dist/<name>.js from src/cli/node-<name>.ts.
  const bins = Object.values(pkg.bin ?? {}).map((file) => {
    const name = /^dist\/([\w-]+)\.js$/.exec(file)?.[1];
    if (!name) throw new Error(`bin ${JSON.stringify(file)} must be dist/<name>.js`);
    return { source: `src/cli/node-${name}.ts`, name };
  });
  await build({
    ...common,
    // The bins are built with the entries so that they import the same core and chunks: no validator is shipped twice.
    // `wymcp inspect`'s page is built with them too: in the browser it imports the core (`./index.js`) and the very
    // chunks of `wymcp check`'s judging that the bin runs, so the page adds only its own code to the package.
    entryPoints: [...others, ...bins, PAGE].map(({ source, name }) => ({ in: source, out: name })),
    // Code the adapters share (wymcpOf's WeakMap lives in one of them) exists once; chunks sit beside ./index.js.
    splitting: true,
    chunkNames: "[name]-[hash]",
    plugins: [importTheCore, minifyGenerated, bundledCompileRuntime],
    // `wymcp compile` is a chunk of its own, loaded by that command only, and its compilers (optional peer
    // dependencies) stay imports: `wymcp check` and the entries load neither. The official client, for
    // `--from` and `--from-stdio`, is a chunk further still, loaded by those flags alone.
    // `wymcp/otel` imports `@opentelemetry/api` (an optional peer), which stays an import of that entry and of the
    // bin's `--otel` chunk, loaded by that flag alone with the Node SDK (`@opentelemetry/sdk-node`, an optional peer too).
    external: [
      "node:*",
      "ajv",
      "ajv/*",
      "ajv-formats",
      "json-schema-to-typescript",
      "re2js",
      "@modelcontextprotocol/client",
      "@modelcontextprotocol/client/*",
      "@opentelemetry/api",
      "@opentelemetry/sdk-node",
    ],
  });
  // The page's HTML and style, served beside its module by the inspector's listener.
  mkdirSync(join(root, "dist", "inspect"), { recursive: true });
  for (const file of ["index.html", "page.css"]) copyFileSync(join(root, PAGE_ASSETS, file), join(root, "dist", "inspect", file));
  // The banner goes on the bins alone (esbuild's banner option would put it on every module of the build).
  for (const { name } of bins) {
    const file = join(root, "dist", `${name}.js`);
    writeFileSync(file, `#!/usr/bin/env node\n${readFileSync(file, "utf8")}`);
    chmodSync(file, 0o755);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
