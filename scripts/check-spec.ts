/**
 * @module `npm test`'s first step (`pretest`): the official MCP spec files that codegen and the tests read must be
 * where `MCP_SPEC_DIR` (default `../shared/mcp-spec`) points, at the commit `schemas/spec/source.json` names. Without
 * them the suite would run for minutes and fail in many places; this fails in a second with one message instead.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { specDir, specMessage, specProblems } from "./spec-dir.js";

export { specProblems, specSource } from "./spec-dir.js";

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = specDir();
  const problems = specProblems(dir);
  if (problems.length > 0) {
    console.error(specMessage(dir, problems));
    process.exitCode = 1;
  }
}
