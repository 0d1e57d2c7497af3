/**
 * @module shrink-code: rewrites of a group's compacted standalone code that make the module smaller, which is
 * most of what importing it costs (V8 scans every byte; a function not called at import is only pre-parsed).
 * Verdicts are unchanged, and the errors keep the instance location, keyword and params the distiller reads
 * (test/compile-differential.test.ts and test/compile.test.ts hold both). Like compact-code.ts, a rewrite that
 * leaves its idiom behind stops the compile: a new Ajv that shapes its output differently has to be looked at.
 */

export class ShrinkError extends Error {
  override name = "ShrinkError";
}

/**
 * Build an error as Ajv's literal does (same keys, same order) and push it under the budget; the two commonest
 * keywords get their own; `budgetResult` is the result of a call that ran out of error budget. Each returns the list:
 * the first error makes it (`[error]`), where `vErrors ??= []` then a push grew an empty array, which cost an invalid
 * call more than its answer did (bench/tools.ts: docs/performance.md#figures-behind-code-comments).
 */
export const FAIL_SOURCE = `function addError(list, error) { if (list === null) return [error]; pushError(list, error); return list; }
function fail(list, instancePath, keyword, params) { return addError(list, { instancePath, keyword, params }); }
function failType(list, instancePath, type) { return addError(list, { instancePath, keyword: "type", params: { type } }); }
function failRequired(list, instancePath, missingProperty) { return addError(list, { instancePath, keyword: "required", params: { missingProperty } }); }
function budgetResult(thrown) {
  if (!(thrown instanceof ErrorBudgetReached)) throw thrown;
  return invalidResult(thrown.errors);
}`;

// `const errN = {instancePath…,keyword:"k",params:{…}};` (params may go on over lines indented by four spaces),
// then its push and count: three lines at ~2,000 sites.
const ERROR_SITE =
  /^const (err\d+) = \{instancePath(?::([^\n]*?))?,keyword:("[\w$]+"),params:(\{[^\n]*(?:\n {4}[^\n]*)*\})\};\npushError\(vErrors \?\?= \[\], \1\);\nerrors\+\+;$/gm;

// What only unevaluatedProperties/unevaluatedItems read: set up on every call, never read in a bounded group.
const EVALUATED_PROLOGUE =
  /^const (evaluated\d+) = validate\d+\.evaluated;\nif\(\1\.dynamicProps\)\{\n\1\.props = undefined;\n\}\nif\(\1\.dynamicItems\)\{\n\1\.items = undefined;\n\}\n/gm;
const EVALUATED_RECORD = /^validate\d+\.evaluated = \{[^\n]*\};\n/gm;

// The distiller says "one of the allowed values" and never reads them: the schema constant need not be kept for it.
const ALLOWED_VALUES = /params:\{allowedValues: schema\d+(?:\.[\w$]+|\[[^\]\n]*\])*\}/g;

/** `bounded`: the group has no unevaluated*, so nothing reads what a validator evaluated. */
export function shrinkCode(code: string, bounded: boolean): string {
  let out = code.replace(ALLOWED_VALUES, "params:{}");
  if (out.includes("allowedValues: schema")) throw new ShrinkError("Ajv's output has an allowedValues param shrink-code.ts does not know");
  out = out.replace(
    ERROR_SITE,
    (_site, _name: string, at: string | undefined, keyword: string, params: string) =>
      `fail(vErrors ??= [], ${at ?? "instancePath"}, ${keyword}, ${params}); errors++;`,
  );
  out = out
    .replace(
      /^fail\(vErrors \?\?= \[\], ([^\n]*?), "type", \{type: ("(?:[^"\\\n]|\\.)*")\}\); errors\+\+;$/gm,
      "failType(vErrors ??= [], $1, $2); errors++;",
    )
    .replace(
      /^fail\(vErrors \?\?= \[\], ([^\n]*?), "required", \{missingProperty: ("(?:[^"\\\n]|\\.)*")\}\); errors\+\+;$/gm,
      "failRequired(vErrors ??= [], $1, $2); errors++;",
    );
  out = out.replace(/^(fail|failType|failRequired)\(vErrors \?\?= \[\], /gm, "vErrors = $1(vErrors, ");
  // Left as they are: `const errN = {};` (inside `if`, whose errors nobody reads) and propertyNames' errors.
  if (/^const err\d+ = \{instancePath(?![^\n]*\},propertyName:[\w$]+\};$)/m.test(out))
    throw new ShrinkError("Ajv's output has an error site shrink-code.ts does not know");
  if (bounded) {
    out = out.replace(EVALUATED_PROLOGUE, "").replace(EVALUATED_RECORD, "");
    if (/\bevaluated/.test(out))
      throw new ShrinkError("a bounded group still reads what a validator evaluated; shrink-code.ts must keep it");
  }
  if (!out.startsWith(STRICT)) throw new ShrinkError(`the group does not start with ${JSON.stringify(STRICT.trim())}`);
  return `${STRICT + FAIL_SOURCE}\n${dropUnreadConstants(out.slice(STRICT.length))}`;
}

const STRICT = '"use strict";\n';

const SCHEMA_CONSTANT = /^const (schema\d+) = [^\n]*;\n/gm;

/** Drops `const schemaN = …;` lines that nothing reads any more. */
function dropUnreadConstants(code: string): string {
  const uses = new Map<string, number>();
  for (const match of code.matchAll(/\bschema\d+\b/g)) uses.set(match[0], (uses.get(match[0]) ?? 0) + 1);
  return code.replace(SCHEMA_CONSTANT, (line, name: string) => (uses.get(name) === 1 ? "" : line));
}

/**
 * Every character outside ASCII as a `\u` escape: one such character makes V8 hold the whole source as two-byte
 * text, which slows the import (docs/performance.md#figures-behind-code-comments). The escape means the same in
 * strings, regular expressions (with or without the `u` flag, surrogate pairs included), identifiers and comments.
 */
export function asciiOnly(code: string): string {
  // After a backslash the character is itself escaped (`"\é"` is `é`); its escape would read as text. JSON.stringify,
  // which writes every string of the module, never writes that.
  if (/(?<!\\)(?:\\\\)*\\[^\x00-\x7f]/.test(code)) throw new ShrinkError("the module escapes a character outside ASCII with a backslash");
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
