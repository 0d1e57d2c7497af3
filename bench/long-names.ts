/**
 * @module The long-name part of the adversarial section (fuzz/adversarial/long-names): for every map location of every
 * lane, one member with a long name, and for every location reached through a map's member, that name made long with
 * invalid items under it; names in three styles and three sizes up to the body limit. Per case: the judgement path ÷
 * `JSON.parse` of the same text, per round, every size of a case interleaved in each round, and the growth of the
 * path's time from the 1 MiB name to the largest. A size is not taken once its projected cost passes the time budget.
 */
import { headersFor, judgeCli, judgeParsed, DEFAULT_MAX_BODY_BYTES } from "../fuzz/adversarial/judge-path.js";
import { generate, type Target } from "../fuzz/adversarial/cases.js";
import {
  longName,
  longNameTargets,
  NAME_SIZES,
  NAME_STYLES,
  type LongNameTarget,
  type NameSize,
  type NameStyle,
} from "../fuzz/adversarial/long-names.js";
import { KEPT_KEY_UNITS } from "../src/codegen/bound-keys.js";
import { formatMs, formatRatio, spread, table, type Spread } from "./measure.js";

export interface LongNameSettings {
  sizes: readonly NameSize[];
  styles: readonly NameStyle[];
  rounds: number;
  /** A size whose single judgement is projected past this is not taken. */
  budgetMs: number;
  /** Least time each timing runs (the fastest of its 2 ms batches is kept). */
  minMs: number;
}

export interface LongNameFigures {
  lane: string;
  via: "member" | "route";
  label: string;
  kind: string;
  style: NameStyle;
  rejects: boolean;
  /**
   * Per size taken: body bytes, path ÷ JSON.parse per round, path ÷ the path of the same message with the name cut
   * to the units an answer can show (what the rest of the name costs: 1× when nothing), the slowest path time.
   */
  sizes: Array<{ size: NameSize; bytes: number; ratio: Spread; vsCut: Spread; ms: number }>;
  /** Path time at the largest size ÷ at 1 MiB, per round (only when both were taken). */
  growth: Spread | undefined;
  /** Body bytes at the largest size ÷ at 1 MiB: what linear growth is. */
  bytesGrowth: number | undefined;
  /** The first size not taken because its projected cost passed the budget. */
  stoppedAt: NameSize | undefined;
}

export interface LongNameCli {
  label: string;
  lane: string;
  style: NameStyle;
  bytes: number;
  /** `judge` (which decodes and parses the bytes itself) ÷ JSON.parse of the text. */
  ratio: Spread;
  /** `judge` ÷ strict UTF-8 decoding and JSON.parse of the bytes, what any reader of the bytes pays. */
  vsDecode: Spread;
}

export interface LongNameResult {
  settings: LongNameSettings;
  cases: LongNameFigures[];
  cli: LongNameCli[];
  seconds: number;
}

let sink = 0;

/**
 * Milliseconds per call of `f`: the fastest of batches of at least `batchMs`, taken until `minMs` have passed. The
 * fastest batch, because a body of megabytes leaves collection work behind that lands on whatever runs next.
 */
function timeOf(f: () => unknown, minMs: number, batchMs = 2): number {
  let best = Number.POSITIVE_INFINITY;
  const start = performance.now();
  do {
    let calls = 0;
    const begin = performance.now();
    let now = begin;
    do {
      if (f() === undefined) sink++;
      calls++;
      now = performance.now();
    } while (now - begin < batchMs);
    best = Math.min(best, (now - begin) / calls);
  } while (performance.now() - start < minMs);
  return best;
}

/** The name of `style` cut to the units an answer can show: its twin costs what any cut name costs. */
function cutName(style: NameStyle): string {
  return longName(style, 64 * 1024).slice(0, KEPT_KEY_UNITS);
}

interface Subject {
  size: NameSize;
  text: string;
  bytes: number;
  path: () => unknown;
  parse: () => unknown;
}

function subject(target: LongNameTarget, style: NameStyle, size: NameSize): Subject {
  const message = target.message(style, size, DEFAULT_MAX_BODY_BYTES);
  const text = JSON.stringify(message);
  const headers = headersFor(target.base, message);
  const body = JSON.parse(text) as unknown;
  return {
    size,
    text,
    bytes: Buffer.byteLength(text),
    path: () => judgeParsed(target.base, body, headers),
    parse: () => JSON.parse(text),
  };
}

