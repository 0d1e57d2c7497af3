import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { gateFetch, wymcpFetch } from "wymcp/fetch";
import { gateNode, wymcpNode } from "wymcp/node";
import { staleRendered } from "../scripts/check-docs.js";
import { CLI_DOCS } from "../scripts/render-cli-docs.js";
import {
  type Face,
  FACES,
  OPTIONS_DOC,
  type OptionDoc,
  readOptions,
  renderOptionsDoc,
  renderOptionsTable,
} from "../scripts/options-doc.js";

const handler = { fetch: async () => new Response(null, { status: 204 }) };
/** Each face built with the options given, as a user builds it; its option check runs then. */
const build: Record<Face, (options: object) => unknown> = {
  gateNode: (options) => gateNode(handler, options),
  gateFetch: (options) => gateFetch(handler, options),
  wymcpNode: (options) => wymcpNode(options),
  wymcpFetch: (options) => wymcpFetch(options),
};

/** The keys a face's option check accepts, as its error for an unknown key lists them. */
function acceptedKeys(face: Face): string[] {
  try {
    build[face]({ "not-an-option": 1 });
  } catch (error) {
    const listed = /this face takes (.*)$/.exec((error as Error).message)?.[1];
    assert.ok(listed, `${face}: the unknown-key error lists no keys: ${(error as Error).message}`);
    return listed.split(", ").sort();
  }
  assert.fail(`${face} accepted an unknown key`);
}

describe("the options reference (docs/hosts.md)", () => {
  const options = readOptions();

  test("its table is the one the option types render: npm run docs:options writes it", () => {
    const text = readFileSync(OPTIONS_DOC, "utf8");
    assert.equal(text, renderOptionsDoc(text, options), "docs/hosts.md's options table is stale: run npm run docs:options");
  });

  for (const { face } of FACES) {
    test(`${face}: the keys its option check accepts are exactly the options its type documents`, () => {
      const documented = options
        .filter((o) => !o.name.includes(".") && o.faces.includes(face))
        .map((o) => o.name)
        .sort();
      assert.deepEqual(documented, acceptedKeys(face));
      // And each one is taken when given, not only listed.
      for (const name of documented) assert.doesNotThrow(() => build[face]({ [name]: undefined }), name);
    });
  }

  for (const { face } of FACES) {
    test(`${face}: the keys each group's check accepts (limits, allow, tools) are exactly those its type documents`, () => {
      for (const group of ["limits", "allow", "tools"]) {
        const documented = options
          .filter((o) => o.name.startsWith(`${group}.`) && o.faces.includes(face))
          .map((o) => o.name.slice(group.length + 1))
          .sort();
        let listed: string | undefined;
        try {
          build[face]({ [group]: { "not-an-option": 1 } });
        } catch (error) {
          listed = new RegExp(`${group} takes (.*)$`).exec((error as Error).message)?.[1];
        }
        assert.ok(listed, `${face}: ${group} accepted an unknown key, or its error lists no keys`);
        assert.deepEqual(documented, listed.split(", ").sort(), group);
      }
    });
  }

  test("every option says what it does and what it defaults to", () => {
    const lacking = options.filter((o) => o.meaning === "" || o.default === undefined).map((o) => o.name);
    assert.deepEqual(lacking, [], "add a doc comment and a @default tag to each");
  });
});

describe("rendering the options table", () => {
  const rows: OptionDoc[] = [
    {
      name: "maxDepth",
      meaning: "Deepest nesting (docs/security.md#the-nesting-bound).",
      default: "`64`",
      faces: FACES.map((f) => f.face),
    },
    { name: "authInfo", meaning: "The caller | or a Response.", default: "none", faces: ["gateFetch"] },
  ];
  const table = renderOptionsTable(rows);

  test("an option every face takes says all; another names its faces", () => {
    assert.match(table, /^\| `maxDepth` \| all \| `64` \|/m);
    assert.match(table, /^\| `authInfo` \| `gateFetch` \| none \|/m);
  });

  test("a docs/ path in a doc comment becomes a link from the page, and a | cannot split a cell", () => {
    assert.ok(table.includes("[security.md](security.md#the-nesting-bound)"), table);
    assert.ok(table.includes("The caller \\| or a Response."), table);
  });

  test("a changed option changes the page: the stale table is replaced between its markers", () => {
    const page = "# Page\n\n<!-- options:table -->\nold\n<!-- /options:table -->\n\nAfter.\n";
    const rendered = renderOptionsDoc(page, rows);
    assert.ok(!rendered.includes("\nold\n"));
    assert.ok(rendered.endsWith("<!-- /options:table -->\n\nAfter.\n"));
    assert.notEqual(renderOptionsDoc(rendered, rows.slice(1)), rendered);
  });
});

test("npm run docs:check reports a stale options table and a stale CLI example, and nothing on the pages as committed", () => {
  assert.deepEqual(staleRendered(), []);
  const dir = mkdtempSync(join(tmpdir(), "wymcp-rendered-"));
  try {
    mkdirSync(join(dir, "docs"));
    const hosts = readFileSync(OPTIONS_DOC, "utf8");
    writeFileSync(join(dir, "docs", "hosts.md"), hosts.replace(/^\| `limits.maxDepth` .*\n/m, ""));
    writeFileSync(join(dir, "docs", "cli.md"), readFileSync(CLI_DOCS, "utf8").replace(/^(bad-tools-call\.json:1 {2})reject/m, "$1pass"));
    assert.deepEqual(
      staleRendered(dir).map((line) => line.split(":")[0]),
      ["docs/hosts.md", "docs/cli.md"],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
