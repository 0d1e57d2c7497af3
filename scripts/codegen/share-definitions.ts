import type { JsonSchema } from "./load-spec.js";
import { refName, SelectionError } from "./select-definitions.js";

/** One revision's definitions (prose stripped, `$defs` shape) and the names its validators start from. */
export interface RevisionDefinitions {
  revision: string;
  defs: Record<string, JsonSchema>;
  roots: string[];
}

/** Definitions of several revisions in one document, each schema once however many revisions share it. */
export interface SharedDefinitions {
  /** Merged name → schema, `$ref`s pointing at merged names; sorted by name. */
  defs: Record<string, JsonSchema>;
  /** The merged name of a revision's definition (one reachable from that revision's roots). */
  nameOf(revision: string, definition: string): string;
  /** Every merged definition with the revisions that share it, sorted by name. */
  classes: Array<{ name: string; definition: string; revisions: string[] }>;
}

const REF_PREFIX = "#/$defs/";

/**
 * Compares the definitions reachable from each revision's roots and keeps one schema per group of identical
 * ones: two revisions' `X` are one when their schemas are equal (keys in any order) and every definition they
 * refer to is one too, cycles included (partition refinement, as in automaton minimisation). A group that holds
 * `plain`'s definition keeps the bare name; any other is named after its earliest revision, `X_2024_11_05`.
 */
export function shareDefinitions(revisions: RevisionDefinitions[], plain: string): SharedDefinitions {
  const nodes: Array<{ revision: string; definition: string; schema: JsonSchema }> = [];
  const index = new Map<string, number>();
  const key = (revision: string, definition: string) => `${revision} ${definition}`;
  for (const { revision, defs, roots } of revisions) {
    const pending = [...roots];
    while (pending.length > 0) {
      const definition = pending.pop()!;
      if (index.has(key(revision, definition))) continue;
      const schema = defs[definition];
      if (!schema) throw new SelectionError(`revision ${revision} has no definition ${definition}`);
      index.set(key(revision, definition), nodes.length);
      nodes.push({ revision, definition, schema });
      pending.push(...refsOf(schema));
    }
  }
  // Start from name + shape with references by name; refine by the groups references lead to, until stable.
  let group = classify(nodes.map((n) => `${n.definition}\n${canonical(n.schema, (ref) => ref)}`));
  for (let count = new Set(group).size; ; ) {
    const next = classify(
      nodes.map((n, i) => `${group[i]}\n${canonical(n.schema, (ref) => String(group[index.get(key(n.revision, refName(ref)))!]))}`),
    );
    const nextCount = new Set(next).size;
    group = next;
    if (nextCount === count) break;
    count = nextCount;
  }

  const members = new Map<number, number[]>();
  nodes.forEach((_, i) => {
    const list = members.get(group[i]!) ?? [];
    list.push(i);
    members.set(group[i]!, list);
  });
  const nameOfGroup = new Map<number, string>();
  const taken = new Map<string, number>();
  for (const [id, list] of members) {
    const revisionsOf = list.map((i) => nodes[i]!.revision).sort();
    const definition = nodes[list[0]!]!.definition;
    const name = revisionsOf.includes(plain) ? definition : `${definition}_${revisionsOf[0]!.replace(/-/g, "_")}`;
    if (taken.has(name)) throw new SelectionError(`two groups of definitions would both be named ${name}`);
    taken.set(name, id);
    nameOfGroup.set(id, name);
  }
  const nameOf = (revision: string, definition: string): string => {
    const i = index.get(key(revision, definition));
    if (i === undefined) throw new SelectionError(`${definition} of ${revision} is not reachable from that revision's roots`);
    return nameOfGroup.get(group[i]!)!;
  };

  const defs: Record<string, JsonSchema> = {};
  const classes: SharedDefinitions["classes"] = [];
  for (const name of [...taken.keys()].sort()) {
    const list = members.get(taken.get(name)!)!;
    // The latest revision's copy: its key order is the one the newest clients were written against.
    const chosen = list.reduce((a, b) => (nodes[b]!.revision > nodes[a]!.revision ? b : a));
    const { revision, definition, schema } = nodes[chosen]!;
    defs[name] = rewriteRefs(schema, (ref) => REF_PREFIX + nameOf(revision, refName(ref))) as JsonSchema;
    classes.push({ name, definition, revisions: list.map((i) => nodes[i]!.revision).sort() });
  }
  return { defs, nameOf, classes };
}

/** Dense ids for labels, numbered in sorted label order so that ids do not depend on the order of the nodes. */
function classify(labels: string[]): number[] {
  const ids = new Map([...new Set(labels)].sort().map((label, i) => [label, i]));
  return labels.map((label) => ids.get(label)!);
}

// Instance data, never schemas: a "$ref" member inside them is a value, not a reference.
const DATA_KEYWORDS = new Set(["const", "enum", "default"]);
// Under these keywords the keys are names (of properties or definitions), never keywords.
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

type Place = "schema" | "names" | "data";

/** Where a member's value sits: instance data, a map of names to schemas, or a schema. */
function placeOf(place: Place, key: string): Place {
  if (place === "data") return "data";
  if (place === "names") return "schema";
  return DATA_KEYWORDS.has(key) ? "data" : NAME_MAPS.has(key) ? "names" : "schema";
}

/** Every `$ref` target a schema names (outside instance data). */
export function refsOf(node: unknown, out: string[] = [], place: Place = "schema"): string[] {
  if (place === "data") return out;
  if (Array.isArray(node)) for (const item of node) refsOf(item, out, place);
  else if (node !== null && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (place === "schema" && k === "$ref" && typeof v === "string") out.push(refName(v));
      else refsOf(v, out, placeOf(place, k));
    }
  }
  return out;
}

/** JSON with object keys sorted and every `$ref` value replaced by `ref(value)`. */
function canonical(node: unknown, ref: (value: string) => string, place: Place = "schema"): string {
  if (Array.isArray(node)) return `[${node.map((item) => canonical(item, ref, place)).join(",")}]`;
  if (node === null || typeof node !== "object") return JSON.stringify(node);
  const parts = Object.keys(node)
    .sort()
    .map((k) => {
      const v = (node as JsonSchema)[k];
      const text =
        place === "schema" && k === "$ref" && typeof v === "string" ? JSON.stringify(ref(v)) : canonical(v, ref, placeOf(place, k));
      return `${JSON.stringify(k)}:${text}`;
    });
  return `{${parts.join(",")}}`;
}

function rewriteRefs(node: unknown, ref: (value: string) => string, place: Place = "schema"): unknown {
  if (place === "data") return node;
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, ref, place));
  if (node === null || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = place === "schema" && k === "$ref" && typeof v === "string" ? ref(v) : rewriteRefs(v, ref, placeOf(place, k));
  }
  return out;
}
