/**
 * @module linear-pattern: a tool schema's `pattern` (and `patternProperties` key) run on RE2, a linear-time engine,
 * with the meaning ECMAScript gives it under the `u` flag, as Ajv reads a pattern. RE2's syntax differs from
 * ECMAScript's in places that would change a verdict (`.` takes `\r` and U+2028, `\s` lacks U+00A0 and U+FEFF, no
 * `\u` escape, `$` and the property names spelled otherwise), so the pattern is not handed over as it is: it is parsed
 * with ECMAScript's grammar and written out again in RE2's, every character as a code point and every class as its
 * ranges. What RE2 cannot run in linear time (a lookaround, a backreference, a repeat counted past 1,000), or only with
 * a program too large for a small cost per character, throws `InexpressiblePattern`, and the schema is then not run at
 * the edge.
 */

/** Why a pattern cannot be run on the linear-time engine; Ajv's compilation fails with it. */
export class InexpressiblePattern extends Error {
  override name = "InexpressiblePattern";
}

/** What Ajv's `code.regExp` option takes: a factory of objects with `test`, and the expression standalone code names it by. */
export interface RegExpEngine {
  (pattern: string, flags: string): { test(input: string): boolean };
  code: string;
}

/** The part of re2js's `RE2JS` class the engine uses. */
export interface Re2Like {
  compile(pattern: string): { test(input: string): boolean; programSize(): number };
}

/**
 * Most instructions of a pattern's RE2 program. Linear time is a bound of n × the program's size: where RE2's DFA cache
 * overflows, it runs each character through every live instruction. Past this, one character can cost microseconds, so
 * such a pattern (counted repeats of hundreds, side by side) is not run at the edge; docs/performance.md gives the
 * cost per KiB at the bound.
 */
export const MAX_PROGRAM_SIZE = 1000;

/** Longest translation handed to RE2: a class of a few thousand ranges is a few tens of KiB, a thousand of them is not parsed. */
const MAX_TRANSLATED_UNITS = 1 << 20;

/**
 * Distinct Unicode properties (`\p{…}`) one engine reads: each costs a scan of every code point (tens of milliseconds)
 * the first time, in the turn that compiles its schema, so a server listing many cannot hold the event loop for long.
 */
export const MAX_PROPERTIES = 8;

/** The name a compiled module's code refers to the engine by; the module is a function of it. */
export const LINEAR_ENGINE_NAME = "linearRegExp";

const COUNTED = /\{(\d+)(,(\d*))?\}/y;
/** RE2's largest repeat count. */
const MAX_REPEAT = 1000;
const MAX_CODE_POINT = 0x10ffff;

/** Code points from the first to the last, both included. */
export type Range = [number, number];

/**
 * The engine for Ajv: checks the pattern as the SDK's Ajv would (`new RegExp(pattern, "u")`, which compiles and never
 * runs it), translates it, and compiles the translation with RE2.
 */
export function linearRegExp(re2: Re2Like, maxProperties = MAX_PROPERTIES): RegExpEngine {
  const used = new Set<string>();
  const property = (name: string) => {
    if (!used.has(name) && used.size >= maxProperties)
      throw new InexpressiblePattern(`a Unicode property past the ${maxProperties} this engine reads (\\p{${name}})`);
    used.add(name);
    return propertySet(name);
  };
  const engine = (pattern: string, flags: string) => {
    if (flags !== "u") throw new InexpressiblePattern(`a pattern read with flags "${flags}" (only "u" is translated)`);
    new RegExp(pattern, "u");
    let translated: string;
    try {
      translated = toRe2(pattern, property);
    } catch (error) {
      if (!(error instanceof InexpressiblePattern)) throw error;
      throw new InexpressiblePattern(`a pattern the linear-time engine cannot run (${error.message})`);
    }
    let compiled: ReturnType<Re2Like["compile"]>;
    try {
      compiled = re2.compile(translated);
    } catch (error) {
      const reason = String(error instanceof Error ? error.message : error).slice(0, 120);
      throw new InexpressiblePattern(`a pattern the linear-time engine cannot run (${reason})`);
    }
    const size = compiled.programSize();
    if (size > MAX_PROGRAM_SIZE)
      throw new InexpressiblePattern(
        `a pattern the linear-time engine cannot run (a program of ${size} instructions, past ${MAX_PROGRAM_SIZE})`,
      );
    return compiled;
  };
  return Object.assign(engine, { code: LINEAR_ENGINE_NAME });
}

/** `pattern` (valid under ECMAScript's `u` flag) in RE2's syntax, with the same meaning. */
export function toRe2(pattern: string, property: (name: string) => Range[] = propertySet): string {
  return new Translator(pattern, property).pattern();
}

/** A recursive-descent reader of ECMAScript's `u`-mode grammar that writes RE2's; `at` is the next unread unit. */
class Translator {
  private at = 0;
  /** Atoms written, and units of text: each atom is at least one instruction, so past the bound RE2 need not parse it. */
  private atoms = 0;
  private units = 0;

  constructor(
    private readonly source: string,
    private readonly property: (name: string) => Range[],
  ) {}

