/**
 * Which build a test file exercises, and the guard that keeps dist/ honest. The entry suites import the package by
 * name: under tsconfig.json `paths` that is src/; under tsconfig.dist.json (no `paths`, `npm run test:dist`) it is
 * package.json `exports`, Node's self-reference, so dist/ is imported exactly as a consumer imports it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** True when `wymcp` resolves to the built package in this process. */
export const againstDist = import.meta.resolve("wymcp").startsWith(new URL("dist/", `file://${root}`).href);

/** What dist/ is built from: a change to any of these makes the build stale. */
const INPUTS = ["src", "generated", "scripts/build.ts", "package.json", "tsconfig.json", "tsconfig.build.json"];

function files(path: string): string[] {
  const full = join(root, path);
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

/** The files the build must have written: every `exports` target and every bin. */
function outputs(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
    bin?: Record<string, string>;
  };
  const paths = Object.values(pkg.exports).flatMap((target) =>
    typeof target === "object" && target !== null ? Object.values(target as Record<string, string>) : [],
  );
  return [...paths, ...Object.values(pkg.bin ?? {})].map((p) => join(root, p));
}

/**
 * Throws, naming the file, when dist/ is missing or older than any of its inputs. It never rebuilds: test files run
 * in parallel processes, and one rebuilding dist/ under another that is reading it would fail somewhere else.
 */
export function assertFreshDist(): void {
  const fix = "run `npm run build` (npm test builds first)";
  let built = Number.POSITIVE_INFINITY;
  let oldest = "";
  for (const file of outputs()) {
    let mtime: number;
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      throw new Error(`dist/ is missing ${relative(root, file)}: ${fix}`);
    }
    if (mtime < built) [built, oldest] = [mtime, file];
  }
  for (const input of INPUTS.flatMap(files)) {
    if (statSync(input).mtimeMs > built)
      throw new Error(`dist/ is stale: ${relative(root, input)} changed after ${relative(root, oldest)} was built; ${fix}`);
  }
}

if (againstDist) assertFreshDist();
