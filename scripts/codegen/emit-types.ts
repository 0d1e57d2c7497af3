import { compile, type Options } from "json-schema-to-typescript";
import type { JsonSchema } from "./load-spec.js";
import { refName, type Selection } from "./select-definitions.js";

const OPTIONS: Partial<Options> = {
  bannerComment: "",
  // The spec's TypeScript source declares closed interfaces; an explicit `additionalProperties` still opens one.
  additionalProperties: false,
  declareExternallyReferenced: false,
  format: true,
  strictIndexSignatures: false,
};

/**
 * One exported type per definition of the revision. Each definition is compiled on its own with its
 * `$ref`s turned into references by name, so every definition keeps its name and none is numbered.
 */
export async function emitTypes(selection: Selection): Promise<string> {
  const names = Object.keys(selection.defs).sort();
  const parts: string[] = [];
  for (const name of names) {
    const schema = { ...(namedRefs(selection.defs[name]) as JsonSchema), title: name };
    parts.push((await compile(schema as never, name, OPTIONS)).trim());
  }
  return `${parts.join("\n\n")}\n`;
}

function namedRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(namedRefs);
  if (node === null || typeof node !== "object") return node;
  if ("$ref" in node) return { tsType: refName((node as JsonSchema).$ref) };
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, namedRefs(value)]));
}
