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
import { generate } from "../src/cli/compile/generate.js";
import { random, Sampler } from "../test/support/schema-samples.js";
import { spread } from "./measure.js";

type Check = (input: unknown) => { valid: boolean };
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
    // One loop per (schema, input), as a server calls one tool's validator: the ratio per case, then the median.
    const step = Math.max(1, Math.floor(valid.length / (quick ? 6 : 60)));
    log(`per call: every ${step}th of ${valid.length} valid and ${invalid.length} invalid argument objects, one loop each`);
    const perCall: Record<string, Record<string, { ns: number; ratio: number }>> = {};
    for (const [kind, cases] of [
      ["valid", valid],
      ["invalid", invalid],
    ] as const) {
      const picked = cases.filter((_, i) => i % step === 0);
      const ns: Record<string, number[]> = Object.fromEntries(Object.keys(providers).map((n) => [n, []]));
      for (const [schema, input] of picked) {
        for (const [name, provider] of Object.entries(providers)) ns[name]!.push(nsPerCall(provider.getValidator(schema), input, quick));
      }
      const base = ns.precompiled!;
      perCall[kind] = Object.fromEntries(
        Object.entries(ns).map(([name, list]) => [
          name,
          { ns: spread(list).median, ratio: spread(list.map((v, i) => v / base[i]!)).median },
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
        `${bootRatio.median.toFixed(1)}× faster (rounds ${bootRatio.min.toFixed(1)}–${bootRatio.max.toFixed(1)})`,
        "≥ 20×",
      ],
      ...(["valid", "invalid"] as const).flatMap((kind) => {
        const p = perCall[kind]!;
        const cf = p["cf-worker (SDK)"]!;
        const ajv = p["runtime Ajv (SDK)"]!;
        return [
          [
            `per call, ${kind} (median)`,
            `${p.precompiled!.ns.toFixed(0)} ns`,
            `cf-worker provider: ${cf.ns.toFixed(0)} ns`,
            `${cf.ratio.toFixed(0)}× faster`,
            "≥ 50×",
          ],
          [
            `per call, ${kind} (median)`,
            `${p.precompiled!.ns.toFixed(0)} ns`,
            `runtime Ajv provider: ${ajv.ns.toFixed(0)} ns`,
            `${ajv.ratio.toFixed(2)}× its speed`,
            "≥ 0.9×",
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

/** Median nanoseconds per call of one validator on one input: warm-up, then time-boxed rounds. */
function nsPerCall(check: Check, input: unknown, quick: boolean): number {
  let sink = 0;
  const warm = performance.now();
  while (performance.now() - warm < (quick ? 2 : 20)) if (check(input).valid) sink++;
  const samples: number[] = [];
  for (let round = 0; round < (quick ? 1 : 5); round++) {
    let calls = 0;
    const start = performance.now();
    let now = start;
    while (now - start < (quick ? 2 : 15)) {
      for (let i = 0; i < 50; i++) if (check(input).valid) sink++;
      calls += 50;
      now = performance.now();
    }
    samples.push(((now - start) * 1e6) / calls);
  }
  if (sink < 0) throw new Error("unreachable");
  return spread(samples).median;
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
