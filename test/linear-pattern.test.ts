import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { RE2JS } from "re2js";
import { InexpressiblePattern, linearRegExp, toRe2 } from "../src/compile/linear-pattern.js";

const engine = linearRegExp(RE2JS);
/** Ajv's reading of a pattern: `new RegExp(pattern, "u")`, as the SDK's own provider runs it. */
const native = (pattern: string) => new RegExp(pattern, "u");

/** Strings that tell the engines' readings apart: line terminators, Unicode spaces, astral and lone surrogates. */
const TRICKY = [
  "",
  "a",
  "ab",
  "a\n",
  "\n",
  "\r",
  "\u2028",
  "\u2029",
  "\u00a0",
  "\v",
  "\f",
  "\ufeff",
  "\u3000",
  "\u0085",
  "😀",
  "a😀b",
  "\ud800",
  "\udc00",
  "a\ud800b",
  "\udc00😀",
  "é",
  "É_9",
  "αβγ",
  "١٢٣",
  "x/y",
  "foo bar",
  "2024-05-01",
  "A\0",
  "-]\\",
  "{,3}",
];

describe("a pattern keeps the meaning ECMAScript gives it under the u flag", () => {
  const cases = [
    "^.$",
    "^.+$",
    "^\\s$",
    "^\\S+$",
    "^\\s+$",
    "^\\w+$",
    "^\\W$",
    "^\\d+$",
    "^\\D$",
    "^[\\s\\d]+$",
    "^[^\\s]+$",
    "^[^\\S\\n]$",
    "[^/]+$",
    "a$",
    "^a",
    "\\bfoo\\b",
    "^\\u0041$",
    "^\\u{1F600}$",
    "^\\uD83D\\uDE00$",
    "^\\ud800$",
    "^[\\ud800-\\udfff]$",
    "^[😀-😂]$",
    "^\\x41\\0$",
    "^\\cJ$",
    "^[\\-\\]\\\\]+$",
    "^\\/$",
    "^[]$",
    "^[^]$",
    "a|b|",
    "^(?:a|ab)(?<n>b)?$",
    "^a{2,}$",
    "^a{0}$",
    "^a{1,3}?$",
    "^[\\p{L}\\p{N}_-]+$",
    "^\\P{L}+$",
    "^\\p{Script=Greek}+$",
    "^\\p{Lu}",
    "^[^\\p{Nd}]+$",
    "^\\p{Emoji_Presentation}$",
  ];
  for (const pattern of cases)
    test(`/${pattern}/u on every tricky string`, () => {
      const ours = engine(pattern, "u");
      for (const s of TRICKY) assert.equal(ours.test(s), native(pattern).test(s), `/${pattern}/u on ${JSON.stringify(s)}`);
    });

  test("., \\s, \\S, \\w, \\d and their classes agree with RegExp on every code point of the BMP and a sample of the others", () => {
    const patterns = ["^.$", "^\\s$", "^\\S$", "^\\w$", "^\\d$", "^[^\\s\\w]$", "^[\\W\\d]$"];
    const compiled = patterns.map((p) => [engine(p, "u"), native(p), p] as const);
    for (let cp = 0; cp <= 0x10ffff; cp += cp < 0x10000 ? 1 : 61) {
      const s = String.fromCodePoint(cp);
      for (const [ours, theirs, p] of compiled) if (ours.test(s) !== theirs.test(s)) assert.fail(`/${p}/u on U+${cp.toString(16)}`);
    }
  });

  test("generated patterns agree with RegExp on generated strings", () => {
    const atoms = [
      "a",
      "b",
      ".",
      "\\d",
      "\\w",
      "\\s",
      "\\S",
      "\\W",
      "[a-c]",
      "[^a]",
      "[\\s\\d]",
      "[^\\s/]",
      "\\u00e9",
      "\\u{1F600}",
      "😀",
      "\\n",
      "\\r",
      "\\u2028",
      "\\.",
      "[\\u00a0-\\u00ff]",
      "\\p{L}",
      "\\P{L}",
      "(?:a|b)",
      "(a|\\d)",
      "\\/",
      "\\b",
      "[]",
      "[^]",
    ];
    const quantifiers = ["", "", "*", "+", "?", "{2}", "{1,3}", "{2,}", "*?", "+?"];
    const term = fc.tuple(fc.constantFrom(...atoms), fc.constantFrom(...quantifiers)).map(([a, q]) => (a === "\\b" ? a : a + q));
    const alternative = fc.array(term, { maxLength: 5 }).map((t) => t.join(""));
    const pattern = fc
      .tuple(fc.boolean(), fc.array(alternative, { minLength: 1, maxLength: 3 }), fc.boolean())
      .map(([start, alts, end]) => `${start ? "^" : ""}(?:${alts.join("|")})${end ? "$" : ""}`);
    const letters = ["a", "b", "c", "1", "_", " ", "\n", "\r", "\u2028", "\u00a0", "\v", "\ufeff", "é", "😀", "\ud800", ".", "/"];
    const text = fc.array(fc.constantFrom(...letters), { maxLength: 8 }).map((l) => l.join(""));
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 12 }), (p, strings) => {
        const ours = engine(p, "u");
        for (const s of strings) assert.equal(ours.test(s), native(p).test(s), `/${p}/u on ${JSON.stringify(s)}`);
      }),
      { numRuns: 400, seed: 20261207 },
    );
  });

  test("the translation names every character by its code point and every class by its ranges", () => {
    assert.equal(toRe2("^a.b$"), "\\Aa[\\x{0}-\\x{9}\\x{b}-\\x{c}\\x{e}-\\x{2027}\\x{202a}-\\x{10ffff}]b\\z");
    assert.equal(toRe2("\\uD83D\\uDE00"), "\\x{1f600}");
    assert.equal(toRe2("(?<year>\\d{4})+?"), "(?:[0-9]{4})+");
  });
});

