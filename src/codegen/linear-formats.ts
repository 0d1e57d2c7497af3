/**
 * @module linear-formats: formats whose regex costs several parses of the body on a long string, each replaced in the
 * generated modules by a check that gives the same verdict on every string (test/linear-formats.test.ts compares them)
 * and runs as one native search. `byte`'s regex is linear but slow: it walks a string one group of four at a time,
 * and a string that fails at its end makes it give back every group first; a message may also carry one string to
 * the check several times (once per union branch that holds it). `uri-template` keeps its regex: a hand-written
 * scanner of its grammar measured slower than the regex on `{a,a,a…`, since every character there is a decision, not a
 * run a native search can skip. Both measured by `npm run bench -- --adversarial`: docs/performance.md#the-byte-and-uri-template-checks.
 */

/**
 * The twin of `byte`'s regex, `^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`, as source text (its
 * bytes do not depend on how this file is transpiled): a length that is a multiple of four, alphabet characters up to
 * at most two `=` that end the string, after at least two of the last four.
 */
export const BASE64_CHECK_SOURCE = `{ test(s) {
  const n = s.length;
  if (n % 4 !== 0) return false;
  const at = s.search(/[^A-Za-z0-9+/]/);
  if (at < 0) return true;
  if (at === n - 1) return s.charCodeAt(at) === 61;
  return at === n - 2 && s.charCodeAt(at) === 61 && s.charCodeAt(at + 1) === 61;
} }`;

/** Format name → the regex source it replaces and the check (an object with `test`, as a RegExp has) put in its place. */
export const LINEAR_FORMATS: Readonly<Record<string, { readonly regex: string; readonly check: string }>> = {
  byte: { regex: "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$", check: BASE64_CHECK_SOURCE },
};

export class LinearFormatError extends Error {
  override name = "LinearFormatError";
}

/**
 * Ajv's standalone code with each format of `LINEAR_FORMATS` that `formats` defines by the very regex the twin was
 * proved against replaced by its twin. A format whose regex changed stops codegen: the twin must be proved again.
 */
export function linearFormats(code: string, formats: Record<string, string>): string {
  let out = code;
  for (const [name, { regex, check }] of Object.entries(LINEAR_FORMATS)) {
    const source = formats[name];
    if (source === undefined) continue;
    if (source !== regex) throw new LinearFormatError(`format ${name} changed its regex: prove its linear twin (linear-formats.ts) again`);
    const literal = String(new RegExp(source, "u"));
    const line = new RegExp(`^const (formats\\d+) = ${escapeRegExp(literal)};$`, "gm");
    out = out.replace(line, (_, constant: string) => `const ${constant} = ${check};`);
    if (out.includes(literal)) throw new LinearFormatError(`format ${name}'s regex is used where linear-formats.ts does not replace it`);
  }
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
