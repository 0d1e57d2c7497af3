// @ts-check
/**
 * Stryker's `buildCommand`, run inside its sandbox once the sources are instrumented: writes a `.js` beside every
 * `.ts` of the folders the mutation suites load (esbuild, one file at a time, nothing bundled), and in `dist/` one
 * module per package entry that re-exports the entry's source, as tsconfig.json `paths` resolve `wymcp` for tsx.
 * Each suite then runs under plain Node (test/mutation/run.mjs): a process starts in a fraction of tsx's time, and
 * Stryker starts one per suite per mutant. Plain JavaScript, so that it needs no loader itself.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { transformSync } from "esbuild";

const FOLDERS = ["src", "test", "bench", "fuzz", "scripts"];

let count = 0;
for (const folder of FOLDERS) {
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
    const file = join(entry.parentPath ?? entry.path, entry.name);
    const { code } = transformSync(readFileSync(file, "utf8"), { loader: "ts", format: "esm", target: "node20", sourcefile: file });
    writeFileSync(file.replace(/\.ts$/, ".js"), code);
    count++;
  }
}

// Last, so that test/support/built.ts finds these newer than every input: they stand in for the build.
const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const paths = JSON.parse(readFileSync("tsconfig.json", "utf8")).compilerOptions.paths;
for (const [name, target] of Object.entries(pkg.exports)) {
  if (typeof target !== "object") continue;
  const specifier = name === "." ? pkg.name : `${pkg.name}${name.slice(1)}`;
  const source = paths[specifier]?.[0];
  if (!source) continue;
  for (const [condition, out] of Object.entries(target)) {
    mkdirSync(dirname(out), { recursive: true });
    const from = JSON.stringify(`./${relative(dirname(out), source.replace(/\.ts$/, ".js"))}`);
    writeFileSync(out, condition === "default" ? `export * from ${from};\n` : "export {};\n");
  }
}
for (const bin of Object.values(pkg.bin ?? {})) writeFileSync(bin, "// The mutation suites never run the bin.\n");
console.log(`mutation sandbox: ${count} files transpiled, the package entries pointed at them`);
