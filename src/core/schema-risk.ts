/**
 * @module schema-risk: whether a server's `inputSchema` can make its validator cost more than a bounded amount per
 * value of the client's arguments, read from the schema's text before it is compiled. Two readings:
 * - a `pattern` (or `patternProperties` key) that backtracks over the client's string: nested or counted repeats
 *   of a group that can match in several ways (exponential), two unbounded runs over characters they share with
 *   nothing between them that only one of them takes (polynomial: `^\d*\d*x$`, `^[^@]+@[^@]+\.[^@]+$`), a run an
 *   unanchored pattern enters from every start (`[a-z]+x`), optional parts in a row that multiply the ways to
 *   split (`a?a?a?…`), and a backreference;
 * - the schemas judged per value: `$ref` chains, `anyOf`/`oneOf`/`allOf` fan-out and recursion through them, counted
 *   with multiplicity per level of the value (a `$ref` used twice in a branch is judged twice), and `uniqueItems`
 *   over items of no scalar type, which Ajv checks by comparing every pair.
 * Both readings are conservative: a harmless schema may be read as risky (the edge then passes its calls to the
 * server, which judges them alone); no schema read as safe can take more than linear time in the arguments. Web APIs
 * only.
 */

/** Most schemas judged for one value of the arguments (at any one level): past it, the schema is not run at the edge. */
export const MAX_EVALUATIONS_PER_VALUE = 24;
/** Most ways a pattern's optional parts and alternations in a row can split a string (each a try on failure). */
const MAX_SPLITS = 256;
/** A bounded repeat whose range is this wide counts as unbounded (`\d{0,1000}\d{0,1000}` is quadratic up to 1000). */
const WIDE_RANGE = 32;
/** Deepest level of the arguments counted: the nesting bound of a message. */
const MAX_LEVELS = 64;
/** Enum values compared per schema judgement: Ajv compares a value with each in turn. */
const ENUM_VALUES_PER_JUDGEMENT = 16;

// ---------------------------------------------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------------------------------------------

/** A set of characters: the ASCII ones exactly, any other as one flag (conservative: two such flags overlap). */
interface CharSet {
  ascii: Uint32Array;
  other: boolean;
}

type Item =
  | { t: "chars"; set: CharSet; min: number; max: number }
  | { t: "group"; alts: Item[][]; min: number; max: number }
  | { t: "look"; alts: Item[][] }
  | { t: "start" }
  | { t: "zero" }
  | { t: "backref" };

class PatternSyntax extends Error {}

function emptySet(): CharSet {
  return { ascii: new Uint32Array(4), other: false };
}

function setOf(test: (code: number) => boolean, other: boolean): CharSet {
  const set = emptySet();
  for (let c = 0; c < 128; c++) if (test(c)) set.ascii[c >> 5]! |= 1 << (c & 31);
  set.other = other;
  return set;
}

function union(into: CharSet, from: CharSet): CharSet {
  for (let i = 0; i < 4; i++) into.ascii[i]! |= from.ascii[i]!;
  into.other ||= from.other;
  return into;
}

function complement(set: CharSet): CharSet {
  const out = emptySet();
  for (let i = 0; i < 4; i++) out.ascii[i] = ~set.ascii[i]! >>> 0;
  out.other = true;
  return out;
}

