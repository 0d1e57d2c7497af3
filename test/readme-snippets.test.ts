import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import ts from "typescript";
import { repoRoot } from "./support/spec.js";

/** The README's ```ts blocks, in order; a block using `buildServer` or `serveParsed` without defining it gets the block defining it first. */
function snippets(): Array<{ name: string; code: string }> {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  const shared = ["buildServer", "serveParsed"].map((name) => ({ name, block: blocks.find((b) => new RegExp(`\\bfunction ${name}\\b`).test(b)) }));
  return blocks.map((code, i) => ({
    name: `readme-${String(i + 1).padStart(2, "0")}.ts`,
    code: [
      ...shared.filter(({ name, block }) => block && new RegExp(`\\b${name}\\b`).test(code) && !new RegExp(`\\bfunction ${name}\\b`).test(code)).map((s) => s.block),
      code,
    ].join("\n"),
  }));
}

// Inside the repository, so the snippets resolve wymcp (tsconfig paths) and the SDK, Express and Hono as installed.
const dir = join(repoRoot, ".readme-snippets");
after(() => rmSync(dir, { recursive: true, force: true }));

test("every ```ts block of the README type-checks against the entry points it imports", () => {
  const blocks = snippets();
  assert.ok(blocks.length >= 5, `found ${blocks.length} blocks`);
  for (const entry of ['from "wymcp"', 'from "wymcp/node"', 'from "wymcp/fetch"']) {
    assert.ok(blocks.some((b) => b.code.includes(entry)), `no snippet imports ${entry}`);
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  for (const { name, code } of blocks) writeFileSync(join(dir, name), code);
  const config = ts.readConfigFile(join(repoRoot, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
  const program = ts.createProgram(blocks.map((b) => join(dir, b.name)), options);
  const problems = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(repoRoot.length)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
  assert.deepEqual(problems, []);
});
