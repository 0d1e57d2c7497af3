/**
 * @module The benchmark's figures as pictures: one chart per family (validate ÷ JSON.parse per message, the proxy and
 * stdio ÷ their pass-through, the cold start against Ajv at boot, the adversarial worst case against its bound), drawn
 * from a run's results (the objects its tables print, or the JSON file it writes) into docs/charts/, and the summary at
 * the top of docs/performance.md: the charts and the budgets' last readings, from docs/charts/budgets.json, which each
 * run updates for the families it measured.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { minuteOf, PERFORMANCE_DOC, provenanceLine, type Provenance, writeDocSection } from "../scripts/doc-sections.js";
import { LANES, RATIO_TARGET, type AdversarialResult } from "./adversarial.js";
import { formatMs, formatRatio } from "./measure.js";
import type { CaseFigures } from "./per-message.js";
import type { ProxyBenchResults } from "./proxy.js";
import { COLD_START_TARGET, derive, PARSE_RATIO_CASES, PARSE_RATIO_TARGET, PROXY_TARGET, STDIO_TARGET, type Target } from "./report.js";
import type { StartupResult } from "./startup.js";
import { barChart, type BarChart, type BarGroup } from "./svg-chart.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** Where the charts and budgets.json are checked in. */
export const CHARTS_DIR = join(root, "docs", "charts");

/** The figures of one run, as much of them as it measured. */
export interface ChartInputs {
  perMessage?: CaseFigures[];
  startup?: StartupResult;
  adversarial?: AdversarialResult;
  proxy?: Pick<ProxyBenchResults, "http" | "stdio">;
  /** Every budget the run judged: the summary counts those met. */
  targets?: { of: "bench" | "proxy"; list: Target[] };
}

/** One line of the summary's table. */
export interface BudgetRow {
  budget: string;
  bar: string;
  reading: string;
  met: boolean;
}

/** A family's last readings and the run that took them; budgets.json holds one per family. */
export interface BudgetRecord {
  provenance: Provenance;
  /** The chart's file in docs/charts/, when the family has one. */
  chart?: string;
  /** The chart's title, the image's alternative text. */
  title?: string;
  rows: BudgetRow[];
}

/** The families in the order the summary shows them. */
export const FAMILIES = ["per-message", "proxy", "cold-start", "adversarial", "targets-bench", "targets-proxy"] as const;
export type Family = (typeof FAMILIES)[number];

interface Drawn {
  family: Family;
  chart?: BarChart;
  rows: BudgetRow[];
}

