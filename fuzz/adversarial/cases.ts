/**
 * @module fuzz/adversarial/cases: the generator. For every array and map location of every lane (locations.ts),
 * a minimal valid message reaching it (instances.ts) with n items there of each invalid kind; for every regex of
 * the lanes and of schemas/formats.json, a message with a backtracking input (regex.ts) at a string it judges; and
 * for the legacy lane, a batch of n invalid messages. Bodies are built on demand, any n, up to the body limit.
 */
import type { JsonSchema } from "../../scripts/codegen/load-spec.js";
import { makeChecker, pointerSegment, type Checker } from "./checker.js";
import { makeInstances, type Instances, type ItemKind } from "./instances.js";
import { loadFormats, loadLanes, type Lane, type LaneKey, type Root } from "./lanes.js";
import { describeLocation, ROUTE_KEY, walkLane, type Location, type RegexSite, type Step } from "./locations.js";
import { backtrackingInputs, type RegexInput } from "./regex.js";

export type TargetShape = "array" | "map" | "regex" | "batch";

/** One place where n items (or a run of n characters) go, and how to build a message with them. */
export interface Target {
  lane: LaneKey;
  era: "legacy" | "modern";
  direction: "inbound" | "outbound";
  shape: TargetShape;
  /** `CreateMessageResult.content[]`, `format uri`, `batch`. */
  label: string;
  root: Root;
  /** Where the items (or the string) sit in the message. */
  instancePath: string;
  /** The maps on the way to the items (outermost first) whose member `ROUTE_KEY` the route passes through. */
  entries: string[];
  /** Item kinds (regex: input names); an `open` location takes every value, so its bodies are valid. */
  kinds: string[];
  /** The message with n items of `kind` (n characters' worth of pump for a regex). */
  message(kind: string, n: number): unknown;
  /**
   * Whether the message must be rejected, as Ajv judges it at run time: false for open locations, and for
   * locations behind a union whose sibling branch takes the same members without the items (`shadowed`).
   */
  rejects(kind: string): boolean;
}

export interface Generated {
  lanes: Lane[];
  locations: Location[];
  regexSites: RegexSite[];
  targets: Target[];
  /** Every regex judged anywhere: formats.json's (by name) and the lanes' patterns. */
  regexes: Array<{ name: string; source: string; inputs: RegexInput[] }>;
}

/** Map keys of one width, so that a body's length grows by the same bytes per item. */
export const mapKey = (i: number) => `k${i.toString(36).padStart(4, "0")}`;

export function generate(specDir?: string): Generated {
  const lanes = loadLanes(specDir);
  const formats = loadFormats();
  const targets: Target[] = [];
  const locations: Location[] = [];
  const regexSites: RegexSite[] = [];
  const patterns = new Map<string, string>();
  for (const lane of lanes) {
    const check = makeChecker(lane.defs, formats, `urn:wymcp-adversarial:${lane.key}`);
    const instances = makeInstances(lane.defs, check);
    const walk = walkLane(lane);
    locations.push(...walk.locations);
    regexSites.push(...walk.regexSites);
    for (const location of walk.locations) targets.push(locationTarget(lane, location, instances, check));
    // One site per regex and lane: the first the walk reached, the shortest route.
    const firstSites = new Map<string, RegexSite>();
    for (const site of walk.regexSites) if (!firstSites.has(site.name)) firstSites.set(site.name, site);
    for (const site of firstSites.values()) {
      const source = site.keyword === "format" ? formats[site.name] : site.name;
      if (source === undefined) throw new Error(`format ${site.name} at ${site.pointer} is not in schemas/formats.json`);
      if (site.keyword === "pattern") patterns.set(site.name, site.name);
      targets.push(regexTarget(lane, site, source, instances));
    }
    if (lane.key === "inbound-legacy") targets.push(batchTarget(lane));
  }
  const regexes = [
    ...Object.entries(formats).map(([name, source]) => ({ name: `format ${name}`, source, inputs: backtrackingInputs(source) })),
    ...[...patterns.keys()].map((source) => ({ name: `pattern ${source}`, source, inputs: backtrackingInputs(source) })),
  ];
  return { lanes, locations, regexSites, targets, regexes };
}

function wrap(root: Root, instance: unknown): unknown {
  if (root.at === "/result") return { jsonrpc: "2.0", id: 1, result: instance };
  // A legacy revision's definition before 2025-11-25 holds method and params only: the envelope goes around it.
  if (root.envelope === "request") return { jsonrpc: "2.0", id: 1, ...(instance as object) };
  if (root.envelope === "notification") return { jsonrpc: "2.0", ...(instance as object) };
  return instance;
}

