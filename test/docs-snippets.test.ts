import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, test } from "node:test";
import { repoRoot } from "./support/spec.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validateMcpRequest } from "wymcp";
import { blocksOf, compile, documentUnits, importedPackages, makeConsumer, unitsOf } from "../scripts/check-docs.js";

// TypeScript 7 runs in CI (`npm run docs:check`, after `npm ci` in tools/ts7); here the project's 5.9 does.
test("every ```ts block of README.md and docs/*.md type-checks against the packed package under TypeScript 5.9", () => {
  const units = documentUnits();
  assert.ok(units.length >= 8, `found ${units.length} blocks`);
  const dir = makeConsumer(importedPackages(units.flatMap((u) => u.blocks)));
  after(() => rmSync(dir, { recursive: true, force: true }));
  assert.deepEqual(
    compile(dir, units, "5.9").map((p) => `${p.where} ${p.message}`),
    [],
  );
});

test("the README shows the one line per host, and what it imports is what the package exports", () => {
  const readme = documentUnits()
    .filter((u) => u.blocks.at(-1)!.doc === "README.md")
    .map((u) => u.blocks.map((b) => b.code).join("\n"));
  for (const line of [
    "http.createServer(gateNode(",
    'app.all("/mcp", gateNode(',
    "export default { fetch: gateFetch(",
    "gated(c.req.raw)",
    'from "wymcp/node"',
    'from "wymcp/fetch"',
  ]) {
    assert.ok(
      readme.some((code) => code.includes(line)),
      `no README block shows ${line}`,
    );
  }
});

test("a block opening with a `// ...` comment is compiled after the last standalone block before it; any other block stands alone", () => {
  const doc = [
    "```ts",
    "const a = 1;",
    "```",
    "text",
    "```ts",
    "// ... uses a",
    "const b = a;",
    "```",
    "```ts",
    "// ... and b",
    "const c = b;",
    "```",
    "```ts",
    "const d = 4;",
    "```",
  ].join("\n");
  const units = unitsOf(blocksOf("docs/x.md", doc));
  assert.deepEqual(
    units.map((u) => [u.name, u.blocks.map((b) => b.line)]),
    [
      ["docs-x-01.ts", [1]],
      ["docs-x-02.ts", [1, 5]],
      ["docs-x-03.ts", [1, 9]],
      ["docs-x-04.ts", [13]],
    ],
  );
  assert.throws(() => unitsOf(blocksOf("docs/y.md", "```ts\n// ... nothing before\n```\n")), /there is none in this file/);
});

test("a compile error is reported at its line in the document, and a broken block fails", () => {
  const units = unitsOf(
    blocksOf("docs/broken.md", "```ts\nconst a: number = 1;\n```\n\n```ts\n// ... continued\nconst b: string = a;\n```\n"),
  );
  const dir = makeConsumer([]);
  after(() => rmSync(dir, { recursive: true, force: true }));
  const problems = compile(dir, units, "5.9");
  assert.deepEqual(
    problems.map((p) => [p.unit, p.where]),
    [["docs-broken-02.ts", "docs/broken.md:7"]],
  );
  assert.match(problems[0]!.message, /TS2322/);
});

test("the answer shown in docs/validation.md is the one validateMcpRequest gives the message it describes", () => {
  const doc = readFileSync(join(repoRoot, "docs", "validation.md"), "utf8");
  const shown = JSON.parse(/^```json\n([\s\S]*?)^```$/m.exec(doc)![1]!) as unknown;
  // A modern tools/call with id 7, no _meta and a numeric name.
  const result = validateMcpRequest({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: 42 } }, "modern");
  assert.equal(result.outcome, "reject");
  assert.deepEqual(result.outcome === "reject" && result.response, shown);
});

test("the legacy answer shown in docs/validation.md is the one validateMcpRequest gives the legacy call it describes", () => {
  const doc = readFileSync(join(repoRoot, "docs", "validation.md"), "utf8");
  const blocks = [...doc.matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((m) => JSON.parse(m[1]!) as { error: { message: string } });
  const shown = blocks.find((b) => b.error.message.includes("revision 2025-06-18"));
  assert.ok(shown, "no legacy answer in docs/validation.md");
  // A legacy tools/call with id 8 and a numeric name, under MCP-Protocol-Version: 2025-06-18.
  const result = validateMcpRequest({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: 5, arguments: {} } }, "legacy", {
    protocolVersion: "2025-06-18",
  });
  assert.equal(result.outcome, "reject");
  assert.deepEqual(result.outcome === "reject" && result.response, shown);
});
