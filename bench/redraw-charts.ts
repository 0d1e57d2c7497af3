/**
 * @module `npm run bench:charts -- [--out DIR] FILE...`: draws the charts again from results files a run of the bench
 * wrote (bench/results.json, results-proxy.json, results-adversarial.json), measuring nothing: into docs/charts/ with
 * the summary at the top of docs/performance.md, or, with `--out`, into DIR alone. A quick run's file is refused.
 */
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { inputsOf, writeCharts } from "./charts.js";

const args = process.argv.slice(2);
const at = args.indexOf("--out");
const dir = at >= 0 ? args[at + 1] : undefined;
const files = at >= 0 ? [...args.slice(0, at), ...args.slice(at + 2)] : args;
if (files.length === 0 || (at >= 0 && !dir)) {
  console.error("usage: npm run bench:charts -- [--out DIR] bench/results.json [bench/results-proxy.json ...]");
  process.exit(2);
}
try {
  for (const file of files) {
    const { inputs, provenance } = inputsOf(JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>, file);
    const written = dir ? writeCharts(inputs, provenance, resolve(dir), null) : writeCharts(inputs, provenance);
    console.log(`${file} (${provenance.command}, ${provenance.date}): ${written.map((f) => relative(process.cwd(), f)).join(", ")}`);
  }
} catch (error) {
  console.error(`bench:charts: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
