import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import * as legacy from "../generated/legacy/validators.js";
import * as modern from "../generated/modern/validators.js";
import { compileValidators } from "../scripts/codegen/compile-validators.js";
import { emitTypes } from "../scripts/codegen/emit-types.js";
import { generate, readEraConfigs, readFormats } from "../scripts/codegen/generate.js";
import { loadSpec } from "../scripts/codegen/load-spec.js";
import { selectDefinitions } from "../scripts/codegen/select-definitions.js";
import { stripProse } from "../scripts/codegen/strip-prose.js";
import { specSource } from "../scripts/spec-dir.js";
import { diffOutput, type Files } from "../scripts/codegen/write-output.js";
import { readSpecSchema, repoRoot, specDir, specRevisions, specSchemaPath, type JsonObject } from "./support/spec.js";

const run = promisify(execFile);
const schemasDir = join(repoRoot, "schemas");
const generatedDir = join(repoRoot, "generated");
const configs = readEraConfigs(schemasDir);
const eraRevisions = configs.map((config) => config.revision);

const generateAll = (): Promise<Files> => generate({ schemasDir, specDir });

describe("generate()", () => {
  test("its output equals the committed generated/ byte for byte", async () => {
    const files = await generateAll();
    assert.deepEqual(diffOutput(files, generatedDir), []);
  });

  test("two runs give identical files (deterministic)", async () => {
    const first = await generateAll();
    const second = await generateAll();
    assert.deepEqual([...second.keys()], [...first.keys()]);
    assert.deepEqual(second, first);
  });

  // Its time is a target of npm run bench (codegen of both eras ≤ 30 s), not a bound here.
  test("codegen compiles validators for every era, legacy and modern", async (t) => {
    const files = await generateAll();
    t.diagnostic(`generate(): ${files.size} files`);
    for (const config of configs) {
      const code = files.get(`${config.era}/validators.js`);
      assert.ok(code, `no validators for ${config.era}`);
      t.diagnostic(`${config.era}/validators.js: ${Buffer.byteLength(code)} bytes, ${gzipSync(code).length} gzipped`);
    }
    assert.deepEqual(
      configs.map((c) => c.era),
      ["legacy", "modern"],
    );
  });
});

describe("the codegen stages do not mutate their inputs", () => {
  const formats = readFormats(schemasDir);
  for (const config of configs) {
    test(`loadSpec → stripProse → selectDefinitions → compileValidators → emitTypes leave ${config.revision} untouched`, async () => {
      const spec = loadSpec(config.revision, specDir);
      const specBefore = structuredClone(spec);
      const stripped = stripProse(spec.schema);
      assert.deepEqual(spec, specBefore, "stripProse changed the loaded spec");
      const strippedBefore = structuredClone(stripped);
      const configBefore = structuredClone(config);
      const formatsBefore = structuredClone(formats);
      const selection = selectDefinitions(config, { ...spec, schema: stripped });
      compileValidators(selection, formats);
      await emitTypes(selection);
      assert.deepEqual(stripped, strippedBefore, "a later stage changed the stripped schema");
      assert.deepEqual(spec, specBefore, "a stage changed the loaded spec");
      assert.deepEqual(config, configBefore, "a stage changed the era config");
      assert.deepEqual(formats, formatsBefore, "a stage changed the formats");
    });
  }
});

