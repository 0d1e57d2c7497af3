import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import ts from "typescript";
import { repoRoot } from "./support/spec.js";

// Inside the repository, so the blocks resolve wymcp (tsconfig paths) and the SDK, Express and Hono as installed.
const dir = join(repoRoot, ".hosts-snippets");
after(() => rmSync(dir, { recursive: true, force: true }));

test("every ```ts block of docs/hosts.md is complete on its own and type-checks against the package's types", () => {
  const doc = readFileSync(join(repoRoot, "docs", "hosts.md"), "utf8");
  const blocks = [...doc.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  assert.ok(blocks.length >= 6, `found ${blocks.length} blocks`);
  for (const host of [
    "http.createServer(gateNode(",
    'app.all("/mcp", gateNode(',
    "export default { fetch: gateFetch(",
    "gated(c.req.raw)",
  ]) {
    assert.ok(
      blocks.some((b) => b.includes(host)),
      `no block shows ${host}`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const files = blocks.map((code, i) => {
    const file = join(dir, `hosts-${String(i + 1).padStart(2, "0")}.ts`);
    writeFileSync(file, code);
    return file;
  });
  const config = ts.readConfigFile(join(repoRoot, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, repoRoot);
  const problems = ts.getPreEmitDiagnostics(ts.createProgram(files, options)).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(repoRoot.length)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}` : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
  assert.deepEqual(problems, []);
});
