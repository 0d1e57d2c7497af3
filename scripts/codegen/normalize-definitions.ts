import type { JsonSchema } from "./load-spec.js";

const DRAFT_07_PREFIX = "#/definitions/";
const DEFS_PREFIX = "#/$defs/";

/**
 * Returns a copy of a draft-07 schema (revisions up to 2025-03-26) with `definitions` renamed `$defs` and
 * every `$ref` into them rewritten, so every revision reaches the later stages in one shape.
 * A schema that already uses `$defs` is returned as it is.
 */
export function normalizeDefinitions(schema: JsonSchema): JsonSchema {
  if (schema.$defs !== undefined || schema.definitions === undefined) return schema;
  const { definitions, ...rest } = rewrite(schema, false) as JsonSchema;
  return { ...rest, $defs: definitions };
}

function rewrite(node: unknown, isData: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, isData));
  if (node === null || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (isData) out[key] = rewrite(value, true);
    else if (key === "$ref" && typeof value === "string" && value.startsWith(DRAFT_07_PREFIX)) {
      out[key] = DEFS_PREFIX + value.slice(DRAFT_07_PREFIX.length);
    } else out[key] = rewrite(value, DATA_KEYWORDS.has(key));
  }
  return out;
}

// Instance data, never schemas: a "$ref" member inside them is a value, not a reference.
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);
