/**
 * @module runtime-bundle: the code a module of `wymcp compile` carries, bundled from src/compile/runtime/index.ts
 * and the core modules it imports (esbuild, pinned, so the same sources give the same bytes). `npm run build` runs it
 * once and puts the text into the bin (scripts/build.ts); run from the sources, runtime-text.ts runs it at load. Never
 * shipped: the built package has the text, not esbuild.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");

export const COMPILE_RUNTIME_ENTRY = "src/compile/runtime/index.ts";

/**
 * The runtime as one block of a module: its exports bound by a `const` destructuring from a function scope, so its
 * internal names can never clash with the module's own.
 */
export async function bundleCompileRuntime(root: string = ROOT): Promise<string> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [COMPILE_RUNTIME_ENTRY],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    charset: "ascii",
    legalComments: "none",
    logLevel: "silent",
  });
  // esbuild writes strings in ASCII (`charset`) but keeps the comments it keeps as they are: the module is ASCII.
  const code = result.outputFiles[0]!.text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  const exports = /\nexport \{([^}]*)\};\n$/.exec(code);
  if (!exports) throw new Error(`${COMPILE_RUNTIME_ENTRY}: esbuild's output ends without the export list runtime-bundle.ts expects`);
  const bindings = exports[1]!
    .split(",")
    .map((spec) => spec.trim())
    .filter((spec) => spec !== "")
    .map((spec) => {
      const [local, exported = local] = spec.split(/\s+as\s+/) as [string, string?];
      return { local, exported };
    });
  const body = code.slice(0, exports.index).trim();
  return [
    `const { ${bindings.map((b) => b.exported).join(", ")} } = (() => {`,
    body,
    `return { ${bindings.map((b) => (b.local === b.exported ? b.local : `${b.exported}: ${b.local}`)).join(", ")} };`,
    "})();",
  ].join("\n");
}
