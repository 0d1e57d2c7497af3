/**
 * @module fuzz/adversarial/instances: minimal valid instances of schema nodes (required members, constants, the
 * first enum value, a valid branch of a union), messages that carry a chosen value at a location's route, and
 * values that fail an item node, each checked by the lane's checker rather than assumed.
 */
import type { JsonSchema } from "../../scripts/codegen/load-spec.js";
import { pointerSegment, type Checker } from "./checker.js";
import { nodeAt, ROUTE_KEY, type Step } from "./locations.js";

export class InstanceError extends Error {
  override name = "InstanceError";
}

/** Values the protocol expects by member name; each is used only where the node accepts it. */
const HINTS: Record<string, unknown> = {
  id: 1,
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  name: "echo",
  version: "1.0.0",
  uri: "file:///readme.txt",
  mimeType: "text/plain",
};

/** Samples of strings for each format of schemas/formats.json; unknown formats get none (then codegen would have failed). */
const FORMAT_SAMPLES: Record<string, string> = { uri: "file:///readme.txt", "uri-template": "file:///{name}", byte: "" };

export interface Instances {
  minimal(pointer: string, hints?: Record<string, unknown>): unknown;
  /** A valid value of the node at `pointer` that holds `leaf` at the end of `route`. */
  realise(pointer: string, route: readonly Step[], leaf: unknown, hints?: Record<string, unknown>): unknown;
  /** Values that fail the item node, by kind: a type no branch takes, `{}`, an object no discriminator admits. */
  invalidItems(itemPointer: string): Array<{ kind: ItemKind; value: unknown }>;
}

export type ItemKind = "wrong-type" | "empty-object" | "no-discriminator" | "open";

