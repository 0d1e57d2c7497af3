/**
 * @module The adversarial section of `npm run bench` (alone: `npm run bench -- --adversarial`): for every location
 * the generator finds (fuzz/adversarial), the worst cost of the whole judgement path ÷ `JSON.parse` of the same
 * text, and the growth of that cost for 4× the items. Rounds interleave the path and the parse, ratios per round.
 * n grows ×4 from 256 to a cap (16,384 items; the body limit for the worst location of each lane and shape, or for
 * every one with `--full`), and stops growing once the next step is projected past the time budget: the figure then
 * says where it stopped.
 */
import { generate, largestN, type Target } from "../fuzz/adversarial/cases.js";
import { DEFAULT_MAX_BODY_BYTES, headersFor, judgeCli, judgeParsed } from "../fuzz/adversarial/judge-path.js";
import { formatRatio, spread, table, type Spread } from "./measure.js";
import { longNamesSummary, longNamesTable, runLongNames, type LongNameResult, type LongNameSettings } from "./long-names.js";

export interface AdversarialSettings {
  /** Items at the first step; n grows ×4 from here. */
  startN: number;
  /** Largest n for every location (the body limit still applies). */
  capN: number;
  /** Run every location up to the body limit, not only the worst of each lane and shape. */
  full: boolean;
  /** Take the worst of each lane and shape to the body limit (off in quick mode). */
  worstToLimit: boolean;
  /** A step whose single judgement is projected past this is not taken. */
  budgetMs: number;
  rounds: number;
  /** The long-name family (bench/long-names.ts). */
  longNames: LongNameSettings;
  /** Every location, or a sample (`sampleKey`: the smoke test, where each part runs on a few). */
  locations: "all" | "sample";
}

export interface LocationFigures {
  lane: string;
  shape: string;
  label: string;
  root: string;
  /** The item kind (or regex input) with the highest ratio at the first step. */
  kind: string;
  /** Whether the bodies are rejected (open and shadowed locations take their items). */
  rejects: boolean;
  n: number;
  bytes: number;
  /** Path ÷ JSON.parse at the largest n, per round. */
  ratio: Spread;
  /** Path time at n ÷ at n/4, per round. */
  growth: Spread;
  /** The largest n that fits the body limit, and why the run stopped short of it, if it did. */
  maxN: number;
  stoppedBy: "cap" | "time" | "limit";
  msAtN: number;
}

export interface CliFigures {
  label: string;
  lane: string;
  n: number;
  bytes: number;
  /** `judge` (which parses the bytes itself) ÷ JSON.parse of the same text. */
  ratio: Spread;
}

export interface AdversarialResult {
  settings: AdversarialSettings;
  locations: LocationFigures[];
  cli: CliFigures[];
  regexes: number;
  longNames: LongNameResult;
  seconds: number;
}

/** Results land here so that no call can be dropped as dead code. */
export let sink = 0;

/** Milliseconds per call of `f`, repeated until at least `minMs` have passed. */
export function timeOf(f: () => unknown, minMs = 5): number {
  let calls = 0;
  const start = performance.now();
  let now = start;
  do {
    if (f() === undefined) sink++;
    calls++;
    now = performance.now();
  } while (now - start < minMs);
  return (now - start) / calls;
}

export interface Subject {
  text: string;
  bytes: number;
  path: () => unknown;
  parse: () => unknown;
}

function subject(target: Target, kind: string, n: number): Subject {
  const message = target.message(kind, n);
  const text = JSON.stringify(message);
  const headers = headersFor(target, message);
  const body = JSON.parse(text) as unknown;
  return { text, bytes: Buffer.byteLength(text), path: () => judgeParsed(target, body, headers), parse: () => JSON.parse(text) };
}

/** Interleaved rounds of the path and the parse at n/4 and n (order reversed every other round): ratios and growth paired within each round. */
export function pair(small: Subject, large: Subject, rounds: number) {
  const ratios: number[] = [];
  const growth: number[] = [];
  let ms = 0;
  for (let r = 0; r < rounds; r++) {
    const steps = [() => timeOf(small.parse), () => timeOf(small.path), () => timeOf(large.parse), () => timeOf(large.path)];
    const t =
      r % 2 === 0
        ? steps.map((f) => f())
        : steps
            .reverse()
            .map((f) => f())
            .reverse();
    const [, s, pl, l] = t as [number, number, number, number];
    ratios.push(l / pl);
    growth.push(l / s);
    ms = Math.max(ms, l);
  }
  return { ratio: spread(ratios), growth: spread(growth), ms };
}

