import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { FlagTable } from "../src/cli/args.js";
import { CHECK_FLAGS } from "../src/cli/check/options.js";
import { CHECK_USAGE } from "../src/cli/check/usage.js";
import { COMPILE_FLAGS } from "../src/cli/compile/command.js";
import { COMPILE_USAGE } from "../src/cli/compile/usage.js";
import { INSPECT_FLAGS } from "../src/cli/inspect/command.js";
import { INSPECT_USAGE } from "../src/cli/inspect/usage.js";
import { PROXY_FLAGS } from "../src/cli/proxy/proxy-command.js";
import { PROXY_USAGE } from "../src/cli/proxy/usage.js";
import { STDIO_FLAGS } from "../src/cli/stdio/stdio-command.js";
import { STDIO_USAGE } from "../src/cli/stdio/usage.js";
import { CLI_DOCS } from "../scripts/render-cli-docs.js";

const doc = readFileSync(CLI_DOCS, "utf8");

/** The text of one `## ` section of docs/cli.md, by its heading. */
function section(heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/cli.md has no section ${heading}`);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** A flag as the table declares it: `--no-x` of a switch is the switch `--x` turned off. */
function declaredName(flag: string, table: FlagTable): string {
  const base = flag.startsWith("--no-") ? flag.slice(5) : undefined;
  return base !== undefined && table[base]?.kind === "switch" ? `--${base}` : flag;
}

/** The flags a section's tables name in their first column (`--flag VALUE`, several per cell), `--help` aside. */
function tableFlags(text: string, table: FlagTable): string[] {
  const flags = new Set<string>();
  for (const line of text.split("\n")) {
    const first = /^\| ((?:[^|\\]|\\.)+) \|/.exec(line)?.[1] ?? "";
    for (const [flag] of first.matchAll(/--[a-z][\w-]*/g)) if (flag !== "--help") flags.add(declaredName(flag, table));
  }
  return [...flags].sort();
}

/** Every flag a text names (`--x` or `--no-x` of a switch), `--help` and another command's (`wymcp compile --lock`) aside. */
function namedFlags(text: string, table: FlagTable, pattern = /(?<![\w-])(--[a-z][\w-]*)/g): string[] {
  const own = text.replace(/wymcp (?:check|compile|inspect|proxy|stdio) --[a-z][\w-]*/g, "");
  return [...new Set([...own.matchAll(pattern)].map((m) => declaredName(m[1]!, table)))].filter((f) => f !== "--help").sort();
}

/** A command's flags as its table declares them, `--help` aside. */
const declared = (table: FlagTable) =>
  Object.keys(table)
    .map((name) => `--${name}`)
    .filter((flag) => flag !== "--help")
    .sort();

describe("docs/cli.md names exactly the flags each command's table declares", () => {
  test("wymcp check: its options table", () => {
    assert.deepEqual(tableFlags(section("`wymcp check`"), CHECK_FLAGS), declared(CHECK_FLAGS));
  });

  test("wymcp proxy: its options table, the live page's flags included", () => {
    assert.deepEqual(tableFlags(section("`wymcp proxy`"), PROXY_FLAGS), declared(PROXY_FLAGS));
  });

  test("wymcp stdio: its section names each of its flags, and no flag it does not take", () => {
    const text = section("`wymcp stdio`");
    const flags = declared(STDIO_FLAGS);
    assert.deepEqual(
      namedFlags(text, STDIO_FLAGS, /`(--[a-z][\w-]*)/g).filter((flag) => !flags.includes(flag)),
      [],
    );
    for (const flag of flags)
      assert.ok(
        namedFlags(text, STDIO_FLAGS, /`(--[a-z][\w-]*)/g).includes(flag),
        `docs/cli.md's wymcp stdio section does not name ${flag}`,
      );
  });

  test("the comparison fails on a flag the table lacks or names in excess, and reads --no-x as the switch x", () => {
    assert.notDeepEqual(
      tableFlags("| `--era M` | auto | x |\n", CHECK_FLAGS),
      declared({ era: { kind: "value" }, json: { kind: "switch" } }),
    );
    assert.deepEqual(tableFlags("| `--era M`, `-h`, `--help` | auto | x |\n| option | default | meaning |\n", CHECK_FLAGS), ["--era"]);
    assert.deepEqual(tableFlags("| `--no-json` | | |\n| `--no-era` | | |\n", CHECK_FLAGS), ["--json", "--no-era"]);
  });
});

describe("each command's --help names exactly the flags its table declares", () => {
  for (const [command, table, usage] of [
    ["check", CHECK_FLAGS, CHECK_USAGE],
    ["inspect", INSPECT_FLAGS, INSPECT_USAGE],
    ["proxy", PROXY_FLAGS, PROXY_USAGE],
    ["stdio", STDIO_FLAGS, STDIO_USAGE],
    ["compile", COMPILE_FLAGS, COMPILE_USAGE],
  ] as const) {
    test(`wymcp ${command}`, () => {
      // inspect's help names check's flags in its prose, as they are written: the same rule reads them.
      assert.deepEqual(
        namedFlags(usage, table).filter((flag) => !declared(table).includes(flag)),
        [],
        "flags the help names that the command does not take",
      );
      assert.deepEqual(
        declared(table).filter((flag) => !namedFlags(usage, table).includes(flag)),
        [],
        "flags the command takes that its help does not name",
      );
    });
  }
});
