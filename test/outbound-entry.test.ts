import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { after, describe, test } from "node:test";
import { build } from "esbuild";
import ts from "typescript";
import { outbound } from "../generated/outbound.js";
import { readEraConfigs } from "../scripts/codegen/generate.js";
import { repoRoot } from "./support/spec.js";

const run = promisify(execFile);
const eras = readEraConfigs(join(repoRoot, "schemas")).map(({ era }) => era);

/** The modules esbuild pulls into a bundle of `entry`, relative to the repository. */
async function inputsOf(entry: string): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: [join(repoRoot, entry)],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    logLevel: "silent",
  });
  return Object.keys(metafile.inputs).map((path) => path.replace(/\\/g, "/"));
}

/** A built module and the modules it imports by relative path, transitively. */
function builtGraph(file: string, seen = new Set<string>()): Set<string> {
  seen.add(file);
  for (const [, spec] of readFileSync(file, "utf8").matchAll(/^(?:import|export)\b[^"']*["'](\.[^"']+)["']/gm)) {
    const next = join(dirname(file), spec!);
    if (!seen.has(next)) builtGraph(next, seen);
  }
  return seen;
}

describe("importing only wymcp loads none of the outbound code", () => {
  test("the import graph of src/index.ts holds no outbound module; that of src/outbound.ts does", async () => {
    const core = await inputsOf("src/index.ts");
    assert.ok(
      core.some((path) => path.endsWith("generated/modern/validators.js")),
      "the graph was not read",
    );
    assert.deepEqual(
      core.filter((path) => /generated\/(?:[a-z]+\/)?outbound\.js$|src\/outbound\.ts$/.test(path)),
      [],
    );
    const outbound = await inputsOf("src/outbound.ts");
    for (const era of eras)
      assert.ok(outbound.includes(`generated/${era}/outbound.js`), `src/outbound.ts does not load generated/${era}/outbound.js`);
  });

  test("dist/index.js (what `wymcp` resolves to) has no outbound validator; dist/outbound.js and the chunks it imports have them", () => {
    const core = readFileSync(join(repoRoot, "dist", "index.js"), "utf8");
    // The outbound code sits in a chunk that wymcp/outbound shares with the bin; the entry re-exports it.
    const outbound = [...builtGraph(join(repoRoot, "dist", "outbound.js"))].map((file) => readFileSync(file, "utf8")).join("\n");
    for (const marker of ["function validateMcpResponse(", "InputRequiredResult", "URLElicitationRequiredError"]) {
      assert.ok(!core.includes(marker), `dist/index.js contains ${marker}`);
      assert.ok(outbound.includes(marker), `dist/outbound.js and its chunks lack ${marker}`);
    }
  });

  test("package.json maps wymcp/outbound to dist/outbound.js with its types", () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { exports: Record<string, unknown> };
    assert.deepEqual(pkg.exports["./outbound"], { types: "./dist/outbound.d.ts", default: "./dist/outbound.js" });
  });
});

const CODE_FROM_STRINGS: Array<[string, RegExp]> = [
  ["require(", /\brequire\s*\(/],
  ["new Function", /\bnew\s+Function\b/],
  ["Function(", /\bFunction\s*\(/],
  ["eval(", /\beval\s*\(/],
  ["dynamic import(", /\bimport\s*\(/],
];

describe("the outbound modules load no code and make none from strings", () => {
  for (const era of eras) {
    const file = `generated/${era}/outbound.js`;
    const code = readFileSync(join(repoRoot, file), "utf8");
    for (const [name, pattern] of CODE_FROM_STRINGS) test(`${file} has no ${name}`, () => assert.doesNotMatch(code, pattern));
    test(`${file} imports nothing but the format switch beside it`, () => {
      const specifiers = [...code.matchAll(/^\s*import\b[^"']*["']([^"']+)["']/gm)].map((m) => m[1]);
      assert.deepEqual(specifiers, ["../format-mode.js"]);
    });
  }

  test("generated/outbound.js imports only the era modules beside it", () => {
    const code = readFileSync(join(repoRoot, "generated", "outbound.js"), "utf8");
    const specifiers = [...code.matchAll(/^\s*import\b[^"']*["']([^"']+)["']/gm)].map((m) => m[1]);
    assert.deepEqual(specifiers.sort(), eras.map((era) => `./${era}/outbound.js`).sort());
  });

  const dir = mkdtempSync(join(tmpdir(), "wymcp-outbound-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("wymcp/outbound (dist/outbound.js) runs under node --disallow-code-generation-from-strings", async () => {
    const file = join(dir, "outbound.mjs");
    writeFileSync(
      file,
      `import { validateMcpResponse } from ${JSON.stringify(pathToFileURL(join(repoRoot, "dist", "outbound.js")).href)};
let codeFromStrings = "allowed";
try { new Function("return 1"); } catch { codeFromStrings = "blocked"; }
const good = { jsonrpc: "2.0", id: 1, result: { resultType: "complete", content: [{ type: "text", text: "hi" }] } };
const bad = { jsonrpc: "2.0", id: 1, result: { resultType: "complete", content: [{ text: "hi" }] } };
console.log(JSON.stringify({
  codeFromStrings,
  good: validateMcpResponse(good, { era: "modern", method: "tools/call" }).outcome,
  bad: validateMcpResponse(bad, { era: "modern", method: "tools/call" }).violations.errors.map((e) => e.instancePath),
}));
`,
    );
    const { stdout } = await run(process.execPath, ["--disallow-code-generation-from-strings", file], { cwd: dir });
    assert.deepEqual(JSON.parse(stdout), {
      codeFromStrings: "blocked",
      good: "pass",
      bad: ["/result/content/0", "/result/content/0/type"],
    });
  });
});

describe("the outbound declarations", () => {
  const generatedDir = join(repoRoot, "generated");
  const files = [
    join(generatedDir, "outbound.d.ts"),
    join(generatedDir, "validator.d.ts"),
    ...eras.map((era) => join(generatedDir, era, "outbound.d.ts")),
  ];

  test("type-check in one strict TypeScript program, lib files included", () => {
    const program = ts.createProgram(files, {
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: false,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2023.d.ts"],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program);
    const host = { getCanonicalFileName: (name: string) => name, getCurrentDirectory: () => repoRoot, getNewLine: () => "\n" };
    assert.equal(diagnostics.length, 0, ts.formatDiagnostics(diagnostics, host));
  });

  for (const era of eras) {
    test(`every name generated/${era}/outbound.d.ts declares exists in generated/${era}/outbound.js`, () => {
      const declared = [...readFileSync(join(generatedDir, era, "outbound.d.ts"), "utf8").matchAll(/^export declare const (\w+)/gm)].map(
        (m) => m[1]!,
      );
      const module = outbound[era as keyof typeof outbound] as unknown as Record<string, unknown>;
      assert.ok(declared.length >= 10);
      for (const name of declared) assert.notEqual(module[name], undefined, name);
    });
  }
});
