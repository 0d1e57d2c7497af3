/**
 * @module `npm run bench -- --tools`: a server's own tool schemas, precompiled by `wymcp compile`, against the SDK's
 * providers on the same schemas (test/fixtures/tool-schemas): boot (fresh processes), per call (one process, the
 * same inputs, ratios of the medians), and bytes per schema. Writes bench/results-tools.json unless --quick.
 */
import { provenance, writeDocSection } from "../scripts/doc-sections.js";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/server/validators/ajv";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { generate } from "../src/compile/generate.js";
import { random, Sampler } from "../test/support/schema-samples.js";
import { formatRatio, spread } from "./measure.js";

type Check = (input: unknown) => { valid: boolean; errorMessage?: string };
type Provider = { getValidator(schema: object): Check };

const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

export async function runToolsBench(root: string, quick: boolean): Promise<void> {
  const fixtures = join(root, "test/fixtures/tool-schemas");
  const inputs = readdirSync(fixtures)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => join(fixtures, f));
  const schemas = inputs.flatMap((file) =>
    (JSON.parse(readFileSync(file, "utf8")) as { tools: Array<{ inputSchema: object }> }).tools.map((t) => t.inputSchema),
  );
  const unique = [...new Map(schemas.map((s) => [JSON.stringify(s), s])).values()];
  const dir = mkdtempSync(join(tmpdir(), "wymcp-bench-tools-"));
  try {
    log(`compiling ${inputs.length} fixture files (wymcp compile)`);
    const files = await generate(inputs, dir);
    for (const [file, text] of files) writeFileSync(join(dir, file), text);
    // The first import of a process sets up Node's module loader (about 5 ms); the SDK side has imported Ajv
    // before its clock starts, so the precompiled side imports an empty module before its clock starts too.
    writeFileSync(join(dir, "warm.mjs"), "export {};\n");
    // As in an ES module project: without it Node 20 first tries index.js as CommonJS, then parses it again as ESM.
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
    const schemasFile = join(dir, "schemas.json");
    writeFileSync(schemasFile, JSON.stringify(unique));

    const rounds = quick ? 1 : 9;
    log(`boot: ${rounds} round(s) of fresh processes per side, ${unique.length} input schemas`);
    const boot = { precompiled: [] as number[], sdkAjv: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      boot.precompiled.push(child(root, "precompiled", dir, schemasFile));
      boot.sdkAjv.push(child(root, "sdk-ajv", dir, schemasFile));
    }

    const compiled = (await import(pathToFileURL(join(dir, "index.js")).href)) as { jsonSchemaValidator: Provider };
    const providers: Record<string, Provider> = {
      precompiled: compiled.jsonSchemaValidator,
      "runtime Ajv (SDK)": new AjvJsonSchemaValidator() as unknown as Provider,
      "cf-worker (SDK)": new CfWorkerJsonSchemaValidator() as unknown as Provider,
    };
    const next = random(0xbe4c);
    const sdk = new AjvJsonSchemaValidator();
    const valid: Array<[object, unknown]> = [];
    const invalid: Array<[object, unknown]> = [];
    for (const schema of unique) {
      const sampler = new Sampler(schema as Record<string, unknown>, next);
      const check = sdk.getValidator(schema as never);
      for (let tries = 0; tries < 50 && (valid.length < unique.length * 3 || invalid.length < unique.length * 3); tries++) {
        const v = sampler.valid();
        if (check(v).valid && valid.filter(([s]) => s === schema).length < 3) valid.push([schema, v]);
        const m = sampler.mutate(v);
        if (!check(m).valid && invalid.filter(([s]) => s === schema).length < 3) invalid.push([schema, m]);
      }
    }
    // Per case (a schema and an input, or for "mixed" a valid and an invalid input in turn), the three providers are
    // timed in interleaved rounds, back to back, so that the load of a shared machine falls on all of them alike; the
    // ratio is taken per round, then its median per case, then the median over the cases.
    const step = Math.max(1, Math.floor(valid.length / (quick ? 6 : 60)));
    const byCase = (cases: Array<[object, unknown]>) =>
      cases.filter((_, i) => i % step === 0).map(([schema, input]) => [schema, [input]] as const);
    const validInputs = new Map(valid.map(([schema, input]) => [schema, input]));
    const mixed = invalid.flatMap(([schema, input]) =>
      validInputs.has(schema) ? [[schema, [validInputs.get(schema), input]] as const] : [],
    );
    log(
      `per call: every ${step}th of ${valid.length} valid, ${invalid.length} invalid and ${mixed.length} mixed cases, interleaved rounds`,
    );
    // An input whose root has the wrong type ("data must be object"): the interpreter stops at its first check, so
    // these cases are reported apart from those that fail inside the arguments.
    const atRoot = ([schema, inputs]: readonly [object, readonly unknown[]]) =>
      /^data must be [a-z,]+$/.test(sdk.getValidator(schema as never)(inputs[0]).errorMessage ?? "");
    const invalidCases = byCase(invalid);
    const perCall: Record<string, Record<string, { ns: number; ratio: number; cases: number }>> = {};
    for (const [kind, cases] of [
      ["valid", byCase(valid)],
      ["invalid", invalidCases],
      ["invalid, root of the wrong type", invalidCases.filter(atRoot)],
      ["invalid, inside the arguments", invalidCases.filter((c) => !atRoot(c))],
      ["mixed", mixed.filter((_, i) => i % step === 0)],
    ] as const) {
      const ns: Record<string, number[]> = Object.fromEntries(Object.keys(providers).map((n) => [n, []]));
      const ratios: Record<string, number[]> = Object.fromEntries(Object.keys(providers).map((n) => [n, []]));
      for (const [schema, inputs] of cases) {
        const checks = Object.values(providers).map((provider) => provider.getValidator(schema));
        const rounds = interleaved(checks, inputs, quick);
        Object.keys(providers).forEach((name, k) => {
          ns[name]!.push(spread(rounds.map((round) => round[k]!)).median);
          ratios[name]!.push(spread(rounds.map((round) => round[k]! / round[0]!)).median);
        });
      }
      perCall[kind] = Object.fromEntries(
        Object.keys(providers).map((name) => [
          name,
          { ns: spread(ns[name]!).median, ratio: spread(ratios[name]!).median, cases: cases.length },
        ]),
      );
    }
    const js = files.get("index.js")!;
    const manifest = JSON.parse(files.get("manifest.json")!) as { schemas: unknown[] };
    const uniqueCompiled = new Set((manifest.schemas as Array<{ key: string }>).map((s) => s.key)).size;
    const sizes = {
      bytes: Buffer.byteLength(js),
      gzip: gzipSync(js).length,
      schemas: uniqueCompiled,
      dts: Buffer.byteLength(files.get("index.d.ts")!),
    };
    const bootPre = spread(boot.precompiled).median;
    const bootSdk = spread(boot.sdkAjv).median;
    // The two sides of a round run back to back, under the same load: the ratio is taken per round.
    const bootRatio = spread(boot.sdkAjv.map((ms, r) => ms / boot.precompiled[r]!));
    const rows = [
      [
        `boot: import + getValidator ×${unique.length}`,
        `${bootPre.toFixed(1)} ms`,
        `SDK Ajv provider compiling them: ${bootSdk.toFixed(1)} ms`,
        `${speed(bootRatio.median)} (rounds ${bootRatio.min.toFixed(1)}–${bootRatio.max.toFixed(1)})`,
        "≥ 20×",
      ],
      ...(["valid", "invalid", "invalid, root of the wrong type", "invalid, inside the arguments", "mixed"] as const).flatMap((kind) => {
        const p = perCall[kind]!;
        const cf = p["cf-worker (SDK)"]!;
        const ajv = p["runtime Ajv (SDK)"]!;
        const targets: { cf?: number; ajv?: number } = kind in TARGETS ? TARGETS[kind as keyof typeof TARGETS] : {};
        return [
          [
            `per call, ${kind} (median of ${cf.cases})`,
            `${p.precompiled!.ns.toFixed(0)} ns`,
            `cf-worker provider: ${cf.ns.toFixed(0)} ns`,
            speed(cf.ratio),
            targets.cf ? `≥ ${targets.cf}×${cf.ratio >= targets.cf ? "" : " (missed)"}` : "reported",
          ],
          [
            `per call, ${kind} (median of ${ajv.cases})`,
            `${p.precompiled!.ns.toFixed(0)} ns`,
            `runtime Ajv provider: ${ajv.ns.toFixed(0)} ns`,
            speed(ajv.ratio),
            targets.ajv ? `≥ ${targets.ajv}×${ajv.ratio >= targets.ajv ? "" : " (missed)"}` : "reported",
          ],
        ];
      }),
      [
        "bytes per schema",
        `${Math.round(sizes.bytes / sizes.schemas)} B (${Math.round(sizes.gzip / sizes.schemas)} B gzip)`,
        `index.js ${sizes.bytes} B for ${sizes.schemas} unique schemas`,
        "",
        "reported",
      ],
    ];
    const table = [
      "| measure | precompiled | compared with | result | target |",
      "|---|---|---|---|---|",
      ...rows.map((r) => `| ${r.join(" | ")} |`),
    ].join("\n");
    const machine = `${cpus()[0]?.model ?? "unknown CPU"} ×${cpus().length}, Node ${process.versions.node}`;
    process.stdout.write(
      `\nTool schemas (${unique.length} input schemas of ${inputs.length} fixture files; ${new Date().toISOString().slice(0, 10)}, ${machine})\n\n${table}\n`,
    );
    if (!quick) {
      writeFileSync(
        join(root, "bench", "results-tools.json"),
        `${JSON.stringify({ date: new Date().toISOString(), machine, boot, bootRatio, perCall, sizes, table }, null, 2)}\n`,
      );
      writeDocSection(join(root, "docs", "tool-schemas.md"), "bench:tools", `${provenance("npm run bench -- --tools")}\n\n${table}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The targets of each kind of call, as ratios of the baseline's time to the precompiled one's (undefined: reported). */
const TARGETS: Record<"valid" | "invalid" | "mixed", { cf?: number; ajv?: number }> = {
  valid: { cf: 50, ajv: 1 },
  invalid: { cf: 20, ajv: 0.9 },
  mixed: { cf: 20 },
};

/**
 * A ratio of the baseline's time to ours in words: "12.5× faster", or below 1 "2.10× slower" (the inverse), never
 * "0× faster".
 * @example speed(0.5) === "2.00× slower"
 */
export function speed(ratio: number): string {
  return ratio >= 1 ? `${formatRatio(ratio)} faster` : `${formatRatio(1 / ratio)} slower`;
}

/**
 * Nanoseconds per call of each check, round by round: every round times each check back to back on the same
 * inputs (taken in turn), each for about the same wall time, after a warm-up. One call site for all of them, as the
 * SDK calls every tool's validator from one place.
 */
function interleaved(checks: Check[], inputs: readonly unknown[], quick: boolean): number[][] {
  const burst = (check: Check, calls: number): number => {
    let sink = 0;
    const start = performance.now();
    // The message is read, as the SDK reads it to answer the call: an answer built lazily would gain nothing here.
    for (let i = 0; i < calls; i++) {
      const result = check(inputs[i % inputs.length]);
      sink += result.valid ? 1 : (result.errorMessage?.length ?? 0);
    }
    const ns = ((performance.now() - start) * 1e6) / calls;
    if (sink < 0) throw new Error("unreachable");
    return ns;
  };
  // Calls per burst: about 0.3 ms of each check, measured after a warm-up of about 20 ms each.
  const sizes = checks.map((check) => {
    let calls = 16;
    const warmUntil = performance.now() + (quick ? 2 : 20);
    while (performance.now() < warmUntil) burst(check, calls);
    while (calls < 1 << 20 && burst(check, calls) * calls < 3e5) calls *= 2;
    return calls;
  });
  const rounds: number[][] = [];
  for (let r = 0; r < (quick ? 3 : 25); r++) rounds.push(checks.map((check, k) => burst(check, sizes[k]!)));
  return rounds;
}

/** Milliseconds a fresh process spends making validators for every schema, measured inside it. */
function child(root: string, side: "precompiled" | "sdk-ajv", dir: string, schemasFile: string): number {
  const script =
    side === "precompiled"
      ? `const schemas = JSON.parse(require("node:fs").readFileSync(${JSON.stringify(schemasFile)}, "utf8"));
         import(${JSON.stringify(pathToFileURL(join(dir, "warm.mjs")).href)}).then(() => {
           const t0 = performance.now();
           return import(${JSON.stringify(pathToFileURL(join(dir, "index.js")).href)}).then((m) => {
             for (const s of schemas) m.jsonSchemaValidator.getValidator(s);
             process.stdout.write(String(performance.now() - t0));
           });
         });`
      : `const schemas = JSON.parse(require("node:fs").readFileSync(${JSON.stringify(schemasFile)}, "utf8"));
         import("@modelcontextprotocol/server/validators/ajv").then(({ AjvJsonSchemaValidator }) => {
           const t0 = performance.now();
           const provider = new AjvJsonSchemaValidator();
           for (const s of schemas) provider.getValidator(s);
           process.stdout.write(String(performance.now() - t0));
         });`;
  const run = spawnSync(process.execPath, ["-e", script], { cwd: root, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`boot child (${side}) failed: ${run.stderr}`);
  return Number(run.stdout);
}
