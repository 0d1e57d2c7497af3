import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { CHECK_FLAG_SPECS } from "../src/cli/check/options.js";
import { LIVE_FLAGS } from "../src/cli/live/live.js";
import { PROXY_FLAG_SPECS } from "../src/cli/proxy/proxy-command.js";
import { STDIO_FLAG_SPECS } from "../src/cli/stdio/stdio-command.js";
import { CLI_DOCS } from "../scripts/render-cli-docs.js";

const doc = readFileSync(CLI_DOCS, "utf8");

/** The text of one `## ` section of docs/cli.md, by its heading. */
function section(heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/cli.md has no section ${heading}`);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** The flags a section's tables name in their first column (`--flag VALUE`, several per cell), `--help` aside. */
function tableFlags(text: string): string[] {
  const flags = new Set<string>();
  for (const line of text.split("\n")) {
    const first = /^\| ((?:[^|\\]|\\.)+) \|/.exec(line)?.[1] ?? "";
    for (const [flag] of first.matchAll(/--[a-z][\w-]*/g)) if (flag !== "--help") flags.add(flag);
  }
  return [...flags].sort();
}

/** A command's flags as its parser declares them, `--help` aside. */
const declared = (specs: object, extra: Iterable<string> = []) =>
  [...Object.keys(specs).map((name) => `--${name}`), ...extra].filter((flag) => flag !== "--help").sort();

describe("docs/cli.md names exactly the flags each command's parser takes", () => {
  test("wymcp check: its options table", () => {
    assert.deepEqual(tableFlags(section("`wymcp check`")), declared(CHECK_FLAG_SPECS));
  });

  test("wymcp proxy: its options table, the live page's flags included", () => {
    assert.deepEqual(tableFlags(section("`wymcp proxy`")), declared(PROXY_FLAG_SPECS, LIVE_FLAGS));
  });

  test("wymcp stdio: its section names each of its flags, and no flag it does not take", () => {
    const text = section("`wymcp stdio`");
    const flags = declared(STDIO_FLAG_SPECS, LIVE_FLAGS);
    for (const flag of flags) assert.match(text, new RegExp(`\`${flag}\\b`), `docs/cli.md's wymcp stdio section does not name ${flag}`);
    const named = [...new Set([...text.matchAll(/`(--[a-z][\w-]*)/g)].map((m) => m[1]!))].filter((f) => f !== "--help");
    assert.deepEqual(
      named.filter((flag) => !flags.includes(flag)),
      [],
    );
  });

  test("the comparison fails on a flag the table lacks or names in excess", () => {
    assert.notDeepEqual(tableFlags("| `--era M` | auto | x |\n"), declared({ era: {}, json: {} }));
    assert.deepEqual(tableFlags("| `--era M`, `-h`, `--help` | auto | x |\n| option | default | meaning |\n"), ["--era"]);
  });
});
