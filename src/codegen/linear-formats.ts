/**
 * @module linear-formats: formats whose regex costs several parses of the body on a long string, each replaced in the
 * generated modules by a check that gives the same verdict on every string (test/linear-formats.test.ts compares them)
 * in one pass. The regexes are linear but slow: `byte` walks a string one group of four at a time, `uri-template`
 * one alternation per character, and a string that fails at its end makes either give back every repetition before
 * it fails; a message may also carry one string to the check several times (once per union branch that holds it).
 * Measured in `npm run bench -- --adversarial`: a 1 MiB base64 string cost 11–13× the parse of its body, as much as
 * every other check together.
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

/**
 * The twin of `uri-template`'s regex (RFC 6570's grammar, level 4) as source text: one pass over the string, where
 * the regex gives back every repetition of a long literal or variable name before it fails at the end. Literals are
 * any code point but controls, space, DEL and `"'%<>\\^\`{|}`; `%` takes two hex digits; an expression is `{`, an optional
 * operator, then variable names (letters, digits, `_`, `%XX`, single dots between them) each with an optional
 * prefix `:1`–`:9999` or explode `*`, separated by commas, then `}`.
 */
export const URI_TEMPLATE_CHECK_SOURCE = `{ test(s) {
  const n = s.length;
  const hex = (c) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
  const pct = (at) => at + 2 < n && s.charCodeAt(at) === 37 && hex(s.charCodeAt(at + 1)) && hex(s.charCodeAt(at + 2));
  const varchar = (at) => {
    if (at >= n) return -1;
    const c = s.charCodeAt(at);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95) return at + 1;
    return pct(at) ? at + 3 : -1;
  };
  let i = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 37) {
      if (!pct(i)) return false;
      i += 3;
    } else if (c === 123) {
      i++;
      if (i < n && "+#./;?&=,!@|".includes(s[i])) i++;
      for (;;) {
        i = varchar(i);
        if (i < 0) return false;
        for (;;) {
          if (i < n && s.charCodeAt(i) === 46) {
            i = varchar(i + 1);
            if (i < 0) return false;
            continue;
          }
          const next = varchar(i);
          if (next < 0) break;
          i = next;
        }
        if (i < n && s.charCodeAt(i) === 58) {
          const first = i + 1 < n ? s.charCodeAt(i + 1) : 0;
          if (first < 49 || first > 57) return false;
          i += 2;
          for (let digits = 1; digits < 4 && i < n && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57; digits++) i++;
        } else if (i < n && s.charCodeAt(i) === 42) i++;
        if (i < n && s.charCodeAt(i) === 44) {
          i++;
          continue;
        }
        if (i < n && s.charCodeAt(i) === 125) {
          i++;
          break;
        }
        return false;
      }
    } else if (c <= 32 || c === 127 || c === 34 || c === 39 || c === 60 || c === 62 || c === 92 || c === 94 || c === 96 || c === 123 || c === 124 || c === 125) {
      return false;
    } else i++;
  }
  return true;
} }`;

/** Format name → the regex source it replaces and the check (an object with `test`, as a RegExp has) put in its place. */
export const LINEAR_FORMATS: Readonly<Record<string, { readonly regex: string; readonly check: string }>> = {
  byte: { regex: "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$", check: BASE64_CHECK_SOURCE },
  "uri-template": {
    regex:
      "^(?:[^\\u0000-\\u0020\"'%<>\\\\^`{|}\\u007F]|%[0-9A-Fa-f]{2}|\\{[+#./;?&=,!@|]?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*(?::[1-9][0-9]{0,3}|\\*)?(?:,(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*(?::[1-9][0-9]{0,3}|\\*)?)*\\})*$",
    check: URI_TEMPLATE_CHECK_SOURCE,
  },
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
