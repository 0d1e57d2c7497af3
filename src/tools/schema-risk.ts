/**
 * @module schema-risk: whether a server's `inputSchema` can make its validator cost more than a bounded amount per
 * value of the client's arguments, read from the schema's text before it is compiled: the schemas judged per value
 * (`$ref` chains, `anyOf`/`oneOf`/`allOf` fan-out and recursion through them, counted with multiplicity per level of
 * the value: a `$ref` used twice in a branch is judged twice), and `uniqueItems` over items of no scalar type, which
 * Ajv checks by comparing every pair. No engine makes these linear. Patterns are not read here: the edge runs them on a
 * linear-time engine (compile/linear-pattern.ts). The reading is conservative: a harmless schema may be read as risky
 * (the edge then passes its calls to the server, which judges them alone). Web APIs only.
 */

/** Most schemas judged for one value of the arguments (at any one level): past it, the schema is not run at the edge. */
export const MAX_EVALUATIONS_PER_VALUE = 24;
/** Deepest level of the arguments counted: the nesting bound of a message. */
const MAX_LEVELS = 64;
/** Enum values compared per schema judgement: Ajv compares a value with each in turn. */
const ENUM_VALUES_PER_JUDGEMENT = 16;

type Node = Record<string, unknown>;

/** Keywords whose subschemas judge the same value. */
const IN_PLACE_ONE = ["not", "if", "then", "else"] as const;
const IN_PLACE_MANY = ["allOf", "anyOf", "oneOf"] as const;
const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/**
 * Why `schema` (an `inputSchema`) is not to be run at the edge, or `undefined`: `uniqueItems` over items of no scalar type (a comparison of every pair: quadratic in the array), or more than
 * `MAX_EVALUATIONS_PER_VALUE` schemas judged for one value of the arguments (`$ref` chains, fan-out, recursion through
 * `anyOf`/`oneOf`), counted through `$ref` with multiplicity, level by level.
 */
export function schemaRisk(schema: unknown): string | undefined {
  if (!isNode(schema)) return undefined;
  const nodes: Node[] = [];
  const index = new Map<Node, number>();
  const found: { reason?: string } = {};
  const collect = (node: unknown, depth: number): void => {
    if (found.reason !== undefined || depth > 256) return;
    if (Array.isArray(node)) return node.forEach((n) => collect(n, depth + 1));
    if (!isNode(node)) return;
    if (index.has(node)) return;
    index.set(node, nodes.length);
    nodes.push(node);
    if (node.uniqueItems === true && !scalarItems(node.items))
      found.reason ??= "uniqueItems over items of no scalar type (every pair compared)";
    for (const key of Object.keys(node))
      if (key !== "enum" && key !== "const" && key !== "examples" && key !== "default") collect(node[key], depth + 1);
  };
  collect(schema, 0);
  if (found.reason !== undefined) return found.reason;
  const most = evaluationsPerValue(schema, nodes, index);
  return most > MAX_EVALUATIONS_PER_VALUE
    ? `more than ${MAX_EVALUATIONS_PER_VALUE} schemas judged for one value (a $ref chain, anyOf/oneOf fan-out or recursion through them)`
    : undefined;
}

function scalarItems(items: unknown): boolean {
  if (!isNode(items)) return false;
  const type = items.type;
  const types = typeof type === "string" ? [type] : Array.isArray(type) ? type : [];
  return types.length > 0 && types.every((t) => typeof t === "string" && SCALAR_TYPES.has(t));
}

/** The most schemas judged for one value at any level of the arguments, capped just past the bound. */
function evaluationsPerValue(root: Node, nodes: Node[], index: Map<Node, number>): number {
  const counter = new EvaluationCounter(root, nodes.length, index);
  // Level by level: level[n] = schemas judged for one value l levels below a value `nodes[n]` judges.
  let level = nodes.map((n) => counter.weight(n));
  let most = level[0]!;
  const closures = nodes.map((n) => counter.closure(n));
  // Each node's groups as indexes, once; per level, each node's widest group once, then each closure's sum.
  const groups = nodes.map((n) => childGroups(n).map((group) => group.map((s) => index.get(s) ?? -1)));
  for (let l = 1; l <= MAX_LEVELS && most <= MAX_EVALUATIONS_PER_VALUE; l++) {
    const previous = level;
    level = counter.nextLevel(previous, groups, closures);
    most = Math.max(most, level[0]!);
    if (level.every((v, n) => v === previous[n])) break;
  }
  return most;
}

/** The counts behind `evaluationsPerValue` over the nodes `schemaRisk` collected, each capped just past the bound. */
class EvaluationCounter {
  private readonly cap = MAX_EVALUATIONS_PER_VALUE + 1;
  /** Each node's `weight` once known (-1 until then). */
  private readonly own: number[];
  /** The nodes whose `weight` is being computed: meeting one again is a cycle. */
  private readonly visiting = new Set<number>();

