import type { JsonSchema } from "./load-spec.js";
import { refName } from "./select-definitions.js";

/**
 * Whether every value `definition` accepts is one `framing` accepts too, proved on the schemas' structure and only for
 * the shape JSON-RPC framings have (an object of typed members, some required); `false` whenever the proof does not
 * go through, which only costs the runtime one more validator call. Where it holds, a message that passes its
 * method's definition needs no framing check (validate.ts): one validator instead of two for a conforming message.
 * The differential tests compare verdicts with Ajv's, framing included, on every revision.
 */
export function impliesFraming(defs: Record<string, JsonSchema>, definition: string, framing: string): boolean {
  const d = resolve(defs, defs[definition]);
  const f = resolve(defs, defs[framing]);
  if (!d || !f || !onlyKeys(f, ["type", "properties", "required"]) || f.type !== "object" || d.type !== "object") return false;
  const required = new Set((d.required ?? []) as string[]);
  if (!((f.required ?? []) as string[]).every((name) => required.has(name))) return false;
  const fProperties = (f.properties ?? {}) as Record<string, JsonSchema>;
  const dProperties = (d.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(fProperties).every(([name, fp]) => {
    const dp = dProperties[name];
    return dp !== undefined && subsumed(defs, dp, fp);
  });
}

/** Whether `narrow` accepts only values `wide` accepts: equal schemas, or `wide` asks only for a type `narrow` has. */
function subsumed(defs: Record<string, JsonSchema>, narrow: JsonSchema, wide: JsonSchema): boolean {
  const n = resolve(defs, narrow);
  const w = resolve(defs, wide);
  if (n === undefined || w === undefined) return false;
  if (canonical(n) === canonical(w)) return true;
  // `additionalProperties: {}` accepts everything: only the type is asked for.
  const vacuous = w.additionalProperties === undefined || canonical(w.additionalProperties) === "{}";
  return onlyKeys(w, ["type", "additionalProperties"]) && vacuous && typeof w.type === "string" && n.type === w.type;
}

/** A schema with its `$ref` chain followed (a schema holding only a `$ref`); undefined when it leads nowhere. */
function resolve(defs: Record<string, JsonSchema>, schema: JsonSchema | undefined): JsonSchema | undefined {
  let node = schema;
  for (let hops = 0; node && typeof node.$ref === "string" && Object.keys(node).length === 1 && hops < 32; hops++)
    node = defs[refName(node.$ref)];
  return node && typeof node.$ref === "string" ? undefined : node;
}

function onlyKeys(schema: JsonSchema, allowed: string[]): boolean {
  return Object.keys(schema).every((key) => allowed.includes(key));
}

function canonical(node: unknown): string {
  if (Array.isArray(node)) return `[${node.map(canonical).join(",")}]`;
  if (node === null || typeof node !== "object") return JSON.stringify(node);
  return `{${Object.keys(node)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical((node as JsonSchema)[k])}`)
    .join(",")}}`;
}