export function measureLocation(target: Target, settings: AdversarialSettings, atLimit: boolean): LocationFigures {
  // The worst kind: the highest single-shot ratio at the first step.
  const start = Math.min(settings.startN, largestN(target, target.kinds[0]!, DEFAULT_MAX_BODY_BYTES));
  let kind = target.kinds[0]!;
  if (target.kinds.length > 1) {
    let worst = -1;
    for (const k of target.kinds) {
      const s = subject(target, k, start);
      const ratio = timeOf(s.path) / timeOf(s.parse);
      if (ratio > worst) [worst, kind] = [ratio, k];
    }
  }
  const maxN = largestN(target, kind, DEFAULT_MAX_BODY_BYTES);
  const cap = atLimit ? maxN : Math.min(settings.capN, maxN);
  // Grow ×4 while the next step's projected cost (this step's × the growth seen so far, at least 4) fits the budget.
  let n = Math.max(1, Math.min(start, cap));
  let previous: number | undefined;
  // A single call, twice where it is cheap: one GC pause must not stop the growth.
  const once = (s: Subject) => {
    const first = timeOf(s.path, 0);
    return first * 8 < settings.budgetMs ? Math.min(first, timeOf(s.path, 0)) : first;
  };
  let ms = once(subject(target, kind, n));
  let stoppedBy: LocationFigures["stoppedBy"] = cap === maxN ? "limit" : "cap";
  while (n < cap) {
    const next = Math.min(n * 4, cap);
    const growth = Math.max(4, previous ? ms / previous : 4) * (next / n / 4);
    if (ms * growth > settings.budgetMs) {
      stoppedBy = "time";
      break;
    }
    previous = ms;
    n = next;
    ms = once(subject(target, kind, n));
  }
  const small = subject(target, kind, Math.max(1, Math.floor(n / 4)));
  const large = subject(target, kind, n);
  const rounds = ms > 200 ? Math.max(1, Math.min(3, settings.rounds)) : settings.rounds;
  const measured = pair(small, large, rounds);
  return {
    lane: target.lane,
    shape: target.shape,
    label: target.label,
    root: target.root.label,
    kind,
    rejects: target.rejects(kind),
    n,
    bytes: large.bytes,
    ratio: measured.ratio,
    growth: measured.growth,
    maxN,
    stoppedBy,
    msAtN: measured.ms,
  };
}

function measureCli(target: Target, figures: LocationFigures, rounds: number): CliFigures {
  const text = JSON.stringify(target.message(figures.kind, figures.n));
  const bytes = Buffer.from(text);
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) ratios.push(timeOf(() => judgeCli(target, bytes)) / timeOf(() => JSON.parse(text)));
  return { label: target.label, lane: target.lane, n: figures.n, bytes: bytes.length, ratio: spread(ratios) };
}

/** The smoke test's sample: a location of each lane and shape, one reached through a map (for the route names) and one not. */
const sampleKey = (t: Target) => `${t.lane} ${t.shape} ${t.entries.length > 0}`;

export function runAdversarial(settings: AdversarialSettings, log: (line: string) => void): AdversarialResult {
  const started = performance.now();
  const generated = generate();
  const targets =
    settings.locations === "all"
      ? generated.targets
      : generated.targets.filter((t, i, all) => all.findIndex((u) => sampleKey(u) === sampleKey(t)) === i);
  log(
    `adversarial: ${targets.length} locations (${generated.locations.length} array/map, ${targets.filter((t) => t.shape === "regex").length} regex sites, batch)`,
  );
  const figures: LocationFigures[] = [];
  targets.forEach((target, i) => {
    figures.push(measureLocation(target, settings, settings.full));
    if ((i + 1) % 20 === 0) log(`adversarial: ${i + 1}/${targets.length}`);
  });
  if (!settings.full && settings.worstToLimit) {
    // The worst location of each lane and shape, again up to the body limit.
    const worst = new Map<string, number>();
    figures.forEach((f, i) => {
      const key = `${f.lane} ${f.shape}`;
      const j = worst.get(key);
      if (j === undefined || f.ratio.median > figures[j]!.ratio.median) worst.set(key, i);
    });
    for (const i of worst.values()) {
      if (figures[i]!.stoppedBy === "time" || figures[i]!.n >= figures[i]!.maxN) continue;
      log(`adversarial: ${figures[i]!.lane} ${figures[i]!.label} up to the body limit`);
      figures[i] = measureLocation(targets[i]!, settings, true);
    }
  }
  // The CLI judges by the same functions: measured on the worst inbound and the worst outbound location.
  const cli: CliFigures[] = [];
  for (const direction of ["inbound", "outbound"]) {
    let worst = -1;
    figures.forEach((f, i) => {
      if (targets[i]!.direction === direction && (worst < 0 || f.ratio.median > figures[worst]!.ratio.median)) worst = i;
    });
    if (worst >= 0) cli.push(measureCli(targets[worst]!, figures[worst]!, settings.rounds));
  }
  const longNames = runLongNames(settings.longNames, log, targets);
  return { settings, locations: figures, cli, regexes: generated.regexes.length, longNames, seconds: (performance.now() - started) / 1000 };
}

