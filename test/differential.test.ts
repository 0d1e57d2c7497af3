import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import fc from "fast-check";
import { eras } from "../generated/index.js";
import type { Validator } from "../generated/validator.js";
import { classifyMessage } from "../src/core/classify-message.js";
import { underFormats } from "./support/formats.js";
import { FORMATS, type Formats } from "../src/core/formats.js";
import type { Era } from "wymcp";
import { loadExamples, readSpecSchema } from "./support/spec.js";
import { mutateAt as mutate } from "./support/mutate.js";
import { CLIENT_RESPONSE, LEGACY_INITIALIZE, MODERN_META, modernToolsCall, NOTIFICATION } from "./support/messages.js";

const MESSAGES = 100_000;
const SEED = 424242;
const formats = JSON.parse(readFileSync(new URL("../schemas/formats.json", import.meta.url), "utf8")) as Record<string, string>;

/**
 * The official schema file as published (2020-12 dialect, prose and all), compiled now by Ajv's 2020-12 class: under
 * `"strict"` with the formats of schemas/formats.json asserted, under `"annotation"` with formats ignored, as 2020-12
 * reads them without the format-assertion vocabulary.
 */
function runtimeCompiled(era: Era, mode: Formats): (name: string) => ValidateFunction {
  const revision = eras[era].revision;
  const ajv = new Ajv2020({
    allErrors: true,
    allowUnionTypes: true,
    strict: true,
    ...(mode === "strict"
      ? { formats: Object.fromEntries(Object.entries(formats).map(([k, v]) => [k, new RegExp(v, "u")])) }
      : { validateFormats: false }),
  });
  const id = `urn:official:${revision}`;
  ajv.addSchema({ ...readSpecSchema(revision), $id: id });
  return (name) => ajv.getSchema(`${id}#/$defs/${name}`) ?? assert.fail(`no ${name}`);
}

/** The validators validateMcpRequest would run on `body` in `era`, by definition name, plus the whole framing. */
function applicable(era: Era, body: unknown): string[] {
  const kind = classifyMessage(body);
  const names = ["JSONRPCMessage"];
  if (kind === "request") {
    names.push("JSONRPCRequest");
    const method = eras[era].methods.get((body as { method: string }).method);
    if (method) names.push(method.definition);
  } else if (kind === "notification") names.push("JSONRPCNotification");
  else if (kind === "response") names.push(Object.hasOwn(body as object, "result") ? "JSONRPCResultResponse" : "JSONRPCErrorResponse");
  return names;
}

function verdict(validate: Validator | ValidateFunction, body: unknown): string {
  if (validate(body)) return "valid";
  return `invalid ${[...new Set((validate.errors ?? []).map((e) => e.instancePath))].sort().join(" ")}`;
}

const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.string({ maxLength: 12 }),
    fc.constantFrom("2.0", "file:///x", "text", "user", "ref/prompt", "a{b", "aGk="),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("type", "text", "name", "uri", "_meta", "x", "role", "content", "arguments"), tie("v"), { maxKeys: 4 }),
  ),
})).v;

for (const mode of FORMATS)
  test(`formats ${mode}: precompiled validators agree with the official schema compiled at run time on ${MESSAGES.toLocaleString("en")}+ messages`, (t) => {
    const examples = loadExamples().map((e) => e.instance);
    const bases = [
      ...examples.filter((e) => typeof e === "object" && e !== null && "jsonrpc" in e),
      modernToolsCall(),
      LEGACY_INITIALIZE,
      NOTIFICATION,
      CLIENT_RESPONSE,
    ];
    const methods = [...eras.modern.methods.keys(), "initialize", "ping", "vendor/x", "notifications/initialized"];
    const mutated = fc
      .tuple(fc.constantFrom(...bases), fc.array(fc.nat(), { maxLength: 7 }), value, fc.boolean())
      .map(([b, p, r, rm]) => mutate(b, p, r, rm));
    const shaped = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant("2.0"), value),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), value),
        method: fc.oneof(fc.constantFrom(...methods), value),
        params: fc.oneof(
          fc.record({ _meta: fc.oneof(fc.constant(MODERN_META), value), name: value, uri: value, arguments: value }, { requiredKeys: [] }),
          value,
        ),
        result: value,
        error: value,
      },
      { requiredKeys: [] },
    );
    const generated = fc.sample(fc.oneof(mutated, mutated, shaped), { numRuns: MESSAGES - examples.length, seed: SEED });
    const messages = [...examples, ...generated];

    const compiled = { legacy: runtimeCompiled("legacy", mode), modern: runtimeCompiled("modern", mode) };
    let comparisons = 0;
    let valid = 0;
    const disagreements: string[] = [];
    for (const body of messages) {
      for (const era of ["legacy", "modern"] as const) {
        for (const name of applicable(era, body)) {
          const pre = underFormats(mode, () => verdict((eras[era] as unknown as Record<string, Validator>)[name]!, body));
          const run = verdict(compiled[era](name), body);
          comparisons++;
          if (pre === "valid") valid++;
          if (pre !== run && disagreements.length < 5)
            disagreements.push(`${era} ${name}: ${pre} vs ${run} for ${JSON.stringify(body).slice(0, 300)}`);
          else if (pre !== run) disagreements.push("");
        }
      }
    }
    t.diagnostic(
      `${messages.length} messages, ${comparisons} comparisons (${valid} valid verdicts), ${disagreements.length} disagreements`,
    );
    assert.ok(messages.length >= MESSAGES);
    assert.ok(valid > comparisons / 10, "too few valid messages to compare the pass path");
    assert.deepEqual(disagreements, []);
  });