/** The caption's first line: the section's provenance line, its code marks dropped (an SVG shows them as they are). */
const captionOf = (p: Provenance) => provenanceLine(p).replace(/`/g, "");

const range = (s: { min: number; median: number; max: number }) => ({ value: s.median, low: s.min, high: s.max });

/** validateMcpRequest ÷ JSON.parse of the message's bytes, each message in both format modes; the tools/calls against ≥ 10×. */
export function perMessageChart(cases: CaseFigures[], p: Provenance): Drawn {
  const modes = [
    ["vmr", "formats: annotation"],
    ["vmr-strict", "formats: strict"],
  ] as const;
  const budgeted = (key: string) => (PARSE_RATIO_CASES as readonly string[]).includes(key);
  const groups: BarGroup[] = cases.map((c) => ({
    // A client's response is passed by, not validated: its bars say what that costs.
    title: `${c.label}${c.variants.some((v) => v.key === "vmr" && v.label.includes("bypass")) ? ", passed by unvalidated" : ""}`,
    ...(budgeted(c.key) ? { budget: { limit: PARSE_RATIO_TARGET, atLeast: true, label: `budget ≥ ${PARSE_RATIO_TARGET}×` } } : {}),
    bars: modes.flatMap(([key, mode]) => {
      const v = c.variants.find((x) => x.key === key);
      return v ? [{ label: mode, ...range(v.vsParse), text: formatRatio(v.vsParse.median) }] : [];
    }),
  }));
  const judged = groups.flatMap((g) => (g.budget ? g.bars.map((b) => ({ g, b })) : []));
  const lowest = judged.reduce((a, x) => (x.b.value < a.b.value ? x : a), judged[0]!);
  const rounds = cases[0]?.variants[0]?.vsParse.samples.length ?? 0;
  return {
    family: "per-message",
    chart: {
      title: "validateMcpRequest ÷ JSON.parse, per message",
      subtitle:
        "Validations of the parsed message that fit in the time JSON.parse takes to read its bytes, in process. " +
        `A valid tools/call of either era is held to ≥ ${PARSE_RATIO_TARGET}× in both format modes.`,
      unit: "×",
      groups,
      caption: [
        captionOf(p),
        `Median of ${rounds} interleaved rounds, the whisker their range. The axis stops at ${3 * PARSE_RATIO_TARGET}×: a longer bar is cut, its value printed.`,
      ],
      max: 3 * PARSE_RATIO_TARGET,
    },
    rows: [
      {
        budget: "validateMcpRequest ÷ JSON.parse of a valid tools/call, modern and legacy, both format modes (the lowest of the four)",
        bar: `≥ ${PARSE_RATIO_TARGET}×`,
        reading: `${formatRatio(lowest.b.value)} (${lowest.g.title.replace(/[,(].*$/, "").trim()}, ${lowest.b.label})`,
        met: judged.every(({ b }) => b.value >= PARSE_RATIO_TARGET),
      },
    ],
  };
}

/** wymcp proxy and wymcp stdio ÷ their --pass-through on valid traffic, against ≥ 0.95 and ≥ 0.9. */
export function proxyChart(r: Pick<ProxyBenchResults, "http" | "stdio">, p: Provenance): Drawn {
  const valid = r.http.filter((w) => w.traffic === "valid");
  const loads = [...valid.flatMap((w) => w.load), ...r.stdio.load];
  const http: BarGroup = {
    title: "wymcp proxy over HTTP, valid traffic: req/s ÷ --pass-through's",
    budget: { limit: PROXY_TARGET, atLeast: true, label: `budget ≥ ${PROXY_TARGET}` },
    bars: valid.map((w) => ({ label: w.label, ...range(w.vsPassThrough), text: formatRatio(w.vsPassThrough.median) })),
  };
  const stdio: BarGroup = {
    title: "wymcp stdio, modern tools/call lines: lines/s ÷ --pass-through's",
    budget: { limit: STDIO_TARGET, atLeast: true, label: `budget ≥ ${STDIO_TARGET}` },
    bars: [{ label: "the SDK's McpServer over stdio", ...range(r.stdio.vsPassThrough), text: formatRatio(r.stdio.vsPassThrough.median) }],
  };
  const lowest = valid.reduce((a, w) => (w.vsPassThrough.median < a.vsPassThrough.median ? w : a), valid[0]!);
  return {
    family: "proxy",
    chart: {
      title: "wymcp proxy and wymcp stdio ÷ their --pass-through",
      subtitle:
        "Throughput through wymcp judging every message ÷ through the same process relaying without judging, in " +
        "interleaved rounds: what validation takes from a server's throughput (1: nothing).",
      unit: "×",
      groups: [http, stdio],
      caption: [
        captionOf(p),
        `Median of ${lowest?.vsPassThrough.samples.length ?? 0} rounds per workload over HTTP and ${r.stdio.vsPassThrough.samples.length} over stdio, ` +
          `the whisker their range; 1-minute load average during the rounds ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}.`,
      ],
    },
    rows: [
      {
        budget: "wymcp proxy ÷ its --pass-through, valid tools/call, tools/list and a 50 KiB tools/call (the lowest)",
        bar: `≥ ${PROXY_TARGET}×`,
        reading: `${formatRatio(lowest.vsPassThrough.median)} (${lowest.label})`,
        met: valid.every((w) => w.vsPassThrough.median >= PROXY_TARGET),
      },
      {
        budget: "wymcp stdio ÷ its --pass-through, modern tools/call lines",
        bar: `≥ ${STDIO_TARGET}×`,
        reading: formatRatio(r.stdio.vsPassThrough.median),
        met: r.stdio.vsPassThrough.median >= STDIO_TARGET,
      },
    ],
  };
}

/** The whole process's cold start over an empty one, wymcp's precompiled validators against Ajv compiling at boot. */
export function coldStartChart(startup: StartupResult, p: Provenance): Drawn {
  const d = derive(startup);
  const pct = (x: number) => `${x.toFixed(1)} %`;
  const met = d.coldStartPercent.median <= COLD_START_TARGET;
  const wall: BarGroup = {
    title: "Wall time, spawn to exit, over an empty process",
    budget: {
      limit: (COLD_START_TARGET / 100) * d.bootWallOverMs.median,
      atLeast: false,
      label: `budget: wymcp ≤ ${COLD_START_TARGET} % of Ajv's`,
    },
    bars: [
      {
        label: "Ajv compiling the same schemas at boot",
        ...range(d.bootWallOverMs),
        text: `${formatMs(d.bootWallOverMs.median)} ms`,
        meets: null,
      },
      {
        label: "wymcp, validators precompiled",
        ...range(d.runtimeWallOverMs),
        text: `${formatMs(d.runtimeWallOverMs.median)} ms, ${pct(d.coldStartPercent.median)} of Ajv's`,
        meets: met,
      },
    ],
  };
  const cpu: BarGroup = {
    title: "CPU time (user + system) over an empty process, for information",
    bars: [
      { label: "Ajv compiling the same schemas at boot", ...range(d.bootCpuOverMs), text: `${formatMs(d.bootCpuOverMs.median)} ms` },
      {
        label: "wymcp, validators precompiled",
        ...range(d.runtimeCpuOverMs),
        text: `${formatMs(d.runtimeCpuOverMs.median)} ms, ${pct(d.coldStartCpuPercent.median)} of Ajv's`,
      },
    ],
  };
  return {
    family: "cold-start",
    chart: {
      title: "Cold start: precompiled validators against Ajv compiling at boot",
      subtitle:
        "A fresh process loads both eras' validators, judges one tools/call and exits; its time less an empty process's, " +
        `paired per round. wymcp's is held to ≤ ${COLD_START_TARGET} % of Ajv's in wall time.`,
      unit: " ms",
      groups: [wall, cpu],
      caption: [
        captionOf(p),
        `Medians of ${startup.rounds} fresh processes per variant, alternated, the whisker their range; the share is the median of the per-round shares. ` +
          "Wall time on shared cores varies by several ms between identical runs.",
      ],
    },
    rows: [
      {
        budget: "Cold start, whole process: wymcp's time over an empty process ÷ Ajv compiling at boot's",
        bar: `≤ ${COLD_START_TARGET} %`,
        reading: `${pct(d.coldStartPercent.median)} (${formatMs(d.runtimeWallOverMs.median)} ms against ${formatMs(d.bootWallOverMs.median)} ms)`,
        met,
      },
    ],
  };
}

