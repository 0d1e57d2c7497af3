/**
 * The two test sets. `npm test` runs every `test/*.test.ts` (the glob in package.json's `test:src`); `npm run test:unit`
 * (scripts/test-unit.ts) runs the in-process ones: no server on a socket, no child process (so no Python and no built
 * bin), nothing read from the build. Which file is which is read from the source, never kept by hand: a file is
 * in-process when neither it nor a module of the repository it imports (transitively) matches one of `OUT_OF_PROCESS`.
 * A new file is therefore always in the full run, and in the fast loop exactly when it can be. `SLOW_IN_PROCESS`
 * holds in-process files left out of the fast loop for their run time alone, each with its reason;
 * `test/test-sets.test.ts` pins both. This module is scanned too (the test imports it), so its text names none of
 * what it looks for.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** What takes a test out of process, as it reads in source: each pattern with what it means. */
export const OUT_OF_PROCESS: readonly { pattern: RegExp; means: string }[] = [
  { pattern: /["']node:child_process["']/, means: "a child process" },
  { pattern: /\.listen\(/, means: "a server on a socket" },
  { pattern: /["']@hono\/node-server["']/, means: "a server on a socket" },
  { pattern: /["']node:worker_threads["']/, means: "a worker thread" },
  // A string that is a path into the build, or its first segment.
  { pattern: /["'`](?:\.\.\/)*dist["'`/]/, means: "the build (npm run build)" },
];

/** In-process files left out of the fast loop for their run time alone. */
export const SLOW_IN_PROCESS: Readonly<Record<string, string>> = {
  "test/hosts-doc.test.ts":
    "a TypeScript program over docs/hosts.md's blocks, a fifth of the fast loop's time; npm run typecheck's kind of work",
};

/**
 * Not followed: the entry suites' guard, which looks at the build only under `npm run test:dist`; under test:src (the
 * fast loop's tsconfig) their imports of `wymcp` resolve to src/.
 */
const GUARD = "test/support/built.ts";

const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)["'](\.{1,2}\/[^"']+)["']/gm;

/** Every `test/*.test.ts`, as repository-relative paths, sorted: what `npm test` runs. */
export function allTestFiles(root = repoRoot): string[] {
  return readdirSync(join(root, "test"))
    .filter((name) => name.endsWith(".test.ts"))
    .sort()
    .map((name) => `test/${name}`);
}

/** The first thing that takes `file` (repository-relative) out of process, with the module that does it; none: in-process. */
export function outOfProcess(file: string, root = repoRoot): { module: string; means: string } | undefined {
  const seen = new Set<string>();
  const queue = [join(root, file)];
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    if (seen.has(path)) continue;
    seen.add(path);
    const source = readFileSync(path, "utf8");
    const found = OUT_OF_PROCESS.find(({ pattern }) => pattern.test(source));
    if (found) return { module: relative(root, path), means: found.means };
    for (const [, spec] of source.matchAll(RELATIVE_IMPORT)) {
      const target = resolveModule(join(dirname(path), spec!));
      // Only the repository's own test helpers, examples, fuzz and scripts are followed: src/ is what is tested.
      const at = target === undefined ? "" : relative(root, target);
      if (target && at !== GUARD && !at.startsWith("src") && !at.startsWith("generated")) queue.push(target);
    }
  }
  return undefined;
}

function resolveModule(base: string): string | undefined {
  const candidates = [base, base.replace(/\.js$/, ".ts"), base.replace(/\.mjs$/, ".mts"), `${base}.ts`, join(base, "index.ts")];
  return candidates.find((candidate) => existsSync(candidate) && !candidate.endsWith("/"));
}

/** The fast set: the in-process files but the slow ones. */
export function unitTestFiles(root = repoRoot): string[] {
  return allTestFiles(root).filter((file) => !(file in SLOW_IN_PROCESS) && outOfProcess(file, root) === undefined);
}
