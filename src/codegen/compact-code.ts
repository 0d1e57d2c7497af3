import { BUDGET_HELPERS_SOURCE } from "./budget-helpers.js";

/**
 * Rewrites the idioms Ajv repeats at every error site into shorter code that also keeps to the error budget
 * (budget-helpers.ts); the validators keep their verdicts and error locations (test/differential.test.ts
 * compares them with Ajv's own output). Each rewrite must consume every occurrence, or codegen stops: a new
 * Ajv that shapes its output differently has to be looked at, not half-compacted.
 */
const REWRITES: Array<{ name: string; pattern: RegExp; replacement: string; leftover: string }> = [
  {
    name: "error push",
    pattern: /if\(vErrors === null\)\{\nvErrors = \[(err\d+)\];\n\}\nelse \{\nvErrors\.push\(\1\);\n\}\n/g,
    replacement: "pushError(vErrors ??= [], $1);\n",
    leftover: "vErrors.push(",
  },
  {
    // The runtime locates errors by instancePath and keyword; schemaPath is read by nobody.
    name: "schemaPath",
    pattern: /,schemaPath:"(?:[^"\\]|\\.)*"/g,
    replacement: "",
    leftover: "schemaPath",
  },
  {
    // Appending (Ajv concatenates, copying the whole list per failing item: quadratic) instead of adopting the
    // callee's array also keeps a later truncation from reaching it.
    name: "errors of a referenced validator",
    // `_vN` is the validator a $recursiveRef or $dynamicRef picks at run time (schemas given to wymcp compile).
    pattern: /vErrors = vErrors === null \? ((?:validate\d+|wrapper\d+\.validate|_v\d+)\.errors) : vErrors\.concat\(\1\);/g,
    replacement: "collectErrors(vErrors ??= [], $1);",
    leftover: "vErrors === null ?",
  },
  {
    // What callers get is the validator that stops at the budget; inside the module, validators call each other bare.
    name: "exported validator",
    pattern: /^export const (\w+) = (validate\d+);$/gm,
    replacement: "export const $1 = withinBudget($2);",
    leftover: "export const ",
  },
];

export class CompactionError extends Error {
  override name = "CompactionError";
}

export function compactCode(code: string): string {
  let out = code;
  for (const { name, pattern, replacement, leftover } of REWRITES) {
    out = out.replace(pattern, replacement);
    if (leftovers(out, leftover)) throw new CompactionError(`Ajv's output has a ${name} idiom compact-code.ts does not know`);
  }
  if (!out.startsWith(STRICT)) throw new CompactionError(`Ajv's output does not start with ${JSON.stringify(STRICT.trim())}`);
  return `${STRICT + BUDGET_HELPERS_SOURCE}\n${dropUnusedSchemas(out.slice(STRICT.length))}`;
}

const STRICT = '"use strict";\n';

/** Whether an idiom is left over; an export is left over only when it exports a validator unwrapped. */
function leftovers(code: string, leftover: string): boolean {
  if (leftover !== "export const ") return code.includes(leftover);
  return /^export const \w+ = (?!withinBudget\()/m.test(code);
}

const SCHEMA_CONSTANT = /^const (schema\d+) = .*;\n/gm;

/**
 * Drops the `const schemaN = {...};` lines Ajv writes for every compiled schema but that no code reads
 * (with messages and schemaPath gone, most are read by nobody; what that saved: docs/performance.md#figures-behind-code-comments).
 */
function dropUnusedSchemas(code: string): string {
  const uses = new Map<string, number>();
  for (const match of code.matchAll(/\bschema\d+\b/g)) uses.set(match[0], (uses.get(match[0]) ?? 0) + 1);
  return code.replace(SCHEMA_CONSTANT, (line, name: string) => (uses.get(name) === 1 ? "" : line));
}
