import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { LINEAR_FORMATS, LinearFormatError, linearFormats } from "../src/codegen/linear-formats.js";

const formats = JSON.parse(readFileSync(new URL("../schemas/formats.json", import.meta.url), "utf8")) as Record<string, string>;

/** The check as the generated modules run it, built from its source text. */
function twin(name: string): { test(s: string): boolean } {
  return new Function(`return ${LINEAR_FORMATS[name]!.check};`)() as { test(s: string): boolean };
}

/** Every string of `alphabet` up to `length` characters. */
function* strings(alphabet: string[], length: number): Generator<string> {
  yield "";
  let level = [""];
  for (let n = 1; n <= length; n++) {
    const next: string[] = [];
    for (const prefix of level) for (const c of alphabet) next.push(prefix + c);
    yield* next;
    level = next;
  }
}

describe("linear twins of backtracking formats", () => {
  it("byte: the twin's verdict equals the regex's on every string of 7 symbols up to 8 characters", () => {
    const regex = new RegExp(formats.byte!, "u");
    const check = twin("byte");
    // Alphabet letters of each class, both paddings' character, a character just outside the alphabet, a newline
    // (which `$` must not accept before), a non-ASCII letter and a lone surrogate.
    const alphabet = ["a", "Z", "+", "=", "-", "\n", "\ud800"];
    let compared = 0;
    for (const s of strings(alphabet, 8)) {
      assert.equal(check.test(s), regex.test(s), JSON.stringify(s));
      compared++;
    }
    assert.equal(compared, (7 ** 9 - 1) / 6);
  });

  it("byte: the twin agrees on long strings, valid and failing at the start, middle and end", () => {
    const regex = new RegExp(formats.byte!, "u");
    const check = twin("byte");
    const body = "QUJD".repeat(4096);
    const cases = [
      body,
      `${body}QQ==`,
      `${body}QUI=`,
      `${body}Q===`,
      `${body}Q`,
      `!${body.slice(1)}`,
      `${body.slice(0, 8000)}*${body.slice(8001)}`,
    ];
    cases.push(`${body.slice(0, -1)}=`, `${body}=QQ=`, `${body}😀😀`);
    for (const s of cases) assert.equal(check.test(s), regex.test(s), `${s.length} characters ending ${JSON.stringify(s.slice(-6))}`);
  });

  it("codegen replaces the regex literal by the twin and leaves no copy of the regex", () => {
    const literal = String(new RegExp(formats.byte!, "u"));
    const code = `"use strict";\nconst formats3 = ${literal};\nfunction v(d){ return formats3.test(d); }\n`;
    const out = linearFormats(code, formats);
    assert.ok(out.includes(`const formats3 = ${LINEAR_FORMATS.byte!.check};`));
    assert.ok(!out.includes(literal));
  });

  it("codegen stops when formats.json changes a regex whose twin was proved against the old one", () => {
    assert.throws(() => linearFormats("", { ...formats, byte: "^[A-Za-z0-9+/]*$" }), LinearFormatError);
  });

  it("the generated modules carry no regex that has a twin", () => {
    for (const name of Object.keys(LINEAR_FORMATS)) {
      const literal = String(new RegExp(formats[name]!, "u"));
      for (const file of ["legacy/validators.js", "legacy/outbound.js", "modern/validators.js", "modern/outbound.js"]) {
        const code = readFileSync(new URL(`../generated/${file}`, import.meta.url), "utf8");
        assert.ok(!code.includes(literal), `${name} in ${file}`);
      }
    }
  });
});