const SHAPES = ["array", "map", "regex", "batch"];

/** Per direction and era, the worst location of each shape ÷ JSON.parse of the same text, against the 10× bound. */
export function adversarialChart(result: AdversarialResult, p: Provenance): Drawn {
  const groups: BarGroup[] = [];
  for (const [lane, name] of Object.entries(LANES)) {
    const rows = result.locations.filter((f) => f.lane === lane);
    if (rows.length === 0) continue;
    const worst = SHAPES.flatMap((shape) => {
      const of = rows.filter((f) => f.shape === shape);
      return of.length ? [of.reduce((a, b) => (b.ratio.median > a.ratio.median ? b : a))] : [];
    });
    groups.push({
      title: `${name.replace(/ \(.*$/, "")} (${rows.length} location${rows.length === 1 ? "" : "s"})`,
      budget: { limit: RATIO_TARGET, atLeast: false, label: `bound ≤ ${RATIO_TARGET}×` },
      bars: worst.map((f) => ({
        label: `${f.shape}: ${f.label}${f.rejects ? "" : ", accepted"}`,
        ...range(f.ratio),
        text: `${formatRatio(f.ratio.median)}, ${Math.round(f.bytes / 1024)} KiB`,
      })),
    });
  }
  const all = result.locations;
  const worst = all.reduce((a, b) => (b.ratio.median > a.ratio.median ? b : a), all[0]!);
  return {
    family: "adversarial",
    chart: {
      title: "Adversarial bodies: the worst cost ÷ JSON.parse",
      subtitle:
        "The worst location of each shape (array, map, format pattern, batch) per direction and era, grown to its largest " +
        `step: the whole judgement ÷ JSON.parse of the same text, held to ≤ ${RATIO_TARGET}×.`,
      unit: "×",
      groups,
      caption: [
        captionOf(p),
        `Median of ${result.settings.rounds} interleaved rounds, the whisker their range; the size is the body's at that step. Every location is in the tables below.`,
      ],
    },
    rows: [
      {
        budget: "Adversarial bodies: the worst location of all, both directions and eras, ÷ JSON.parse of the same text",
        bar: `≤ ${RATIO_TARGET}×`,
        reading: `${formatRatio(worst.ratio.median)} (${worst.label}, ${worst.lane})`,
        met: all.every((f) => f.ratio.median <= RATIO_TARGET),
      },
    ],
  };
}

/** The count of a run's budgets met, for the summary's last rows. */
function targetsRow(t: NonNullable<ChartInputs["targets"]>): Drawn {
  const met = t.list.filter((x) => x.pass).length;
  const command = t.of === "bench" ? "`npm run bench`" : "`npm run bench -- --proxy`";
  return {
    family: t.of === "bench" ? "targets-bench" : "targets-proxy",
    rows: [
      {
        budget: `Every budget ${command} judges (${t.of === "bench" ? "[Targets](#targets)" : "[the proxy section's targets](#wymcp-proxy-and-wymcp-stdio)"})`,
        bar: "each its own",
        reading: `${met} of ${t.list.length} met`,
        met: met === t.list.length,
      },
    ],
  };
}

