/**
 * Compiles each era's MCP schema into `generated/`: `npm run codegen` writes, `npm run codegen -- --check`
 * regenerates in memory and fails, naming each file, when `generated/` differs.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { generate } from "./codegen/generate.js";
import { diffOutput, outcomeLine, writeOutput } from "./codegen/write-output.js";
import { missingSpecFiles, specDir, specMessage } from "./spec-dir.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const outDir = resolve(root, "generated");
const check = process.argv.includes("--check");

const started = performance.now();
const missing = missingSpecFiles(specDir());
if (missing.length > 0) {
  // The same message npm test's first step gives: the repository, the commit, MCP_SPEC_DIR.
  console.error(
    specMessage(
      specDir(),
      missing.map((file) => `missing ${file}`),
      "codegen",
    ),
  );
  process.exit(2);
}
try {
  const files = await generate({ schemasDir: resolve(root, "schemas") });
  const changes = check ? diffOutput(files, outDir) : writeOutput(files, outDir);
  const ms = Math.round(performance.now() - started);
  if (check && changes.length > 0) {
    for (const { file, problem } of changes) console.error(`generated/${file}: ${problem}`);
    console.error(`codegen --check: generated/ is out of date (${changes.length} file(s)); run npm run codegen`);
    process.exitCode = 1;
  } else {
    console.log(outcomeLine({ check, changes, files: files.size, ms }));
  }
} catch (error) {
  console.error(`codegen failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