function overlap(a: CharSet, b: CharSet): boolean {
  if (a.other && b.other) return true;
  for (let i = 0; i < 4; i++) if ((a.ascii[i]! & b.ascii[i]!) !== 0) return true;
  return false;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isWord = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
const isSpace = (c: number) => (c >= 0x09 && c <= 0x0d) || c === 0x20;
const DIGIT = setOf(isDigit, false);
const WORD = setOf(isWord, false);
const SPACE = setOf(isSpace, true);
const DOT = setOf((c) => c !== 0x0a && c !== 0x0d, true);
const ANY = setOf(() => true, true);

function charSet(code: number): CharSet {
  return code < 128 ? setOf((c) => c === code, false) : setOf(() => false, true);
}

function rangeSet(from: number, to: number): CharSet {
  return setOf((c) => c >= from && c <= to, to >= 128);
}

/** A pattern's alternatives, as Ajv's `new RegExp(pattern, "u")` reads it (classes, groups, lookarounds, quantifiers). */
function parsePattern(source: string): Item[][] {
  let i = 0;
  const alternatives = (): Item[][] => {
    const alts: Item[][] = [[]];
    while (i < source.length && source[i] !== ")") {
      if (source[i] === "|") {
        i++;
        alts.push([]);
        continue;
      }
      const item = quantified(atom());
      if (item) alts[alts.length - 1]!.push(item);
    }
    return alts;
  };
  const atom = (): Item => {
    const c = source[i++]!;
    if (c === "^") return { t: "start" };
    if (c === "$") return { t: "zero" };
    if (c === "(") {
      let look = false;
      if (source.startsWith("?:", i)) i += 2;
      else if (source.startsWith("?=", i) || source.startsWith("?!", i)) [i, look] = [i + 2, true];
      else if (source.startsWith("?<=", i) || source.startsWith("?<!", i)) [i, look] = [i + 3, true];
      else if (source.startsWith("?<", i)) {
        const close = source.indexOf(">", i);
        if (close < 0) throw new PatternSyntax("unclosed group name");
        i = close + 1;
      } else if (source[i] === "?") throw new PatternSyntax("unknown group");
      const alts = alternatives();
      if (source[i++] !== ")") throw new PatternSyntax("unclosed group");
      return look ? { t: "look", alts } : { t: "group", alts, min: 1, max: 1 };
    }
    if (c === "[") return { t: "chars", set: charClass(), min: 1, max: 1 };
    if (c === ".") return { t: "chars", set: DOT, min: 1, max: 1 };
    if (c === "\\") return escaped(false);
    return { t: "chars", set: charSet(c.codePointAt(0)!), min: 1, max: 1 };
  };
  /** An escape; in a class, `\b` is a backspace and no escape is zero-width. */
  const escaped = (inClass: boolean): Item => {
    const c = source[i++];
    if (c === undefined) throw new PatternSyntax("a lone backslash");
    const chars = (set: CharSet): Item => ({ t: "chars", set, min: 1, max: 1 });
    switch (c) {
      case "d":
        return chars(DIGIT);
      case "D":
        return chars(complement(DIGIT));
      case "w":
        return chars(WORD);
      case "W":
        return chars(complement(WORD));
      case "s":
        return chars(SPACE);
      case "S":
        return chars(complement(setOf(isSpace, false)));
      case "b":
        return inClass ? chars(charSet(8)) : { t: "zero" };
      case "B":
        return { t: "zero" };
      case "p":
      case "P": {
        const close = source.indexOf("}", i);
        if (source[i] !== "{" || close < 0) throw new PatternSyntax("a property escape without braces");
        i = close + 1;
        return chars(ANY);
      }
      case "u": {
        if (source[i] === "{") {
          const close = source.indexOf("}", i);
          if (close < 0) throw new PatternSyntax("an unclosed code point");
          const code = Number.parseInt(source.slice(i + 1, close), 16);
          i = close + 1;
          return chars(charSet(code));
        }
        const code = Number.parseInt(source.slice(i, i + 4), 16);
        i += 4;
        return chars(charSet(code));
      }
      case "x": {
        const code = Number.parseInt(source.slice(i, i + 2), 16);
        i += 2;
        return chars(charSet(code));
      }
      case "c":
        i++;
        return chars(setOf((code) => code < 0x20, false));
      case "k":
        if (inClass) return chars(charSet(0x6b));
        return { t: "backref" };
      case "n":
        return chars(charSet(0x0a));
      case "r":
        return chars(charSet(0x0d));
      case "t":
        return chars(charSet(0x09));
      case "f":
        return chars(charSet(0x0c));
      case "v":
        return chars(charSet(0x0b));
      case "0":
        return chars(charSet(0));
      default:
        if (c >= "1" && c <= "9") {
          if (inClass) return chars(charSet(c.charCodeAt(0)));
          while (i < source.length && source[i]! >= "0" && source[i]! <= "9") i++;
          return { t: "backref" };
        }
        return chars(charSet(c.codePointAt(0)!));
    }
  };
  const classAtom = (): { set: CharSet; code?: number } => {
    if (source[i] === "\\") {
      i++;
      const item = escaped(true);
      if (item.t !== "chars") throw new PatternSyntax("an escape a class cannot hold");
      const single = singleCode(item.set);
      return single === undefined ? { set: item.set } : { set: item.set, code: single };
    }
    const code = source.codePointAt(i)!;
    i += code > 0xffff ? 2 : 1;
    return { set: charSet(code), code };
  };
  const charClass = (): CharSet => {
    const negated = source[i] === "^";
    if (negated) i++;
    const set = emptySet();
    while (i < source.length && source[i] !== "]") {
      const from = classAtom();
      if (source[i] === "-" && source[i + 1] !== "]" && i + 1 < source.length && from.code !== undefined) {
        i++;
        const to = classAtom();
        union(set, to.code === undefined ? union(from.set, to.set) : rangeSet(from.code, to.code));
      } else union(set, from.set);
    }
    if (source[i++] !== "]") throw new PatternSyntax("unclosed class");
    return negated ? complement(set) : set;
  };
  const quantified = (item: Item): Item | undefined => {
    let min = 1;
    let max = 1;
    const c = source[i];
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{" && /^\{\d+(?:,\d*)?\}/.test(source.slice(i, i + 24))) {
      const [whole, lo, comma, hi] = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24))!;
      min = Number(lo);
      max = comma === undefined ? min : hi ? Number(hi) : Infinity;
      i += whole.length - 1;
    } else return item;
    i++;
    if (source[i] === "?") i++;
    if (item.t === "chars" || item.t === "group") return { ...item, min: item.min * min, max: item.max * max };
    // A quantified anchor or lookaround matches the empty string: as if unquantified.
    return item;
  };
  const alts = alternatives();
  if (i < source.length) throw new PatternSyntax('an unbalanced ")"');
  return alts;
}