/** The families a run's figures draw, in the summary's order. */
export function drawFamilies(inputs: ChartInputs, p: Provenance): Drawn[] {
  return [
    ...(inputs.perMessage ? [perMessageChart(inputs.perMessage, p)] : []),
    ...(inputs.proxy ? [proxyChart(inputs.proxy, p)] : []),
    ...(inputs.startup ? [coldStartChart(inputs.startup, p)] : []),
    ...(inputs.adversarial ? [adversarialChart(inputs.adversarial, p)] : []),
    ...(inputs.targets ? [targetsRow(inputs.targets)] : []),
  ];
}

/** The summary at the top of docs/performance.md: the charts two by two, then the table of the budgets' last readings. */
export function summaryMarkdown(budgets: Partial<Record<Family, BudgetRecord>>): string {
  const records = FAMILIES.flatMap((f) => (budgets[f] ? [budgets[f]!] : []));
  const images = records.flatMap((r) =>
    r.chart
      ? [`<a href="charts/${r.chart}"><img src="charts/${r.chart}" width="49%" alt="${(r.title ?? r.chart).replace(/"/g, "&quot;")}"></a>`]
      : [],
  );
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const rows = records.flatMap((r) =>
    r.rows.map(
      (row) =>
        `| ${cell(row.budget)} | ${cell(row.bar)} | ${cell(row.reading)} | ${row.met ? "met" : "**missed**"} | ${minuteOf(r.provenance.date)} |`,
    ),
  );
  const runs = [...new Map(records.map((r) => [`${r.provenance.command} ${r.provenance.date}`, r.provenance])).values()];
  return [
    ...(images.length ? [images.join("\n"), ""] : []),
    "| budget | bar | last reading | result | measured |",
    "|---|---|---|---|---|",
    ...rows,
    "",
    ...runs.map((p) => `- ${provenanceLine(p)}`),
  ].join("\n");
}

/**
 * Draws the families of one run into `dir` (an SVG each), records their readings in `dir`/budgets.json, and, when
 * `doc` is given, rewrites the summary section of that document from budgets.json. Returns the files written.
 */
export function writeCharts(inputs: ChartInputs, p: Provenance, dir = CHARTS_DIR, doc: string | null = PERFORMANCE_DOC): string[] {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "budgets.json");
  const budgets = (existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {}) as Partial<Record<Family, BudgetRecord>>;
  const written: string[] = [];
  for (const drawn of drawFamilies(inputs, p)) {
    const record: BudgetRecord = { provenance: p, rows: drawn.rows };
    if (drawn.chart) {
      const svg = join(dir, `${drawn.family}.svg`);
      writeFileSync(svg, barChart(drawn.chart));
      written.push(svg);
      record.chart = `${drawn.family}.svg`;
      record.title = drawn.chart.title;
    }
    budgets[drawn.family] = record;
  }
  const ordered = Object.fromEntries(FAMILIES.flatMap((f) => (budgets[f] ? [[f, budgets[f]]] : [])));
  writeFileSync(file, `${JSON.stringify(ordered, null, 2)}\n`);
  written.push(file);
  if (doc) {
    writeDocSection(doc, "bench:summary", summaryMarkdown(ordered));
    written.push(doc);
  }
  return written;
}

/** A results file the charts cannot be drawn from: a quick run's, one without provenance, or one of no charted family. */
export class ResultsFileError extends Error {
  override name = "ResultsFileError";
}

/**
 * The chart inputs and provenance of a results file the bench wrote (bench/results.json, results-proxy.json,
 * results-adversarial.json), so that the charts can be drawn again without measuring.
 */
export function inputsOf(results: Record<string, unknown>, file: string): { inputs: ChartInputs; provenance: Provenance } {
  if (results.quick === true)
    throw new ResultsFileError(`${file} is a quick run's: its figures mean nothing, so no chart is drawn from it`);
  const provenance = results.provenance as Provenance | undefined;
  if (!provenance?.command || !provenance.date)
    throw new ResultsFileError(
      `${file} carries no provenance (the command, date, machine and load): run the bench again to write one that does`,
    );
  const proxy = Array.isArray(results.http) && results.stdio !== undefined && !Array.isArray(results.perMessage);
  const inputs: ChartInputs = {
    ...(Array.isArray(results.perMessage) ? { perMessage: results.perMessage as CaseFigures[] } : {}),
    ...(results.startup ? { startup: results.startup as StartupResult } : {}),
    ...(results.adversarial ? { adversarial: results.adversarial as AdversarialResult } : {}),
    ...(proxy ? { proxy: results as unknown as ChartInputs["proxy"] & object } : {}),
    ...(Array.isArray(results.targets) ? { targets: { of: proxy ? "proxy" : "bench", list: results.targets as Target[] } } : {}),
  } as ChartInputs;
  if (!inputs.perMessage && !inputs.startup && !inputs.adversarial && !inputs.proxy)
    throw new ResultsFileError(`${file} holds none of the charted families (per message, start-up, adversarial, proxy)`);
  return { inputs, provenance };
}
