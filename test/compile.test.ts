import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, test } from "node:test";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import ts from "typescript";
import { structureKey } from "../src/compile/canonical.js";
import { runCompile } from "../src/cli/compile/command.js";
import { generate, WYMCP_VERSION } from "../src/compile/generate.js";
import { type BriefError, briefAnswer } from "../src/compile/runtime/brief-answer.js";
import { KEPT_KEY_UNITS } from "../src/codegen/bound-keys.js";
import { escapePointer } from "../src/core/distill.js";
import { ERROR_BUDGET } from "../src/core/error-budget.js";
import { safePointer } from "../src/core/log-safe.js";
import { COMPILE_RUNTIME } from "../src/compile/runtime-text.js";
import { random, Sampler } from "./support/schema-samples.js";
import { repoRoot } from "./support/spec.js";

type Result = { valid: boolean; data?: unknown; errorMessage?: string };
type Provider = { getValidator(schema: object): (input: unknown) => Result };
interface Compiled {
  jsonSchemaValidator: Provider;
  createJsonSchemaValidator(options?: { fallback?: Provider }): Provider;
  validators: Record<string, (input: unknown) => Result>;
  tools: Record<string, { input: (input: unknown) => Result; output?: (input: unknown) => Result }>;
}

const features = join(repoRoot, "test/fixtures/compile-features.json");
const memory = join(repoRoot, "test/fixtures/tool-schemas/server-memory.json");
const tools = (JSON.parse(readFileSync(features, "utf8")) as { tools: Array<{ name: string; inputSchema: object; outputSchema?: object }> })
  .tools;
const schemas = tools.flatMap((t) => (t.outputSchema ? [t.inputSchema, t.outputSchema] : [t.inputSchema]));
let dir: string;
let compiled: Compiled;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "wymcp-compile-"));
  assert.equal(await runCompile([features, memory, "--out", dir]), 0);
  compiled = (await import(pathToFileURL(join(dir, "index.js")).href)) as Compiled;
});

after(() => rmSync(dir, { recursive: true, force: true }));

test("verdicts equal the SDK's Ajv provider over formats, dialects (2020-12, 2019-09, draft-07, draft-06) and keywords the real schemas seldom use", () => {
  const sdk = new AjvJsonSchemaValidator();
  const next = random(0xfea7);
  let cases = 0;
  let valid = 0;
  const disagreements: string[] = [];
  for (const [i, schema] of schemas.entries()) {
    const theirs = sdk.getValidator(schema as never);
    const ours = compiled.jsonSchemaValidator.getValidator(schema);
    const sampler = new Sampler(schema as Record<string, unknown>, next);
    for (let n = 0; n < 4000; n++) {
      const base = sampler.valid();
      const input = n % 3 === 0 ? base : sampler.mutate(n % 2 === 0 ? sampler.mutate(base) : base);
      const want = theirs(input).valid;
      cases++;
      if (want) valid++;
      if (ours(input).valid !== want && disagreements.length < 5)
        disagreements.push(`schema #${i}: SDK ${want} for ${JSON.stringify(input).slice(0, 200)}`);
    }
  }
  assert.deepEqual(disagreements, []);
  assert.ok(valid > cases * 0.05 && valid < cases * 0.95, `${valid} of ${cases} valid`);
});

test("a schema re-read from JSON, or written with its keys in another order, finds its precompiled validator", () => {
  const shuffled = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(shuffled);
    if (node === null || typeof node !== "object") return node;
    return Object.fromEntries(
      Object.entries(node)
        .reverse()
        .map(([k, v]) => [k, shuffled(v)]),
    );
  };
  for (const schema of schemas) {
    const reread = JSON.parse(JSON.stringify(schema)) as object;
    const reordered = shuffled(schema) as object;
    assert.equal(structureKey(reordered), structureKey(schema));
    assert.equal(compiled.jsonSchemaValidator.getValidator(reread), compiled.jsonSchemaValidator.getValidator(schema));
    assert.equal(compiled.jsonSchemaValidator.getValidator(reordered), compiled.jsonSchemaValidator.getValidator(schema));
  }
  // undefined members are absent, as in JSON.
  const inline = { ...(tools[0]!.inputSchema as Record<string, unknown>), description: undefined };
  assert.equal(compiled.jsonSchemaValidator.getValidator(inline), compiled.validators.formatsInput);
});