  pattern(): string {
    const out = this.disjunction();
    if (this.at < this.source.length) throw new InexpressiblePattern('an unbalanced ")"');
    return out;
  }

  private disjunction(): string {
    const alternatives = [this.alternative()];
    while (this.source[this.at] === "|") {
      this.at++;
      alternatives.push(this.alternative());
    }
    return alternatives.join("|");
  }

  private alternative(): string {
    let out = "";
    while (this.at < this.source.length && this.source[this.at] !== "|" && this.source[this.at] !== ")") out += this.term();
    return out;
  }

  private term(): string {
    const { source } = this;
    const c = source[this.at]!;
    if (c === "^" || c === "$") {
      this.at++;
      // ECMAScript without the `m` flag: the start and the very end of the input, never before a final newline.
      return c === "^" ? "\\A" : "\\z";
    }
    if (source.startsWith("(?=", this.at) || source.startsWith("(?!", this.at)) throw new InexpressiblePattern("a lookahead");
    if (source.startsWith("(?<=", this.at) || source.startsWith("(?<!", this.at)) throw new InexpressiblePattern("a lookbehind");
    // V8 also finds a \B between the two halves of a character outside the BMP, a position RE2 does not have.
    if (source.startsWith("\\B", this.at)) throw new InexpressiblePattern("a \\B");
    if (source.startsWith("\\b", this.at)) {
      this.at += 2;
      // Both engines put \b between an ASCII word character and anything else (ECMAScript's, without `i`).
      return "\\b";
    }
    return this.quantified(this.atom());
  }

  private atom(): string {
    const out = this.atomText();
    this.units += out.length;
    if (++this.atoms > MAX_PROGRAM_SIZE || this.units > MAX_TRANSLATED_UNITS)
      throw new InexpressiblePattern(`a program past ${MAX_PROGRAM_SIZE} instructions`);
    return out;
  }

  private atomText(): string {
    const { source } = this;
    const c = source[this.at]!;
    if (c === "(") {
      this.at++;
      if (source.startsWith("?:", this.at)) this.at += 2;
      else if (source.startsWith("?<", this.at)) this.at = source.indexOf(">", this.at) + 1;
      const inner = this.disjunction();
      if (source[this.at++] !== ")") throw new InexpressiblePattern("an unclosed group");
      return `(?:${inner})`;
    }
    if (c === ".") {
      this.at++;
      return classText(
        complement([
          [0x0a, 0x0a],
          [0x0d, 0x0d],
          [0x2028, 0x2029],
        ]),
      );
    }
    if (c === "[") return classText(this.characterClass());
    if (c === "\\") {
      this.at++;
      const d = source[this.at]!;
      if (d >= "1" && d <= "9") throw new InexpressiblePattern("a backreference");
      if (d === "k") throw new InexpressiblePattern("a backreference");
      const set = this.escape(false);
      return set.length === 1 && set[0]![0] === set[0]![1] ? codePoint(set[0]![0]) : classText(set);
    }
    const cp = source.codePointAt(this.at)!;
    this.at += cp > 0xffff ? 2 : 1;
    return codePoint(cp);
  }

  /** A quantifier after an atom, written as RE2 writes it; laziness dropped (`test` asks only whether it matches). */
  private quantified(atom: string): string {
    const { source } = this;
    const c = source[this.at];
    let q: string;
    if (c === "*" || c === "+" || c === "?") {
      this.at++;
      q = c;
    } else if (c === "{") {
      COUNTED.lastIndex = this.at;
      const m = COUNTED.exec(source);
      if (!m) return atom;
      const lo = Number(m[1]);
      const hi = m[2] === undefined ? lo : m[3] ? Number(m[3]) : 0;
      if (lo > MAX_REPEAT || hi > MAX_REPEAT) throw new InexpressiblePattern(`a repeat counted past ${MAX_REPEAT}`);
      this.at += m[0].length;
      q = m[2] === undefined ? `{${lo}}` : m[3] ? `{${lo},${hi}}` : `{${lo},}`;
    } else return atom;
    if (source[this.at] === "?") this.at++;
    return `${atom}${q}`;
  }

  /** A class after its `[`: its members' ranges, complemented by a leading `^`. */
  private characterClass(): Range[] {
    const { source } = this;
    this.at++;
    const negated = source[this.at] === "^";
    if (negated) this.at++;
    const ranges: Range[] = [];
    while (this.at < source.length && source[this.at] !== "]") {
      const from = this.classAtom();
      if (source[this.at] === "-" && source[this.at + 1] !== "]" && this.at + 1 < source.length) {
        this.at++;
        const to = this.classAtom();
        // Under `u` a range's ends are single characters (RegExp refused the pattern otherwise).
        ranges.push([from[0]![0], to[0]![0]]);
      } else ranges.push(...from);
    }
    if (source[this.at++] !== "]") throw new InexpressiblePattern("an unclosed class");
    const set = normalize(ranges);
    return negated ? complement(set) : set;
  }

  private classAtom(): Range[] {
    const { source } = this;
    if (source[this.at] === "\\") {
      this.at++;
      return this.escape(true);
    }
    const cp = source.codePointAt(this.at)!;
    this.at += cp > 0xffff ? 2 : 1;
    return [[cp, cp]];
  }

