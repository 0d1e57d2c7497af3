/**
 * @module runtime-source: the code every module `wymcp compile` writes carries beside the validators, as text.
 * Kept as text, not as functions' `toString()`, so the output's bytes do not depend on how wymcp was transpiled.
 * It holds: the structure key (the same as canonical.ts), the error distiller (the ideas of src/core/distill.ts and
 * src/core/likely-branch.ts: one entry per location, the likely anyOf branch, bounded, no value reflected, control
 * characters escaped), and the provider the SDK calls.
 */

/** Bounds of one error message, whatever the input. */
import { ERROR_BUDGET } from "../../core/error-budget.js";

export const MESSAGE_LIMITS = { examinedErrors: 1000, locations: 8, messagesPerLocation: 4, locationLength: 120 } as const;

export const RUNTIME_SOURCE = String.raw`
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

const LIMITS = ${JSON.stringify(MESSAGE_LIMITS)};
// A list this long was cut short by the validator (scripts/codegen/error-budget.ts): the count reads "N+".
const ERROR_BUDGET = ${ERROR_BUDGET};

// Of a failed anyOf, keeps the errors of the branch the caller most likely meant (src/core/likely-branch.ts).
function keepLikelyBranches(errors) {
  let unions;
  for (const error of errors) {
    const tags = error.branches;
    if (!tags) continue;
    unions ??= new Map();
    for (let k = 0; k < tags.length; k += 3) {
      const key = tags[k] + "\u0000" + tags[k + 1];
      let branches = unions.get(key);
      if (!branches) unions.set(key, (branches = new Map()));
      const list = branches.get(tags[k + 2]);
      if (list) list.push(error);
      else branches.set(tags[k + 2], [error]);
    }
  }
  if (!unions) return errors;
  const dropped = new Set();
  for (const error of errors) {
    if (error.keyword !== "anyOf") continue;
    const branches = unions.get(error.params.union + "\u0000" + error.instancePath);
    if (!branches || branches.size < 2) continue;
    const scored = [...branches.values()].map((list) => {
      const alive = list.filter((e) => !dropped.has(e));
      return { alive, score: branchScore(alive, error.instancePath) };
    });
    const best = Math.min(...scored.map((s) => s.score));
    for (const { alive, score } of scored) if (score !== best) for (const e of alive) dropped.add(e);
  }
  return dropped.size === 0 ? errors : errors.filter((e) => !dropped.has(e));
}

function branchScore(errors, at) {
  let rejectsValue = 0;
  let rejectsConstantMember = 0;
  let atValue = 0;
  for (const { keyword, instancePath } of errors) {
    const constant = keyword === "const" || keyword === "enum";
    if (instancePath === at) {
      atValue++;
      if (constant || keyword === "type") rejectsValue = 1;
    } else if (constant && instancePath.startsWith(at + "/") && !instancePath.includes("/", at.length + 1)) {
      rejectsConstantMember = 1;
    }
  }
  return rejectsValue * 1e15 + rejectsConstantMember * 1e10 + atValue * 1e5 + errors.length;
}

// Words built from the schema's facts alone: the caller's values never appear, only keys inside locations.
function messageFor(error) {
  const p = error.params;
  switch (error.keyword) {
    case "type": return "must be " + String(p.type).split(",").join(" or ");
    case "const": return "must equal the schema's constant";
    case "enum": return "must be one of the allowed values";
    case "format": return "must be a valid " + JSON.stringify(p.format) + " string";
    case "anyOf": return UNION_MESSAGE;
    case "oneOf": return "must match exactly one of the allowed shapes";
    case "minimum": case "maximum": case "exclusiveMinimum": case "exclusiveMaximum": return "must be " + p.comparison + " " + p.limit;
    case "maxItems": return "must have at most " + p.limit + " items";
    case "minItems": return "must have at least " + p.limit + " items";
    case "maxLength": return "must be at most " + p.limit + " characters long";
    case "minLength": return "must be at least " + p.limit + " characters long";
    case "maxProperties": return "must have at most " + p.limit + " properties";
    case "minProperties": return "must have at least " + p.limit + " properties";
    case "pattern": return "must match pattern " + JSON.stringify(p.pattern);
    case "multipleOf": return "must be a multiple of " + p.multipleOf;
    case "uniqueItems": return "must not have duplicate items";
    case "additionalProperties": return "has a property the schema does not allow";
    case "unevaluatedProperties": return "has a property the schema does not allow";
    case "not": return "must not match the excluded shape";
    default: return "fails the schema's " + JSON.stringify(error.keyword) + " rule";
  }
}

const UNION_MESSAGE = "must match one of the allowed shapes";

// JSON Pointers segment by segment, array indices numerically, so /items/2 precedes /items/10 (src/core/distill.ts).
function comparePointers(a, b) {
  const x = a.split("/");
  const y = b.split("/");
  for (let i = 0; i < x.length && i < y.length; i++) {
    if (x[i] === y[i]) continue;
    const numeric = /^[0-9]+$/.test(x[i]) && /^[0-9]+$/.test(y[i]);
    if (numeric && x[i].length !== y[i].length) return x[i].length - y[i].length;
    return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

function locationOf(error) {
  if (error.keyword === "required") return error.instancePath + "/" + escapePointer(String(error.params.missingProperty));
  if (error.keyword === "dependentRequired" || error.keyword === "dependencies") return error.instancePath + "/" + escapePointer(String(error.params.missingProperty));
  return error.instancePath;
}

function escapePointer(key) {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

// A key can carry ESC, CR or LF; a host that logs the message must not be fed fake lines.
function printable(location) {
  const bounded = location.length > LIMITS.locationLength ? location.slice(0, LIMITS.locationLength) + "…" : location;
  return bounded.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

function distill(all) {
  const errors = keepLikelyBranches(all.length > LIMITS.examinedErrors ? all.slice(0, LIMITS.examinedErrors) : all);
  const byLocation = new Map();
  for (const error of errors) {
    const location = locationOf(error);
    const message = error.keyword === "required" || error.keyword === "dependentRequired" || error.keyword === "dependencies" ? "is required" : messageFor(error);
    let messages = byLocation.get(location);
    if (!messages) byLocation.set(location, (messages = new Set()));
    if (messages.size < LIMITS.messagesPerLocation) messages.add(message);
  }
  // A union's "must match one of the allowed shapes" says only where to look when its branch's errors lie below it.
  const all_ = [...byLocation.keys()];
  const locations = all_.filter((l) => {
    const messages = byLocation.get(l);
    return !(messages.size === 1 && messages.has(UNION_MESSAGE) && all_.some((other) => other.startsWith(l + "/")));
  }).sort(comparePointers);
  const shown = locations.slice(0, LIMITS.locations).map((l) => (l === "" ? "(the value)" : printable(l)) + " " + [...byLocation.get(l)].join(", "));
  const more = locations.length - shown.length;
  const count = locations.length + (all.length >= ERROR_BUDGET ? "+" : "");
  return count + " invalid location" + (count === "1" ? "" : "s") + ": " + shown.join("; ") + (more > 0 ? "; and " + more + " more" : "");
}

function invalidResult(errors) {
  return { valid: false, data: undefined, errorMessage: distill(errors || []) };
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