export function measureLongName(target: LongNameTarget, style: NameStyle, settings: LongNameSettings): LongNameFigures {
  // Sizes in order, each taken only if one judgement of it is projected (linearly from the last) within the budget.
  const taken: Subject[] = [];
  let stoppedAt: NameSize | undefined;
  let last: { ms: number; bytes: number } | undefined;
  for (const size of settings.sizes) {
    const s = subject(target, style, size);
    if (last && (last.ms * s.bytes) / last.bytes > settings.budgetMs) {
      stoppedAt = size;
      break;
    }
    // One call, twice where it is cheap: one collection pause must not stop the sizes.
    const first = timeOf(s.path, 0, 0);
    const ms = first * 8 < settings.budgetMs ? Math.min(first, timeOf(s.path, 0, 0)) : first;
    taken.push(s);
    last = { ms, bytes: s.bytes };
    if (ms > settings.budgetMs) {
      stoppedAt = settings.sizes[settings.sizes.indexOf(size) + 1];
      break;
    }
  }
  const rounds = last && last.ms > 200 ? 1 : settings.rounds;
  const ratios = taken.map(() => [] as number[]);
  const vsCut = taken.map(() => [] as number[]);
  const times = taken.map(() => [] as number[]);
  const cutMessage = target.withName(cutName(style));
  const cutBody = JSON.parse(JSON.stringify(cutMessage)) as unknown;
  const cutHeaders = headersFor(target.base, cutMessage);
  const cut = () => judgeParsed(target.base, cutBody, cutHeaders);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? taken.map((_, i) => i) : taken.map((_, i) => taken.length - 1 - i);
    for (const i of order) {
      const s = taken[i]!;
      // The cut twin is timed between the parse and the path (both orders), so that it pays the same
      // collection of the parse's garbage as the path does.
      let parse: number;
      let path: number;
      let baseline: number;
      if (r % 2 === 0) {
        parse = timeOf(s.parse, settings.minMs);
        baseline = timeOf(cut, settings.minMs);
        path = timeOf(s.path, settings.minMs);
      } else {
        path = timeOf(s.path, settings.minMs);
        baseline = timeOf(cut, settings.minMs);
        parse = timeOf(s.parse, settings.minMs);
      }
      ratios[i]!.push(path / parse);
      vsCut[i]!.push(path / baseline);
      times[i]!.push(path);
    }
  }
  const mib = taken.findIndex((s) => s.size === "1 MiB");
  const top = taken.length - 1;
  const growth = mib >= 0 && top > mib ? spread(times[top]!.map((t, r) => t / times[mib]![r]!)) : undefined;
  return {
    lane: target.lane,
    via: target.via,
    label: target.label,
    kind: target.kind,
    style,
    rejects: target.rejects,
    sizes: taken.map((s, i) => ({
      size: s.size,
      bytes: s.bytes,
      ratio: spread(ratios[i]!),
      vsCut: spread(vsCut[i]!),
      ms: Math.max(...times[i]!),
    })),
    growth,
    bytesGrowth: growth ? taken[top]!.bytes / taken[mib]!.bytes : undefined,
    stoppedAt,
  };
}

export function runLongNames(
  settings: LongNameSettings,
  log: (line: string) => void,
  from: readonly Target[] = generate().targets,
): LongNameResult {
  const started = performance.now();
  const targets = longNameTargets(from);
  log(
    `long names: ${targets.length} cases (${targets.filter((t) => t.via === "route").length} under a route name) × ${settings.styles.length} styles`,
  );
  const cases: LongNameFigures[] = [];
  targets.forEach((target, i) => {
    for (const style of settings.styles) cases.push(measureLongName(target, style, settings));
    if ((i + 1) % 20 === 0) log(`long names: ${i + 1}/${targets.length}`);
  });
  // wymcp check judges by the same functions: the worst inbound and outbound case at its largest size.
  const cli: LongNameCli[] = [];
  for (const direction of ["inbound", "outbound"]) {
    let worst: LongNameFigures | undefined;
    for (const c of cases) if (c.lane.startsWith(direction) && (!worst || top(c) > top(worst))) worst = c;
    if (!worst) continue;
    const target = targets.find((t) => t.lane === worst!.lane && t.label === worst!.label)!;
    const size = worst.sizes[worst.sizes.length - 1]!.size;
    const text = JSON.stringify(target.message(worst.style, size, DEFAULT_MAX_BODY_BYTES));
    const bytes = Buffer.from(text);
    const ratios: number[] = [];
    const vsDecode: number[] = [];
    const utf8 = new TextDecoder("utf-8", { fatal: true });
    for (let r = 0; r < settings.rounds; r++) {
      const judged = timeOf(() => judgeCli(target.base, bytes), settings.minMs);
      ratios.push(judged / timeOf(() => JSON.parse(text), settings.minMs));
      vsDecode.push(judged / timeOf(() => JSON.parse(utf8.decode(bytes)), settings.minMs));
    }
    cli.push({
      label: worst.label,
      lane: worst.lane,
      style: worst.style,
      bytes: bytes.length,
      ratio: spread(ratios),
      vsDecode: spread(vsDecode),
    });
  }
  return { settings, cases, cli, seconds: (performance.now() - started) / 1000 };
}

/** The case's ratio at its largest size taken. */
const top = (c: LongNameFigures) => c.sizes[c.sizes.length - 1]?.ratio.median ?? 0;