describe("npm run codegen -- --check", { concurrency: true }, () => {
  const temps: string[] = [];
  after(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** A copy of what codegen needs, so a hand edit never touches the real generated/. */
  function copyRepo(): string {
    const dir = mkdtempSync(join(tmpdir(), "wymcp-codegen-"));
    temps.push(dir);
    // src/: the stages codegen shares with wymcp compile (src/codegen/), the error budget it writes into the validators,
    // and the compile runtime it bundles from the core.
    for (const part of ["package.json", "scripts", "schemas", "generated", "src"]) {
      cpSync(join(repoRoot, part), join(dir, part), { recursive: true });
    }
    symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
    return dir;
  }

  async function codegenCheck(cwd: string, env: NodeJS.ProcessEnv, args = ["--check"]) {
    try {
      const { stdout, stderr } = await run(process.execPath, ["--import", "tsx", "scripts/codegen.ts", ...args], { cwd, env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    }
  }

  const withSpec = { ...process.env, MCP_SPEC_DIR: specDir };
  const cases: Array<[string, { edit: (dir: string) => void; want: string }]> = [
    [
      "a hand-edited file is reported stale",
      {
        edit: (dir) => appendFileSync(join(dir, "generated/modern/validators.js"), "// hand edit\n"),
        want: "generated/modern/validators.js: stale",
      },
    ],
    [
      "a deleted file is reported missing",
      {
        edit: (dir) => rmSync(join(dir, "generated/legacy/types.d.ts")),
        want: "generated/legacy/types.d.ts: missing",
      },
    ],
    [
      "an extra file is reported unexpected",
      {
        edit: (dir) => writeFileSync(join(dir, "generated/modern/extra.js"), "export {};\n"),
        want: "generated/modern/extra.js: unexpected",
      },
    ],
  ];

  describe("fails with exit code 1, naming the file", { concurrency: true }, () => {
    for (const [name, { edit, want }] of cases) {
      test(name, async () => {
        const dir = copyRepo();
        edit(dir);
        const { code, stderr } = await codegenCheck(dir, withSpec);
        assert.equal(code, 1, stderr);
        assert.ok(stderr.split("\n").includes(want), `stderr lacks "${want}":\n${stderr}`);
        assert.match(stderr, /run npm run codegen/);
      });
    }
  });

  // What a fresh clone prints for the README's first command: generated/ is committed, so nothing is written.
  describe("npm run codegen (writing) says what it changed", { concurrency: true }, () => {
    test("on an untouched copy it writes nothing and says generated/ is up to date", async () => {
      const dir = copyRepo();
      const { code, stdout, stderr } = await codegenCheck(dir, withSpec, []);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^codegen: generated\/ is up to date: the spec compiles to its \d+ files, byte for byte \(\d+ ms\)$/m);
      const file = "generated/modern/validators.js";
      assert.ok(readFileSync(join(dir, file)).equals(readFileSync(join(repoRoot, file))));
    });

    test("on a copy with a hand edit it names the file it rewrote", async () => {
      const dir = copyRepo();
      appendFileSync(join(dir, "generated/modern/validators.js"), "// hand edit\n");
      const { code, stdout, stderr } = await codegenCheck(dir, withSpec, []);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^codegen: changed 1 of \d+ files in generated\/: modern\/validators\.js \(stale, rewritten\) \(\d+ ms\)$/m);
      const file = "generated/modern/validators.js";
      assert.ok(readFileSync(join(dir, file)).equals(readFileSync(join(repoRoot, file))), "the hand edit is gone");
    });
  });

  describe("passes when generated/ is current, fails clearly without the spec", { concurrency: true }, () => {
    test("passes with exit code 0 on an untouched copy", async () => {
      const { code, stdout, stderr } = await codegenCheck(copyRepo(), withSpec);
      assert.equal(code, 0, stderr);
      assert.doesNotMatch(stderr, /: (?:stale|missing|unexpected)$/m);
      assert.match(stdout, /checked \d+ files/);
    });

    const { MCP_SPEC_DIR: _unset, ...withoutSpec } = process.env;
    const missing: Array<[string, NodeJS.ProcessEnv]> = [
      ["MCP_SPEC_DIR naming a folder that does not exist", { ...process.env, MCP_SPEC_DIR: join(tmpdir(), "wymcp-no-such-spec") }],
      ["MCP_SPEC_DIR unset and no spec at the default place", withoutSpec],
    ];
    for (const [name, env] of missing) {
      test(`a missing spec folder fails with an error naming MCP_SPEC_DIR (${name})`, async () => {
        const { code, stderr } = await codegenCheck(copyRepo(), env);
        assert.notEqual(code, 0);
        assert.match(stderr, /MCP_SPEC_DIR/);
        assert.match(stderr, /schema\.json/);
        // The message npm test's first step gives: where to get the spec, at which commit.
        assert.match(stderr, /github\.com\/modelcontextprotocol\/modelcontextprotocol/);
        assert.ok(stderr.includes(specSource.commit), "names the commit");
      });
    }
  });
});

/** Every string under a `description` keyword (not a property named so) of a schema. */
function descriptions(node: unknown, inNameMap = false, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => descriptions(item, false, out));
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (!inNameMap && key === "description" && typeof value === "string") out.push(value);
      else descriptions(value, !inNameMap && (key === "properties" || key === "$defs"), out);
    }
  }
  return out;
}

