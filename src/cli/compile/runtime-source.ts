/**
 * @module runtime-source: the code every module `wymcp compile` writes carries beside the validators, as text.
 * Kept as text, not as functions' `toString()`, so the output's bytes do not depend on how wymcp was transpiled.
 * It holds: the structure key (the same as canonical.ts), the answer to invalid arguments (the core's own
 * brief-answer.ts, bundled at codegen into generated/brief-answer.js), and the provider the SDK calls.
 */
import { BRIEF_ANSWER_SOURCE } from "../../../generated/brief-answer.js";
import { briefAnswer } from "../../core/brief-answer.js";
import { ERROR_BUDGET } from "../../core/error-budget.js";

/** What a value that is not an object gets from a schema whose root is `type: "object"` alone (compile-schemas.ts). */
export const NOT_AN_OBJECT = briefAnswer([{ instancePath: "", keyword: "type", params: { type: "object" } }], ERROR_BUDGET);

export const RUNTIME_SOURCE = `
function canonicalJson(value) {
  if (value === null || typeof value !== "object") { const text = JSON.stringify(value); return text === undefined ? "null" : text; }
  if (Array.isArray(value)) return "[" + value.map((item) => (isAbsent(item) ? "null" : canonicalJson(item))).join(",") + "]";
  const parts = [];
  for (const key of Object.keys(value).sort()) if (!isAbsent(value[key])) parts.push(JSON.stringify(key) + ":" + canonicalJson(value[key]));
  return "{" + parts.join(",") + "}";
}

function isAbsent(value) {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function structureKey(schema) {
  const text = canonicalJson(schema);
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ unit, 0x01000193);
    h2 = Math.imul(h2 ^ unit, 0x5bd1e995);
  }
  return hex(h1) + hex(h2) + "-" + text.length.toString(36);
}

function hex(n) {
  return (n >>> 0).toString(16).padStart(8, "0");
}

// A list this long was cut short by the validator (scripts/codegen/error-budget.ts): the count reads "N+".
const ERROR_BUDGET = ${ERROR_BUDGET};

// The core's brief answer (src/core/brief-answer.ts, bundled by scripts/codegen/bundle-core.ts): its reader is the
// model that must retry the call.
const briefAnswer = ${BRIEF_ANSWER_SOURCE};

const NOT_AN_OBJECT = ${JSON.stringify(NOT_AN_OBJECT)};

// Short names: one call of each per compiled schema whose root is "type: object" alone (compile-schemas.ts).
function notObject(input) {
  return input === null || typeof input !== "object" || Array.isArray(input);
}

function notObjectResult() {
  return { valid: false, data: undefined, errorMessage: NOT_AN_OBJECT };
}

function invalidResult(errors) {
  return { valid: false, data: undefined, errorMessage: briefAnswer(errors || [], ERROR_BUDGET) };
}

function providerOver(byText, byKey, options) {
  const fallback = options && options.fallback;
  return {
    getValidator(schema) {
      const found = byText.get(JSON.stringify(schema)) || byKey.get(structureKey(schema));
      if (found) return found;
      if (fallback) return fallback.getValidator(schema);
      throw new Error("wymcp: no precompiled validator for this JSON Schema (structure key " + structureKey(schema) + "). " +
        "Add the schema to the inputs of wymcp compile (this module was compiled from " + COMPILED_FROM + ", relative to its folder) " +
        "and run it again, or pass a fallback provider: createJsonSchemaValidator({ fallback }).");
    },
  };
}
`;