function rootPointer(root: Root): string {
  return `/$defs/${pointerSegment(root.definition)}`;
}

function locationTarget(lane: Lane, location: Location, instances: Instances, check: Checker): Target {
  const items = location.open ? [{ kind: "open" as ItemKind, value: 1 }] : instances.invalidItems(location.itemPointer);
  const byKind = new Map(items.map((i) => [i.kind as string, i.value]));
  const shell = instances.minimal(location.pointer) as unknown;
  const build = (value: unknown, n: number): unknown => {
    if (location.shape === "array") return [...(shell as unknown[]), ...new Array(n).fill(value)];
    const map = { ...(shell as Record<string, unknown>) };
    for (let i = 0; i < n; i++) map[mapKey(i)] = value;
    return map;
  };
  const at = (leaf: unknown) => instances.realise(rootPointer(location.root), location.route, leaf, location.root.hints);
  // The route must be realisable: the message with the location empty is valid for its root.
  const empty = at(shell);
  if (!check(rootPointer(location.root), empty)) {
    throw new Error(
      `${lane.key} ${describeLocation(location)}: the message reaching it is not valid for ${location.root.definition}: ${JSON.stringify(empty).slice(0, 300)}`,
    );
  }
  return {
    lane: lane.key,
    era: lane.era,
    direction: lane.direction,
    shape: location.shape,
    label: describeLocation(location),
    root: location.root,
    instancePath: location.instancePath,
    entries: entriesOf(location),
    kinds: [...byKind.keys()],
    message: (kind, n) => wrap(location.root, at(build(byKind.get(kind), n))),
    rejects: (kind) => kind !== "open" && !check(rootPointer(location.root), at(build(byKind.get(kind), 1))),
  };
}

function regexTarget(lane: Lane, site: RegexSite, source: string, instances: Instances): Target {
  const inputs = backtrackingInputs(source);
  const byName = new Map(inputs.map((i) => [i.name, i]));
  return {
    lane: lane.key,
    era: lane.era,
    direction: lane.direction,
    shape: "regex",
    label: `${site.keyword} ${site.keyword === "format" ? site.name : `/${site.name}/`} at ${describeLocation(site)}`,
    root: site.root,
    instancePath: site.instancePath,
    entries: entriesOf(site),
    kinds: inputs.map((i) => i.name),
    message: (kind, n) =>
      wrap(site.root, instances.realise(rootPointer(site.root), site.route, byName.get(kind)!.text(n), site.root.hints)),
    rejects: () => true,
  };
}

/** The legacy lane's batches (revision 2025-03-26): the body itself is an array of n messages. */
function batchTarget(lane: Lane): Target {
  const items: Record<string, unknown> = {
    "wrong-type": 1,
    "empty-object": {},
    "no-discriminator": { jsonrpc: "adversarial", method: "tools/list", id: 1 },
  };
  const root: Root = { label: "batch (JSONRPCRequest per item, revision 2025-03-26)", definition: "JSONRPCRequest", at: "", hints: {} };
  return {
    lane: lane.key,
    era: lane.era,
    direction: "inbound",
    shape: "batch",
    label: "batch (the body)[]",
    root,
    instancePath: "",
    entries: [],
    kinds: Object.keys(items),
    message: (kind, n) => new Array(Math.max(1, n)).fill(items[kind]),
    rejects: () => true,
  };
}

/** The instance paths of the maps a route passes through by their member `ROUTE_KEY`, outermost first. */
function entriesOf(reached: { root: Root; route: Step[]; instancePath: string }): string[] {
  const entries: string[] = [];
  let path: string = reached.root.at;
  for (const step of reached.route) {
    if (step.kind === "prop") path += `/${pointerSegment(step.name)}`;
    else if (step.kind === "item") path += "/0";
    else if (step.kind === "entry") {
      entries.push(path);
      path += `/${ROUTE_KEY}`;
    }
  }
  if (path !== reached.instancePath) throw new Error(`route to ${reached.instancePath} walks to ${path}`);
  return entries;
}

/** The largest n whose body stays within `limit` bytes (bodies grow by the same bytes per item). */
export function largestN(target: Target, kind: string, limit: number): number {
  const length = (n: number) => Buffer.byteLength(JSON.stringify(target.message(kind, n)));
  const one = length(1);
  const per = length(2) - one;
  return Math.max(1, Math.floor((limit - (one - per)) / per));
}

export type { Location, RegexSite, Step, JsonSchema };
