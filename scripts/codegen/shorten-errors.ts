/**
 * After compact-code.ts, for wymcp's own modules: each error site Ajv writes as three statements (a named error
 * object, its push, the count) becomes one call and the count, a third of the bytes. Nearly half of a module is error
 * sites, and the bytes are what a cold import pays for (V8 pre-parses every function). The error objects keep their
 * members and order; verdicts and locations are Ajv's (test/differential.test.ts, test/legacy-differential.test.ts).
 */
import { CompactionError } from "../../src/codegen/compact-code.js";

/** The one helper the shortened sites call, placed after the budget's helpers. */
export const PUSH_NEW_SOURCE =
  "function pushNew(list, instancePath, keyword, params) { pushError(list, { instancePath, keyword, params }); }";

const ERROR_SITE =
  /^const (err\d+) = \{instancePath(?::(.+?))?,keyword:("[^"\\]+"),params:(\{.*\})\};\npushError\(vErrors \?\?= \[\], \1\);\nerrors\+\+;$/gm;

export function shortenErrors(code: string): string {
  const anchor = "function withinBudget(";
  const at = code.indexOf(anchor);
  if (at < 0) throw new CompactionError("shorten-errors.ts runs after compact-code.ts: no budget helpers found");
  const out = code.replace(
    ERROR_SITE,
    (_site, _name: string, path: string | undefined, keyword: string, params: string) =>
      `pushNew(vErrors ??= [], ${path ?? "instancePath"}, ${keyword}, ${params});\nerrors++;`,
  );
  if (/^const err\d+ = /m.test(out)) throw new CompactionError("Ajv's output has an error site shorten-errors.ts does not know");
  return `${out.slice(0, at)}${PUSH_NEW_SOURCE}\n${out.slice(at)}`;
}
