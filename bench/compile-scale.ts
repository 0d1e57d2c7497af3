/**
 * @module `npm run bench -- --compile-scale`: how `wymcp compile`'s time grows with the number of tools. Each count of
 * small, distinct tools (a tools/list result) is compiled in a fresh process, whole (validators, types, manifest, in
 * memory), and beside it Ajv's standaloneCode is given every schema at once on one engine, as compile did before it
 * called it per 256 schemas. Times are the child's CPU time (user and system), its wall time beside. Writes the `bench:compile-scale` section of docs/tool-schemas.md unless --quick.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { provenance, writeDocSection } from "../scripts/doc-sections.js";

const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

/** `count` small tools, each with a schema of its own, as a tools/list result. */
export function scaleTools(count: number): { tools: Array<{ name: string; inputSchema: object }> } {
  const tools = Array.from({ length: count }, (_, i) => ({
    name: `tool_${i}`,
    inputSchema: {
      type: "object",
      properties: { [`arg${i}`]: { type: "string", maxLength: 10 + (i % 50) }, count: { type: "integer", minimum: i } },
      required: [`arg${i}`],
    },
  }));
  return { tools };
}

type Outcome = { ms: number; cpuMs: number } | { error: string };

/** One measure in a fresh process: its heap and Ajv's caches start empty for every count. */
function measure(root: string, mode: "compile" | "one-call", count: number): Outcome {
  const script = `
    const { scaleTools } = await import(${JSON.stringify(pathToFileURL(join(root, "bench/compile-scale.ts")).href)});
    const value = scaleTools(${count});
    let run;
    if (${JSON.stringify(mode)} === "compile") {
      const { generate } = await import(${JSON.stringify(pathToFileURL(join(root, "src/compile/generate.ts")).href)});
      const { inputOf } = await import(${JSON.stringify(pathToFileURL(join(root, "src/compile/read-inputs.ts")).href)});
      const input = inputOf("tools.json", Buffer.from(JSON.stringify(value)), value, "tools");
      run = () => generate([input], "out");
    } else {
      const { createEngine } = await import(${JSON.stringify(pathToFileURL(join(root, "src/compile/compile-schemas.ts")).href)});
      const standalone = (await import("ajv/dist/standalone/index.js")).default.default;
      run = () => {
        const ajv = createEngine("2020-12", true);
        const refs = {};
        value.tools.forEach((tool, i) => { ajv.addSchema(tool.inputSchema, "s" + i); refs["s" + i] = "s" + i; });
        return standalone(ajv, refs);
      };
    }
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    try {
      await run();
      const cpu = process.cpuUsage(c0);
      process.stdout.write(JSON.stringify({ ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 }));
    } catch (error) {
      process.stdout.write(JSON.stringify({ error: String(error.message) }));
    }`;
  const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`compile-scale child (${mode}, ${count}) failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as Outcome;
}

export async function runCompileScaleBench(root: string, quick: boolean): Promise<void> {
  const counts = quick ? [100, 500] : [1000, 5000, 10000];
  const rows: string[][] = [];
  const first: Partial<Record<"compile" | "one-call", number>> = {};
  for (const count of counts) {
    const cells = [count.toLocaleString("en-US")];
    for (const mode of ["compile", "one-call"] as const) {
      log(`${mode}: ${count} tools`);
      const outcome = measure(root, mode, count);
      if ("error" in outcome) {
        cells.push(outcome.error.slice(0, 60), "", "");
        continue;
      }
      // CPU time, not wall time: on a shared machine the other processes' load moves wall time far more.
      const perTool = outcome.cpuMs / count;
      first[mode] ??= perTool;
      cells.push(
        `${(outcome.cpuMs / 1000).toFixed(1)} s (wall ${(outcome.ms / 1000).toFixed(1)} s)`,
        `${perTool.toFixed(2)} ms`,
        `${(perTool / first[mode]!).toFixed(2)}×`,
      );
    }
    rows.push(cells);
  }
  const table = [
    "| tools | wymcp compile, CPU time | per tool | per tool ÷ at the first count | Ajv standaloneCode given all at once, CPU time | per tool | per tool ÷ at the first count |",
    "|---|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
  process.stdout.write(`\nwymcp compile by the number of tools\n\n${table}\n`);
  if (!quick)
    writeDocSection(
      join(root, "docs", "tool-schemas.md"),
      "bench:compile-scale",
      `${provenance("npm run bench -- --compile-scale")}\n\n${table}`,
    );
}
