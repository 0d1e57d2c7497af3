import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { generate } from "../src/compile/generate.js";
import { random, Sampler } from "./support/schema-samples.js";
import { repoRoot } from "./support/spec.js";

const fixtures = join(repoRoot, "test/fixtures/tool-schemas");
const inputs = readdirSync(fixtures)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => join(fixtures, f));
const CASES = 100_000;
let dir: string;
let compiled: { jsonSchemaValidator: { getValidator(schema: object): (input: unknown) => { valid: boolean; errorMessage?: string } } };
let schemas: object[];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "wymcp-compile-diff-"));
  const files = await generate(inputs, dir);
  for (const [file, text] of files) writeFileSync(join(dir, file), text);
  compiled = await import(pathToFileURL(join(dir, "index.js")).href);
  const { readFileSync } = await import("node:fs");
  schemas = inputs.flatMap((file) =>
    (JSON.parse(readFileSync(file, "utf8")) as { tools: Array<{ inputSchema: object; outputSchema?: object }> }).tools.flatMap((t) =>
      t.outputSchema ? [t.inputSchema, t.outputSchema] : [t.inputSchema],
    ),
  );
});

after(() => rmSync(dir, { recursive: true, force: true }));

test(`precompiled validators agree with the SDK's own Ajv provider on ${CASES} generated argument objects over the real tool schemas`, () => {
  assert.ok(new Set(schemas.map((s) => JSON.stringify(s))).size >= 30, "at least 30 distinct real schemas");
  const sdk = new AjvJsonSchemaValidator();
  const next = random(0x5eed);
  const perSchema = Math.ceil(CASES / schemas.length);
  let cases = 0;
  let valid = 0;
  const disagreements: string[] = [];
  for (const [i, schema] of schemas.entries()) {
    const theirs = sdk.getValidator(schema as never);
    const ours = compiled.jsonSchemaValidator.getValidator(schema);
    const sampler = new Sampler(schema as Record<string, unknown>, next);
    for (let n = 0; n < perSchema; n++) {
      const base = sampler.valid();
      const input = n % 3 === 0 ? base : sampler.mutate(n % 5 === 0 ? sampler.mutate(base) : base);
      const want = theirs(input).valid;
      const got = ours(input);
      cases++;
      if (want) valid++;
      if (got.valid !== want && disagreements.length < 5)
        disagreements.push(`schema #${i}: SDK ${want}, wymcp ${got.valid} for ${JSON.stringify(input).slice(0, 300)}`);
      if (!got.valid) {
        assert.equal(typeof got.errorMessage, "string");
        // Values never come back: the sentinels are only ever values (or inside a key, which a location may name).
        assert.ok(!/SENTINEL-(VALUE|ROOT)/.test(got.errorMessage!), got.errorMessage);
        assert.ok(!got.errorMessage!.includes("\u001b"), "control characters in keys are escaped");
        assert.ok(got.errorMessage!.length < 2000, "the message is bounded");
      }
    }
  }
  assert.deepEqual(disagreements, []);
  assert.ok(cases >= CASES, `${cases} cases`);
  // Both verdicts are well represented, or the comparison would prove little.
  assert.ok(valid > cases * 0.15 && valid < cases * 0.85, `${valid} of ${cases} valid`);
  console.log(
    `compile differential: ${cases} cases over ${schemas.length} schemas (${new Set(schemas.map((s) => JSON.stringify(s))).size} distinct), ${valid} valid, ${disagreements.length} disagreements`,
  );
});