function singleCode(set: CharSet): number | undefined {
  if (set.other) return undefined;
  let found: number | undefined;
  for (let c = 0; c < 128; c++) {
    if ((set.ascii[c >> 5]! & (1 << (c & 31))) === 0) continue;
    if (found !== undefined) return undefined;
    found = c;
  }
  return found;
}

/** The characters an item can take, and whether it holds a repeat or an alternation. */
function reach(item: Item): { set: CharSet; varies: boolean } {
  if (item.t === "chars") return { set: item.set, varies: item.max > item.min };
  if (item.t !== "group") return { set: emptySet(), varies: false };
  const set = emptySet();
  let varies = item.alts.length > 1 || item.max > item.min;
  for (const alt of item.alts)
    for (const inner of alt) {
      const r = reach(inner);
      union(set, r.set);
      varies ||= r.varies;
    }
  return { set, varies };
}

/** A run still able to grow: an item repeated over a range, until something it cannot take must come. */
interface Run {
  set: CharSet;
  /** How many lengths it can take (Infinity: unbounded, or a range of `WIDE_RANGE` or more). */
  ways: number;
}

interface State {
  runs: Run[];
  /** The sets of the items that must match since the start of the alternative (an unanchored run's guards). */
  guards: CharSet[];
  /** An unbounded run an unanchored pattern can enter from many starts: any item that must match after it backtracks. */
  entered: boolean;
  splits: number;
}

class Backtracks extends Error {}

function ways(min: number, max: number): number {
  return max - min >= WIDE_RANGE ? Infinity : max - min + 1;
}

function sequence(items: readonly Item[], state: State, anchored: boolean): State {
  let s = state;
  for (const item of items) s = step(item, s, anchored);
  return s;
}

