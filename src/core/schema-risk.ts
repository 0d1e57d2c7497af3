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
/** Deepest nesting of groups read in a pattern: past it the pattern is unread (risky), never a stack overflow. */
const MAX_GROUP_DEPTH = 64;

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
  return new PatternParser(source).pattern();
}

/** Escapes that stand for a fixed set; a one-character set is built afresh, since a class widens a range's start in place. */
const CHAR_ESCAPES = new Map<string, () => CharSet>([
  ["d", () => DIGIT],
  ["D", () => complement(DIGIT)],
  ["w", () => WORD],
  ["W", () => complement(WORD)],
  ["s", () => SPACE],
  ["S", () => complement(setOf(isSpace, false))],
  ["n", () => charSet(0x0a)],
  ["r", () => charSet(0x0d)],
  ["t", () => charSet(0x09)],
  ["f", () => charSet(0x0c)],
  ["v", () => charSet(0x0b)],
  ["0", () => charSet(0)],
]);

/** One character of `set`, exactly once. */
function once(set: CharSet): Item {
  return { t: "chars", set, min: 1, max: 1 };
}

/** A recursive-descent reader of one pattern, a method per construct; `at` is the next unread UTF-16 unit. */
class PatternParser {
  private at = 0;
  private depth = 0;

  constructor(private readonly source: string) {}

  /** The whole pattern: its alternatives, with nothing left over. */
  pattern(): Item[][] {
    const alts = this.alternatives();
    if (this.at < this.source.length) throw new PatternSyntax('an unbalanced ")"');
    return alts;
  }

  /** Alternatives up to the end or to the `)` that closes the group being read. */
  private alternatives(): Item[][] {
    const { source } = this;
    const alts: Item[][] = [[]];
    while (this.at < source.length && source[this.at] !== ")") {
      if (source[this.at] === "|") {
        this.at++;
        alts.push([]);
        continue;
      }
      const item = this.quantified(this.atom());
      if (item) alts[alts.length - 1]!.push(item);
    }
    return alts;
  }

  /** One atom: an anchor, a group, a class, a dot, an escape or a character. */
  private atom(): Item {
    const c = this.source[this.at++]!;
    if (c === "^") return { t: "start" };
    if (c === "$") return { t: "zero" };
    if (c === "(") return this.group();
    if (c === "[") return once(this.charClass());
    if (c === ".") return once(DOT);
    if (c === "\\") return this.escaped(false);
    return once(charSet(c.codePointAt(0)!));
  }

  /** A group after its `(`: capturing, non-capturing, named or a lookaround. */
  private group(): Item {
    const { source } = this;
    if (++this.depth > MAX_GROUP_DEPTH) throw new PatternSyntax(`groups nested deeper than ${MAX_GROUP_DEPTH}`);
    let look = false;
    if (source.startsWith("?:", this.at)) this.at += 2;
    else if (source.startsWith("?=", this.at) || source.startsWith("?!", this.at)) [this.at, look] = [this.at + 2, true];
    else if (source.startsWith("?<=", this.at) || source.startsWith("?<!", this.at)) [this.at, look] = [this.at + 3, true];
    else if (source.startsWith("?<", this.at)) {
      const close = source.indexOf(">", this.at);
      if (close < 0) throw new PatternSyntax("unclosed group name");
      this.at = close + 1;
    } else if (source[this.at] === "?") throw new PatternSyntax("unknown group");
    const alts = this.alternatives();
    if (source[this.at++] !== ")") throw new PatternSyntax("unclosed group");
    this.depth--;
    return look ? { t: "look", alts } : { t: "group", alts, min: 1, max: 1 };
  }

