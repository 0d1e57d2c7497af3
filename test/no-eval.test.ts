import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { readEraConfigs } from "../scripts/codegen/generate.js";
import { loadExamples, repoRoot } from "./support/spec.js";

const run = promisify(execFile);
const generatedDir = join(repoRoot, "generated");
const configs = readEraConfigs(join(repoRoot, "schemas"));
const eras = configs.map(({ era }) => era);
// Every module codegen writes: each era's validators, and the batch framing of the eras that had batches.
const modules = configs.flatMap(({ era, batch }) => [`${era}/validators.js`, ...(batch ? [`${era}/batch.js`] : [])]);

const CODE_FROM_STRINGS: Array<[string, RegExp]> = [
  ["require(", /\brequire\s*\(/],
  ["new Function", /\bnew\s+Function\b/],
  ["Function(", /\bFunction\s*\(/],
  ["eval(", /\beval\s*\(/],
  ["dynamic import(", /\bimport\s*\(/],
];

describe("the generated modules load no code and make none from strings", () => {
  for (const file of modules) {
    const code = readFileSync(join(generatedDir, file), "utf8");
    test(`generated/${file} imports nothing but the format switch beside it`, () => {
      const specifiers = [...code.matchAll(/^\s*import\b[^"']*["']([^"']+)["']/gm)].map((m) => m[1]);
      assert.deepEqual(specifiers, code.includes("formatMode.strict") ? ["../format-mode.js"] : []);
      assert.doesNotMatch(code, /^\s*export\s+(?:\*|\{[^}]*\})\s+from\b/m);
    });
    for (const [name, pattern] of CODE_FROM_STRINGS) {
      test(`generated/${file} has no ${name}`, () => assert.doesNotMatch(code, pattern));
    }
  }

  test("generated/format-mode.js is one object literal: no import, no code from strings", () => {
    const code = readFileSync(join(generatedDir, "format-mode.js"), "utf8");
    assert.doesNotMatch(code, /^\s*import[\s{*"']/m);
    for (const [, pattern] of CODE_FROM_STRINGS) assert.doesNotMatch(code, pattern);
    assert.match(code, /^export const formatMode = \{ strict: false \};$/m);
  });

  test("generated/index.js imports only the era modules beside it", () => {
    const code = readFileSync(join(generatedDir, "index.js"), "utf8");
    const specifiers = [...code.matchAll(/^\s*import\b[^"']*["']([^"']+)["']/gm)].map((m) => m[1]);
    assert.deepEqual(specifiers.sort(), modules.map((file) => `./${file}`).sort());
    for (const [, pattern] of CODE_FROM_STRINGS) assert.doesNotMatch(code, pattern);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.[cm]?[jt]sx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));
}

describe("the runtime never compiles a schema", () => {
  // src/compile/ is `wymcp compile`'s library (src/cli/compile/ its arguments), a build-time command that compiles by design, and src/codegen/ the stages it
  // shares with codegen; no runtime entry loads either (test/compile-lean-entries.test.ts follows their import graphs,
  // scripts/check-layers.ts forbids the entries to import src/codegen/).
  const files = sourceFiles(join(repoRoot, "src")).filter((file) => {
    const path = relative(join(repoRoot, "src"), file);
    return !path.startsWith(`compile${sep}`) && !path.startsWith(`codegen${sep}`);
  });
  test("src/ has source files to check", () => assert.ok(files.length > 0));
  for (const file of files) {
    const name = relative(repoRoot, file);
    const code = readFileSync(file, "utf8");
    test(`${name} neither imports ajv nor calls .compile(`, () => {
      assert.doesNotMatch(code, /\bfrom\s*["']ajv(?:\/[^"']*)?["']/);
      assert.doesNotMatch(code, /\b(?:import|require)\s*\(\s*["']ajv(?:\/[^"']*)?["']/);
      assert.doesNotMatch(code, /\.compile\s*\(/);
    });
  }
});

describe("under node --disallow-code-generation-from-strings", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "wymcp-no-eval-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const callTool = loadExamples().find((example) => example.definition === "CallToolRequest")?.instance as
    | { params: Record<string, unknown> }
    | undefined;

  /** Runs `source` as a real .mjs file (not `node -e`, which would hide an ESM `require`), returns its JSON output. */
  async function runModule(name: string, source: string): Promise<Record<string, unknown>> {
    const file = join(dir, name);
    writeFileSync(file, source);
    const { stdout } = await run(process.execPath, ["--disallow-code-generation-from-strings", file], { cwd: dir });
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  const prelude = (valid: unknown) => `
let codeFromStrings = "allowed";
try { new Function("return 1"); } catch { codeFromStrings = "blocked"; }
const valid = ${JSON.stringify(valid)};
const invalid = structuredClone(valid);
invalid.params.name = 42;
`;

  test("the built runtime (dist/index.js) passes a valid modern tools/call and rejects an invalid one", async () => {
    assert.ok(callTool, "no official CallToolRequest example");
    const entry = join(repoRoot, "dist", "index.js");
    if (!existsSync(entry)) {
      execFileSync("npm", ["run", "-s", "build"], { cwd: repoRoot });
    }
    const out = await runModule(
      "runtime.mjs",
      `import { validateMcpRequest } from ${JSON.stringify(pathToFileURL(entry).href)};
${prelude(callTool)}
const rejected = validateMcpRequest(invalid, "modern");
console.log(JSON.stringify({
  codeFromStrings,
  valid: validateMcpRequest(valid, "modern").outcome,
  invalid: rejected.outcome,
  status: rejected.status,
}));
`,
    );
    assert.deepEqual(out, { codeFromStrings: "blocked", valid: "pass", invalid: "reject", status: 400 });
  });

  test("generated/index.js loads and its validators run", async () => {
    assert.ok(callTool, "no official CallToolRequest example");
    const out = await runModule(
      "generated.mjs",
      `import { eras } from ${JSON.stringify(pathToFileURL(join(generatedDir, "index.js")).href)};
${prelude(callTool)}
const { validate } = eras.modern.methods.get("tools/call");
console.log(JSON.stringify({
  codeFromStrings,
  eras: Object.keys(eras).sort(),
  valid: validate(valid) && eras.modern.JSONRPCMessage(valid) && eras.legacy.JSONRPCMessage(valid),
  invalid: validate(invalid),
  invalidAt: validate.errors.map((e) => e.instancePath),
}));
`,
    );
    assert.deepEqual(out, {
      codeFromStrings: "blocked",
      eras: [...eras].sort(),
      valid: true,
      invalid: false,
      invalidAt: ["/params/name"],
    });
  });
});