function step(item: Item, s: State, anchored: boolean): State {
  if (item.t === "backref") throw new Backtracks("a backreference");
  if (item.t === "start" || item.t === "zero") return s;
  if (item.t === "look") {
    // A lookaround runs wherever it is reached: once where the position is fixed, at every split of a run otherwise.
    for (const alt of item.alts) sequence(alt, fresh(), true);
    const inner = item.alts.some((alt) => alt.some((i) => reach(i).varies && ways(0, maxOf(i)) === Infinity));
    if (inner && (s.runs.some((r) => r.ways === Infinity) || !anchored)) throw new Backtracks("a lookaround over a run");
    return s;
  }
  if (item.t === "group") {
    const { varies } = reach({ ...item, min: 1, max: 1 });
    if (item.max > 1 && varies) throw new Backtracks("a repeated group that holds a repeat or an alternation");
    if (item.max === 0) return s;
    if (item.max > 1) return chars(reach(item).set, item.min, item.max, s, anchored);
    // Once or not at all: each alternative from here, the states merged.
    const outs = item.alts.map((alt) => sequence(alt, copy(s), anchored));
    if (item.min === 0) outs.push(copy(s));
    const splits = Math.max(...outs.map((o) => o.splits)) * Math.max(1, item.alts.length);
    if (splits > MAX_SPLITS) throw new Backtracks("optional parts and alternations that split a string too many ways");
    const single = item.alts.length === 1 && item.min >= 1;
    return {
      runs: outs.flatMap((o) => o.runs),
      guards: single ? outs[0]!.guards : s.guards,
      entered: outs.some((o) => o.entered),
      splits,
    };
  }
  return chars(item.set, item.min, item.max, s, anchored);
}

function maxOf(item: Item): number {
  return item.t === "chars" || item.t === "group" ? item.max : 1;
}

function chars(set: CharSet, min: number, max: number, s: State, anchored: boolean): State {
  const must = min >= 1;
  if (must && s.entered) throw new Backtracks("an unanchored run followed by what must match");
  let runs = s.runs;
  let splits = s.splits;
  if (max > min) {
    const own = ways(min, max);
    for (const run of runs) {
      if (!overlap(run.set, set)) continue;
      if (run.ways === Infinity && own === Infinity) throw new Backtracks("two runs over the same characters in a row");
      splits *= Math.min(run.ways, own);
    }
    if (splits > MAX_SPLITS) throw new Backtracks("runs over the same characters that split a string too many ways");
  }
  // A run ends where an item it cannot take must match.
  if (must) runs = runs.filter((run) => overlap(run.set, set));
  const guards = must ? [...s.guards, set] : s.guards;
  let entered = s.entered;
  if (max > min) {
    runs = [...runs, { set, ways: ways(min, max) }];
    if (!anchored && ways(min, max) === Infinity && !s.guards.some((g) => !overlap(g, set))) entered = true;
  }
  return { runs, guards, entered, splits };
}

function fresh(): State {
  return { runs: [], guards: [], entered: false, splits: 1 };
}

function copy(s: State): State {
  return { runs: [...s.runs], guards: [...s.guards], entered: s.entered, splits: s.splits };
}

/**
 * Why `pattern` can take more than linear time in the string it judges (Ajv runs it as `new RegExp(pattern, "u")`,
 * a backtracking engine), or `undefined` when it cannot. Conservative: a pattern this cannot read is risky.
 */
