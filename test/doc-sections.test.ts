import assert from "node:assert/strict";
import { test } from "node:test";
import { cpus } from "node:os";
import { provenance, provenanceLine, provenanceOf, replaceSection, textSection } from "../scripts/doc-sections.js";

const doc = "# Performance\n\nprose\n\n<!-- bench:startup -->\nold table\n<!-- /bench:startup -->\n\nmore prose\n";

test("a section's text between its markers is replaced, and the prose around it kept", () => {
  assert.equal(
    replaceSection(doc, "bench:startup", "new table"),
    "# Performance\n\nprose\n\n<!-- bench:startup -->\nnew table\n<!-- /bench:startup -->\n\nmore prose\n",
  );
});

test("writing the same section twice gives the same document", () => {
  const once = replaceSection(doc, "bench:startup", "new table");
  assert.equal(replaceSection(once, "bench:startup", "new table"), once);
});

test("a section with no markers yet is appended with its markers, so a new bench table needs no edit of the document", () => {
  const added = replaceSection(doc, "bench:http", "flood");
  assert.ok(added.startsWith(doc.trimEnd()));
  assert.ok(added.endsWith("\n\n<!-- bench:http -->\nflood\n<!-- /bench:http -->\n"));
  assert.equal(replaceSection(added, "bench:http", "flood 2").match(/bench:http -->/g)?.length, 2);
});

test("an unclosed or doubled marker, or a key that could break the comment, throws instead of losing text", () => {
  assert.throws(() => replaceSection("<!-- bench:a -->\nx", "bench:a", "y"), /has no/);
  assert.throws(() => replaceSection("<!-- bench:a -->\n<!-- /bench:a -->\n<!-- bench:a -->\n<!-- /bench:a -->", "bench:a", "y"), /twice/);
  assert.throws(() => replaceSection(doc, "bench:a -->", "y"), /must be/);
});

test("the provenance line names the command, the date, the CPU, the cores, Node and the load average", () => {
  const line = provenance("npm run bench", new Date("2026-12-03T10:11:12Z"));
  assert.match(
    line,
    /^Written by `npm run bench` on 2026-12-03 10:11 UTC: .+, \d+ cores, Node v\d+\.\d+\.\d+ \(\w+\/\w+\), load average [\d.]+ \/ [\d.]+ \/ [\d.]+ \(1 \/ 5 \/ 15 min\)\.$/,
  );
});

test("the provenance's facts, as a results file and a chart's caption carry them, print as the same line", () => {
  const facts = provenanceOf("npm run bench -- --proxy", new Date("2026-12-03T10:11:12Z"));
  assert.equal(facts.date, "2026-12-03T10:11:12.000Z");
  assert.equal(facts.cores, cpus().length);
  assert.equal(facts.node, process.version);
  assert.equal(facts.load.length, 3);
  for (const n of facts.load) assert.equal(n, Number(n.toFixed(2)));
  const line = provenanceLine(facts);
  assert.ok(line.startsWith(`Written by \`npm run bench -- --proxy\` on 2026-12-03 10:11 UTC: ${facts.cpu}, ${facts.cores} cores,`));
  assert.ok(line.endsWith(`load average ${facts.load.map((n) => n.toFixed(2)).join(" / ")} (1 / 5 / 15 min).`));
});

test("a printed table becomes a bold heading and a text block", () => {
  assert.equal(textSection("## Size (generated)", "a  b", "1  2"), "**Size (generated)**\n\n```text\na  b\n1  2\n```");
});
