/**
 * @module `npm run docs:check`: first every relative link and anchor of README.md and docs/ (scripts/check-links.ts),
 * the decision records and their index (scripts/decision-records.ts), and the pages written from the code (the options
 * table, the CLI's examples); then every ```ts block of README.md and every page under docs/ is compiled as a user would compile it, against the packed package (npm pack, unpacked into a temporary
 * consumer's node_modules beside the SDK, Express and Hono as installed here), under TypeScript 5.9 (the project's) and
 * TypeScript 7 (tools/ts7). Prints one line per block and fails on any error.
 *
 * A block stands alone (it is compiled as a module of its own), unless its first line is a `// ...` comment: then it
 * continues the last block before it in the same file that stands alone, and the two are compiled as one module (so
 * several blocks can each build on one shared block).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkLinks, markdownPages } from "./check-links.js";
import { renderCliDocs } from "./render-cli-docs.js";
import { OPTIONS_DOC, renderOptionsDoc } from "./options-doc.js";
import { checkDecisions } from "./decision-records.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** The two compilers: the project's TypeScript, and the native TypeScript 7 kept in its own folder. */
export const COMPILERS = {
  "5.9": join(root, "node_modules", "typescript", "bin", "tsc"),
  "7": join(root, "tools", "ts7", "node_modules", "typescript", "bin", "tsc"),
} as const;
export type Compiler = keyof typeof COMPILERS;

/** One ```ts block: where it is (the document, relative to the root, and the line of its fence). */
export interface Block {
  doc: string;
  line: number;
  code: string;
}

/** What one module holds: a block, preceded by the blocks it continues. */
export interface Unit {
  name: string;
  blocks: Block[];
}

/** The documents checked: README.md, then every page under docs/ (the guides in docs/guides/ among them), by path. */
export function documents(dir = root): string[] {
  return markdownPages(dir);
}

/** The ```ts blocks of one document, with the line of each opening fence. */
export function blocksOf(doc: string, text: string): Block[] {
  // A block may name the file it is (```ts title="server.ts"): the guides' runner writes it there.
  return [...text.matchAll(/^```ts(?:[ \t][^\n]*)?\n([\s\S]*?)^```$/gm)].map((m) => ({
    doc,
    line: text.slice(0, m.index).split("\n").length,
    code: m[1]!,
  }));
}

/** Whether a block continues the one before it: its first line is a `// ...` comment. */
export const continues = (block: Block) => /^\/\/ \.\.\./.test(block.code);

/**
 * One module per block; a `// ...` block is compiled after the last standalone block before it.
 * @example unitsOf(blocks).map((u) => u.name) // ["docs-outbound-1.ts", "docs-outbound-2.ts"]
 */
export function unitsOf(blocks: Block[]): Unit[] {
  const units: Unit[] = [];
  blocks.forEach((block, i) => {
    const base = units.findLast((unit) => unit.blocks.length === 1 && !continues(unit.blocks[0]!));
    if (continues(block) && (!base || base.blocks[0]!.doc !== block.doc)) {
      throw new Error(
        `${block.doc}:${block.line}: a block that opens with "// ..." continues the block before it, and there is none in this file`,
      );
    }
    const before = continues(block) ? base!.blocks : [];
    const slug = block.doc
      .replace(/\.md$/, "")
      .replace(/[^\w]+/g, "-")
      .toLowerCase();
    units.push({ name: `${slug}-${String(i + 1).padStart(2, "0")}.ts`, blocks: [...before, block] });
  });
  return units;
}

/** The code of a unit, a module even when no block imports or exports anything; and where each block starts in it. */
export function codeOf(unit: Unit): { code: string; starts: number[] } {
  const starts: number[] = [];
  let code = "";
  for (const block of unit.blocks) {
    starts.push(code.split("\n").length);
    code += block.code.endsWith("\n") ? block.code : `${block.code}\n`;
  }
  return { code: `${code}export {};\n`, starts };
}

/** The packages the blocks import by bare name (`express`, `@modelcontextprotocol/server`), wymcp aside. */
export function importedPackages(blocks: Block[]): string[] {
  const names = new Set<string>();
  for (const { code } of blocks) {
    for (const [, spec] of code.matchAll(/\bfrom\s+["']([^"'./][^"']*)["']/g)) {
      if (spec!.startsWith("node:")) continue;
      const name = spec!.startsWith("@") ? spec!.split("/").slice(0, 2).join("/") : spec!.split("/")[0]!;
      if (name !== "wymcp") names.add(name);
    }
  }
  return [...names].sort();
}

/**
 * A consumer project in a temporary folder: the tarball `npm pack` makes, unpacked as node_modules/wymcp, beside links
 * to the other packages (and their @types) as installed at the root. Needs dist/ (npm run build).
 */
export function makeConsumer(packages: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-docs-"));
  const modules = join(dir, "node_modules");
  mkdirSync(join(modules, "wymcp"), { recursive: true });
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], { cwd: root, encoding: "utf8" }),
  ) as Array<{ filename: string }>;
  execFileSync("tar", ["-xzf", join(dir, packed[0]!.filename), "-C", join(modules, "wymcp"), "--strip-components=1"]);
  for (const name of [...packages, "@types/node", ...packages.map((p) => `@types/${p.replace(/^@(.*)\//, "$1__")}`)]) {
    const installed = join(root, "node_modules", name);
    if (!existsSync(installed)) {
      if (name.startsWith("@types/")) continue;
      throw new Error(`a snippet imports ${name}, which is not installed at the root (add it to devDependencies)`);
    }
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    if (!existsSync(join(modules, name))) symlinkSync(installed, join(modules, name), "dir");
  }
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "wymcp-docs-consumer", private: true, type: "module" }));
  // What a Node or Workers project on TypeScript would set; skipLibCheck as most do (the runtime matrix checks without it).
  const compilerOptions = {
    target: "ES2022",
    lib: ["ES2023"],
    module: "NodeNext",
    moduleResolution: "NodeNext",
    strict: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["snippets/*.ts"] }, null, 2));
  mkdirSync(join(dir, "snippets"));
  // docs/tool-schemas.md imports a module `wymcp compile` wrote: the Workers example's, as committed.
  cpSync(join(root, "examples", "workers", "mcp-tools"), join(dir, "snippets", "mcp-tools"), { recursive: true });
  return dir;
}

