/**
 * @module at-edge: `wymcp compile`'s engine for the schemas a face learns while it runs (`wymcp proxy`, `wymcp stdio`):
 * one `inputSchema` compiled as `wymcp compile` compiles it (compile-schemas.ts: the SDK's dialect rule and options,
 * the error budget, the tagged anyOf, the module's own distiller), assembled into an ES module and loaded from a
 * `data:` URL, which is module loading, not `eval`: the validator runs under `--disallow-code-generation-from-strings`.
 * Compiling does not: Ajv makes each validator from a string once, as it does under `wymcp compile`, so a process that
 * forbids it compiles nothing. Ajv is an optional peer: without it, or without code generation, no schema is compiled
 * and the calls pass unjudged.
 *
 * Two things differ from `wymcp compile`, because the edge must never be worse than the server it protects: a `pattern`
 * runs on RE2 (linear-pattern.ts), so no argument costs more than linear time whatever the server's pattern, and one
 * RE2 cannot run is not run at the edge; and a `format` is an annotation unless the face asserts formats
 * (`formats: "strict"`), as in the protocol's schemas: the server's own validator decides.
 */
import type { Formats } from "../core/formats.js";
import type { CompileOutcome, ToolSchemaCompiler } from "../tools/tools-at-edge.js";

/** The edge compiler's options: the face's `formats`. */
export interface EdgeCompilerOptions {
  formats?: Formats | undefined;
}

/** The compiler, or the reason there is none (Ajv, ajv-formats or re2js not installed). */
export async function edgeCompiler(options: EdgeCompilerOptions = {}): Promise<ToolSchemaCompiler | { missing: string }> {
  let engine: [
    typeof import("./compile-schemas.js"),
    typeof import("./dialect.js"),
    typeof import("./runtime-helpers.js"),
    typeof import("./linear-pattern.js"),
    typeof import("re2js"),
  ];
  let runtime: string;
  try {
    engine = await Promise.all([
      import("./compile-schemas.js"),
      import("./dialect.js"),
      import("./runtime-helpers.js"),
      import("./linear-pattern.js"),
      import("re2js"),
    ]);
    runtime = (await import("./runtime-text.js")).COMPILE_RUNTIME;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    return {
      missing: "argument checks compile the tools' schemas with ajv, ajv-formats and re2js (optional peers), which are not installed",
    };
  }
  const [{ compileSchemas }, { dialectOf }, { helperSources }, { linearRegExp, LINEAR_ENGINE_NAME }, { RE2JS }] = engine;
  const regExp = linearRegExp(RE2JS);
  const formats = options.formats === "strict";
  // Ajv's code generation evaluates what it generates; where that is forbidden, every compilation would fail (and Ajv
  // would print each schema's code on the way).
  try {
    new Function("return 1");
  } catch {
    return { missing: "this process forbids code generation from strings, which Ajv needs to compile a schema (not to run one)" };
  }
  return async function compileInputSchema(schema: object): Promise<CompileOutcome> {
    let text: string;
    try {
      const judged = formats ? schema : withoutFormatPatterns(schema);
      const [group] = compileSchemas([{ key: "input", schema: judged, dialect: dialectOf(judged) }], { regExp, formats });
      if (!group) return { ok: false, reason: "the engine compiled nothing" };
      // The module is a function of the engine: a `data:` module cannot import a package, so the engine is handed in.
      text = [
        `export function validatorWith(${LINEAR_ENGINE_NAME}) {`,
        helperSources(group.helpers).join("\n"),
        `const ${group.variable} = (function (exports) {\n${group.code.trim()}\nreturn exports;\n})({});`,
        runtime,
        `return ${group.variable}.${group.exports.get("input")};`,
        "}",
      ].join("\n\n");
    } catch (error) {
      return { ok: false, reason: firstLine(error) };
    }
    const loaded = (await import(`data:text/javascript;base64,${Buffer.from(text, "utf8").toString("base64")}`)) as {
      validatorWith: (engine: typeof regExp) => CompileOutcome extends { validate: infer V } ? V : never;
    };
    return { ok: true, validate: loaded.validatorWith(regExp) };
  };
}

/** Keywords whose values are data, not schemas: nothing in them is a keyword. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);

/**
 * `schema` without the `pattern`s that sit beside a `format`: Zod writes a format's own expression there, and its check
 * of the value is not that expression (`z.ipv6()` serves `::ffff:192.168.0.1`, which the pattern it writes refuses), so
 * where a format is an annotation, the pattern that restates it is one too. A copy; the server's schema is not changed.
 */
export function withoutFormatPatterns<T>(schema: T, depth = 0): T {
  if (typeof schema !== "object" || schema === null || depth > 512) return schema;
  if (Array.isArray(schema)) return schema.map((item) => withoutFormatPatterns(item, depth + 1)) as T;
  const record = schema as Record<string, unknown>;
  const drop = typeof record.format === "string" && typeof record.pattern === "string";
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (drop && key === "pattern") continue;
    out[key] = DATA_KEYWORDS.has(key) ? value : withoutFormatPatterns(value, depth + 1);
  }
  return out as T;
}

function firstLine(error: unknown): string {
  return String(error instanceof Error ? error.message : error)
    .split("\n")[0]!
    .slice(0, 300);
}
