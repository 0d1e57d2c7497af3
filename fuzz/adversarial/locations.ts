/**
 * @module fuzz/adversarial/locations: every array- and map-typed schema node reachable from a lane's roots, and every
 * string node a regex judges (`format`, `pattern`), each with the shortest route to it from a root (breadth first).
 * A node is one location however many routes reach it: recursive definitions (JSONValue) are walked once.
 */
import type { JsonSchema } from "../../scripts/codegen/load-spec.js";
import { pointerSegment } from "./checker.js";
import type { Lane, LaneKey, Root } from "./lanes.js";

/** One move from a schema node to a node inside it, and what it means for the instance. */
export type Step =
  | { kind: "ref"; definition: string }
  | { kind: "prop"; name: string }
  /** A member a map's `additionalProperties` judges. */
  | { kind: "entry" }
  | { kind: "item" }
  | { kind: "branch"; keyword: "anyOf" | "oneOf"; index: number }
  | { kind: "part"; index: number };

interface Reached {
  lane: LaneKey;
  /** The node, as a JSON pointer into the lane's document (`/$defs/<name>/...`). */
  pointer: string;
  root: Root;
  route: Step[];
  /** Where the node's value sits in the message; a map entry on the way is `a`, an item `0`. */
  instancePath: string;
}

export interface Location extends Reached {
  shape: "array" | "map";
  /** The schema node judging each item (`items`) or member (`additionalProperties`). */
  itemPointer: string;
  /** Whether every value passes the item node (`{}`): n items there cannot be invalid. */
  open: boolean;
}

export interface RegexSite extends Reached {
  keyword: "format" | "pattern";
  /** The format's name, or the pattern itself. */
  name: string;
}

export interface Walk {
  locations: Location[];
  regexSites: RegexSite[];
}

/** The key a route puts in a map on the way to a location. */
export const ROUTE_KEY = "a";

export function walkLane(lane: Lane): Walk {
  const locations: Location[] = [];
  const regexSites: RegexSite[] = [];
  const seen = new Set<string>();
  const queue: Reached[] = lane.roots.map((root) => ({
    lane: lane.key,
    pointer: `/$defs/${pointerSegment(root.definition)}`,
    root,
    route: [],
    instancePath: root.at,
  }));
  for (let q = 0; q < queue.length; q++) {
    const at = queue[q]!;
    if (seen.has(at.pointer)) continue;
    seen.add(at.pointer);
    const node = nodeAt(lane.defs, at.pointer);
    const next = (step: Step, pointer: string, instance = "") =>
      queue.push({ ...at, pointer, route: [...at.route, step], instancePath: at.instancePath + instance });
    if (typeof node.$ref === "string") {
      const definition = node.$ref.slice("#/$defs/".length);
      next({ kind: "ref", definition }, `/$defs/${pointerSegment(definition)}`);
    }
    if (isArrayNode(node)) {
      const itemPointer = `${at.pointer}/items`;
      locations.push({ ...at, shape: "array", itemPointer, open: isOpen(node.items) });
      if (isSchema(node.items)) next({ kind: "item" }, itemPointer, "/0");
    }
    if (isSchema(node.additionalProperties)) {
      const itemPointer = `${at.pointer}/additionalProperties`;
      locations.push({ ...at, shape: "map", itemPointer, open: isOpen(node.additionalProperties) });
      next({ kind: "entry" }, itemPointer, `/${ROUTE_KEY}`);
    }
    if (typeof node.format === "string") regexSites.push({ ...at, keyword: "format", name: node.format });
    if (typeof node.pattern === "string") regexSites.push({ ...at, keyword: "pattern", name: node.pattern });
    for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, unknown>)) {
      if (isSchema(child)) next({ kind: "prop", name }, `${at.pointer}/properties/${pointerSegment(name)}`, `/${pointerSegment(name)}`);
    }
    for (const keyword of ["anyOf", "oneOf"] as const) {
      (node[keyword] as unknown[] | undefined)?.forEach((_, index) =>
        next({ kind: "branch", keyword, index }, `${at.pointer}/${keyword}/${index}`),
      );
    }
    (node.allOf as unknown[] | undefined)?.forEach((_, index) => next({ kind: "part", index }, `${at.pointer}/allOf/${index}`));
  }
  return { locations, regexSites };
}

export function nodeAt(defs: Record<string, JsonSchema>, pointer: string): JsonSchema {
  let node: unknown = { $defs: defs };
  for (const segment of pointer.split("/").slice(1)) {
    node = (node as Record<string, unknown>)[segment.replace(/~1/g, "/").replace(/~0/g, "~")];
    if (node === undefined) throw new RangeError(`no schema node at ${pointer}`);
  }
  if (!isSchema(node)) throw new RangeError(`${pointer} is not a schema object`);
  return node;
}

export function isArrayNode(node: JsonSchema): boolean {
  return node.type === "array" || (Array.isArray(node.type) && node.type.includes("array"));
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `{}` (or a schema of annotations only) accepts every value. */
export function isOpen(node: unknown): boolean {
  if (node === true) return true;
  return isSchema(node) && Object.keys(node).every((k) => k === "title" || k === "deprecated" || k === "default");
}

/** A short name for a location: the route's definitions and members, e.g. `CreateMessageResult.content[]`. */
export function describeLocation(l: { pointer: string; shape?: "array" | "map" }): string {
  const [, , definition = "", ...rest] = l.pointer.split("/");
  let out = definition;
  for (let i = 0; i < rest.length; i++) {
    const key = rest[i]!;
    if (key === "properties") out += `.${rest[++i]!.replace(/~1/g, "/").replace(/~0/g, "~")}`;
    else if (key === "anyOf" || key === "oneOf" || key === "allOf") out += `|${rest[++i]}`;
    else if (key === "items") out += "[]";
    else if (key === "additionalProperties") out += "{}";
  }
  return out + (l.shape === "array" ? "[]" : l.shape === "map" ? "{}" : "");
}
