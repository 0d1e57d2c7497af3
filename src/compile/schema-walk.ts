/**
 * @module schema-walk: every subschema of a JSON Schema, with its JSON Pointer and base URI, following the
 * applicator keywords only (a value under `enum`, `const`, `default` or `examples` is data, not a schema). One walk
 * serves the lint rules (lint-rules.ts): arrays without `items`, `$ref`s that resolve nowhere, the client checks.
 */
import { escapePointer } from "../core/distill.js";

/** Keywords whose value is one subschema. */
const ONE = [
  "additionalProperties",
  "additionalItems",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
] as const;
/** Keywords whose value is an array of subschemas. */
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
/** Keywords whose value maps names to subschemas. */
const BY_NAME = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"] as const;

/** The base of a schema that names no `$id`: resolvable, and never equal to a document a `$ref` could name. */
export const DEFAULT_BASE = "https://schema.invalid/wymcp-root";

export interface SchemaNode {
  node: Record<string, unknown>;
  /** JSON Pointer from the walked root. */
  pointer: string;
  /** The base URI `$ref`s in this node resolve against (its own `$id` applied). */
  base: string;
  /** The applicator keywords walked through from the root (`["properties", "items"]`); a client may walk fewer. */
  keywords: readonly string[];
}

/** Guards against a hostile schema: a walk deeper than this stops there (a real tool schema is a few levels deep). */
export const MAX_WALK_DEPTH = 256;

/** Calls `visit` for every object subschema, the root first; boolean schemas hold nothing to check. */
export function walkSchema(root: unknown, visit: (entry: SchemaNode) => void, rootBase = DEFAULT_BASE): void {
  const step = (value: unknown, pointer: string, parentBase: string, keywords: readonly string[]): void => {
    if (value === null || typeof value !== "object" || Array.isArray(value) || keywords.length > MAX_WALK_DEPTH) return;
    const node = value as Record<string, unknown>;
    const base = typeof node.$id === "string" ? (resolveUri(node.$id, parentBase) ?? parentBase) : parentBase;
    visit({ node, pointer, base: withoutFragment(base), keywords });
    const via = (key: string) => [...keywords, key];
    for (const key of ONE) if (Object.hasOwn(node, key)) step(node[key], `${pointer}/${key}`, base, via(key));
    // `items` is one schema, or (before 2020-12) an array of them.
    if (Object.hasOwn(node, "items")) {
      const items = node.items;
      if (Array.isArray(items)) items.forEach((item, i) => step(item, `${pointer}/items/${i}`, base, via("items")));
      else step(items, `${pointer}/items`, base, via("items"));
    }
    for (const key of MANY) {
      const list = node[key];
      if (Object.hasOwn(node, key) && Array.isArray(list)) list.forEach((item, i) => step(item, `${pointer}/${key}/${i}`, base, via(key)));
    }
    for (const key of BY_NAME) {
      const map = node[key];
      if (!Object.hasOwn(node, key) || map === null || typeof map !== "object" || Array.isArray(map)) continue;
      for (const name of Object.keys(map))
        step((map as Record<string, unknown>)[name], `${pointer}/${key}/${escapePointer(name)}`, base, via(key));
    }
  };
  step(root, "", rootBase, []);
}

/** `reference` resolved against `base`, or undefined when it is no URI reference at all. */
export function resolveUri(reference: string, base: string): string | undefined {
  try {
    return new URL(reference, base).href;
  } catch {
    return undefined;
  }
}

export function withoutFragment(uri: string): string {
  const hash = uri.indexOf("#");
  return hash < 0 ? uri : uri.slice(0, hash);
}

/** The value a JSON Pointer (already split off its `#`, not URI-decoded) names inside `document`, or `missing`. */
export function evaluatePointer(document: unknown, pointer: string): { found: true; value: unknown } | { found: false } {
  if (pointer === "") return { found: true, value: document };
  if (!pointer.startsWith("/")) return { found: false };
  let value = document;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(value) && /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) < value.length) value = value[Number(key)];
    else if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, key))
      value = (value as Record<string, unknown>)[key];
    else return { found: false };
  }
  return { found: true, value };
}
