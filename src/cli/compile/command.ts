/**
 * @module command: `wymcp compile <input>... --out <dir> [--check]`. Loaded only by that command: it imports Ajv,
 * ajv-formats and json-schema-to-typescript, which `wymcp check` and the runtime entries never load.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { generate, type Files } from "./generate.js";

export const COMPILE_USAGE = `Usage: wymcp compile <input>... --out <dir> [--check]

Compiles a server's own JSON Schemas (tool inputSchema and outputSchema, elicitation requestedSchema) into
<dir>/index.js (standalone ES module: no Ajv, no eval), <dir>/index.d.ts and <dir>/manifest.json.

An input is a JSON file holding a JSON Schema, a tool { name, inputSchema, outputSchema? }, an array of tools
or a tools/list result { tools: [...] }, or a .js/.mjs module exporting any of these.

Options:
  --out <dir>     the output folder (created if missing; only the three files are written)
  --check         write nothing; exit 1, naming each file, when <dir> differs from what compile would write
  -h, --help      this text

Exit codes: 0 written or up to date, 1 --check found stale output, 2 usage error or a schema that cannot be compiled.
`;

export async function runCompile(argv: string[]): Promise<number> {
  let values: { out?: string; check?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { out: { type: "string" }, check: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    process.stderr.write(`wymcp compile: ${(error as Error).message}\nRun "wymcp compile --help" for the options.\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(COMPILE_USAGE);
    return 0;
  }
  if (!values.out || positionals.length === 0) {
    process.stderr.write(
      `wymcp compile: ${values.out ? "name at least one input" : "--out <dir> is required"}\nRun "wymcp compile --help" for the options.\n`,
    );
    return 2;
  }
  let files: Files;
  try {
    files = await generate(positionals, values.out);
  } catch (error) {
    process.stderr.write(`wymcp compile: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  const stale = staleFiles(files, values.out);
  if (values.check) {
    for (const { file, problem } of stale) process.stderr.write(`${join(values.out, file)}: ${problem}\n`);
    if (stale.length > 0) {
      process.stderr.write(
        `wymcp compile --check: ${values.out} is out of date (${stale.length} file(s)); run the same command without --check\n`,
      );
      return 1;
    }
    process.stdout.write(`wymcp compile: ${values.out} is up to date (${schemaCount(files)} schemas)\n`);
    return 0;
  }
  mkdirSync(values.out, { recursive: true });
  for (const { file } of stale) writeFileSync(join(values.out, file), files.get(file)!);
  process.stdout.write(`wymcp compile: ${schemaCount(files)} schemas; wrote ${stale.length} of ${files.size} files in ${values.out}\n`);
  return 0;
}

/** The files whose bytes on disk differ from `files` (other files in the folder are the user's and left alone). */
export function staleFiles(files: Files, dir: string): Array<{ file: string; problem: "missing" | "stale" }> {
  const out: Array<{ file: string; problem: "missing" | "stale" }> = [];
  for (const [file, text] of files) {
    let onDisk: Buffer;
    try {
      onDisk = readFileSync(join(dir, file));
    } catch {
      out.push({ file, problem: "missing" });
      continue;
    }
    if (!onDisk.equals(Buffer.from(text, "utf8"))) out.push({ file, problem: "stale" });
  }
  return out;
}

function schemaCount(files: Files): number {
  return (JSON.parse(files.get("manifest.json")!) as { schemas: unknown[] }).schemas.length;
}
