/**
 * The benchmark's charts by family (bench/charts.ts): each drawn from a run's results objects, against the budgets the
 * targets judge; budgets.json keeps each family's last reading across runs; the summary at the top of
 * docs/performance.md is written from it; a results file is refused when its figures cannot stand in a doc.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { AdversarialResult } from "../bench/adversarial.js";
import {
  adversarialChart,
  coldStartChart,
  inputsOf,
  perMessageChart,
  proxyChart,
  ResultsFileError,
  summaryMarkdown,
  writeCharts,
} from "../bench/charts.js";
import type { Spread } from "../bench/measure.js";
import type { CaseFigures } from "../bench/per-message.js";
import type { ProxyBenchResults } from "../bench/proxy.js";
import type { Target } from "../bench/report.js";
import type { StartupResult } from "../bench/startup.js";
import { barChart } from "../bench/svg-chart.js";
import type { Provenance } from "../scripts/doc-sections.js";

const spread = (...samples: number[]): Spread => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { min: sorted[0]!, median: sorted[sorted.length >> 1]!, max: sorted.at(-1)!, samples };
};

const provenance = (command: string, date: string): Provenance => ({
  command,
  date,
  cpu: "Test CPU",
  cores: 2,
  node: "v20.20.2",
  platform: "linux/x64",
  load: [1.5, 1.25, 1],
});
const bench = provenance("npm run bench", "2026-12-07T05:00:00.000Z");
const proxyRun = provenance("npm run bench -- --proxy", "2026-12-07T06:30:00.000Z");

const variant = (key: string, label: string, vsParse: Spread) => ({ key, label, opsPerSec: spread(1), vsParse, vsZod: spread(1) });
const message = (key: string, label: string, era: string, annotation: Spread, strict: Spread, bypass = false): CaseFigures => ({
  key,
  label,
  era,
  bytes: 100,
  source: "",
  zodRef: "",
  variants: [
    variant("parse", "JSON.parse alone (floor)", spread(1, 1, 1)),
    variant("vmr", bypass ? "validateMcpRequest (bypass: not validated)" : "validateMcpRequest (parsed body)", annotation),
    variant("vmr-strict", 'validateMcpRequest, formats: "strict"', strict),
  ],
});
const cases: CaseFigures[] = [
  message("tools-call", "modern tools/call (325 B)", "modern", spread(14.5, 13.8, 14.7), spread(14.4, 13.7, 15.2)),
  message("legacy-tools-call", "legacy tools/call (132 B)", "legacy", spread(12.9, 12.4, 13.4), spread(13.3, 12.4, 14.3)),
  message("legacy-cancelled", "legacy notifications/cancelled (120 B)", "legacy", spread(6.15, 5.86, 6.78), spread(6.92, 6.28, 7.14)),
  message("legacy-response", "legacy client response (187 B)", "legacy", spread(50, 49.2, 51.4), spread(47, 43.4, 48.8), true),
];

test("per message: validateMcpRequest ÷ JSON.parse in both format modes, the tools/calls against ≥ 10× and the rest not judged", () => {
  const drawn = perMessageChart(cases, bench);
  const groups = drawn.chart!.groups;
  assert.deepEqual(
    groups.map((g) => [g.budget?.limit, g.bars.map((b) => [b.label, b.value, b.low, b.high])]),
    [
      [
        10,
        [
          ["formats: annotation", 14.5, 13.8, 14.7],
          ["formats: strict", 14.4, 13.7, 15.2],
        ],
      ],
      [
        10,
        [
          ["formats: annotation", 12.9, 12.4, 13.4],
          ["formats: strict", 13.3, 12.4, 14.3],
        ],
      ],
      [
        undefined,
        [
          ["formats: annotation", 6.15, 5.86, 6.78],
          ["formats: strict", 6.92, 6.28, 7.14],
        ],
      ],
      [
        undefined,
        [
          ["formats: annotation", 50, 49.2, 51.4],
          ["formats: strict", 47, 43.4, 48.8],
        ],
      ],
    ],
  );
  assert.match(groups[3]!.title, /passed by unvalidated/);
  // The notification's 6.15× has no budget: the row reads the lowest of the four judged bars.
  assert.deepEqual(drawn.rows, [
    {
      budget: "validateMcpRequest ÷ JSON.parse of a valid tools/call, modern and legacy, both format modes (the lowest of the four)",
      bar: "≥ 10×",
      reading: "12.9× (legacy tools/call, formats: annotation)",
      met: true,
    },
  ]);
  assert.match(drawn.chart!.caption[0]!, /^Written by npm run bench on 2026-12-07 05:00 UTC: Test CPU, 2 cores, Node v20\.20\.2/);
});

const workload = (key: string, label: string, traffic: "valid" | "invalid", vsPassThrough: Spread, load: number[]) =>
  ({ key, label, traffic, vsPassThrough, vsDirect: spread(1), load }) as unknown as ProxyBenchResults["http"][number];
const proxyResults = {
  http: [
    workload("tools-call", "valid tools/call", "valid", spread(0.92, 0.84, 1.2), [0.45, 1.5]),
    workload("tools-list", "valid tools/list", "valid", spread(1.02, 0.93, 1.24), [1.6]),
    workload("tools-call-50k", "50 KiB tools/call", "valid", spread(0.95, 0.9, 0.99), [2]),
    workload("invalid-tools-call", "invalid tools/call", "invalid", spread(14, 12, 15), [2.4]),
  ],
  stdio: { vsPassThrough: spread(0.94, 0.84, 1.01), load: [2.05, 2.26] } as unknown as ProxyBenchResults["stdio"],
};

test("proxy: the valid workloads ÷ --pass-through against ≥ 0.95, stdio against ≥ 0.9; a ratio under its line is a miss", () => {
  const drawn = proxyChart(proxyResults, proxyRun);
  const [http, stdio] = drawn.chart!.groups;
  assert.equal(http!.budget!.limit, 0.95);
  assert.deepEqual(
    http!.bars.map((b) => [b.label, b.value]),
    [
      ["valid tools/call", 0.92],
      ["valid tools/list", 1.02],
      ["50 KiB tools/call", 0.95],
    ],
  );
  assert.equal(stdio!.budget!.limit, 0.9);
  assert.equal(stdio!.bars[0]!.value, 0.94);
  assert.deepEqual(
    drawn.rows.map((r) => [r.reading, r.met]),
    [
      ["0.92× (valid tools/call)", false],
      ["0.94×", true],
    ],
  );
  // The load of the rounds drawn, not the invalid workload's.
  assert.match(drawn.chart!.caption[1]!, /during the rounds 0\.45–2\.26\./);
});

test("cold start: wymcp's time over an empty process against Ajv at boot's, its budget line at 5 % of Ajv's, Ajv's bar not judged", () => {
  const figures = (wall: number[], cpu: number[]) => {
    const s = spread(...wall);
    return { label: "", covers: "", diagnostic: false, readyMs: s, firstCallMs: s, processMs: s, cpuMs: spread(...cpu), wallMs: s };
  };
  const startup: StartupResult = {
    rounds: 3,
    order: ["empty", "runtime", "ajv-boot"],
    variants: {
      empty: figures([70, 70, 70], [50, 50, 50]),
      runtime: figures([76, 75, 83], [54, 54, 55]),
      "ajv-boot": figures([270, 280, 290], [330, 340, 350]),
    },
  };
  const drawn = coldStartChart(startup, bench);
  const [wall, cpu] = drawn.chart!.groups;
  // Over empty: wymcp 6, 5, 13 ms (median 6); Ajv 200, 210, 220 ms (median 210); per-round shares 3 %, 2.4 %, 5.9 %.
  assert.deepEqual(
    wall!.bars.map((b) => [b.value, b.low, b.high, b.meets]),
    [
      [210, 200, 220, null],
      [6, 5, 13, true],
    ],
  );
  assert.ok(Math.abs(wall!.budget!.limit - 10.5) < 1e-9);
  assert.equal(wall!.budget!.atLeast, false);
  assert.equal(cpu!.budget, undefined);
  assert.equal(drawn.rows[0]!.reading, "3.0 % (6.00 ms against 210 ms)");
  assert.equal(drawn.rows[0]!.met, true);
});

const location = (lane: string, shape: string, label: string, ratio: Spread, rejects = true) => ({
  lane,
  shape,
  label,
  root: "",
  kind: "wrong-type",
  rejects,
  n: 16384,
  bytes: 81920,
  ratio,
  growth: spread(4),
  maxN: 16384,
  stoppedBy: "cap" as const,
  msAtN: 1,
});

test("adversarial: the worst location of each shape per direction and era against the 10× bound; one over it misses", () => {
  const result = {
    settings: { rounds: 5 },
    locations: [
      location("inbound-modern", "array", "JSONValue|1[]", spread(11.3, 11.2, 11.4), false),
      location("inbound-modern", "array", "Icon.sizes[]", spread(0.75, 0.7, 1.1)),
      location("inbound-modern", "map", "JSONObject{}", spread(1.63, 1.6, 1.7), false),
      location("outbound-legacy", "regex", "format uri-template at ResourceTemplate.uriTemplate", spread(3.59, 3, 3.9)),
    ],
  } as unknown as AdversarialResult;
  const drawn = adversarialChart(result, bench);
  assert.deepEqual(
    drawn.chart!.groups.map((g) => [g.title, g.budget?.limit, g.bars.map((b) => [b.label, b.value])]),
    [
      [
        "inbound, modern (3 locations)",
        10,
        [
          ["array: JSONValue|1[], accepted", 11.3],
          ["map: JSONObject{}, accepted", 1.63],
        ],
      ],
      ["outbound, legacy (1 location)", 10, [["regex: format uri-template at ResourceTemplate.uriTemplate", 3.59]]],
    ],
  );
  assert.deepEqual(
    drawn.rows.map((r) => [r.reading, r.met]),
    [["11.3× (JSONValue|1[], inbound-modern)", false]],
  );
  // The chart draws: the writer accepts every family's figures as they come.
  assert.match(barChart(drawn.chart!), /11\.3×, 80 KiB/);
});

const target = (pass: boolean): Target => ({ target: "t", measured: 1, limit: 1, unit: "×", atLeast: true, pass, context: "" });

test("writeCharts: an SVG per family measured, budgets.json keeping the other families' last readings, and the summary written from it", () => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-charts-"));
  try {
    const doc = join(dir, "performance.md");
    writeFileSync(doc, "# Performance\n\nWhat this page is for.\n\n<!-- bench:summary -->\nold\n<!-- /bench:summary -->\n\n## Method\n");
    const first = writeCharts({ perMessage: cases, targets: { of: "bench", list: [target(true), target(false)] } }, bench, dir, doc);
    assert.deepEqual(
      first.map((f) => f.slice(dir.length + 1)),
      ["per-message.svg", "budgets.json", "performance.md"],
    );
    writeCharts({ proxy: proxyResults, targets: { of: "proxy", list: [target(true)] } }, proxyRun, dir, doc);
    const budgets = JSON.parse(readFileSync(join(dir, "budgets.json"), "utf8"));
    assert.deepEqual(Object.keys(budgets), ["per-message", "proxy", "targets-bench", "targets-proxy"]);
    assert.equal(budgets["per-message"].provenance.date, bench.date, "the proxy run left the per-message reading as it was");
    assert.equal(budgets.proxy.provenance.command, "npm run bench -- --proxy");
    const text = readFileSync(doc, "utf8");
    assert.ok(text.startsWith('# Performance\n\nWhat this page is for.\n\n<!-- bench:summary -->\n<a href="charts/per-message.svg">'));
    assert.ok(text.endsWith("<!-- /bench:summary -->\n\n## Method\n"));
    assert.match(text, /<img src="charts\/proxy\.svg" width="49%" alt="wymcp proxy and wymcp stdio ÷ their --pass-through">/);
    assert.match(
      text,
      /\| wymcp proxy ÷ its --pass-through, .* \| ≥ 0\.95× \| 0\.92× \(valid tools\/call\) \| \*\*missed\*\* \| 2026-12-07 06:30 UTC \|/,
    );
    assert.match(
      text,
      /\| Every budget `npm run bench` judges \(\[Targets\]\(#targets\)\) \| each its own \| 1 of 2 met \| \*\*missed\*\* \| 2026-12-07 05:00 UTC \|/,
    );
    // One provenance line per run behind the table.
    assert.match(
      text,
      /^- Written by `npm run bench` on 2026-12-07 05:00 UTC: Test CPU, 2 cores, Node v20\.20\.2 \(linux\/x64\), load average 1\.50 \/ 1\.25 \/ 1\.00/m,
    );
    assert.match(text, /^- Written by `npm run bench -- --proxy` on 2026-12-07 06:30 UTC/m);
    // Drawn again from the same figures, the files are the same bytes.
    const svg = readFileSync(join(dir, "per-message.svg"), "utf8");
    writeCharts({ perMessage: cases }, bench, dir, null);
    assert.equal(readFileSync(join(dir, "per-message.svg"), "utf8"), svg);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a table cell's | is escaped, so a label cannot break the summary's table", () => {
  const text = summaryMarkdown({
    "per-message": { provenance: bench, rows: [{ budget: "a | b", bar: "≥ 1", reading: "JSONValue|1[]", met: true }] },
  });
  assert.match(text, /\| a \\\| b \| ≥ 1 \| JSONValue\\\|1\[\] \| met \|/);
});

test("results files: a quick run's or one without provenance is refused; a full run's gives its families", () => {
  assert.throws(() => inputsOf({ quick: true, provenance: bench, perMessage: cases }, "r.json"), ResultsFileError);
  assert.throws(() => inputsOf({ quick: false, perMessage: cases }, "r.json"), /carries no provenance/);
  assert.throws(() => inputsOf({ quick: false, provenance: bench, soak: [] }, "r.json"), /none of the charted families/);
  const full = inputsOf({ quick: false, provenance: bench, perMessage: cases, targets: [target(true)] }, "results.json");
  assert.equal(full.inputs.perMessage, cases);
  assert.equal(full.inputs.targets?.of, "bench");
  const proxy = inputsOf({ quick: false, provenance: proxyRun, ...proxyResults, targets: [target(true)] }, "results-proxy.json");
  assert.ok(proxy.inputs.proxy);
  assert.equal(proxy.inputs.targets?.of, "proxy");
  assert.equal(proxy.provenance, proxyRun);
});
