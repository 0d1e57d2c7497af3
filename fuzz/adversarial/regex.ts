/**
 * @module fuzz/adversarial/regex: backtracking inputs for a regex, from its structure. The source is parsed
 * (the subset JSON Schema regexes use: anchors, classes, groups, alternation, quantifiers) and, for every
 * quantifier that repeats, an input is built: the shortest text reaching it, a long run of one iteration of
 * what it repeats (plain, and with its optional parts taken, so that adjacent or nested quantifiers over
 * overlapping text get to split the run many ways), then a character no class accepts there, forcing a
 * failure at the very end.
 */

type Node =
  | { t: "char"; c: string }
  | { t: "class"; accepts: (c: string) => boolean }
  | { t: "anchor" }
  | { t: "group"; alts: Node[][] }
  | { t: "repeat"; node: Node; min: number; max: number };

export interface RegexInput {
  /** e.g. `pump 2 (with optionals)`: which quantifier, counted in source order, and which iteration. */
  name: string;
  /** The run repeated n times, between its prefix and the failing character. */
  text: (n: number) => string;
}

export class RegexSyntaxError extends Error {
  override name = "RegexSyntaxError";
}

export function parseRegex(source: string): Node[][] {
  let i = 0;
  const peek = () => source[i];
  function alternatives(): Node[][] {
    const alts: Node[][] = [[]];
    while (i < source.length && peek() !== ")") {
      if (peek() === "|") {
        i++;
        alts.push([]);
        continue;
      }
      alts[alts.length - 1]!.push(quantified(atom()));
    }
    return alts;
  }
  function atom(): Node {
    const c = source[i++]!;
    if (c === "^" || c === "$") return { t: "anchor" };
    if (c === "(") {
      if (source.startsWith("?:", i)) i += 2;
      else if (source[i] === "?") throw new RegexSyntaxError(`lookaround at ${i} in ${source}`);
      const alts = alternatives();
      if (source[i++] !== ")") throw new RegexSyntaxError(`unclosed group in ${source}`);
      return { t: "group", alts };
    }
    if (c === "[") return charClass();
    if (c === "\\") return escaped();
    if (c === ".") return { t: "class", accepts: (x) => x !== "\n" && x !== "\r" };
    return { t: "char", c };
  }
  function escaped(): Node {
    const c = source[i++]!;
    if (c === "d") return { t: "class", accepts: (x) => x >= "0" && x <= "9" };
    if (c === "w") return { t: "class", accepts: (x) => /\w/.test(x) };
    if (c === "s") return { t: "class", accepts: (x) => /\s/.test(x) };
    if (c === "u") {
      const hex = source.slice(i, i + 4);
      i += 4;
      return { t: "char", c: String.fromCharCode(Number.parseInt(hex, 16)) };
    }
    return { t: "char", c };
  }
  function classChar(): string {
    const c = source[i++]!;
    if (c !== "\\") return c;
    const e = source[i++]!;
    if (e === "u") {
      const hex = source.slice(i, i + 4);
      i += 4;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    return e;
  }
  function charClass(): Node {
    const negated = peek() === "^";
    if (negated) i++;
    const ranges: Array<[string, string]> = [];
    while (i < source.length && peek() !== "]") {
      const from = classChar();
      if (peek() === "-" && source[i + 1] !== "]") {
        i++;
        ranges.push([from, classChar()]);
      } else ranges.push([from, from]);
    }
    i++;
    const inside = (x: string) => ranges.some(([a, b]) => x >= a && x <= b);
    return { t: "class", accepts: negated ? (x) => !inside(x) : inside };
  }
  function quantified(node: Node): Node {
    const c = peek();
    let min = 1;
    let max = 1;
    if (c === "*") [min, max] = [0, Infinity];
    else if (c === "+") [min, max] = [1, Infinity];
    else if (c === "?") [min, max] = [0, 1];
    else if (c === "{" && /^\{\d+(,\d*)?\}/.test(source.slice(i))) {
      const [, lo, comma, hi] = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i))!;
      min = Number(lo);
      max = comma === undefined ? min : hi ? Number(hi) : Infinity;
      i += source.slice(i).indexOf("}");
    } else return node;
    i++;
    if (peek() === "?") i++;
    return { t: "repeat", node, min, max };
  }
  const alts = alternatives();
  if (i < source.length) throw new RegexSyntaxError(`unbalanced ")" in ${source}`);
  return alts;
}

const CANDIDATES = ["a", "A", "0", "1", "+", "/", ".", "-", "_", "~", "=", ":", "%", "{", "}", ",", "!", " "];

/** The shortest text a node matches; `optionals` takes every `?` part once (one way to create overlap). */
function sample(node: Node, optionals: boolean): string {
  switch (node.t) {
    case "char":
      return node.c;
    case "anchor":
      return "";
    case "class": {
      const c =
        CANDIDATES.find((x) => node.accepts(x)) ?? [...Array(0x7f).keys()].map((k) => String.fromCharCode(k)).find((x) => node.accepts(x));
      if (c === undefined) throw new RegexSyntaxError("a class that accepts no ASCII character");
      return c;
    }
    case "group":
      return sequence(node.alts[0]!, optionals);
    case "repeat":
      return sample(node.node, optionals).repeat(node.min === 0 && optionals && node.max === 1 ? 1 : node.min);
  }
}

function sequence(nodes: Node[], optionals: boolean): string {
  return nodes.map((n) => sample(n, optionals)).join("");
}

/** A quantifier bounded below this (`{2}`, `{0,3}`) cannot be pumped into a long run. */
const PUMP_MIN = 16;

/** Every repeating quantifier with the shortest text that reaches it (siblings before it, through its enclosing groups). */
function pumpSites(alts: Node[][]): Array<{ node: Extract<Node, { t: "repeat" }>; prefix: string }> {
  const out: Array<{ node: Extract<Node, { t: "repeat" }>; prefix: string }> = [];
  const visit = (nodes: Node[], before: string) => {
    nodes.forEach((node, k) => {
      const prefix = before + sequence(nodes.slice(0, k), false);
      if (node.t === "repeat") {
        if (node.max >= PUMP_MIN) out.push({ node, prefix });
        inner(node.node, prefix);
      } else inner(node, prefix);
    });
  };
  const inner = (node: Node, prefix: string) => {
    if (node.t === "group") for (const alt of node.alts) visit(alt, prefix);
  };
  for (const alt of alts) visit(alt, "");
  return out;
}

/** Inputs that make a backtracking engine try every split of a long run before failing; all of them fail the regex. */
export function backtrackingInputs(source: string): RegexInput[] {
  const regex = new RegExp(source, "u");
  const inputs: RegexInput[] = [];
  pumpSites(parseRegex(source)).forEach(({ node, prefix }, index) => {
    const variants = new Map([[sample(node.node, false), "plain"]]);
    if (!variants.has(sample(node.node, true))) variants.set(sample(node.node, true), "with optionals");
    for (const [pump, how] of variants) {
      if (pump === "") continue;
      const end = ["\u0000", "\n", " ", "!", "\u007f"].find((c) => !regex.test(prefix + pump.repeat(3) + c));
      if (end === undefined) continue;
      inputs.push({ name: `pump ${index} ${how} ${JSON.stringify(pump)}`, text: (n) => prefix + pump.repeat(n) + end });
    }
  });
  return inputs;
}
