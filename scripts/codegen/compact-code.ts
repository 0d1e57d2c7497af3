/**
 * Rewrites three idioms Ajv repeats at every error site into shorter code with the same effect; the
 * validators keep their verdicts and error locations (test/differential.test.ts compares them with
 * Ajv's own output). Each rewrite must consume every occurrence, or codegen stops: a new Ajv that
 * shapes its output differently has to be looked at, not half-compacted.
 */
const REWRITES: Array<{ name: string; pattern: RegExp; replacement: string; leftover: string }> = [
  {
    name: "error push",
    pattern: /if\(vErrors === null\)\{\nvErrors = \[(err\d+)\];\n\}\nelse \{\nvErrors\.push\(\1\);\n\}\n/g,
    replacement: "(vErrors ??= []).push($1);\n",
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
    // Copying instead of adopting the callee's array also keeps a later truncation from reaching it.
    name: "errors of a referenced validator",
    pattern: /vErrors = vErrors === null \? ((?:validate\d+|wrapper\d+\.validate)\.errors) : vErrors\.concat\(\1\);/g,
    replacement: "vErrors = (vErrors ?? []).concat($1);",
    leftover: "vErrors === null ?",
  },
];

export class CompactionError extends Error {
  override name = "CompactionError";
}

export function compactCode(code: string): string {
  let out = code;
  for (const { name, pattern, replacement, leftover } of REWRITES) {
    out = out.replace(pattern, replacement);
    if (out.includes(leftover)) throw new CompactionError(`Ajv's output has a ${name} idiom compact-code.ts does not know`);
  }
  return dropUnusedSchemas(out);
}

const SCHEMA_CONSTANT = /^const (schema\d+) = .*;\n/gm;

/**
 * Drops the `const schemaN = {...};` lines Ajv writes for every compiled schema but that no code reads
 * (with messages and schemaPath gone, most are read by nobody): 14 KB of the three modules.
 */
function dropUnusedSchemas(code: string): string {
  const uses = new Map<string, number>();
  for (const match of code.matchAll(/\bschema\d+\b/g)) uses.set(match[0], (uses.get(match[0]) ?? 0) + 1);
  return code.replace(SCHEMA_CONSTANT, (line, name: string) => (uses.get(name) === 1 ? "" : line));
}
