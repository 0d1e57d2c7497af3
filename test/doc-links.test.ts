import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { anchorsOf, checkLinks, headingSlug, linksOf } from "../scripts/check-links.js";

/** A repository of a few files in a temporary folder, for one test. */
function repository(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-links-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const SLUGS: Array<[string, string]> = [
  ["The nesting bound (`maxDepth`, default 64)", "the-nesting-bound-maxdepth-default-64"],
  ["`wymcp check` on captures", "wymcp-check-on-captures"],
  ["What clients refuse: `--lint`", "what-clients-refuse---lint"],
  ["`Headers.get` on a Fetch face", "headersget-on-a-fetch-face"],
  ["The stdio gate's options object", "the-stdio-gates-options-object"],
  ["Über [links](x.md) and *emphasis* stay_as_text", "über-links-and-emphasis-stay_as_text"],
  ["HTTP flood: the gate's own cost", "http-flood-the-gates-own-cost"],
];

test("a heading's anchor is the one GitHub writes: rendered text, lower case, punctuation dropped, spaces as hyphens", () => {
  for (const [heading, slug] of SLUGS) assert.equal(headingSlug(heading), slug, heading);
});

test("a repeated heading's anchors are numbered, headings inside a fence are none, and an HTML id is one", () => {
  const page = ["# Page", "## Notes", "```sh", "# not a heading", "```", "## Notes", '<a id="kept-here"></a>', "## Notes ##"].join("\n");
  assert.deepEqual([...anchorsOf(page)].sort(), ["kept-here", "notes", "notes-1", "notes-2", "page"]);
});

test("links are read from prose and reference definitions, never from code spans or fences", () => {
  const page = [
    "See [a](a.md#x) and ![img](img/p.png) and `[not](code.md)`.",
    "```md",
    "[fenced](fenced.md)",
    "```",
    '[ref]: other.md "title"',
    "[angle](<spaced.md>)",
  ].join("\n");
  assert.deepEqual(linksOf(page), [
    { line: 1, target: "a.md#x" },
    { line: 1, target: "img/p.png" },
    { line: 5, target: "other.md" },
    { line: 6, target: "spaced.md" },
  ]);
});

/** Spelt in two parts: this file's own comments are held to the rule it tests. */
const designWord = "DES" + "IGN";

test("a missing file or anchor, a path out of the repository, a comment naming no doc or a design document: each reported", () => {
  const dir = repository({
    "README.md": "[guide](docs/guide.md#set-up) [gone](docs/gone.md) [site](https://example.com/x.md) [up](../outside.md)\n",
    "docs/guide.md": "# Guide\n\n## Set up\n\n[here](#set-up) [there](#nowhere) [record](records/one.md#context)\n",
    "docs/records/one.md": "# One\n\n## Context\n",
    "src/a.ts":
      "// docs/guide.md#set-up holds; docs/missing.md does not; docs/records/one.md#decision neither;\n// another project's docs/elsewhere/page.md is not ours to check\n",
    "test/b.test.ts": `// as ${designWord} §3.3 says\n`,
  });
  try {
    const broken = checkLinks(dir).map((b) => `${b.file}:${b.line}: ${b.target}: ${b.reason}`);
    assert.deepEqual(broken, [
      "README.md:1: docs/gone.md: no such file",
      "README.md:1: ../outside.md: leads outside the repository",
      "docs/guide.md:5: #nowhere: no heading with the anchor #nowhere in docs/guide.md",
      "src/a.ts:1: docs/missing.md: no such file",
      "src/a.ts:1: docs/records/one.md#decision: no heading with the anchor #decision in docs/records/one.md",
      `test/b.test.ts:1: ${designWord}: cites a design document the repository does not hold: say the fact, or link docs/`,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("every relative link and anchor of the README and docs/ resolves, and so does every doc a source comment cites", () => {
  const broken = checkLinks().map((b) => `${b.file}:${b.line}: ${b.target}: ${b.reason}`);
  assert.deepEqual(broken, []);
});
