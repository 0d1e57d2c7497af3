/**
 * @module default-compiler: the compiler a face with `tools` and no `tools.compile` uses, `edgeCompiler()` of
 * `wymcp/compile`, loaded on first use by the package's public name. A name built at run time, not a path a bundler
 * follows: a bundle of `wymcp/fetch` (a Worker's) never pulls Ajv in, and where the entry or Ajv cannot be loaded, or
 * code generation is forbidden, the face says so once and judges no learned tool's arguments.
 */
import type { Formats } from "../../core/formats.js";
import type { ToolSchemaCompiler } from "../../tools/tools-at-edge.js";

/** The entry that exports `edgeCompiler`. */
export const COMPILE_ENTRY = "wymcp/compile";

/** `edgeCompiler({ formats })` of `wymcp/compile`, or why there is none. */
export async function loadEdgeCompiler({
  formats = "annotation",
  entry = COMPILE_ENTRY,
}: {
  formats?: Formats;
  entry?: string;
} = {}): Promise<ToolSchemaCompiler | { missing: string }> {
  if (!codeGenerationAllowed())
    return { missing: "this runtime forbids code generation from strings, which Ajv needs to compile a schema (not to run one)" };
  let loaded: { edgeCompiler?: (options: { formats: Formats }) => Promise<ToolSchemaCompiler | { missing: string }> };
  try {
    loaded = (await import(/* @vite-ignore */ /* webpackIgnore: true */ entry)) as typeof loaded;
  } catch (error) {
    return { missing: `${entry} could not be loaded (${firstLine(error)})` };
  }
  if (typeof loaded.edgeCompiler !== "function") return { missing: `${entry} exports no edgeCompiler` };
  return loaded.edgeCompiler({ formats });
}

function codeGenerationAllowed(): boolean {
  try {
    return new Function("return true")() === true;
  } catch {
    return false;
  }
}

function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error)
    .split("\n")[0]!
    .slice(0, 200);
}