export function patternRisk(pattern: string): string | undefined {
  let alts: Item[][];
  try {
    alts = parsePattern(pattern);
  } catch {
    return "a pattern this check cannot read";
  }
  try {
    for (const alt of alts) sequence(alt, fresh(), alt[0]?.t === "start");
  } catch (error) {
    if (error instanceof Backtracks) return error.message;
    throw error;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------------------------

type Node = Record<string, unknown>;

/** Keywords whose subschemas judge the same value. */
const IN_PLACE_ONE = ["not", "if", "then", "else"] as const;
const IN_PLACE_MANY = ["allOf", "anyOf", "oneOf"] as const;
const SCALAR_TYPES = new Set(["string", "number", "integer", "boolean", "null"]);

/**
 * Why `schema` (an `inputSchema`) is not to be run at the edge, or `undefined`: a risky pattern (`patternRisk`),
 * `uniqueItems` over items of no scalar type (a comparison of every pair: quadratic in the array), or more than
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
    if (typeof node.pattern === "string") {
      const risk = patternRisk(node.pattern);
      if (risk) found.reason = `a pattern that backtracks (${risk})`;
    }
    if (isNode(node.patternProperties))
      for (const key of Object.keys(node.patternProperties)) {
        const risk = patternRisk(key);
        if (risk && found.reason === undefined) found.reason = `a patternProperties key that backtracks (${risk})`;
      }
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
  const cap = MAX_EVALUATIONS_PER_VALUE + 1;
  const resolve = (ref: unknown): Node | undefined => (typeof ref === "string" ? pointerIn(root, ref) : undefined);
  const inPlace = (node: Node): Node[] => {
    const out: Node[] = [];
    for (const key of IN_PLACE_ONE) if (isNode(node[key])) out.push(node[key] as Node);
    for (const key of IN_PLACE_MANY) if (Array.isArray(node[key])) for (const s of node[key] as unknown[]) if (isNode(s)) out.push(s);
    if (isNode(node.dependentSchemas)) for (const s of Object.values(node.dependentSchemas)) if (isNode(s)) out.push(s);
    for (const key of ["$ref", "$dynamicRef", "$recursiveRef"]) {
      if (node[key] === undefined) continue;
      // A dynamic reference may land anywhere: the root stands for it. An unresolved one does not compile.
      const target = key === "$ref" ? resolve(node[key]) : root;
      if (target) out.push(target);
    }
    return out;
  };
  // The schemas judged for the same value as `node`, counted with multiplicity: a cycle among them is unbounded.
  const own = new Array<number>(nodes.length).fill(-1);
  const visiting = new Set<number>();
  const weight = (node: Node): number => {
    const at = index.get(node);
    if (at === undefined) return 1;
    if (own[at]! >= 0) return own[at]!;
    if (visiting.has(at)) return cap;
    visiting.add(at);
    let sum = 1 + (Array.isArray(node.enum) ? Math.floor(node.enum.length / ENUM_VALUES_PER_JUDGEMENT) : 0);
    for (const child of inPlace(node)) sum = Math.min(cap, sum + weight(child));
    visiting.delete(at);
    own[at] = sum;
    return sum;
  };
  // The groups of subschemas that judge one member or item of the value: the sum within a group, the most of the groups.
  const childGroups = (node: Node): Node[][] => {
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
  };
  // Level by level: at[l][n] = schemas judged for one value l levels below a value `nodes[n]` judges.
  let level = nodes.map((n) => weight(n));
  let most = level[0]!;
  const closure = nodes.map((n) => {
    const out: Node[] = [];
    const walk = (m: Node): void => {
      if (out.length > cap) return;
      out.push(m);
      for (const child of inPlace(m)) walk(child);
    };
    walk(n);
    return out;
  });
  // Each node's groups as indexes, once; per level, each node's widest group once, then each closure's sum.
  const groups = nodes.map((n) => childGroups(n).map((group) => group.map((s) => index.get(s) ?? -1)));
  for (let l = 1; l <= MAX_LEVELS && most <= MAX_EVALUATIONS_PER_VALUE; l++) {
    const previous = level;
    const widest = groups.map((list) => {
      let best = 0;
      for (const group of list) {
        let sum = 0;
        for (const at of group) sum += at < 0 ? 1 : previous[at]!;
        best = Math.max(best, sum);
      }
      return Math.min(cap, best);
    });
    level = closure.map((members) => {
      let sum = 0;
      for (const member of members) {
        const at = index.get(member);
        if (at !== undefined) sum = Math.min(cap, sum + widest[at]!);
      }
      return sum;
    });
    most = Math.max(most, level[0]!);
    if (level.every((v, n) => v === previous[n])) break;
  }
  return most;
}

function pointerIn(root: Node, ref: string): Node | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isNode(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return isNode(node) ? node : undefined;
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