describe("what the linear-time engine cannot run is refused at compilation, never run another way", () => {
  const inexpressible: Array<[string, RegExp]> = [
    ["^(?=.*\\d).{8,}$", /a lookahead/],
    ["^(?!x)a", /a lookahead/],
    ["(?<=a)b", /a lookbehind/],
    // RegExp finds \B inside a character outside the BMP (/\B/u matches "a😀a" at 2), where RE2 has no position.
    ["\\Ba", /a \\B/],
    ["(?<!a)b", /a lookbehind/],
    ["^(\\w)\\1$", /a backreference/],
    ["^(?<c>\\w)\\k<c>$", /a backreference/],
    ["^a{1001}$", /a repeat counted past 1000/],
    ["^(?:(?:a{100}){100})$", /invalid repeat count/],
    ["\\d{1,500}\\d{1,500}x", /a program of 2001 instructions, past 1000/],
  ];
  for (const [pattern, reason] of inexpressible)
    test(`/${pattern}/u: ${reason.source}`, () => {
      assert.throws(
        () => engine(pattern, "u"),
        (error: unknown) =>
          error instanceof InexpressiblePattern &&
          /^a pattern the linear-time engine cannot run/.test(error.message) &&
          reason.test(error.message),
      );
    });

  test("a pattern of more atoms than RE2 would run is refused before RE2 parses it, however large its classes", () => {
    for (const pattern of ["x".repeat(1001), "[^\\p{L}\\p{N}]".repeat(1001)])
      assert.throws(
        () => engine(pattern, "u"),
        (error: unknown) => error instanceof InexpressiblePattern && /a program past 1000 instructions/.test(error.message),
      );
    assert.equal(engine("x".repeat(990), "u").test("x".repeat(990)), true);
  });

  test("an engine reads a bounded number of distinct Unicode properties (each a scan of every code point); past it a pattern is not run", () => {
    const two = linearRegExp(RE2JS, 2);
    assert.equal(two("^\\p{L}+$", "u").test("é"), true);
    assert.equal(two("^[\\p{N}\\P{L}]+$", "u").test("1"), true);
    assert.equal(two("^\\p{L}\\p{N}$", "u").test("a1"), true, "a property already read costs nothing more");
    assert.throws(
      () => two("^\\p{Lu}$", "u"),
      (error: unknown) => error instanceof InexpressiblePattern && /a Unicode property past the 2 this engine reads/.test(error.message),
    );
  });

  test("a pattern that is no regular expression under the u flag throws RegExp's own SyntaxError, as Ajv's compilation does", () => {
    for (const pattern of ["a{,3}", "[", "\\-", "a**", "\\p{Nope}"]) assert.throws(() => engine(pattern, "u"), SyntaxError, pattern);
  });
});

describe("through the edge's compiler", () => {
  test("two patterns in one schema each judge their own property (Ajv keys its patterns by the engine's text of them)", async () => {
    const { edgeCompiler } = await import("../src/compile/at-edge.js");
    const compile = await edgeCompiler();
    if (typeof compile !== "function") throw new Error(compile.missing);
    const outcome = await compile({
      type: "object",
      properties: { a: { type: "string", pattern: "^a+$" }, b: { type: "string", pattern: "^b+$" } },
    });
    assert.ok(outcome.ok);
    assert.equal(outcome.validate({ a: "aaa", b: "bbb" }).valid, true);
    assert.equal(outcome.validate({ a: "aaa", b: "aaa" }).valid, false);
    assert.equal(outcome.validate({ a: "bbb", b: "bbb" }).valid, false);
  });
});
