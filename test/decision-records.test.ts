import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { anchorsOf } from "../scripts/check-links.js";
import { checkDecisions, type DecisionRecord, parseRecord, renderIndex, writtenIndex } from "../scripts/decision-records.js";

const RECORD = [
  "# Validators precompiled",
  "- Status: accepted",
  "- Date: 2026-12-02",
  "- Area: codegen",
  "",
  "## Context",
  "Compiling at start-up costs time.",
  "",
  "## Decision",
  "Compile at build time.",
  "",
  "## Alternatives measured",
  "Ajv at boot.",
  "",
  "## Consequences",
  "generated/ is committed.",
  "",
].join("\n");

test("a record in the form has no problem, and its fields are read", () => {
  const { record, problems } = parseRecord("precompiled", RECORD);
  assert.deepEqual(problems, []);
  assert.deepEqual(record, {
    slug: "precompiled",
    title: "Validators precompiled",
    status: "accepted",
    date: "2026-12-02",
    area: "codegen",
    supersededBy: [],
    lines: 16,
  });
});

const BROKEN: Array<[string, (text: string) => string, RegExp]> = [
  ["no title", (t) => t.replace("# Validators precompiled", "Validators precompiled"), /first line is not a title/],
  ["no status", (t) => t.replace("- Status: accepted\n", ""), /no "- Status:" line/],
  ["a status of another kind", (t) => t.replace("accepted", "proposed"), /status "proposed" is neither/],
  ["no date", (t) => t.replace("- Date: 2026-12-02\n", ""), /no "- Date:" line/],
  ["a date that is no day", (t) => t.replace("2026-12-02", "2026-13-40"), /date "2026-13-40" is not a day/],
  ["an area the index does not have", (t) => t.replace("codegen", "misc"), /area "misc" is none of the index's/],
  ["a section missing", (t) => t.replace("## Alternatives measured\nAjv at boot.\n\n", ""), /its sections are .* not /],
  ["a section renamed", (t) => t.replace("## Consequences", "## Result"), /its sections are .*"Result"/],
  ["an empty section", (t) => t.replace("Ajv at boot.\n", ""), /section "Alternatives measured" is empty/],
  ["over 40 lines", (t) => t + "More.\n".repeat(25), /41 lines, over 40/],
  ["superseded by nothing linked", (t) => t.replace("accepted", "superseded by the next one"), /superseded by no linked record/],
];

test("a record that breaks the form is named with what it lacks", () => {
  for (const [name, breakIt, problem] of BROKEN) {
    const { problems } = parseRecord("x", breakIt(RECORD));
    assert.ok(
      problems.some((p) => problem.test(p)),
      `${name}: ${JSON.stringify(problems)}`,
    );
  }
});

const record = (slug: string, fields: Partial<DecisionRecord>): DecisionRecord => ({
  slug,
  title: slug,
  status: "accepted",
  date: "2026-12-02",
  area: "codegen",
  supersededBy: [],
  lines: 10,
  ...fields,
});

test("the index lists each record by area in the index's order, by date, superseded ones marked, unplaced ones last, with the former anchors", () => {
  const index = renderIndex([
    record("later", { date: "2026-12-05", status: "accepted, supersedes [Old](old.md)" }),
    record("old", { date: "2026-12-03", status: "superseded by [Later](later.md)", supersededBy: ["later"] }),
    record("proxy", { area: "proxy and stdio" }),
    record("loose", { area: undefined }),
    record("first", { area: "codegen", title: "First" }),
  ]);
  assert.equal(
    index,
    [
      "5 records, 1 of them superseded.",
      "",
      "## Codegen",
      "",
      "- 2026-12-02 [First](decisions/first.md)",
      "- 2026-12-03 [old](decisions/old.md) (superseded by [Later](decisions/later.md))",
      "- 2026-12-05 [later](decisions/later.md) (accepted, supersedes [Old](decisions/old.md))",
      "",
      "## Proxy and stdio",
      "",
      '<a id="in-front-of-anything-else-plain-handlers-wymcp-proxy-wymcp-stdio"></a>',
      "",
      "- 2026-12-02 [proxy](decisions/proxy.md)",
      "",
      "## Not yet placed",
      "",
      "- 2026-12-02 [loose](decisions/loose.md)",
    ].join("\n"),
  );
});

test("a record missing from the index, a stale index and a superseding record that does not exist each fail the check", () => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-decisions-"));
  try {
    mkdirSync(join(dir, "docs", "decisions"), { recursive: true });
    writeFileSync(join(dir, "docs", "decisions", "precompiled.md"), RECORD);
    const emptyIndex = "# Decisions\n\n<!-- decisions:index -->\n<!-- /decisions:index -->\n";
    writeFileSync(join(dir, "docs", "decisions.md"), emptyIndex);
    assert.deepEqual(
      checkDecisions(dir).map((p) => `${p.file}: ${p.problem}`),
      [
        "docs/decisions/precompiled.md: it is missing from docs/decisions.md: run npm run docs:decisions",
        "docs/decisions.md: its list differs from the records' own headings: run npm run docs:decisions",
      ],
    );
    const { record: parsed } = parseRecord("precompiled", RECORD);
    writeFileSync(join(dir, "docs", "decisions.md"), writtenIndex(emptyIndex, [parsed]));
    assert.deepEqual(checkDecisions(dir), []);
    writeFileSync(join(dir, "docs", "decisions", "precompiled.md"), RECORD.replace("accepted", "superseded by [Gone](gone.md)"));
    assert.ok(checkDecisions(dir).some((p) => /superseded by gone\.md, which does not exist/.test(p.problem)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("every record of docs/decisions/ is complete, at most 40 lines, and listed in docs/decisions.md as written", () => {
  assert.deepEqual(
    checkDecisions().map((p) => `${p.file}: ${p.problem}`),
    [],
  );
  assert.match(readFileSync(join(import.meta.dirname, "..", "docs", "decisions.md"), "utf8"), /^# Decisions\n\n\S/);
});

test("every section anchor decisions.md had as one long page still lands on the index", () => {
  const former = [
    "codegen",
    "validation",
    "hosts",
    "options",
    "in-front-of-anything-else-plain-handlers-wymcp-proxy-wymcp-stdio",
    "the-nesting-bound-maxdepth-default-64",
    "observability",
    "the-command-lines---otel",
    "packaging",
    "wymcp-compile---lint-and---from",
    "pinning-the-servers-tools---lock-toolslock",
    "wymcp-check-on-captures",
    "the-transports-letter-host-origin-headers-versions",
    "the-servers-tools-at-the-edge",
    "documentation",
    "testing",
    "wymcp-inspect",
    "one-gate-pipeline-thin-faces-a-thin-command-line",
  ];
  const anchors = anchorsOf(readFileSync(join(import.meta.dirname, "..", "docs", "decisions.md"), "utf8"));
  assert.deepEqual(
    former.filter((anchor) => !anchors.has(anchor)),
    [],
  );
});
