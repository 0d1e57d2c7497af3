/**
 * @module runtime-helpers: what Ajv's standalone code `require`s, replaced by code the module carries, so the
 * output is one ES module with no Ajv at run time. Each helper is emitted only when the code names it.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

export class UnsupportedHelperError extends Error {
  override name = "UnsupportedHelperError";
}

interface Helper {
  /** The expression Ajv's standalone code writes. */
  required: string;
  /** The local name it becomes. */
  local: string;
  /** The declaration of the local name. */
  source: () => string;
}

// Code points, not UTF-16 units: what minLength and maxLength count under Ajv's default `unicode: true`.
const UCS2_LENGTH = `function ucs2length(str) {
  let length = 0;
  for (let pos = 0; pos < str.length; length++) {
    const unit = str.charCodeAt(pos++);
    if (unit >= 0xd800 && unit <= 0xdbff && pos < str.length && (str.charCodeAt(pos) & 0xfc00) === 0xdc00) pos++;
  }
  return length;
}`;

// Deep equality of JSON values (enum, const, uniqueItems): same kind, same keys, equal members.
const DEEP_EQUAL = `function deepEqual(a, b) {
  if (a === b) return true;
  if (!a || !b || typeof a !== "object" || typeof b !== "object") return a !== a && b !== b;
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Array.isArray(a)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.prototype.hasOwnProperty.call(b, key) || !deepEqual(a[key], b[key])) return false;
  return true;
}`;

/**
 * ajv-formats' own formats module, as the SDK registers it (full mode): the function-valued formats (date, time,
 * date-time, uri, regex, byte, int32...) are code, not regular expressions, and standalone code requires them.
 * Embedding the module's text keeps the verdicts the SDK's; it has no imports.
 */
function ajvFormatsSource(): string {
  const require = createRequire(import.meta.url);
  const file = require.resolve("ajv-formats/dist/formats.js");
  const text = readFileSync(file, "utf8").replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n");
  if (/\brequire\(/.test(text))
    throw new UnsupportedHelperError("ajv-formats/dist/formats.js now requires another module; it cannot be embedded as is");
  const version = (require("ajv-formats/package.json") as { version: string }).version;
  return `// ajv-formats ${version} (MIT), dist/formats.js, embedded: the formats the SDK's Ajv provider registers.
const ajvFormats = (function (exports) {
${text.trim()}
return exports.fullFormats;
})({});`;
}

const HELPERS: Helper[] = [
  { required: 'require("ajv/dist/runtime/ucs2length").default', local: "ucs2length", source: () => UCS2_LENGTH },
  { required: 'require("ajv/dist/runtime/equal").default', local: "deepEqual", source: () => DEEP_EQUAL },
  { required: 'require("ajv-formats/dist/formats").fullFormats', local: "ajvFormats", source: ajvFormatsSource },
];

/** Replaces every `require(...)` of Ajv's code with a local helper; returns the code and the helpers it now needs. */
export function replaceRequires(code: string): { code: string; helpers: string[] } {
  const helpers: string[] = [];
  let out = code;
  for (const helper of HELPERS) {
    if (!out.includes(helper.required)) continue;
    out = out.split(helper.required).join(helper.local);
    helpers.push(helper.local);
  }
  const left = /require\([^)]*\)/.exec(out);
  if (left) throw new UnsupportedHelperError(`Ajv's standalone code needs ${left[0]}, which wymcp compile cannot embed`);
  return { code: out, helpers };
}

/** The declarations of `names`, in a fixed order. */
export function helperSources(names: Iterable<string>): string[] {
  const wanted = new Set(names);
  return HELPERS.filter((h) => wanted.has(h.local)).map((h) => h.source());
}
