/**
 * @module bound-keys: the generated validators build an error's location from the client's own map keys. Ajv
 * escapes the whole key (`key.replace(/~/g, "~0")…`) at every error and every anyOf tag, and every later reader
 * (the likely-branch maps, the escaping, the sort) reads the whole location again: a key of 1 MiB made each error
 * cost a megabyte. Here a location keeps at most the first `KEPT_KEY_UNITS` UTF-16 units of a key, which is all an
 * answer can show (log-safe.ts cuts a segment after `SEGMENT_LENGTH` characters, each unit escaping to at least
 * one): the answer is the same, and no error costs more than its bounded output.
 */
import { SEGMENT_LENGTH } from "../core/log-safe.js";

/** One unit more than a segment shows, so that a cut key is still cut (and marked `…`) in the answer. */
export const KEPT_KEY_UNITS = SEGMENT_LENGTH + 1;

export const POINTER_KEY_SOURCE = `function pointerKey(key) {
  return (key.length > ${KEPT_KEY_UNITS} ? key.slice(0, ${KEPT_KEY_UNITS}) : key).replace(/~/g, "~0").replace(/\\//g, "~1");
}`;

const ESCAPED_KEY = /\b(key\d+)\.replace\(\/~\/g, "~0"\)\.replace\(\/\\\/\/g, "~1"\)/g;

export class BoundKeysError extends Error {
  override name = "BoundKeysError";
}

/** Rewrites every key escape of a compacted module into `pointerKey(key)`, and adds the helper after `"use strict"`. */
export function boundKeys(code: string): string {
  const out = code.replace(ESCAPED_KEY, "pointerKey($1)");
  // Every escape must be consumed: a new Ajv that spells it differently has to be looked at, not half-bounded.
  if (out.includes('.replace(/~/g, "~0")')) throw new BoundKeysError("Ajv's output escapes a key in a way bound-keys.ts does not know");
  if (out === code) return code;
  const strict = '"use strict";\n';
  if (!out.startsWith(strict)) throw new BoundKeysError('a compacted module must start with "use strict"');
  return `${strict}${POINTER_KEY_SOURCE}\n${out.slice(strict.length)}`;
}
