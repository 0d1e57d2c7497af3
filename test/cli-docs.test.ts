import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { CLI_DOCS, renderCliDocs } from "../scripts/render-cli-docs.js";
import { CLI_EXAMPLES } from "../scripts/cli-examples.js";

describe("docs/cli.md", () => {
  const text = readFileSync(CLI_DOCS, "utf8");

  test("its examples are the pinned outputs, as npm run docs:cli renders them", () => {
    assert.equal(text, renderCliDocs(text), "docs/cli.md differs from test/golden/cli/: run npm run docs:cli");
  });

  test("shows every pinned example, once", () => {
    for (const { golden } of CLI_EXAMPLES) assert.equal(text.split(`<!-- example: ${golden} -->`).length, 2, golden);
  });

  test("rendering replaces a stale example with the pinned output, and refuses an unknown one", () => {
    const stale = "<!-- example: cli/bad-tools-call.txt -->\nold output\n<!-- /example -->";
    const rendered = renderCliDocs(stale);
    assert.ok(!rendered.includes("old output"));
    assert.ok(rendered.includes("$ wymcp check bad-tools-call.json\nbad-tools-call.json:1  reject"), rendered);
    assert.throws(() => renderCliDocs("<!-- example: cli/nope.txt -->\n<!-- /example -->"), /does not pin/);
  });
});
