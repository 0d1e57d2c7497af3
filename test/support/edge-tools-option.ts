/**
 * @module edge-tools-option: the `tools` option of the gates (the server's tools known at the edge), in the builds that have
 * it. `edgeToolsOption()` is `undefined` when `gateFetch` refuses `tools` as an unknown option, and otherwise the
 * option with the command line's compiler for learned schemas (`src/compile/at-edge.ts`) when that module exists
 * and can compile, so that a face judges arguments as `wymcp proxy` does.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { gateFetch } from "wymcp/fetch";
import { repoRoot } from "./spec.js";

export async function edgeToolsOption(): Promise<Record<string, unknown> | undefined> {
  try {
    gateFetch(async () => new Response(null), { tools: {} } as never);
  } catch (error) {
    if (/unknown option "tools"/.test(String(error))) return undefined;
    throw error;
  }
  const atEdge = join(repoRoot, "src", "compile", "at-edge.ts");
  if (!existsSync(atEdge)) return {};
  const { edgeCompiler } = (await import(atEdge)) as { edgeCompiler: () => Promise<unknown> };
  const compile = await edgeCompiler();
  return typeof compile === "function" ? { compile } : {};
}
