import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { outbound } from "../generated/outbound.js";
import type { Validator } from "../generated/validator.js";
import type { Era } from "../src/core/era.js";
import { underFormats } from "./support/formats.js";
import { FORMATS } from "../src/core/formats.js";
import { validateMcpResponse } from "../src/outbound.js";
import { LEGACY_SERVER_MESSAGES } from "./support/outbound-messages.js";
import { reference, referenceVerdict, steps, type Reference } from "./support/outbound-reference.js";
import { loadExamples } from "./support/spec.js";
import { mutateAt as mutate } from "./support/mutate.js";

// CI runs the full 100,000 (about 10 s here); WYMCP_OUTBOUND_DIFFERENTIAL raises or lowers it locally.
const MESSAGES = Number(process.env.WYMCP_OUTBOUND_DIFFERENTIAL ?? 100_000);
const SEED = 20260728;
const ERAS: Era[] = ["legacy", "modern"];

/** The official examples as server-sent messages, each with the method whose request it answers. */
function exampleMessages(modern: Reference): Array<{ message: unknown; method: string | undefined }> {
  const byResult = new Map([...modern.results].map(([method, { definition }]) => [definition, method]));
  const out: Array<{ message: unknown; method: string | undefined }> = [];
  for (const { definition, instance } of loadExamples()) {
    const asResponse = definition.replace(/Response$/, "");
    if (byResult.has(definition)) out.push({ message: { jsonrpc: "2.0", id: 1, result: instance }, method: byResult.get(definition) });
    else if (definition === "InputRequiredResult")
      out.push({ message: { jsonrpc: "2.0", id: "r", result: instance }, method: "tools/call" });
    else if (byResult.has(asResponse)) out.push({ message: instance, method: byResult.get(asResponse) });
    else if (typeof instance === "object" && instance !== null && "jsonrpc" in instance) out.push({ message: instance, method: undefined });
  }
  return out;
}

const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.string({ maxLength: 10 }),
    fc.constantFrom("2.0", "text", "image", "complete", "input_required", "object", "string", "file:///x", "aGk=", "user", "info"),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom(
        "type",
        "text",
        "name",
        "resultType",
        "content",
        "inputSchema",
        "tools",
        "_meta",
        "x",
        "uri",
        "code",
        "message",
        "level",
        "data",
      ),
      tie("v"),
      { maxKeys: 4 },
    ),
  ),
})).v;

/** Our raw locations for the reference's plan: the precompiled validators, located as validateMcpResponse locates them. */
function precompiledVerdict(r: Reference, message: unknown, method: string | undefined): string {
  const plan = steps(r, message, method);
  if (!plan) return "invalid ";
  const module = outbound[r.era] as unknown as Record<string, Validator & ((d: unknown, o: object) => boolean)>;
  const paths = new Set<string>();
  let valid = true;
  for (const { definition, ofResult } of plan.steps) {
    const validate = module[definition] ?? assert.fail(`generated/${r.era}/outbound.js has no ${definition}`);
    const body = message as { result: unknown };
    const ok = ofResult
      ? validate(body.result, { instancePath: "/result", parentData: body, parentDataProperty: "result", rootData: body })
      : validate(message);
    if (!ok) {
      valid = false;
      for (const e of validate.errors ?? []) paths.add(e.instancePath);
    }
  }
  if (plan.definition === "JSONRPCMessage" && valid) valid = false;
  return valid ? "valid" : `invalid ${[...paths].sort().join(" ")}`;
}

for (const mode of FORMATS)
  test(`outbound, formats ${mode}: validateMcpResponse and the precompiled validators agree with the official schema compiled at run time (errata, discriminator) on ${MESSAGES.toLocaleString("en")} messages`, (t) => {
    const refs = { legacy: reference("legacy", mode), modern: reference("modern", mode) };
    const examples = exampleMessages(refs.modern);
    const bases = [...examples, ...LEGACY_SERVER_MESSAGES];
    const tableMethods = [...new Set(ERAS.flatMap((era) => [...refs[era].results.keys()]))];
    const method = fc.oneof(
      { weight: 6, arbitrary: fc.constant("own" as const) },
      { weight: 2, arbitrary: fc.constantFrom(...tableMethods) },
      { weight: 1, arbitrary: fc.constantFrom(undefined, "vendor/x", "__proto__") },
    );
    const mutated = fc
      .tuple(fc.constantFrom(...bases), fc.array(fc.nat(), { maxLength: 7 }), value, fc.boolean(), fc.nat(9), method)
      .map(([base, path, replacement, remove, keep, m]) => ({
        // One in ten is left as it is, so the pass path is compared too.
        message: keep === 0 ? base.message : mutate(base.message, path, replacement, remove),
        method: m === "own" ? base.method : m,
      }));
    const shaped = fc.record({
      message: fc.record(
        { jsonrpc: fc.oneof(fc.constant("2.0"), value), id: fc.oneof(fc.integer(), value), method: value, result: value, error: value },
        { requiredKeys: [] },
      ),
      method: fc.constantFrom(...tableMethods, undefined),
    });
    const generated = fc.sample(fc.oneof({ weight: 4, arbitrary: mutated }, { weight: 1, arbitrary: shaped }), {
      numRuns: Math.max(0, MESSAGES - bases.length),
      seed: SEED,
    });
    const cases = [...bases, ...generated];

    let comparisons = 0;
    let valid = 0;
    const disagreements: string[] = [];
    const disagree = (text: string) => void (disagreements.length < 5 ? disagreements.push(text) : disagreements.push(""));
    for (const { message, method: m } of cases) {
      for (const era of ERAS) {
        const r = refs[era];
        const want = referenceVerdict(r, message, m);
        const ours = validateMcpResponse(message, { era, method: m, formats: mode });
        const raw = underFormats(mode, () => precompiledVerdict(r, message, m));
        comparisons++;
        if (want.verdict === "valid") valid++;
        const show = `${era} ${m}: ${JSON.stringify(message).slice(0, 300)}`;
        if (ours.definition !== want.definition) disagree(`definition ${ours.definition} vs ${want.definition}: ${show}`);
        if ((ours.outcome === "pass") !== (want.verdict === "valid")) disagree(`verdict ${ours.outcome} vs ${want.verdict}: ${show}`);
        if (raw !== want.verdict) disagree(`locations ${raw} vs ${want.verdict}: ${show}`);
      }
    }
    t.diagnostic(`${cases.length} messages, ${comparisons} comparisons (${valid} valid verdicts), ${disagreements.length} disagreements`);
    assert.ok(cases.length >= MESSAGES);
    assert.ok(valid > comparisons / 20, `too few valid messages (${valid}) to compare the pass path`);
    assert.deepEqual(disagreements, []);
  });