const RATIO_TARGET = 10;

/** Per lane, shape and style, at each size: the worst ratio, the median cost of the name itself, the slowest judgement. */
export function longNamesTable(result: LongNameResult): string {
  const groups = new Map<string, LongNameFigures[]>();
  for (const c of result.cases) {
    const key = `${c.lane}\u0000${c.via}\u0000${c.style}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const rows: string[][] = [];
  for (const [key, list] of groups) {
    const [lane, via, style] = key.split("\u0000") as [string, string, string];
    const cells = result.settings.sizes.map((size) => {
      const at = list.flatMap((c) => c.sizes.filter((s) => s.size === size));
      if (at.length === 0) return "not taken";
      const ratio = Math.max(...at.map((s) => s.ratio.median));
      const cut = spread(at.map((s) => s.vsCut.median)).median;
      const ms = Math.max(...at.map((s) => s.ms));
      const skipped = list.length - at.length;
      return `${formatRatio(ratio)} / ${formatRatio(cut)} / ${formatMs(ms)}${skipped ? ` (${skipped} not taken)` : ""}`;
    });
    const grown = list.filter((c) => c.growth);
    const steepest = grown.reduce<LongNameFigures | undefined>((a, b) => (!a || b.growth!.median > a.growth!.median ? b : a), undefined);
    const worst = list.reduce((a, b) => (top(b) > top(a) ? b : a));
    rows.push([
      lane,
      via,
      style,
      String(list.length),
      ...cells,
      steepest ? `${formatRatio(steepest.growth!.median)} (bytes ×${steepest.bytesGrowth!.toFixed(1)})` : "",
      worst.label.length > 48 ? `${worst.label.slice(0, 47)}…` : worst.label,
    ]);
  }
  const lines = [
    table(
      [
        "lane",
        "name",
        "style",
        "cases",
        ...result.settings.sizes.map((s) => `${s}: worst ×parse / median ×cut / slowest ms`),
        "steepest growth limit ÷ 1 MiB",
        "worst case at the largest size",
      ],
      rows,
      [3, 4, 5, 6, 7],
    ),
    "",
    "×parse: the judgement ÷ JSON.parse of the same text, median of the rounds, the worst case of the row; ×cut: the " +
      `judgement ÷ that of the same message with the name cut to its first ${KEPT_KEY_UNITS} units, all an answer shows ` +
      "(what the rest of the name costs; 1× is nothing), the median case of the row; slowest ms: the slowest judgement of the row. " +
      "Timings of microseconds on a shared machine scatter; " +
      "the slowest ms column is the one that showed seconds when a name's cost grew with it.",
  ];
  if (result.cli.length) {
    lines.push(
      "",
      "wymcp check (the same judge, decoding and parsing the bytes itself) on the worst case of each direction at its largest size:",
    );
    lines.push(
      table(
        ["case", "lane", "style", "body", "× JSON.parse med [min–max]", "× decode + JSON.parse med [min–max]"],
        result.cli.map((c) => [
          c.label,
          c.lane,
          c.style,
          `${(c.bytes / 1024).toFixed(0)} KiB`,
          `${formatRatio(c.ratio.median)} [${formatRatio(c.ratio.min)}–${formatRatio(c.ratio.max)}]`,
          `${formatRatio(c.vsDecode.median)} [${formatRatio(c.vsDecode.min)}–${formatRatio(c.vsDecode.max)}]`,
        ]),
        [3, 4, 5],
      ),
    );
  }
  return lines.join("\n");
}

/** Whether every size was taken and each within `target`× JSON.parse (the summary line's count). */
export function withinRatio(c: LongNameFigures, target = RATIO_TARGET): boolean {
  return !c.stoppedAt && c.sizes.every((s) => s.ratio.median <= target);
}

/** One line per lane: the worst ratio at the largest size, the slowest judgement, and how many stayed within the target. */
export function longNamesSummary(result: LongNameResult): string[] {
  const out: string[] = [];
  for (const lane of [...new Set(result.cases.map((c) => c.lane))]) {
    const list = result.cases.filter((c) => c.lane === lane);
    const worst = list.reduce((a, b) => (top(b) > top(a) ? b : a));
    const slowest = Math.max(...list.flatMap((c) => c.sizes.map((s) => s.ms)));
    const stopped = list.filter((c) => c.stoppedAt).length;
    out.push(
      `- ${lane} long names: worst at the largest size ${formatRatio(top(worst))} (${worst.label}, ${worst.style}); slowest judgement ` +
        `${formatMs(slowest)} ms; ${list.filter((c) => withinRatio(c)).length} of ${list.length} within ${RATIO_TARGET}× at every size` +
        `${stopped ? `; ${stopped} stopped on time` : ""}`,
    );
  }
  return out;
}

export { NAME_SIZES, NAME_STYLES, sink };
