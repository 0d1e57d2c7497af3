import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** Relative path (with `/`) → exact file contents. */
export type Files = Map<string, string>;

export interface Difference {
  file: string;
  problem: "stale" | "missing" | "unexpected";
}

/** Compares `files` with what is on disk under `root`, byte for byte; unlisted files on disk are unexpected. */
export function diffOutput(files: Files, root: string): Difference[] {
  const out: Difference[] = [];
  const onDisk = new Set(listFiles(root));
  for (const [file, text] of files) {
    if (!onDisk.has(file)) out.push({ file, problem: "missing" });
    else if (!readFileSync(join(root, file)).equals(Buffer.from(text, "utf8"))) out.push({ file, problem: "stale" });
  }
  for (const file of onDisk) if (!files.has(file)) out.push({ file, problem: "unexpected" });
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** Makes `root` hold exactly `files`; returns what changed. */
export function writeOutput(files: Files, root: string): Difference[] {
  const changes = diffOutput(files, root);
  for (const { file, problem } of changes) {
    const path = join(root, file);
    if (problem === "unexpected") {
      rmSync(path);
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, files.get(file)!);
  }
  return changes;
}

/**
 * The line codegen ends with. A run that changed nothing says so (on a clone, whose `generated/` is committed, that is
 * the expected outcome: the spec compiles to the very bytes committed); a run that changed files names each.
 * @example outcomeLine({ check: false, changes: [], files: 20, ms: 900 }) // "codegen: generated/ is up to date: ..."
 */
export function outcomeLine({ check, changes, files, ms }: { check: boolean; changes: Difference[]; files: number; ms: number }): string {
  if (check) return `codegen: checked ${files} files in generated/ (${ms} ms)`;
  if (changes.length === 0) return `codegen: generated/ is up to date: the spec compiles to its ${files} files, byte for byte (${ms} ms)`;
  const what = { stale: "stale, rewritten", missing: "missing, written", unexpected: "unexpected, removed" } as const;
  const names = changes.map(({ file, problem }) => `${file} (${what[problem]})`).join(", ");
  return `codegen: changed ${changes.length} of ${files} files in generated/: ${names} (${ms} ms)`;
}

function listFiles(root: string): string[] {
  let entries;
  try {
    entries = readdirSync(root, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      relative(root, join(entry.parentPath ?? entry.path, entry.name))
        .split("\\")
        .join("/"),
    );
}
