/**
 * @module wymcp/compile: the compiler a face uses for the tools it lists or learns (`tools.compile`), `wymcp compile`'s
 * own engine (src/compile/at-edge.ts). A Node face with `tools` and no `compile` loads this entry on first use; Ajv and
 * ajv-formats are its optional peers, and it compiles only where code generation is allowed (the validators it makes
 * run where it is not).
 */
export { edgeCompiler } from "./compile/at-edge.js";
export type { CompileOutcome, ToolSchemaCompiler } from "./tools/tools-at-edge.js";
