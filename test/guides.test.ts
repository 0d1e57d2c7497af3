import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { consoleCommands, guideBlocks, shellSteps } from "../scripts/guide-blocks.js";
import { blocksOf, importedPackages, makeConsumer } from "../scripts/check-docs.js";
import { assertFreshDist } from "./support/built.js";
import { runGuide } from "./support/guide-runner.js";
import { repoRoot } from "./support/spec.js";

const GUIDES = join(repoRoot, "docs", "guides");
const guides = readdirSync(GUIDES)
  .filter((f) => f.endsWith(".md"))
  .sort();
const text = (guide: string) => readFileSync(join(GUIDES, guide), "utf8");
/** What a reader's terminal shows: no trailing blanks, one final newline. */
const shown = (output: string) => `${output.replace(/[ \t]+$/gm, "").trimEnd()}\n`;

describe("a guide's blocks are read as its reader reads them", () => {
  test("a titled block names its file; a sh block's background step, its address and here-document are each one step", () => {
    const blocks = guideBlocks(
      "```python title=\"server.py\"\nprint(1)\n```\n\n```sh\na &  # http://127.0.0.1:8000/mcp\ncat > x <<'EOF'\ny &\nEOF\nb \\\n  c\n```\n",
    );
    assert.deepEqual(
      blocks.map((b) => [b.lang, b.title]),
      [
        ["python", "server.py"],
        ["sh", undefined],
      ],
    );
    assert.deepEqual(shellSteps(blocks[1]!.code), [
      { text: "a", background: true, address: "http://127.0.0.1:8000" },
      { text: "cat > x <<'EOF'\ny &\nEOF\nb c", background: false, address: undefined },
    ]);
  });

  test("a console block's wymcp lines are its commands, quotes and comments read as a shell reads them", () => {
    const commands = consoleCommands("$ npm i wymcp\n$ npx wymcp check 'a b.json' --header \"X: 1\"  # one\nout\n");
    assert.deepEqual(commands, [["check", "a b.json", "--header", "X: 1"]]);
  });
});

describe("the guides in docs/guides/", () => {
  let consumer: string;
  before(() => {
    assertFreshDist();
    // The packed package as a reader installs it, beside what the guides import and the bin's optional peers.
    const imported = importedPackages(guides.flatMap((g) => blocksOf(`docs/guides/${g}`, text(g))));
    const peers = [
      "@modelcontextprotocol/client",
      "@modelcontextprotocol/server",
      "ajv",
      "ajv-formats",
      "json-schema-to-typescript",
      "zod",
    ];
    consumer = makeConsumer([...new Set([...imported, ...peers])]);
  });
  after(() => consumer && rmSync(consumer, { recursive: true, force: true }));

  for (const guide of guides) {
    test(`${guide}: every sh block runs and prints what the guide shows after it; every console command's flags are taken`, async () => {
      const dir = join(consumer, guide.replace(/\.md$/, ""));
      const runs = await runGuide(text(guide), dir, consumer);
      assert.ok(runs.length > 0, `${guide} has no sh block: a guide shows a command that runs`);
      for (const { block, stdout, stderr, status, expected } of runs) {
        const where = `docs/guides/${guide}:${block.line}`;
        if (expected === undefined) assert.equal(status, 0, `${where} exited ${status}:\n${stderr}`);
        else assert.equal(shown(stdout), shown(expected), `${where} printed otherwise than the guide shows; its stderr:\n${stderr}`);
      }
      // In the guide's folder, after its sh blocks, so that the files its console commands name are there.
      const cli = join(consumer, "node_modules", "wymcp", "dist", "cli.js");
      for (const block of guideBlocks(text(guide)).filter((b) => b.lang === "console")) {
        for (const args of consoleCommands(block.code)) {
          // --help after the flags: the command reads them all (an unknown flag is a usage error, exit 2), then prints its usage.
          const end = args.includes("--") ? args.indexOf("--") : args.length;
          const run = spawnSync(process.execPath, [cli, ...args.slice(0, end), "--help", ...args.slice(end)], {
            cwd: dir,
            encoding: "utf8",
          });
          assert.equal(run.status, 0, `docs/guides/${guide}:${block.line}: wymcp ${args.join(" ")}: ${run.stderr}`);
        }
      }
    });
  }
});
