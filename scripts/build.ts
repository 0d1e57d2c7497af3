/**
 * @module `npm run build`: `dist/` from `src/`, one module per entry of package.json's `exports` (the one list of
 * entries), code shared between entries split into `dist/chunks/` so it exists once, declarations from tsc.
 * Adding an entry is one line in `exports` (plus its mirrors, which test/package.test.ts keeps in step).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(fileURLToPath(import.meta.url), "../..");

export interface Entry {
  /** The subpath consumers import, `.` for the package itself. */
  subpath: string;
  /** The module in `src/`. */
  source: string;
  /** The base name of its `dist/` files. */
  name: string;
}

/** The entries, read from package.json `exports`: `./dist/<name>.js` is built from `src/<name>.ts`. */
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
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, unknown> };
  const entries = entriesOf(pkg);
  for (const { subpath, source } of entries) {
    if (!existsSync(join(root, source))) throw new Error(`exports[${JSON.stringify(subpath)}] has no source: ${source} does not exist`);
  }
  rmSync(join(root, "dist"), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
  await build({
    absWorkingDir: root,
    entryPoints: entries.map(({ source, name }) => ({ in: source, out: name })),
    outdir: "dist",
    bundle: true,
    // One copy of each shared module (wymcpOf's WeakMap, the validators) whichever entries a host imports.
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    format: "esm",
    // Web-standard output for every host; only the Node adapter names node:* modules, and only for types.
    platform: "neutral",
    target: "es2022",
    external: ["node:*"],
    logLevel: "warning",
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  });
}
