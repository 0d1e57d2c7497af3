/**
 * @module bundle-core: core modules bundled as text for the modules `wymcp compile` writes, so that the code they
 * carry is the core's own (one source), not a copy re-typed as a string. Deterministic: esbuild is pinned, paths are
 * relative to the repository, and the result is checked by `npm run codegen -- --check` like every generated file.
 */
import { join } from "node:path";
import { buildSync } from "esbuild";

/** `generated/brief-answer.js`: `BRIEF_ANSWER_SOURCE`, an expression whose value is src/core/brief-answer.ts's `briefAnswer`. */
export function bundleBriefAnswer(root: string): { js: string; dts: string } {
  const result = buildSync({
    absWorkingDir: root,
    entryPoints: [join(root, "src/core/brief-answer.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    legalComments: "none",
    charset: "ascii",
    logLevel: "silent",
  });
  const code = result.outputFiles[0]!.text;
  const tail = /\nexport \{\n((?: {2}[\w$]+,?\n)+)\};\n$/;
  if (!/\bbriefAnswer\b/.test(tail.exec(code)?.[1] ?? "")) throw new Error("bundle-core: src/core/brief-answer.ts must export briefAnswer");
  // Its own scope: the module it goes into has top-level names of its own (hex, printable, ...).
  const expression = `(() => {\n${code.replace(tail, "\n")}return briefAnswer;\n})()`;
  return {
    js: `// DO NOT EDIT: src/core/brief-answer.ts and what it imports, bundled by scripts/codegen/bundle-core.ts.\nexport const BRIEF_ANSWER_SOURCE = ${JSON.stringify(expression)};\n`,
    dts: "/** The core's brief answer (src/core/brief-answer.ts) as the text of an expression, for `wymcp compile`'s modules. */\nexport declare const BRIEF_ANSWER_SOURCE: string;\n",
  };
}
