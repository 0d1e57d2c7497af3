import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { markdownPages } from "../scripts/check-links.js";
import { repoRoot } from "./support/spec.js";

/** The pages held to these rules: every page under docs/ but the decision records, which have a form of their own. */
const pages = markdownPages().filter((page) => page.startsWith("docs/") && !page.startsWith("docs/decisions/"));

/** The paragraph a page opens with after its title (blank lines and HTML comments skipped), or why there is none. */
function opening(text: string): string {
  const lines = text.split("\n");
  if (!/^# \S/.test(lines[0] ?? "")) return "(no title on the first line)";
  let i = 1;
  while (i < lines.length && (lines[i]!.trim() === "" || /^<!--.*-->$/.test(lines[i]!.trim()))) i++;
  const paragraph: string[] = [];
  while (i < lines.length && lines[i]!.trim() !== "") paragraph.push(lines[i++]!);
  return paragraph.join(" ");
}

/** Whether a paragraph is one prose sentence: not a heading, list, table, fence or quote, and one full stop, at its end. */
function isOneSentence(paragraph: string): boolean {
  if (/^\s*(?:#|[-*+] |\d+\. |\||```|>|!\[)/.test(paragraph)) return false;
  return paragraph.endsWith(".") && paragraph.split(/(?<=[.!?])\s+(?=[A-Z`*[(])/).length === 1;
}

/** The lines of a page a person writes: all of them but those between a command's `<!-- key -->` and `<!-- /key -->`. */
function handWrittenLines(text: string): number {
  let written = 0;
  let inside: string | undefined;
  for (const line of text.split("\n")) {
    const open = /^<!-- ([\w:.-]+) -->$/.exec(line.trim());
    if (inside === undefined && open && text.includes(`<!-- /${open[1]} -->`)) inside = open[1];
    else if (inside !== undefined && line.trim() === `<!-- /${inside} -->`) inside = undefined;
    else if (inside === undefined) written++;
  }
  return written;
}

describe("the rules every doc page keeps", () => {
  test("the rules read a page as meant: one opening sentence, and only a command's sections left out of the count", () => {
    assert.equal(
      opening("# T\n\n<!-- generated -->\n\nWhat this is for, in `one` sentence.\n\nMore. Here.\n"),
      "What this is for, in `one` sentence.",
    );
    assert.equal(isOneSentence("What this is for, in `one` sentence."), true);
    assert.equal(isOneSentence("It does this. It also does that."), false);
    assert.equal(isOneSentence("- a list: not a sentence."), false);
    assert.equal(isOneSentence("A sentence that stops at a colon:"), false);
    assert.equal(handWrittenLines("a\n<!-- bench:x -->\n1\n2\n<!-- /bench:x -->\nb"), 2);
  });

  for (const page of pages) {
    test(`${page} opens with one sentence saying what it is for, and has at most 600 lines written by hand`, () => {
      const text = readFileSync(join(repoRoot, page), "utf8");
      const first = opening(text);
      assert.ok(isOneSentence(first), `${page} opens with: ${first.slice(0, 200)}`);
      const written = handWrittenLines(text);
      assert.ok(written <= 600, `${page}: ${written} lines written by hand; split it by topic`);
      if (page.startsWith("docs/guides/")) assert.ok(text.split("\n").length <= 151, `${page}: a guide is at most 150 lines`);
    });
  }
});