/** A compiler error placed back in its document. */
export interface Problem {
  unit: string;
  where: string;
  message: string;
}

/** Compiles the units with one compiler; the errors, each at its document line. */
export function compile(dir: string, units: Unit[], compiler: Compiler): Problem[] {
  const tsc = COMPILERS[compiler];
  if (!existsSync(tsc)) throw new Error(`TypeScript ${compiler} is not installed: run (cd tools/ts7 && npm ci)`);
  const placed = new Map(units.map((unit) => [unit.name, { unit, ...codeOf(unit) }]));
  for (const [name, { code }] of placed) writeFileSync(join(dir, "snippets", name), code);
  const run = spawnSync(process.execPath, [tsc, "-p", dir, "--pretty", "false"], { cwd: dir, encoding: "utf8" });
  const problems: Problem[] = [];
  for (const line of `${run.stdout}${run.stderr}`.split("\n")) {
    const m = /^snippets\/([\w.-]+)\((\d+),\d+\): (.*)$/.exec(line);
    const unit = m && placed.get(m[1]!);
    if (!unit) {
      if (line.trim() !== "" && !/^\s/.test(line)) problems.push({ unit: "", where: "", message: line });
      else if (problems.length > 0 && line.trim() !== "") problems[problems.length - 1]!.message += `\n${line}`;
      continue;
    }
    const at = Number(m[2]);
    const i = unit.starts.findLastIndex((start) => start <= at);
    const block = unit.unit.blocks[i]!;
    problems.push({ unit: unit.unit.name, where: `${block.doc}:${block.line + at - unit.starts[i]! + 1}`, message: m[3]! });
  }
  if (run.status !== 0 && problems.length === 0) problems.push({ unit: "", where: "", message: `tsc ${compiler} exited ${run.status}` });
  return problems;
}

/** Every block of the documents, as units. */
export function documentUnits(dir = root): Unit[] {
  return unitsOf(documents(dir).flatMap((doc) => blocksOf(doc, readFileSync(join(dir, doc), "utf8"))));
}

/** The pages a command writes from the code: each one under `dir` that differs from what its command would write now. */
export function staleRendered(dir = root): string[] {
  const stale: string[] = [];
  const options = readFileSync(join(dir, relative(root, OPTIONS_DOC)), "utf8");
  if (renderOptionsDoc(options) !== options)
    stale.push("docs/hosts.md: the options table differs from the option types: run npm run docs:options");
  const cli = readFileSync(join(dir, "docs", "cli.md"), "utf8");
  if (renderCliDocs(cli) !== cli)
    stale.push("docs/cli.md: an example differs from its pinned output in test/golden/cli/: run npm run docs:cli");
  return stale;
}

/** The links, the decision records and the pages written from the code, which need no build: each problem on a line of its own. */
function structure(): number {
  const problems = [
    ...checkLinks().map((b) => `${b.file}:${b.line}: ${b.target}: ${b.reason}`),
    ...checkDecisions().map((p) => `${p.file}: ${p.problem}`),
    ...staleRendered(),
  ];
  for (const problem of problems) console.error(problem);
  console.log(
    `links, anchors, decision records, the options table and the CLI examples: ${problems.length === 0 ? "all resolve and are complete" : `${problems.length} problem${problems.length === 1 ? "" : "s"}`}\n`,
  );
  return problems.length;
}

function main(): number {
  const broken = structure();
  if (!existsSync(join(root, "dist", "index.js"))) execFileSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "inherit" });
  const units = documentUnits();
  const dir = makeConsumer(importedPackages(units.flatMap((u) => u.blocks)));
  try {
    const results = (Object.keys(COMPILERS) as Compiler[]).map((compiler) => ({ compiler, problems: compile(dir, units, compiler) }));
    const mark = (compiler: Compiler, unit: Unit) =>
      results.find((r) => r.compiler === compiler)!.problems.some((p) => p.unit === unit.name) ? "FAIL" : "ok";
    console.log(`${"block".padEnd(34)}  ${"TypeScript 5.9".padEnd(14)}  TypeScript 7`);
    for (const unit of units) {
      const last = unit.blocks[unit.blocks.length - 1]!;
      const continued =
        unit.blocks.length > 1
          ? ` (after line ${unit.blocks
              .slice(0, -1)
              .map((b) => b.line)
              .join(", ")})`
          : "";
      console.log(`${`${last.doc}:${last.line}`.padEnd(34)}  ${mark("5.9", unit).padEnd(14)}  ${mark("7", unit)}${continued}`);
    }
    const failed = results.filter((r) => r.problems.length > 0);
    for (const { compiler, problems } of failed) {
      console.error(`\nTypeScript ${compiler}:`);
      for (const p of problems) console.error(`  ${p.where ? `${p.where}: ` : ""}${p.message}`);
    }
    console.log(
      `\n${units.length} blocks in ${documents().length} documents, against the packed package: ${failed.length === 0 ? "all compile under TypeScript 5.9 and 7" : "FAILED"}`,
    );
    return failed.length === 0 && broken === 0 ? 0 : 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main();