export function makeInstances(defs: Record<string, JsonSchema>, check: Checker): Instances {
  const cache = new Map<string, unknown>();

  function minimal(pointer: string, hints: Record<string, unknown> = {}, depth = 0): unknown {
    const key = Object.keys(hints).length === 0 ? pointer : undefined;
    if (key && cache.has(key)) return structuredClone(cache.get(key));
    if (depth > 40) throw new InstanceError(`no finite minimal instance at ${pointer}`);
    const value = build(pointer, hints, depth);
    if (!check(pointer, value)) throw new InstanceError(`minimal instance ${JSON.stringify(value).slice(0, 200)} fails ${pointer}`);
    if (key) cache.set(key, structuredClone(value));
    return value;
  }

  function build(pointer: string, hints: Record<string, unknown>, depth: number): unknown {
    const node = nodeAt(defs, pointer);
    if (typeof node.$ref === "string") return minimal(`/$defs/${pointerSegment(node.$ref.slice(8))}`, hints, depth + 1);
    if ("const" in node) return structuredClone(node.const);
    if (Array.isArray(node.enum)) return structuredClone(node.enum[0]);
    let value = ownValue(node, pointer, hints, depth);
    (node.allOf as unknown[] | undefined)?.forEach((_, i) => (value = merge(value, minimal(`${pointer}/allOf/${i}`, hints, depth + 1))));
    for (const keyword of ["anyOf", "oneOf"] as const) {
      const branches = node[keyword] as unknown[] | undefined;
      if (!branches) continue;
      const found = branches
        .map((_, i) => attempt(() => merge(value, minimal(`${pointer}/${keyword}/${i}`, hints, depth + 1))))
        .find((v): v is { ok: true; value: unknown } => v.ok && check(pointer, v.value));
      if (!found) throw new InstanceError(`no branch of ${pointer} has a minimal instance`);
      value = found.value;
    }
    return value;
  }

  /** The value the node's own keywords (type, properties, required, items) ask for, before any union or allOf. */
  function ownValue(node: JsonSchema, pointer: string, hints: Record<string, unknown>, depth: number): unknown {
    const types = Array.isArray(node.type)
      ? (node.type as string[])
      : typeof node.type === "string"
        ? [node.type]
        : node.properties || node.required
          ? ["object"]
          : [];
    if (types.length === 0) return node.anyOf || node.oneOf || node.allOf ? undefined : {};
    const type = types[0]!;
    switch (type) {
      case "object": {
        const out: Record<string, unknown> = {};
        const properties = (node.properties ?? {}) as Record<string, JsonSchema>;
        for (const name of (node.required ?? []) as string[]) {
          const at = `${pointer}/properties/${pointerSegment(name)}`;
          out[name] = name in hints ? hints[name] : name in properties ? member(at, name, depth) : {};
        }
        for (const [name, value] of Object.entries(hints)) if (!(name in out) && name in properties) out[name] = value;
        return out;
      }
      case "array":
        return Array.from({ length: Number(node.minItems ?? 0) }, () => minimal(`${pointer}/items`, {}, depth + 1));
      case "string":
        if (typeof node.pattern === "string") throw new InstanceError(`no sample for pattern ${node.pattern} at ${pointer}`);
        if (typeof node.format === "string") return FORMAT_SAMPLES[node.format] ?? "";
        return "a".repeat(Number(node.minLength ?? 0));
      case "integer":
      case "number":
        return Number(node.minimum ?? (typeof node.exclusiveMinimum === "number" ? node.exclusiveMinimum + 1 : 0));
      case "boolean":
        return false;
      case "null":
        return null;
      default:
        throw new InstanceError(`unknown type ${type} at ${pointer}`);
    }
  }

  /** A required member: the hint for its name where the node takes it, else its minimal instance. */
  function member(pointer: string, name: string, depth: number): unknown {
    if (name in HINTS && check(pointer, HINTS[name])) return structuredClone(HINTS[name]);
    return minimal(pointer, {}, depth + 1);
  }

  function realise(pointer: string, route: readonly Step[], leaf: unknown, hints: Record<string, unknown> = {}): unknown {
    const value = place(pointer, route, leaf, hints);
    return value;
  }

  function place(pointer: string, route: readonly Step[], leaf: unknown, hints: Record<string, unknown>): unknown {
    if (route.length === 0) return leaf;
    const [step, ...rest] = route as [Step, ...Step[]];
    const node = nodeAt(defs, pointer);
    switch (step.kind) {
      case "ref":
        return place(`/$defs/${pointerSegment(step.definition)}`, rest, leaf, hints);
      case "prop": {
        return { ...shell(node, pointer, hints), [step.name]: place(`${pointer}/properties/${pointerSegment(step.name)}`, rest, leaf, {}) };
      }
      case "entry":
        return { ...shell(node, pointer, hints), [ROUTE_KEY]: place(`${pointer}/additionalProperties`, rest, leaf, {}) };
      case "item":
        return [place(`${pointer}/items`, rest, leaf, {})];
      case "branch": {
        // The union's siblings (type, properties) hold as for the node alone; the branch's members win.
        const branch = place(`${pointer}/${step.keyword}/${step.index}`, rest, leaf, hints);
        return merge(shell({ ...node, [step.keyword]: undefined }, pointer, hints), branch);
      }
      case "part": {
        let value = place(`${pointer}/allOf/${step.index}`, rest, leaf, hints);
        (node.allOf as unknown[]).forEach((_, i) => {
          if (i !== step.index) value = merge(minimal(`${pointer}/allOf/${i}`, hints), value);
        });
        return merge(shell({ ...node, allOf: undefined }, pointer, hints), value);
      }
    }
  }

  /** The node's own required members, for a route that passes through it. */
  function shell(node: JsonSchema, pointer: string, hints: Record<string, unknown>): Record<string, unknown> {
    const own = ownValue(node, pointer, hints, 0);
    return isPlainObject(own) ? own : {};
  }

  function invalidItems(itemPointer: string): Array<{ kind: ItemKind; value: unknown }> {
    const out: Array<{ kind: ItemKind; value: unknown }> = [];
    const fails = (value: unknown) => !check(itemPointer, value);
    const wrong = [null, 1.5, 1, true, "x", {}, []].find((v) => fails(v) && (typeof v !== "object" || v === null));
    if (wrong !== undefined) out.push({ kind: "wrong-type", value: wrong });
    if (fails({})) out.push({ kind: "empty-object", value: {} });
    const mismatch = discriminatorMismatch(itemPointer);
    if (mismatch && fails(mismatch)) out.push({ kind: "no-discriminator", value: mismatch });
    if (out.length === 0) out.push({ kind: "open", value: 1 });
    return out;
  }

  /** The minimal instance of the first object branch with every constant member set to a value no branch names. */
  function discriminatorMismatch(pointer: string): Record<string, unknown> | undefined {
    const constants = new Set<string>();
    let sample: Record<string, unknown> | undefined;
    const visit = (p: string, depth: number): void => {
      if (depth > 6) return;
      const node = nodeAt(defs, p);
      if (typeof node.$ref === "string") return visit(`/$defs/${pointerSegment(node.$ref.slice(8))}`, depth + 1);
      for (const [name, member] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>))
        if ("const" in member) constants.add(name);
      for (const keyword of ["anyOf", "oneOf"] as const)
        (node[keyword] as unknown[] | undefined)?.forEach((_, i) => visit(`${p}/${keyword}/${i}`, depth + 1));
      if (!sample && node.properties) {
        const value = attempt(() => minimal(p));
        if (value.ok && typeof value.value === "object" && value.value !== null && !Array.isArray(value.value))
          sample = value.value as Record<string, unknown>;
      }
    };
    visit(pointer, 0);
    if (!sample || constants.size === 0) return undefined;
    const out = { ...sample };
    for (const name of constants) out[name] = "adversarial";
    return out;
  }

  return { minimal: (p, h) => minimal(p, h), realise, invalidItems };
}

function merge(a: unknown, b: unknown): unknown {
  if (a === undefined) return b;
  if (isPlainObject(a) && isPlainObject(b)) return { ...a, ...b };
  return b;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function attempt<T>(f: () => T): { ok: true; value: T } | { ok: false } {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    if (error instanceof InstanceError || error instanceof RangeError) return { ok: false };
    throw error;
  }
}