/** True when `node` has a `description` keyword anywhere (property names excepted). */
function hasDescriptionKeyword(node: unknown, inNameMap = false): boolean {
  if (Array.isArray(node)) return node.some((item) => hasDescriptionKeyword(item, false));
  if (node === null || typeof node !== "object") return false;
  return Object.entries(node).some(
    ([key, value]) =>
      (!inNameMap && key === "description") || hasDescriptionKeyword(value, !inNameMap && (key === "properties" || key === "$defs")),
  );
}

/** The tracked files of the repository that exist in the working tree. */
function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" })
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(repoRoot, file)));
}

describe("the spec's prose stays out", () => {
  const cases: Array<[string, { given: unknown; want: unknown }]> = [
    ["a description keyword is removed", { given: { type: "string", description: "x" }, want: { type: "string" } }],
    [
      "$comment, examples and markdownDescription are removed",
      {
        given: { type: "string", $comment: "c", examples: ["e"], markdownDescription: "m" },
        want: { type: "string" },
      },
    ],
    [
      "a property named description is kept, its own description removed",
      {
        given: { properties: { description: { type: "string", description: "d" } } },
        want: { properties: { description: { type: "string" } } },
      },
    ],
    [
      "a definition named description is kept",
      {
        given: { $defs: { description: { description: "d", type: "string" } } },
        want: { $defs: { description: { type: "string" } } },
      },
    ],
    [
      "a description inside anyOf members and items is removed",
      {
        given: { anyOf: [{ description: "a", type: "string" }], items: { description: "i", type: "number" } },
        want: { anyOf: [{ type: "string" }], items: { type: "number" } },
      },
    ],
    [
      "values of const, enum and default are data and kept whole",
      {
        given: { const: { description: "a value" }, enum: [{ description: "v" }], default: { description: "d" } },
        want: { const: { description: "a value" }, enum: [{ description: "v" }], default: { description: "d" } },
      },
    ],
  ];
  for (const [name, { given, want }] of cases) {
    test(`stripProse: ${name}`, () => {
      const before = structuredClone(given);
      assert.deepEqual(stripProse(given), want);
      assert.deepEqual(given, before);
    });
  }

  test("stripProse keeps BooleanSchema.properties.description of 2026-07-28 and leaves no description keyword", () => {
    const schema = readSpecSchema("2026-07-28");
    const booleanSchema = (schema.$defs as Record<string, JsonObject>).BooleanSchema as JsonObject;
    assert.ok(hasDescriptionKeyword(schema), "the spec has descriptions to strip");
    const stripped = stripProse(schema);
    const strippedBoolean = (stripped.$defs as Record<string, JsonObject>).BooleanSchema as JsonObject;
    assert.deepEqual((strippedBoolean.properties as JsonObject).description, { type: "string" });
    assert.ok("description" in (booleanSchema.properties as JsonObject));
    assert.equal(hasDescriptionKeyword(stripped), false);
  });

  test("no file in generated/ contains any description text of the spec", () => {
    const needles = new Set<string>();
    for (const revision of eraRevisions) {
      for (const text of descriptions(readSpecSchema(revision))) {
        // Also as escaped in a JS string literal, and line by line as in a JSDoc comment.
        for (const form of [text, JSON.stringify(text).slice(1, -1), ...text.split("\n").map((line) => line.trim())]) {
          if (form.length >= 25) needles.add(form);
        }
      }
    }
    assert.ok(needles.size > 100, `only ${needles.size} descriptions found`);
    const files = readdirSync(generatedDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    assert.ok(files.length >= 10);
    for (const entry of files) {
      const file = relative(generatedDir, join(entry.parentPath ?? entry.path, entry.name));
      const text = readFileSync(join(generatedDir, file), "utf8");
      const found = [...needles].find((needle) => text.includes(needle));
      assert.equal(found, undefined, `generated/${file} contains spec prose`);
    }
  });

  test("two known description phrases occur in no tracked file of the repository", () => {
    // Kept in pieces so that this file does not itself carry the phrases.
    const phrases = [
      ["The receiver is not obligated", "to provide these notifications"],
      ["can be decoded off the wire,", "or encoded to be sent"],
    ].map((parts) => parts.join(" "));
    const spec = readFileSync(specSchemaPath("2026-07-28"), "utf8");
    for (const phrase of phrases) assert.ok(spec.includes(phrase), `the spec no longer says "${phrase}"`);
    const files = trackedFiles();
    assert.ok(files.includes("generated/modern/types.d.ts"));
    for (const file of files) {
      const text = readFileSync(join(repoRoot, file), "utf8");
      for (const phrase of phrases) assert.ok(!text.includes(phrase), `${file} contains "${phrase}"`);
    }
  });

  test("no official schema file is copied into the repository (sha256 of every tracked .json differs)", () => {
    const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");
    const official = new Map(specRevisions().map((revision) => [sha256(specSchemaPath(revision)), revision]));
    assert.ok(official.size >= 2);
    const json = trackedFiles().filter((file) => file.endsWith(".json"));
    assert.ok(json.includes("generated/manifest.json"));
    for (const file of json) {
      const revision = official.get(sha256(join(repoRoot, file)));
      assert.equal(revision, undefined, `${file} is the official ${revision} schema.json`);
    }
  });
});

describe("the method table", () => {
  const manifest = JSON.parse(readFileSync(join(generatedDir, "manifest.json"), "utf8")) as {
    eras: Record<string, { methods: Record<string, string> }>;
  };
  const defs = readSpecSchema("2026-07-28").$defs as Record<string, JsonObject>;
  const union = (defs.ClientRequest as JsonObject).anyOf as JsonObject[];
  const expected = union.map((member) => {
    const definition = String(member.$ref).replace("#/$defs/", "");
    const method = ((defs[definition] as JsonObject).properties as Record<string, JsonObject>).method as JsonObject;
    return [method.const as string, definition] as const;
  });

  test("modern methods equals the 2026-07-28 ClientRequest union (method const → definition), in order", () => {
    assert.ok(expected.length >= 10);
    assert.deepEqual(
      [...modern.methods].map(([method, { definition }]) => [method, definition]),
      expected,
    );
    const exports = modern as unknown as Record<string, unknown>;
    for (const [method, { definition, validate }] of modern.methods) {
      assert.equal(validate, exports[definition], `${method} does not use the ${definition} export`);
    }
  });

  test("the manifest's modern methods match the union", () => {
    assert.deepEqual(manifest.eras.modern?.methods, Object.fromEntries(expected));
  });

  test("legacy methods is empty, in the module and in the manifest", () => {
    assert.equal(legacy.methods.size, 0);
    assert.deepEqual(manifest.eras.legacy?.methods, {});
  });
});