export const LANES: Record<string, string> = {
  "inbound-modern": "inbound, modern (depth walk + classifyEra + validateMcpRequest)",
  "inbound-legacy": "inbound, legacy (depth walk + classifyEra + validateMcpRequest)",
  "outbound-modern": "outbound, modern (validateMcpResponse)",
  "outbound-legacy": "outbound, legacy (validateMcpResponse)",
};

export const RATIO_TARGET = 10;

export function adversarialTable(result: AdversarialResult): string {
  const lines: string[] = [];
  for (const lane of Object.keys(LANES)) {
    const rows = result.locations.filter((f) => f.lane === lane).sort((a, b) => b.ratio.median - a.ratio.median);
    if (rows.length === 0) continue;
    lines.push(`### ${LANES[lane]}: ${rows.length} locations`);
    lines.push(
      table(
        ["location", "shape", "worst items", "n", "body", "× JSON.parse med [min–max]", "growth 4×", "note"],
        rows.map((f) => [
          f.label,
          f.shape,
          f.kind.length > 28 ? `${f.kind.slice(0, 27)}…` : f.kind,
          String(f.n),
          `${(f.bytes / 1024).toFixed(f.bytes < 10240 ? 1 : 0)} KiB`,
          `${formatRatio(f.ratio.median)} [${formatRatio(f.ratio.min)}–${formatRatio(f.ratio.max)}]`,
          formatRatio(f.growth.median),
          [
            f.stoppedBy === "time"
              ? `stopped: next ×4 over ${result.settings.budgetMs} ms (${f.msAtN.toFixed(0)} ms at n)`
              : f.stoppedBy === "limit"
                ? "body limit"
                : "",
            f.rejects ? "" : "accepted (open or shadowed)",
          ]
            .filter(Boolean)
            .join("; "),
        ]),
        [3, 4, 5, 6],
      ),
    );
    lines.push("");
  }
  lines.push(summaryLines(result).join("\n"));
  if (result.cli.length) {
    lines.push("", "### wymcp check (check/judge.ts, in-process; it parses the bytes itself, so 1× is the parse alone)");
    lines.push(
      table(
        ["location", "lane", "n", "body", "× JSON.parse med [min–max]"],
        result.cli.map((c) => [
          c.label,
          c.lane,
          String(c.n),
          `${(c.bytes / 1024).toFixed(0)} KiB`,
          `${formatRatio(c.ratio.median)} [${formatRatio(c.ratio.min)}–${formatRatio(c.ratio.max)}]`,
        ]),
        [2, 3, 4],
      ),
    );
  }
  const { sizes, styles, rounds, budgetMs } = result.settings.longNames;
  lines.push(
    "",
    `### Long member names (fuzz/adversarial/long-names: one long name at every map location, and over ${"`"}route${"`"} items under it; ` +
      `styles ${styles.join(", ")}; sizes ${sizes.join(", ")} of name; ${rounds} rounds; a size projected over ${budgetMs} ms not taken)`,
    longNamesTable(result.longNames),
    "",
    ...longNamesSummary(result.longNames),
  );
  return lines.join("\n");
}

/** Per lane: the worst ratio, the worst growth, how many locations exceed the target. */
export function summaryLines(result: AdversarialResult): string[] {
  const out = [`Worst per lane (target ≤ ${RATIO_TARGET}× JSON.parse; linear growth is 4×):`];
  for (const lane of Object.keys(LANES)) {
    const rows = result.locations.filter((f) => f.lane === lane);
    if (rows.length === 0) continue;
    const worst = rows.reduce((a, b) => (b.ratio.median > a.ratio.median ? b : a));
    // Growth is read where the path costs something: below 1× JSON.parse, a GC pause decides it.
    const costly = rows.filter((f) => f.ratio.median >= 1);
    const steepest = (costly.length ? costly : rows).reduce((a, b) => (b.growth.median > a.growth.median ? b : a));
    const over = rows.filter((f) => f.ratio.median > RATIO_TARGET).length;
    const stopped = rows.filter((f) => f.stoppedBy === "time").length;
    out.push(
      `- ${lane}: worst ${formatRatio(worst.ratio.median)} (${worst.label}, ${worst.kind}, n ${worst.n}); steepest growth ${formatRatio(steepest.growth.median)} (${steepest.label}${costly.length ? "" : ", all under 1×"}); ` +
        `${over} of ${rows.length} over ${RATIO_TARGET}×${stopped ? `; ${stopped} stopped growing on time` : ""}`,
    );
  }
  return out;
}