test("each schema has a named validator, and tools map to their input and output validators", () => {
  assert.equal(compiled.tools.shapes_draft07!.input, compiled.validators.shapesDraft07Input);
  assert.equal(compiled.tools.shapes_draft07!.output, compiled.validators.shapesDraft07Output);
  assert.deepEqual(compiled.validators.createEntitiesInput!({ entities: [] }), {
    valid: true,
    data: { entities: [] },
    errorMessage: undefined,
  });
  const bad = compiled.validators.createEntitiesInput!({ entities: [{ name: 1 }] });
  assert.equal(bad.valid, false);
  assert.equal(bad.data, undefined);
  assert.match(
    bad.errorMessage!,
    /^3 invalid locations: \/entities\/0\/entityType is required; \/entities\/0\/observations is required; \/entities\/0\/name must be string$/,
  );
});

test("a schema that was not compiled gets an error naming wymcp compile; a fallback provider serves it instead", () => {
  const stranger = { type: "object", properties: { x: { type: "string" } } };
  assert.throws(
    () => compiled.jsonSchemaValidator.getValidator(stranger),
    /no precompiled validator.*wymcp compile.*compile-features\.json/s,
  );
  const fallback = new AjvJsonSchemaValidator();
  const provider = compiled.createJsonSchemaValidator({ fallback });
  assert.equal(provider.getValidator(stranger)({ x: 1 }).valid, false);
  assert.equal(provider.getValidator(schemas[0]!), compiled.validators.formatsInput, "compiled schemas still use the compiled validator");
});

describe("errors are answered briefly, for the model that retries: located, bounded, nothing of the value reflected", () => {
  test("the first three locations in the order the validator met them, then how many more", () => {
    const { errorMessage } = compiled.validators.createEntitiesInput!({ entities: [{ name: 1 }, { name: 2 }], extra: true });
    assert.equal(
      errorMessage,
      "7 invalid locations: (the value) has a property the schema does not allow; /entities/0/entityType is required; /entities/0/observations is required; and 4 more",
    );
  });

  test("a value that is not an object, where the root is type object alone: the same answer, before the validator runs", () => {
    for (const input of [0, "x", null, [], true]) {
      assert.deepEqual(compiled.validators.createEntitiesInput!(input), {
        valid: false,
        data: undefined,
        errorMessage: "1 invalid location: (the value) must be object",
      });
    }
  });

  test("10,000 invalid items stop at the error budget: the count reads N+, the message stays short", () => {
    const blocks = Array.from({ length: 10_000 }, (_, i) => ({ type: "text", text: i, secret: "VALUE-SECRET" }));
    const { valid, errorMessage } = compiled.tools.union_items!.input({ blocks });
    assert.equal(valid, false);
    assert.match(
      errorMessage!,
      /^\d+\+ invalid locations: \/blocks\/0\/text must be string; \/blocks\/1\/text must be string; \/blocks\/2\/text must be string;/,
    );
    assert.ok(errorMessage!.length < 1200, errorMessage);
    assert.doesNotMatch(errorMessage!, /VALUE-SECRET/);
  });

  test("a schema with oneOf, not, if or contains reports its first problem (allErrors off keeps the cost linear)", () => {
    const { valid, errorMessage } = compiled.tools.shapes_2020!.input({ tags: Array(5000).fill(7), notNull: null });
    assert.equal(valid, false);
    assert.match(errorMessage!, /^1 invalid location: \/tags/);
  });

  test("control characters in keys are escaped and long locations are cut", () => {
    const key = `a\u001b[2J\r\n${"k".repeat(300)}`;
    const { errorMessage } = compiled.tools.shapes_draft07!.input({ name: "ok", [key]: "not a boolean" });
    assert.ok(errorMessage!.includes("\\u001b[2J\\u000d\\u000a"), errorMessage);
    assert.doesNotMatch(errorMessage!, /[\u0000-\u001f]/);
    assert.ok(errorMessage!.includes("k…"), "the location ends in an ellipsis");
    assert.doesNotMatch(errorMessage!, /not a boolean/);
  });
});

