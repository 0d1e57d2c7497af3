/**
 * @module check-links: every relative link of README.md and docs/ (subfolders included) leads to a file that exists,
 * and every `#anchor` to a heading of its page as GitHub renders it. A doc path that a comment of `src/`, `scripts/`,
 * `bench/`, `fuzz/` or `examples/` names (`docs/<page>.md`, or `docs/<folder>/<page>.md` where docs/ has that folder,
 * with or without an anchor) is held to the same. Run by `npm run docs:check` and by test/doc-links.test.ts; links to
 * other sites are not followed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** One link that leads nowhere: where it is written, what it names, and why it fails. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** The folders whose source comments may cite a doc page; the tests' too for a design document (their fixtures name pages). */
const CODE_FOLDERS = ["src", "scripts", "bench", "fuzz", "examples"];
const DESIGN_FOLDERS = [...CODE_FOLDERS, "test"];
/** This file, which names the citation it looks for. */
const SELF = "scripts/check-links.ts";

/** A citation of a design document by name (`DESIGN §3.3`, `DESIGN.md`). */
const DESIGN_CITATION = /\bDESIGN(?:\.md)?\b/g;

/**
 * A heading's anchor as GitHub writes it: the text as rendered (no code marks, emphasis or link targets), lower-cased,
 * every character but letters, marks, digits, `_`, `-` and spaces dropped, and each space a `-`.
 * @example headingSlug("The nesting bound (`maxDepth`, default 64)") // "the-nesting-bound-maxdepth-default-64"
 */
export function headingSlug(heading: string): string {
  return renderedText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** What a reader sees of inline Markdown: link and image texts without their targets, no code or emphasis marks, no tags. */
function renderedText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "")
    .trim();
}

/** The lines of a Markdown text outside fenced code blocks, with their numbers (from 1). */
function proseLines(text: string): Array<{ line: number; text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  text.split("\n").forEach((line, i) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opening && opening[1]![0] === fence[0] && opening[1]!.length >= fence.length && line.trim() === opening[1]) fence = undefined;
      return;
    }
    if (opening) {
      fence = opening[1]!;
      return;
    }
    lines.push({ line: i + 1, text: line });
  });
  return lines;
}

/**
 * The anchors a page offers: one per heading (a repeated heading's anchor gets `-1`, `-2`, … as on GitHub), and each
 * `id` or `name` of an HTML tag.
 */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text: line } of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading) {
      const slug = headingSlug(heading[1]!);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const [, id] of line.matchAll(/<[a-z]+\s[^>]*\b(?:id|name)="([^"]+)"/gi)) anchors.add(id!);
  }
  return anchors;
}

/** The link targets of a Markdown text, with their lines: inline links and images, and reference definitions. */
export function linksOf(text: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = [];
  for (const { line, text: prose } of proseLines(text)) {
    const outsideCode = prose.replace(/(`+)[^`]*?\1/g, "");
    for (const [, target] of outsideCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line, target: target! });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(outsideCode);
    if (definition) links.push({ line, target: definition[1]! });
  }
  return links;
}

/** Whether a target leaves the repository: a scheme (`https:`, `mailto:`) or a protocol-relative `//host`. */
const external = (target: string) => /^[a-z][a-z\d+.-]*:/i.test(target) || target.startsWith("//");

/** Reads each page's anchors once. */
function anchorReader(): (file: string) => Set<string> {
  const cache = new Map<string, Set<string>>();
  return (file) => {
    let anchors = cache.get(file);
    if (!anchors) cache.set(file, (anchors = anchorsOf(readFileSync(file, "utf8"))));
    return anchors;
  };
}

