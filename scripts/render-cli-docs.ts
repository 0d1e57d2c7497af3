/**
 * @module `npm run docs:cli`: the examples in docs/cli.md, rendered from the pinned outputs in test/golden/cli/ (each
 * between `<!-- example: cli/<name>.txt -->` and `<!-- /example -->`), so the docs show what the tests check.
 * `--check` writes nothing and fails when docs/cli.md differs; test/cli-docs.test.ts does the same.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CLI_EXAMPLES, shellWords } from "./cli-examples.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");
export const CLI_DOCS = join(root, "docs", "cli.md");
const FIXTURES = join(root, "test", "fixtures", "cli");
const GOLDEN = join(root, "test", "golden");

const BLOCK = /<!-- example: (\S+) -->\n[\s\S]*?<!-- \/example -->/g;

/** `text` with every example block re-rendered from its golden output; an unknown golden name throws. */
export function renderCliDocs(text: string, read: (path: string) => string = (path) => readFileSync(path, "utf8")): string {
  return text.replace(BLOCK, (_block, golden: string) => {
    const example = CLI_EXAMPLES.find((e) => e.golden === golden);
    if (!example) throw new Error(`docs/cli.md names ${golden}, which scripts/cli-examples.ts does not pin`);
    const lines = [example.caption, "", "```console"];
    if (example.showInput) lines.push(`$ cat ${example.showInput}`, read(join(FIXTURES, example.showInput)).trimEnd());
    lines.push(`$ wymcp check ${shellWords(example.args)}${example.stdin ? ` < ${example.stdin}` : ""}`);
    lines.push(read(join(GOLDEN, golden)).trimEnd(), "$ echo $?", String(example.status), "```");
    return `<!-- example: ${golden} -->\n${lines.join("\n")}\n<!-- /example -->`;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const current = readFileSync(CLI_DOCS, "utf8");
  const rendered = renderCliDocs(current);
  if (process.argv.includes("--check")) {
    if (rendered !== current) {
      console.error("docs/cli.md differs from the golden outputs: run npm run docs:cli");
      process.exitCode = 1;
    }
  } else if (rendered !== current) {
    writeFileSync(CLI_DOCS, rendered);
    console.log("docs/cli.md: examples rendered from test/golden/cli/");
  }
}