  constructor(
    private readonly root: Node,
    count: number,
    private readonly index: Map<Node, number>,
  ) {
    this.own = new Array<number>(count).fill(-1);
  }

  /** The subschemas that judge the same value as `node`: in-place keywords and the targets of its references. */
  inPlace(node: Node): Node[] {
    const out: Node[] = [];
    for (const key of IN_PLACE_ONE) if (isNode(node[key])) out.push(node[key] as Node);
    for (const key of IN_PLACE_MANY) if (Array.isArray(node[key])) for (const s of node[key] as unknown[]) if (isNode(s)) out.push(s);
    if (isNode(node.dependentSchemas)) for (const s of Object.values(node.dependentSchemas)) if (isNode(s)) out.push(s);
    for (const key of ["$ref", "$dynamicRef", "$recursiveRef"]) {
      if (node[key] === undefined) continue;
      // A dynamic reference may land anywhere: the root stands for it. An unresolved one does not compile.
      const target = key === "$ref" ? this.resolve(node[key]) : this.root;
      if (target) out.push(target);
    }
    return out;
  }

  /** The schema a `$ref` names inside the root, if any. */
  private resolve(ref: unknown): Node | undefined {
    return typeof ref === "string" ? pointerIn(this.root, ref) : undefined;
  }

  /** The schemas judged for the same value as `node`, counted with multiplicity: a cycle among them is unbounded. */
  weight(node: Node): number {
    const at = this.index.get(node);
    if (at === undefined) return 1;
    if (this.own[at]! >= 0) return this.own[at]!;
    if (this.visiting.has(at)) return this.cap;
    this.visiting.add(at);
    let sum = 1 + (Array.isArray(node.enum) ? Math.floor(node.enum.length / ENUM_VALUES_PER_JUDGEMENT) : 0);
    for (const child of this.inPlace(node)) sum = Math.min(this.cap, sum + this.weight(child));
    this.visiting.delete(at);
    this.own[at] = sum;
    return sum;
  }

  /** `node` and the schemas judged in place through it, with repeats, cut once past the cap. */
  closure(node: Node): Node[] {
    const out: Node[] = [];
    this.walk(node, out);
    return out;
  }

  /** Depth first, in the order `inPlace` gives. */
  private walk(node: Node, out: Node[]): void {
    if (out.length > this.cap) return;
    out.push(node);
    for (const child of this.inPlace(node)) this.walk(child, out);
  }

  /** One level further down: per node, the sum over its closure of each member's widest group at the `previous` level. */
  nextLevel(previous: readonly number[], groups: readonly number[][][], closures: readonly Node[][]): number[] {
    const widest = groups.map((list) => this.widest(list, previous));
    return closures.map((members) => {
      let sum = 0;
      for (const member of members) {
        const at = this.index.get(member);
        if (at !== undefined) sum = Math.min(this.cap, sum + widest[at]!);
      }
      return sum;
    });
  }

  /** The largest sum of `previous` over one of a node's groups (a schema outside the nodes counts one). */
  private widest(list: readonly number[][], previous: readonly number[]): number {
    let best = 0;
    for (const group of list) {
      let sum = 0;
      for (const at of group) sum += at < 0 ? 1 : previous[at]!;
      best = Math.max(best, sum);
    }
    return Math.min(this.cap, best);
  }
}

/** The groups of subschemas that judge one member or item of the value: the sum within a group, the most of the groups. */
function childGroups(node: Node): Node[][] {
  const groups: Node[][] = [];
  const shared: Node[] = [];
  if (isNode(node.patternProperties)) for (const s of Object.values(node.patternProperties)) if (isNode(s)) shared.push(s);
  for (const key of ["additionalProperties", "unevaluatedProperties"]) if (isNode(node[key])) shared.push(node[key] as Node);
  const properties = isNode(node.properties) ? Object.values(node.properties).filter(isNode) : [];
  if (properties.length === 0) groups.push(shared);
  for (const p of properties) groups.push([p, ...shared]);
  if (isNode(node.propertyNames)) groups.push([node.propertyNames]);
  const itemShared: Node[] = [];
  for (const key of ["additionalItems", "contains", "unevaluatedItems"]) if (isNode(node[key])) itemShared.push(node[key] as Node);
  const tuple = [...(Array.isArray(node.prefixItems) ? node.prefixItems : []), ...(Array.isArray(node.items) ? node.items : [])].filter(
    isNode,
  );
  if (isNode(node.items)) itemShared.push(node.items);
  if (tuple.length === 0) groups.push(itemShared);
  for (const t of tuple) groups.push([t, ...itemShared]);
  return groups;
}

function pointerIn(root: Node, ref: string): Node | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      // A malformed percent escape names no schema: unresolved, as Ajv leaves it.
      return undefined;
    }
    if (!isNode(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return isNode(node) ? node : undefined;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