/** Why `target`, written in `from`, leads nowhere; `undefined` when it resolves. */
function problemOf(dir: string, from: string, target: string, anchors: (file: string) => Set<string>): string | undefined {
  const hash = target.indexOf("#");
  const path = hash < 0 ? target : target.slice(0, hash);
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = path === "" ? from : resolve(dirname(from), decodeURIComponent(path.split("?")[0]!));
  if (relative(dir, file).startsWith("..")) return "leads outside the repository";
  if (!existsSync(file)) return "no such file";
  if (anchor === undefined || anchor === "" || !file.endsWith(".md") || statSync(file).isDirectory()) return undefined;
  if (/^L\d+(-L\d+)?$/.test(anchor)) return undefined;
  return anchors(file).has(anchor.toLowerCase()) ? undefined : `no heading with the anchor #${anchor} in ${relative(dir, file)}`;
}

/** The Markdown pages checked: README.md, then every `.md` under docs/, by path. */
export function markdownPages(dir = root): string[] {
  const pages: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(join(dir, folder)).sort()) {
      const path = `${folder}/${name}`;
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else if (name.endsWith(".md")) pages.push(path);
    }
  };
  if (existsSync(join(dir, "docs"))) walk("docs");
  return [...(existsSync(join(dir, "README.md")) ? ["README.md"] : []), ...pages];
}

/**
 * Whether a doc path in a comment is this repository's: a page of docs/ itself, or one under a folder docs/ has (a
 * comment may name another project's `docs/<folder>/<page>.md`).
 */
function isOurs(dir: string, target: string): boolean {
  const [, folder, rest] = /^docs\/([^/#]+)(\/)?/.exec(target) ?? [];
  return rest === undefined || existsSync(join(dir, "docs", folder!));
}

/** The source files whose comments may cite a doc page. */
function codeFiles(dir: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(join(dir, folder)).sort()) {
      const path = `${folder}/${name}`;
      if (name === "node_modules" || name.startsWith(".")) continue;
      if (statSync(join(dir, path)).isDirectory()) walk(path);
      else if (/\.(?:ts|mts|mjs|js)$/.test(name)) files.push(path);
    }
  };
  for (const folder of folders) if (existsSync(join(dir, folder))) walk(folder);
  return files;
}

/**
 * Every broken relative link of the README and docs/, and every doc path a source comment names that leads nowhere, and every citation of a
 * design document the repository does not hold.
 * @example checkLinks().map((b) => `${b.file}:${b.line}: ${b.target}: ${b.reason}`)
 */
export function checkLinks(dir = root): BrokenLink[] {
  const anchors = anchorReader();
  const broken: BrokenLink[] = [];
  for (const page of markdownPages(dir)) {
    const from = join(dir, page);
    for (const { line, target } of linksOf(readFileSync(from, "utf8"))) {
      if (external(target)) continue;
      const reason = problemOf(dir, from, target, anchors);
      if (reason) broken.push({ file: page, line, target, reason });
    }
  }
  for (const file of codeFiles(dir, CODE_FOLDERS)) {
    readFileSync(join(dir, file), "utf8")
      .split("\n")
      .forEach((text, i) => {
        for (const [target] of text.matchAll(/(?<![\w/.-])docs\/[\w./-]*[\w-]\.md(?:#[\w-]+)?/g)) {
          if (!isOurs(dir, target)) continue;
          const reason = problemOf(dir, join(dir, "README.md"), target, anchors);
          if (reason) broken.push({ file, line: i + 1, target, reason });
        }
      });
  }
  const designHeld = [join(dir, "DESIGN.md"), join(dir, "docs", "DESIGN.md")].some((path) => existsSync(path));
  for (const file of designHeld ? [] : codeFiles(dir, DESIGN_FOLDERS)) {
    if (file === SELF) continue;
    readFileSync(join(dir, file), "utf8")
      .split("\n")
      .forEach((text, i) => {
        for (const [target] of text.matchAll(DESIGN_CITATION))
          broken.push({
            file,
            line: i + 1,
            target,
            reason: "cites a design document the repository does not hold: say the fact, or link docs/",
          });
      });
  }
  return broken;
}

function main(): number {
  const broken = checkLinks();
  for (const b of broken) console.error(`${b.file}:${b.line}: ${b.target}: ${b.reason}`);
  console.log(
    `${markdownPages().length} pages: ${broken.length === 0 ? "every relative link and anchor resolves" : `${broken.length} broken`}`,
  );
  return broken.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
