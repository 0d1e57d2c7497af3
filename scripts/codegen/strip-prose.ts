import type { JsonSchema } from "./load-spec.js";

/** Keywords that carry only prose; names, types, constants and patterns are protocol facts and stay. */
export const PROSE_KEYWORDS = new Set(["description", "$comment", "examples", "markdownDescription"]);

/** Returns a copy of `schema` without prose keywords; property *names* equal to a prose keyword are kept. */
export function stripProse<T>(schema: T): T {
  return strip(schema, false) as T;
}

function strip(node: unknown, inNameMap: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => strip(item, false));
  if (node === null || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (!inNameMap && PROSE_KEYWORDS.has(key)) continue;
    out[key] = !inNameMap && DATA_KEYWORDS.has(key) ? value : strip(value, !inNameMap && NAME_MAPS.has(key));
  }
  return out;
}

// Under these keywords the values are instance data, never schemas, so nothing in them is prose.
const DATA_KEYWORDS = new Set(["const", "enum", "default"]);

// Under these keywords the keys are names (of properties or definitions), never keywords.
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
