/**
 * Never worse than the SDKs: every message wymcp's default mode refuses, judged by the official TypeScript SDK's Zod
 * schemas and the official Python SDK's pydantic models too. A message both SDKs accept and wymcp refuses is a failure,
 * unless docs/validation.md lists its kind with the reason the spec's text (not an annotation of its schema) forbids
 * it; a kind listed there that this run never met is a failure too, so the list and the test cannot drift.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { replaceSection, writeDocSection } from "../scripts/doc-sections.js";
import { updatingGoldens } from "./support/golden.js";
import { type Case, generateCases, pythonAccepts, readAllowList, tsAccepts, wymcpVerdict } from "./support/never-worse.js";
import { repoRoot } from "./support/spec.js";

const VALIDATION_DOC = join(repoRoot, "docs", "validation.md");
const COUNTS = "never-worse:counts";

interface Row {
  messages: number;
  refused: number;
  ts: number;
  python: number;
  worse: number;
}

function table(rows: Map<string, Row>): string[] {
  const head = ["definition", "messages", "refused by wymcp", "accepted by TS", "accepted by Python", "wymcp refuses, both accept"];
  const lines = [...rows].sort(([a], [b]) => a.localeCompare(b)).map(([name, r]) => [name, r.messages, r.refused, r.ts, r.python, r.worse]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const format = (cells: Array<string | number>) =>
    cells.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]!) : String(cell).padStart(widths[i]!))).join("  ");
  return [format(head), ...lines.map(format)];
}

describe("never worse: wymcp refuses nothing both official SDKs accept, unless the spec's text forbids it", () => {
  test("generated and real-world messages of every method and revision, judged by wymcp, the TypeScript SDK and the Python SDK", async (t) => {
    const cases = generateCases();
    const python = await pythonAccepts(cases);
    const allowed = readAllowList();
    const rows = new Map<string, Row>();
    const worse = new Map<string, { count: number; example: Case }>();
    const origins: Record<string, { messages: number; bothAccept: number }> = {};
    for (const [i, c] of cases.entries()) {
      const verdict = wymcpVerdict(c);
      const ts = tsAccepts(c);
      const py = python[i]!;
      const name = `${c.era} ${c.definition}`;
      const row = rows.get(name) ?? { messages: 0, refused: 0, ts: 0, python: 0, worse: 0 };
      rows.set(name, row);
      row.messages++;
      if (verdict.refused) row.refused++;
      if (ts) row.ts++;
      if (py) row.python++;
      const origin = (origins[c.origin] ??= { messages: 0, bothAccept: 0 });
      origin.messages++;
      if (ts && py) origin.bothAccept++;
      if (verdict.refused && ts && py) {
        row.worse++;
        const entry = worse.get(verdict.kind!) ?? { count: 0, example: c };
        entry.count++;
        worse.set(verdict.kind!, entry);
      }
    }
    const total = (key: keyof Row) => [...rows.values()].reduce((n, r) => n + r[key], 0);
    const summary =
      `${cases.length} messages: ${total("refused")} refused by wymcp, ${total("ts")} accepted by the TypeScript SDK, ` +
      `${total("python")} by the Python SDK, ${total("worse")} refused by wymcp though both accept, in ${worse.size} kind${worse.size === 1 ? "" : "s"}`;
    t.diagnostic(summary);
    t.diagnostic(`by origin (messages / both SDKs accept): ${JSON.stringify(origins)}`);
    for (const line of table(rows)) t.diagnostic(line);
    for (const [kind, { count, example }] of [...worse].sort(([a], [b]) => a.localeCompare(b)))
      t.diagnostic(
        `${allowed.has(kind) ? "allowed" : "WORSE"} ×${count}: ${kind} (e.g. ${example.revision}: ${JSON.stringify(example.body).slice(0, 240)})`,
      );

    // The generator reaches both sides of every judge, or the comparison proves nothing.
    assert.ok(total("refused") > cases.length / 10 && total("refused") < cases.length * 0.9, "wymcp's verdicts are one-sided");
    assert.ok(total("ts") > cases.length / 10 && total("ts") < cases.length * 0.9, "the TypeScript SDK's verdicts are one-sided");
    assert.ok(total("python") > cases.length / 10 && total("python") < cases.length * 0.9, "the Python SDK's verdicts are one-sided");
    assert.ok(origins.value!.bothAccept > 1000, "too few real-world values both SDKs accept");

    assert.deepEqual(
      [...worse.keys()].filter((kind) => !allowed.has(kind)).sort(),
      [],
      "refused by wymcp, accepted by both SDKs, and not listed in docs/validation.md",
    );
    assert.deepEqual(
      [...allowed.keys()].filter((kind) => !worse.has(kind)).sort(),
      [],
      "listed in docs/validation.md but no longer met: remove it from the list",
    );

    // The counts in docs/validation.md are this run's (the messages are seeded, so every run counts the same).
    const counts = `${summary}.\n\n\`\`\`text\n${table(rows).join("\n")}\n\`\`\``;
    if (updatingGoldens()) writeDocSection(VALIDATION_DOC, COUNTS, counts);
    const doc = readFileSync(VALIDATION_DOC, "utf8");
    assert.equal(
      doc,
      replaceSection(doc, COUNTS, counts),
      "docs/validation.md's counts are not this run's: npm run golden:update rewrites them",
    );
  });

  test("the allow-list in docs/validation.md gives every kind a reason", () => {
    for (const [kind, reason] of readAllowList()) assert.ok(reason.length > 20, `${kind}: no reason given`);
  });
});