  /** An escape after its backslash, as the set of code points it stands for. */
  private escape(inClass: boolean): Range[] {
    const { source } = this;
    const c = source[this.at++]!;
    const fixed = ESCAPE_SETS[c];
    if (fixed) return fixed;
    switch (c) {
      case "t":
        return [[0x09, 0x09]];
      case "n":
        return [[0x0a, 0x0a]];
      case "v":
        return [[0x0b, 0x0b]];
      case "f":
        return [[0x0c, 0x0c]];
      case "r":
        return [[0x0d, 0x0d]];
      case "0":
        return [[0, 0]];
      case "b":
        if (inClass) return [[0x08, 0x08]];
        break;
      case "c": {
        const letter = source.charCodeAt(this.at++);
        return [[letter % 32, letter % 32]];
      }
      case "x": {
        const code = Number.parseInt(source.slice(this.at, this.at + 2), 16);
        this.at += 2;
        return [[code, code]];
      }
      case "u": {
        const code = this.unicodeEscape();
        return [[code, code]];
      }
      case "p":
      case "P": {
        const close = source.indexOf("}", this.at);
        const set = this.property(source.slice(this.at + 1, close));
        this.at = close + 1;
        return c === "p" ? set : complement(set);
      }
    }
    // An identity escape: under `u`, a syntax character, `/`, or `-` in a class.
    const cp = c.codePointAt(0)!;
    return [[cp, cp]];
  }

  /** `\u{…}`, `\uXXXX`, or a pair of `\uXXXX` that are a surrogate pair (one code point under `u`). */
  private unicodeEscape(): number {
    const { source } = this;
    if (source[this.at] === "{") {
      const close = source.indexOf("}", this.at);
      const code = Number.parseInt(source.slice(this.at + 1, close), 16);
      this.at = close + 1;
      return code;
    }
    const high = Number.parseInt(source.slice(this.at, this.at + 4), 16);
    this.at += 4;
    if (high >= 0xd800 && high <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(source.slice(this.at, this.at + 6))) {
      const low = Number.parseInt(source.slice(this.at + 2, this.at + 6), 16);
      this.at += 6;
      return (high - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000;
    }
    return high;
  }
}

const DIGIT: Range[] = [[0x30, 0x39]];
const WORD: Range[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
// ECMAScript's WhiteSpace and LineTerminator: TAB, LF, VT, FF, CR, the space separators (Zs) and U+FEFF.
const SPACE: Range[] = normalize([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);
const ESCAPE_SETS: Record<string, Range[]> = {
  d: DIGIT,
  D: complement(DIGIT),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};

/** Sorted, merged ranges. */
function normalize(ranges: Range[]): Range[] {
  const sorted = ranges.map(([a, b]): Range => [a, b]).sort((x, y) => x[0] - y[0]);
  const out: Range[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

function complement(ranges: Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [a, b] of normalize(ranges)) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

function codePoint(cp: number): string {
  return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)
    ? String.fromCharCode(cp)
    : `\\x{${cp.toString(16)}}`;
}

/** A class of the ranges; none matches nothing (RE2 takes the complement of everything). */
function classText(ranges: Range[]): string {
  if (ranges.length === 0) return `[^\\x{0}-\\x{${MAX_CODE_POINT.toString(16)}}]`;
  return `[${ranges.map(([a, b]) => (a === b ? codePoint(a) : `${codePoint(a)}-${codePoint(b)}`)).join("")}]`;
}

const properties = new Map<string, Range[]>();

/**
 * The code points of `\p{name}` as this runtime's own RegExp reads it (its Unicode version, its names and aliases),
 * found by matching every code point once; kept per name, so each costs one scan per process.
 */
function propertySet(name: string): Range[] {
  const known = properties.get(name);
  if (known) return known;
  const test = new RegExp(`\\p{${name}}`, "u");
  const runs = new RegExp(`\\p{${name}}+`, "gu");
  const ranges: Range[] = [];
  // Code points outside the surrogates, as text in which unit index maps back to a code point.
  for (const [first, last, width] of [
    [0, 0xd7ff, 1],
    [0xe000, 0xffff, 1],
    [0x10000, MAX_CODE_POINT, 2],
  ] as const) {
    const text = allCodePoints(first, last);
    for (const m of text.matchAll(runs)) {
      const from = first + m.index / width;
      ranges.push([from, from + m[0].length / width - 1]);
    }
  }
  for (let cp = 0xd800; cp <= 0xdfff; cp++) if (test.test(String.fromCharCode(cp))) ranges.push([cp, cp]);
  const set = normalize(ranges);
  properties.set(name, set);
  return set;
}

function allCodePoints(first: number, last: number): string {
  const parts: string[] = [];
  for (let start = first; start <= last; start += 4096) {
    const chunk: number[] = [];
    for (let cp = start; cp <= Math.min(last, start + 4095); cp++) chunk.push(cp);
    parts.push(String.fromCodePoint(...chunk));
  }
  return parts.join("");
}
