/**
 * @module `npm run docs:package`: the tarball's file list and sizes, as `npm pack --dry-run` reports them, written into
 * docs/package.md between `<!-- package:files -->` markers. test/package.test.ts fails when the list differs, so the
 * document stays true. Chunk names carry a content hash; the list names each chunk by the source modules it holds.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeDocSection } from "./doc-sections.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");
export const PACKAGE_DOC = join(root, "docs", "package.md");

export interface Packed {
  size: number;
  unpackedSize: number;
  files: Array<{ path: string; size: number }>;
}

/** What `npm pack --dry-run` would put in the tarball (dist/ must be built). */
export function dryRun(): Packed {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8" });
  return (JSON.parse(out) as Packed[])[0]!;
}

/** A packed path as the list shows it: a chunk by the modules it bundles, since its name changes with its content. */
export function listed(path: string): string {
  if (!/^dist\/chunk-\w+\.js$/.test(path)) return path;
  const sources = [...readFileSync(join(root, path), "utf8").matchAll(/^\/\/ ((?:src|generated)\/\S+)$/gm)].map((m) => m[1]);
  return `dist/chunk-*.js: ${sources.length > 0 ? sources.join(", ") : "(esbuild's shared helpers)"}`;
}

/** The file list, one line per file, sorted. */
export function fileList(packed: Packed): string[] {
  return packed.files.map((f) => listed(f.path)).sort();
}

const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;

/** The section of docs/package.md: the list (checked by the tests), then the sizes at the time of writing. */
export function section(packed: Packed): string {
  const bySize = [...packed.files].sort((a, b) => b.size - a.size);
  return [
    "```text",
    ...fileList(packed),
    "```",
    "",
    `${packed.files.length} files, ${kB(packed.size)} packed, ${kB(packed.unpackedSize)} unpacked (${(packed.unpackedSize / 2 ** 20).toFixed(2)} MiB; the limit is 1.5 MiB, test/package.test.ts). Largest: ` +
      bySize
        .slice(0, 4)
        .map((f) => `\`${f.path.replace(/chunk-\w+/, "chunk-*")}\` ${kB(f.size)}`)
        .join(", ") +
      `. Written by \`npm run docs:package\` on ${new Date().toISOString().slice(0, 10)}.`,
  ].join("\n");
}

/** The list docs/package.md holds now, as `fileList` gives it. */
export function documentedList(text = readFileSync(PACKAGE_DOC, "utf8")): string[] {
  const m = /<!-- package:files -->\n```text\n([\s\S]*?)\n```/.exec(text);
  if (!m) throw new Error("docs/package.md has no <!-- package:files --> section starting with a text block");
  return m[1]!.split("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeDocSection(PACKAGE_DOC, "package:files", section(dryRun()));
  console.log(`docs:package: wrote the tarball's file list into ${PACKAGE_DOC}`);
}
