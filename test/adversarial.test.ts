import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { generate, largestN, type Generated } from "../fuzz/adversarial/cases.js";
import { headersFor, judgeParsed, DEFAULT_MAX_BODY_BYTES } from "../fuzz/adversarial/judge-path.js";
import { loadFormats } from "../fuzz/adversarial/lanes.js";
import { adversarialCases, hangThresholdMs } from "../fuzz/adversarial.js";
import { longNameTargets, NAME_SIZES, NAME_STYLES } from "../fuzz/adversarial/long-names.js";

const generated: Generated = generate();

/** The lane's definitions reachable from its roots, by following `$ref`s through their JSON text. */
function closure(defs: Record<string, unknown>, roots: string[]): string[] {
  const seen = new Set<string>();
  const todo = [...roots];
  while (todo.length) {
    const name = todo.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const [, ref] of JSON.stringify(defs[name]).matchAll(/"\$ref":"#\/\$defs\/([^"]+)"/g)) todo.push(ref!);
  }
  return [...seen];
}

const count = (text: string, re: RegExp) => [...text.matchAll(re)].length;

describe("the adversarial generator", () => {
  test("finds every array and map node reachable from each lane's roots, counted independently from the schema text", () => {
    for (const lane of generated.lanes) {
      const texts = closure(
        lane.defs,
        lane.roots.map((r) => r.definition),
      ).map((name) => JSON.stringify(lane.defs[name]));
      const arrays = texts.reduce((n, t) => n + count(t, /"type":(?:"array"|\[[^\]]*"array"[^\]]*\])/g), 0);
      const maps = texts.reduce((n, t) => n + count(t, /"additionalProperties":\{/g), 0);
      const found = generated.locations.filter((l) => l.lane === lane.key);
      assert.equal(found.filter((l) => l.shape === "array").length, arrays, `${lane.key} arrays`);
      assert.equal(found.filter((l) => l.shape === "map").length, maps, `${lane.key} maps`);
      assert.ok(arrays + maps > 0);
    }
  });

  test("every location becomes a target, and the legacy lane's batch one more", () => {
    const located = generated.targets.filter((t) => t.shape === "array" || t.shape === "map");
    assert.equal(located.length, generated.locations.length);
    assert.deepEqual(
      generated.targets.filter((t) => t.shape === "batch").map((t) => t.lane),
      ["inbound-legacy"],
    );
  });

  for (const formats of ["strict", "annotation"] as const)
    test(`formats ${formats}: every case is rejected exactly when Ajv rejects it, and the answer's first location is the targeted one`, () => {
      const under = (path: string, base: string) => path === base || path.startsWith(`${base}/`);
      const siblingBlamed = new Set<string>();
      let rejected = 0;
      let formatSites = 0;
      for (const target of generated.targets) {
        // The generator's referee asserts formats; by default a format is an annotation, so a string at a format's site
        // (its backtracking input) passes, however long.
        const atFormat = target.shape === "regex" && target.label.startsWith("format ");
        for (const kind of target.kinds) {
          for (const n of [1, 3]) {
            const message = target.message(kind, n);
            const judged = judgeParsed(target, JSON.parse(JSON.stringify(message)), headersFor(target, message), formats);
            const name = `${target.lane} ${target.label} ${kind} ×${n}`;
            if (atFormat && formats === "annotation") {
              formatSites++;
              assert.equal(judged.rejected, false, name);
              continue;
            }
            assert.equal(judged.rejected, target.rejects(kind), name);
            if (!judged.rejected) continue;
            rejected++;
            if (!under(judged.first, target.instancePath)) siblingBlamed.add(`${target.lane} ${target.label}`);
          }
        }
      }
      assert.ok(rejected > 400, `${rejected} rejected cases`);
      assert.equal(formatSites > 0, formats === "annotation", `${formatSites} cases at a format's site`);
      // Multi-select elicitation schemas: `items` is a union of {enum} and {anyOf}; with bad items in one, the
      // distiller's likely branch (fewest errors) is the other one, whose missing member it names first.
      assert.deepEqual([...siblingBlamed].sort(), [
        "outbound-legacy TitledMultiSelectEnumSchema.items.anyOf[]",
        "outbound-legacy UntitledMultiSelectEnumSchema.items.enum[]",
        "outbound-modern TitledMultiSelectEnumSchema.items.anyOf[]",
        "outbound-modern UntitledMultiSelectEnumSchema.items.enum[]",
      ]);
    });

  test("items that fail every branch of a union are among the kinds: a wrong JSON type and an object no discriminator admits", () => {
    const content = generated.targets.find((t) => t.lane === "inbound-modern" && t.label === "CreateMessageResult.content|5[]");
    assert.ok(content, "the sampling content array of an input response is a target");
    assert.deepEqual(content.kinds, ["wrong-type", "empty-object", "no-discriminator"]);
    const message = content.message("no-discriminator", 2) as { params: { inputResponses: { a: { content: Array<{ type: string }> } } } };
    assert.deepEqual(
      message.params.inputResponses.a.content.map((item) => item.type),
      ["adversarial", "adversarial"],
    );
  });

  test("every regex of schemas/formats.json is judged at some site and gets backtracking inputs that fail it", () => {
    const formats = loadFormats();
    assert.deepEqual(
      [...new Set(generated.regexSites.filter((s) => s.keyword === "format").map((s) => s.name))].sort(),
      Object.keys(formats).sort(),
    );
    const patterns = generated.lanes.reduce((n, lane) => n + count(JSON.stringify(lane.defs), /"pattern":"/g), 0);
    assert.equal(
      generated.regexes.length,
      Object.keys(formats).length + new Set(generated.regexSites.filter((s) => s.keyword === "pattern").map((s) => s.name)).size,
    );
    assert.equal(generated.regexSites.filter((s) => s.keyword === "pattern").length > 0, patterns > 0);
    for (const { name, source, inputs } of generated.regexes) {
      assert.ok(inputs.length > 0, `${name} has no input`);
      const regex = new RegExp(source, "u");
      for (const input of inputs) for (const n of [1, 100]) assert.equal(regex.test(input.text(n)), false, `${name} ${input.name} ×${n}`);
    }
    const uriTemplate = generated.regexes.find((r) => r.name === "format uri-template")!;
    // The nested repeat inside an expression, pumped with its optional dot taken: `{a.a.a…`.
    assert.ok(uriTemplate.inputs.some((i) => i.text(3).startsWith("{a.a.a.a")));
  });

  test("bodies reach the body limit: the largest n fits DEFAULT_MAX_BODY_BYTES and one more item does not", () => {
    for (const shape of ["array", "map", "regex", "batch"]) {
      const target = generated.targets.find((t) => t.shape === shape && t.rejects(t.kinds[0]!))!;
      const kind = target.kinds[0]!;
      const n = largestN(target, kind, DEFAULT_MAX_BODY_BYTES);
      assert.ok(Buffer.byteLength(JSON.stringify(target.message(kind, n))) <= DEFAULT_MAX_BODY_BYTES, shape);
      assert.ok(Buffer.byteLength(JSON.stringify(target.message(kind, n + 1))) > DEFAULT_MAX_BODY_BYTES, shape);
    }
  });
});

describe("npm run fuzz -- --adversarial", () => {
  test("sends every inbound target with every kind, and some at the body limit", () => {
    const cases = adversarialCases({ small: 8 });
    const inbound = generated.targets.filter((t) => t.direction === "inbound");
    for (const t of inbound)
      for (const kind of t.kinds)
        assert.ok(
          cases.some((c) => c.target.label === t.label && c.target.lane === t.lane && c.kind === kind),
          `${t.label} ${kind}`,
        );
    const atLimit = cases.filter((c) => c.atLimit);
    // Two per inbound lane and shape (the legacy lane has arrays and maps of its own since its params are judged), one per regex.
    assert.ok(atLimit.length >= 4 && atLimit.length <= 16, `${atLimit.length} cases at the limit`);
  });

  test("sends every inbound long-name case in every style and size, each within the body limit", () => {
    const cases = adversarialCases({ small: 8, limit: false }).filter((c) => c.name);
    const targets = longNameTargets(generated.targets).filter((t) => t.direction === "inbound");
    assert.ok(targets.some((t) => t.via === "route") && targets.some((t) => t.lane === "inbound-legacy"));
    assert.equal(cases.length, targets.length * NAME_STYLES.length * NAME_SIZES.length);
    for (const t of targets)
      for (const style of NAME_STYLES)
        for (const size of NAME_SIZES)
          assert.ok(
            cases.some((c) => c.name!.label === t.label && c.target.lane === t.lane && c.name!.style === style && c.name!.size === size),
          );
    const limit = cases.find((c) => c.name!.size === "limit" && c.name!.style === "u2028")!;
    const bytes = Buffer.byteLength(JSON.stringify(limit.message()));
    assert.ok(bytes <= DEFAULT_MAX_BODY_BYTES && bytes > DEFAULT_MAX_BODY_BYTES - 64, `${bytes} bytes`);
    assert.equal(adversarialCases({ small: 8, longNames: false }).filter((c) => c.name).length, 0);
  });

  test("a gated answer slower than max(1 s, 50 × the ungated one) is a hang", () => {
    assert.equal(hangThresholdMs(3), 1000);
    assert.equal(hangThresholdMs(100), 5000);
  });
});