  /** An escape after its backslash; in a class, `\b` is a backspace and no escape is zero-width. */
  private escaped(inClass: boolean): Item {
    const c = this.source[this.at++];
    if (c === undefined) throw new PatternSyntax("a lone backslash");
    const fixed = CHAR_ESCAPES.get(c);
    if (fixed) return once(fixed());
    switch (c) {
      case "b":
        return inClass ? once(charSet(8)) : { t: "zero" };
      case "B":
        return { t: "zero" };
      case "p":
      case "P":
        return once(this.property());
      case "u":
        return once(charSet(this.source[this.at] === "{" ? this.codePoint() : this.hex(4)));
      case "x":
        return once(charSet(this.hex(2)));
      case "c":
        this.at++;
        return once(setOf((code) => code < 0x20, false));
      case "k":
        return inClass ? once(charSet(0x6b)) : { t: "backref" };
    }
    if (c >= "1" && c <= "9") return inClass ? once(charSet(c.charCodeAt(0))) : this.backreference();
    return once(charSet(c.codePointAt(0)!));
  }

  /** A `\p{…}` or `\P{…}` after its letter: any character may be in it. */
  private property(): CharSet {
    const close = this.source.indexOf("}", this.at);
    if (this.source[this.at] !== "{" || close < 0) throw new PatternSyntax("a property escape without braces");
    this.at = close + 1;
    return ANY;
  }

  /** A `\u{…}` code point after its `u`. */
  private codePoint(): number {
    const close = this.source.indexOf("}", this.at);
    if (close < 0) throw new PatternSyntax("an unclosed code point");
    const code = Number.parseInt(this.source.slice(this.at + 1, close), 16);
    this.at = close + 1;
    return code;
  }

  /** The next `digits` units read as hexadecimal (NaN when they are not). */
  private hex(digits: number): number {
    const code = Number.parseInt(this.source.slice(this.at, this.at + digits), 16);
    this.at += digits;
    return code;
  }

  /** A numbered backreference after its first digit: the rest of its digits. */
  private backreference(): Item {
    const { source } = this;
    while (this.at < source.length && source[this.at]! >= "0" && source[this.at]! <= "9") this.at++;
    return { t: "backref" };
  }

  /** A class after its `[`: its members and ranges, negated by a leading `^`. */
  private charClass(): CharSet {
    const { source } = this;
    const negated = source[this.at] === "^";
    if (negated) this.at++;
    const set = emptySet();
    while (this.at < source.length && source[this.at] !== "]") {
      const from = this.classAtom();
      if (source[this.at] === "-" && source[this.at + 1] !== "]" && this.at + 1 < source.length && from.code !== undefined) {
        this.at++;
        const to = this.classAtom();
        union(set, to.code === undefined ? union(from.set, to.set) : rangeSet(from.code, to.code));
      } else union(set, from.set);
    }
    if (source[this.at++] !== "]") throw new PatternSyntax("unclosed class");
    return negated ? complement(set) : set;
  }

  /** One member of a class, with its code point when it is a single ASCII character (a range may start there). */
  private classAtom(): { set: CharSet; code?: number } {
    if (this.source[this.at] === "\\") {
      this.at++;
      const item = this.escaped(true);
      if (item.t !== "chars") throw new PatternSyntax("an escape a class cannot hold");
      const single = singleCode(item.set);
      return single === undefined ? { set: item.set } : { set: item.set, code: single };
    }
    const code = this.source.codePointAt(this.at)!;
    this.at += code > 0xffff ? 2 : 1;
    return { set: charSet(code), code };
  }

  /** `item` with the quantifier that follows it, if any (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each maybe lazy). */
  private quantified(item: Item): Item | undefined {
    const { source } = this;
    let min = 1;
    let max = 1;
    const c = source[this.at];
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{" && /^\{\d+(?:,\d*)?\}/.test(source.slice(this.at, this.at + 24))) {
      const [whole, lo, comma, hi] = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(this.at, this.at + 24))!;
      min = Number(lo);
      max = comma === undefined ? min : hi ? Number(hi) : Infinity;
      this.at += whole.length - 1;
    } else return item;
    this.at++;
    if (source[this.at] === "?") this.at++;
    if (item.t === "chars" || item.t === "group") return { ...item, min: item.min * min, max: item.max * max };
    // A quantified anchor or lookaround matches the empty string: as if unquantified.
    return item;
  }
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