test("a compiled module escapes keys exactly as the core does: bidirectional marks and lone surrogates included", async () => {
  const work = mkdtempSync(join(tmpdir(), "wymcp-compile-escape-"));
  try {
    const input = join(work, "closed.json");
    // Every member must be a string: a key is then located where its value fails.
    writeFileSync(input, JSON.stringify({ type: "object", additionalProperties: { type: "string" } }));
    assert.equal(await runCompile([input, "--out", join(work, "out")]), 0);
    const module = (await import(pathToFileURL(join(work, "out", "index.js")).href)) as Compiled;
    const validate = module.validators.closed!;
    const keys = ["a\u202Eb", "\ud800x", "y\udc00", "a\u2066b\u2069", "line\u2028break", "esc\u001b[2J", "back\\slash", "cut\u2026"];
    for (const key of keys) {
      const { valid, errorMessage } = validate({ [key]: 1 });
      assert.equal(valid, false);
      const location = safePointer(`/${escapePointer(key)}`);
      assert.equal(errorMessage, `1 invalid location: ${location} must be string`, JSON.stringify(key));
    }
    // The case, spelled out: the right-to-left override becomes \u202e, a lone surrogate \ud800.
    assert.match(validate({ "a\u202Eb": 1 }).errorMessage!, /\/a\\u202eb /);
    assert.match(validate({ "\ud800x": 1 }).errorMessage!, /\/\\ud800x /);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("a compiled module answers a 1 MiB argument key as the same call with the key cut to the units a location keeps", async () => {
  const work = mkdtempSync(join(tmpdir(), "wymcp-compile-long-key-"));
  try {
    const input = join(work, "tools.json");
    const numbers = { type: "object", additionalProperties: { type: "number" } };
    const tools = [
      { name: "open", inputSchema: { type: "object", properties: { name: { type: "string" } }, additionalProperties: numbers } },
      { name: "patterned", inputSchema: { type: "object", patternProperties: { "^x": numbers }, additionalProperties: false } },
    ];
    writeFileSync(input, JSON.stringify({ tools }));
    assert.equal(await runCompile([input, "--out", join(work, "out")]), 0);
    const code = readFileSync(join(work, "out", "index.js"), "utf8");
    // Ajv's escape of a key (`key0.replace(/~/g, "~0")...`) is gone: every location goes through pointerKey.
    assert.match(code, /pointerKey\(key\d+\)/);
    assert.doesNotMatch(code, /\bkey\d+\.replace\(/);
    const module = (await import(pathToFileURL(join(work, "out", "index.js")).href)) as Compiled;
    // Many invalid values under the long key, and one beside it: each error's location starts with the key.
    const call = (key: string) => ({
      name: 7,
      [key]: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`m${i}`, "not a number"])),
      x2: "not an object",
    });
    const MIB = 1024 * 1024;
    for (const long of [`x${"k".repeat(MIB)}`, `x${"~/".repeat(MIB / 2)}`, `x${"\u001b".repeat(MIB)}`]) {
      const cut = long.slice(0, KEPT_KEY_UNITS);
      for (const tool of ["open", "patterned"] as const) {
        const answer = module.tools[tool]!.input(call(long));
        assert.equal(answer.valid, false);
        assert.deepEqual(answer, module.tools[tool]!.input(call(cut)), `${tool}: the long key answers as the cut one`);
        // Bounded: three locations of at most 120 characters each, and the words.
        assert.ok(answer.errorMessage!.length < 600, `${answer.errorMessage!.length} characters`);
        assert.match(answer.errorMessage!, /…/, "the long key's segment is cut and marked");
        assert.doesNotMatch(answer.errorMessage!, /not a number|not an object/);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("the runtime a module carries is the core's own code, bundled: no retyped distiller or escaping", () => {
  const code = readFileSync(join(dir, "index.js"), "utf8");
  assert.ok(code.includes(COMPILE_RUNTIME), "index.js carries the bundled runtime as it is");
  for (const from of [
    "src/core/log-safe.ts",
    "src/core/distill.ts",
    "src/core/likely-branch.ts",
    "src/compile/runtime/brief-answer.ts",
    "src/compile/canonical.ts",
    "src/lock/canonical-json.ts",
  ])
    assert.ok(COMPILE_RUNTIME.includes(`// ${from}\n`), `bundled from ${from}`);
});

test("generated/ holds nothing bundled from src/: an edit of the core never makes it stale, the runtime is bundled by the build", () => {
  const generated = join(repoRoot, "generated");
  const files = readdirSync(generated, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith(".js"));
  assert.ok(files.length > 0);
  for (const entry of files) {
    const path = join(entry.parentPath ?? entry.path, entry.name);
    // A bundle marks each module it took in with a `// src/...` line, as code or inside a string.
    assert.doesNotMatch(readFileSync(path, "utf8"), /\/\/ src\//, `${relative(repoRoot, path)} carries code of src/`);
  }
});

test("the runtime a module carries answers invalid arguments as src/compile/runtime/brief-answer.ts does, and a value not an object as its validator would", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-brief-"));
  try {
    writeFileSync(join(dir, "runtime.mjs"), `${COMPILE_RUNTIME}\nexport { invalidResult, notObjectResult };\n`);
    type Result = { valid: boolean; data: unknown; errorMessage: string };
    const runtime = (await import(pathToFileURL(join(dir, "runtime.mjs")).href)) as {
      invalidResult(errors: BriefError[]): Result;
      notObjectResult(): Result;
    };
    const bundled = (errors: BriefError[], budget: number) => {
      assert.equal(budget, ERROR_BUDGET, "the runtime counts N+ at the core's error budget");
      const result = runtime.invalidResult(errors);
      assert.deepEqual([result.valid, result.data], [false, undefined]);
      return result.errorMessage;
    };
    // A value that is not an object, answered before the validator runs, reads as the validator's own answer.
    assert.deepEqual(runtime.notObjectResult(), {
      valid: false,
      data: undefined,
      errorMessage: briefAnswer([{ instancePath: "", keyword: "type", params: { type: "object" } }], ERROR_BUDGET),
    });
    const next = random(0x5eed);
    const keywords = ["type", "required", "enum", "minimum", "additionalProperties", "anyOf", "pattern", "format"];
    for (let n = 0; n < 2000; n++) {
      const errors: BriefError[] = Array.from({ length: 1 + Math.floor(next() * 8) }, (_, i) => {
        const keyword = keywords[Math.floor(next() * keywords.length)]!;
        return {
          instancePath: `/${Math.floor(next() * 4)}${next() < 0.3 ? "/x" : ""}`,
          keyword,
          params: { type: "string", missingProperty: `k${i}`, comparison: ">=", limit: i, pattern: "^a$", format: "date", union: 0 },
          ...(next() < 0.3 ? { branches: [0, "/0", Math.floor(next() * 2)] } : {}),
        };
      });
      assert.equal(bundled(errors, ERROR_BUDGET), briefAnswer(errors, ERROR_BUDGET));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("index.js imports nothing, requires nothing, and runs under node --disallow-code-generation-from-strings", () => {
  const code = readFileSync(join(dir, "index.js"), "utf8");
  assert.doesNotMatch(code, /^\s*import\b|\bimport\(|\brequire\(/m);
  assert.doesNotMatch(code, /new Function|\beval\(/);
  const script = `const m = await import(${JSON.stringify(pathToFileURL(join(dir, "index.js")).href)});
    const r = [m.tools.formats.input({ when: "2024-02-30T00:00:00Z" }), m.tools.formats.input({ when: "2024-02-29T00:00:00Z", re: "(" }), m.validators.unionItemsInput({ blocks: [{ type: "text", text: "x" }], emoji: "😀😀" })];
    process.stdout.write(JSON.stringify(r.map((x) => x.valid)));`;
  const child = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", "--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout, "[false,false,true]");
});

test("the output is deterministic, and --check fails naming the file once an input changes", async () => {
  const work = mkdtempSync(join(tmpdir(), "wymcp-compile-check-"));
  try {
    const input = join(work, "tools.json");
    copyFileSync(memory, input);
    const out = join(work, "out");
    const first = await generate([input], out);
    assert.deepEqual(await generate([input], out), first);
    assert.equal(await runCompile([input, "--out", out, "--check"]), 1, "missing output is stale");
    assert.equal(await runCompile([input, "--out", out]), 0);
    assert.equal(await runCompile([input, "--out", out, "--check"]), 0);
    const changed = JSON.parse(readFileSync(input, "utf8")) as { tools: Array<{ inputSchema: { required?: string[] } }> };
    changed.tools[0]!.inputSchema.required = [];
    writeFileSync(input, JSON.stringify(changed));
    const stderr: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => (stderr.push(chunk), true)) as typeof process.stderr.write;
    try {
      assert.equal(await runCompile([input, "--out", out, "--check"]), 1);
    } finally {
      process.stderr.write = write;
    }
    assert.match(stderr.join(""), /index\.js: stale/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("a $schema the SDK does not support is refused at compile time, as the SDK refuses it at run time", async () => {
  const work = mkdtempSync(join(tmpdir(), "wymcp-compile-dialect-"));
  try {
    const input = join(work, "odd.json");
    writeFileSync(input, JSON.stringify({ $schema: "https://json-schema.org/draft-04/schema#", type: "object" }));
    await assert.rejects(generate([input], join(work, "out")), /draft-04.*not a dialect the SDK's validators support/);
    assert.throws(
      () => new AjvJsonSchemaValidator().getValidator({ $schema: "https://json-schema.org/draft-04/schema#" } as never),
      /unsupported dialect/,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

// The compiled module sits in a temporary folder: the SDK's types are named where this repository installed them.
const SDK_TYPES: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  skipLibCheck: true,
  baseUrl: repoRoot,
  paths: { "@modelcontextprotocol/server": [join(repoRoot, "node_modules/@modelcontextprotocol/server/dist/index.d.mts")] },
};

test("index.d.ts type-checks with the SDK: fromJsonSchema, McpServer's jsonSchemaValidator option, and a type per schema", () => {
  const file = join(dir, "use.ts");
  writeFileSync(
    file,
    `import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { jsonSchemaValidator, createJsonSchemaValidator, validators, tools, type CreateEntitiesInput } from "./index.js";
const schema = { type: "object", properties: { entities: { type: "array" } }, required: ["entities"] } as const;
export const standard = fromJsonSchema<CreateEntitiesInput>(schema, jsonSchemaValidator);
export const server = new McpServer({ name: "s", version: "1" }, { jsonSchemaValidator: createJsonSchemaValidator({ fallback: jsonSchemaValidator }) });
const result = validators.createEntitiesInput({});
export const names: string[] | undefined = result.valid ? result.data.entities.map((e) => e.name) : undefined;
export const out = tools.shapes_draft07.output;
`,
  );
  const program = ts.createProgram([file], {
    ...SDK_TYPES,
  });
  const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
  assert.deepEqual(problems, []);
});

test("the version in the manifest is package.json's", () => {
  assert.equal(WYMCP_VERSION, (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version);
});

test("wymcp compile through the built CLI: help, and a usage error without --out", () => {
  const cli = join(repoRoot, "dist/cli.js");
  assert.match(
    execFileSync(process.execPath, [cli, "compile", "--help"], { encoding: "utf8" }),
    /^Usage: wymcp compile <input>\.\.\. --out <dir>/,
  );
  const child = spawnSync(process.execPath, [cli, "compile", memory], { encoding: "utf8" });
  assert.equal(child.status, 2);
  assert.match(child.stderr, /--out <dir> is required/);
});
