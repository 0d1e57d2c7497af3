/**
 * @module A horizontal bar chart as SVG text, with no dependency: each bar's label above it and its value after it, the
 * range of the rounds as a whisker, a budget line per group of bars, bars coloured by whether they meet that budget,
 * and a caption (the command, the date, the machine, the load). The same chart gives the same bytes: every coordinate
 * is printed rounded, text widths are estimated from a fixed table, nothing reads the clock, the locale or the fonts.
 */

export interface Bar {
  label: string;
  value: number;
  /** The range of the rounds (min and max), drawn as a whisker. */
  low?: number;
  high?: number;
  /** The text after the bar; by default the value with the chart's unit. */
  text?: string;
  /**
   * Whether the bar meets its group's budget, when that is judged on another figure than the bar's value; null when
   * the budget does not apply to it (a baseline drawn beside what is judged).
   */
  meets?: boolean | null;
}

export interface Budget {
  limit: number;
  /** true: a bar meets the budget at or above the limit; false: at or under it. */
  atLeast: boolean;
  /** How the group's title states it, as `budget ≥ 10×`. */
  label: string;
}

export interface BarGroup {
  title: string;
  budget?: Budget;
  bars: Bar[];
}

export interface BarChart {
  title: string;
  /** What the bars measure, under the title. */
  subtitle: string;
  /** Written after a tick's number: "×", " ms", " %". */
  unit: string;
  groups: BarGroup[];
  /** Lines under the axis, the provenance first. */
  caption: string[];
  /** Where the axis ends; a longer bar is cut there (its value still printed after it). */
  max?: number;
}

/** A chart that cannot be drawn: no bars, a figure that is not a finite number, a range that does not hold its value. */
export class ChartError extends Error {
  override name = "ChartError";
}

const WIDTH = 640;
const MARGIN = 16;
const FONT = "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif";
const COLOR = {
  text: "#1f2937",
  muted: "#4b5563",
  grid: "#e5e7eb",
  axis: "#9ca3af",
  meets: "#2f6fb0",
  misses: "#d9622b",
  plain: "#8a94a6",
  budget: "#b42318",
  whisker: "#111827",
};
const SIZE = { title: 17, subtitle: 12.5, group: 13, label: 12.5, value: 12, tick: 11, caption: 11 };
const BAR_HEIGHT = 13;

/** Estimated advance of a character, in em, for a sans-serif face: wide enough that text never runs into a bar. */
function advance(c: string): number {
  if (" .,:;'!|()[]{}ijlrtfI/".includes(c)) return 0.34;
  if ("mwMW@%—".includes(c)) return 0.9;
  if (/[A-Z]/.test(c)) return 0.68;
  if (/[0-9]/.test(c)) return 0.58;
  return 0.56;
}

/** The estimated width of `text` at `size` px. */
export function textWidth(text: string, size: number): number {
  let em = 0;
  for (const c of text) em += advance(c);
  return em * size;
}

/** `text` broken at spaces into lines no wider than `width` px (a word longer than the width keeps its own line). */
export function wrap(text: string, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (line && textWidth(next, size) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

const xml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** A coordinate as printed: one decimal at most, no `-0`. */
const at = (x: number) => String(Math.round(x * 10) / 10 || 0);

/** The tick step for a span (1, 2, 2.5 or 5 times a power of ten, about five ticks) and the decimals its ticks need. */
function tickStep(span: number): { step: number; decimals: number } {
  const power = Math.floor(Math.log10(span / 5));
  const n = span / 5 / 10 ** power;
  const mantissa = n <= 1 ? 1 : n <= 2 ? 2 : n <= 2.5 ? 2.5 : n <= 5 ? 5 : 10;
  return { step: mantissa * 10 ** power, decimals: Math.max(0, -power + (mantissa === 2.5 ? 1 : 0)) };
}

/** A tick's number, never `-0`. */
function tickText(x: number, decimals: number): string {
  const s = x.toFixed(decimals);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}

/** A bar's value as printed by default: as bench/measure.ts's formatRatio prints a ratio. */
const valueText = (x: number, unit: string) =>
  `${Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2)}${unit}`;

function check(chart: BarChart): void {
  const bars = chart.groups.flatMap((g) => g.bars);
  if (bars.length === 0) throw new ChartError(`chart ${JSON.stringify(chart.title)} has no bars`);
  const finite = (x: number | undefined, what: string) => {
    if (x !== undefined && !Number.isFinite(x))
      throw new ChartError(`chart ${JSON.stringify(chart.title)}: ${what} is ${x}, not a finite number`);
  };
  for (const g of chart.groups) {
    finite(g.budget?.limit, `the budget of ${JSON.stringify(g.title)}`);
    for (const b of g.bars) {
      const what = `${JSON.stringify(g.title)} / ${JSON.stringify(b.label)}`;
      finite(b.value, what);
      finite(b.low, `${what}'s low`);
      finite(b.high, `${what}'s high`);
      if ((b.low !== undefined && b.low > b.value) || (b.high !== undefined && b.high < b.value))
        throw new ChartError(
          `chart ${JSON.stringify(chart.title)}: ${what}'s range [${b.low}, ${b.high}] does not hold its value ${b.value}`,
        );
    }
  }
  finite(chart.max, "the axis's end");
  if (chart.max !== undefined && chart.max <= 0)
    throw new ChartError(`chart ${JSON.stringify(chart.title)}: the axis's end must be above 0`);
}

/** Whether a bar meets its group's budget (undefined: the group has none). */
export function meets(bar: Bar, budget: Budget | undefined): boolean | undefined {
  if (!budget) return undefined;
  if (bar.meets === null) return undefined;
  if (bar.meets !== undefined) return bar.meets;
  return budget.atLeast ? bar.value >= budget.limit : bar.value <= budget.limit;
}

/**
 * The chart as an SVG document (UTF-8 text, one element per line, so that a change of figures reads as a diff).
 * @example writeFileSync("docs/charts/proxy.svg", barChart({ title, subtitle, unit: "×", groups, caption }))
 */
export function barChart(chart: BarChart): string {
  check(chart);
  const bars = chart.groups.flatMap((g) => g.bars);
  const limits = chart.groups.flatMap((g) => (g.budget ? [g.budget.limit] : []));
  // The axis spans the values and the budgets, from 0 or the lowest value below it: a whisker reaching past either
  // end (rounds on a loaded machine can scatter far) is cut there, so that it cannot squeeze the bars.
  const values = bars.map((b) => b.value);
  let lo = Math.min(0, ...values, ...limits);
  const top = chart.max ?? Math.max(...values, ...limits);
  const { step, decimals } = tickStep(top - lo || 1);
  lo = Math.floor(lo / step + 1e-9) * step;
  // Bars all at 0 still get an axis one step long.
  const hi = chart.max ?? Math.max(Math.ceil(top / step - 1e-9) * step, lo + step);
  const cut = (x: number) => Math.min(Math.max(x, lo), hi);
  const frac = (x: number) => (cut(x) - lo) / (hi - lo);
  const textOf = (b: Bar) => b.text ?? valueText(b.value, chart.unit);
  const ticks: Array<{ value: number; text: string }> = [];
  for (let i = 0; lo + i * step <= hi + step * 1e-9; i++)
    ticks.push({ value: lo + i * step, text: tickText(lo + i * step, decimals) + chart.unit });

  // Short labels stand in a column left of their bars, long ones above them. The plot is as wide as lets every bar's
  // text fit after it, and never narrower than 240 px.
  const column = Math.max(...bars.map((b) => textWidth(b.label, SIZE.label)));
  const beside = column <= 0.3 * WIDTH;
  // Far enough right that the first tick's number, centred under it, fits.
  const x0 = Math.max(MARGIN + (beside ? Math.ceil(column) + 10 : 0), Math.ceil(4 + textWidth(ticks[0]!.text, SIZE.tick) / 2));
  const room = WIDTH - MARGIN - x0;
  let plot = room;
  for (const b of bars) {
    const f = Math.max(frac(b.value), frac(b.high ?? b.value), 1e-3);
    plot = Math.min(plot, (room - 6 - textWidth(textOf(b), SIZE.value)) / f);
  }
  plot = Math.max(plot, 240);
  let width = Math.ceil(
    Math.max(
      WIDTH,
      ...bars.map((b) => x0 + plot * Math.max(frac(b.value), frac(b.high ?? b.value)) + 6 + textWidth(textOf(b), SIZE.value) + MARGIN),
    ),
  );
  const x = (v: number) => x0 + plot * frac(v);

  const out: string[] = [];
  const desc: string[] = [chart.subtitle];
  let y = MARGIN + SIZE.title;
  out.push(`<text x="${MARGIN}" y="${at(y)}" font-size="${SIZE.title}" font-weight="bold" fill="${COLOR.text}">${xml(chart.title)}</text>`);
  for (const line of wrap(chart.subtitle, SIZE.subtitle, width - 2 * MARGIN)) {
    y += SIZE.subtitle + 5;
    out.push(`<text x="${MARGIN}" y="${at(y)}" font-size="${SIZE.subtitle}" fill="${COLOR.muted}">${xml(line)}</text>`);
  }

  // The legend: only what the chart shows.
  const judged = chart.groups.flatMap((g) => g.bars.map((b) => meets(b, g.budget)));
  const legend: Array<[string, string]> = [];
  if (judged.includes(true)) legend.push(["box:meets", "meets its budget"]);
  if (judged.includes(false)) legend.push(["box:misses", "misses it"]);
  if (judged.includes(undefined)) legend.push(["box:plain", "not judged"]);
  if (limits.length) legend.push(["line", "budget"]);
  if (bars.some((b) => b.low !== undefined || b.high !== undefined)) legend.push(["whisker", "range of the rounds"]);
  y += 20;
  let lx = MARGIN;
  for (const [mark, label] of legend) {
    if (mark.startsWith("box:")) {
      const fill = COLOR[mark.slice(4) as "meets" | "misses" | "plain"];
      out.push(`<rect x="${at(lx)}" y="${at(y - 9)}" width="10" height="10" fill="${fill}"/>`);
    } else if (mark === "line") {
      out.push(
        `<line x1="${at(lx + 5)}" y1="${at(y - 11)}" x2="${at(lx + 5)}" y2="${at(y + 3)}" stroke="${COLOR.budget}" stroke-width="1.5" stroke-dasharray="4 3"/>`,
      );
    } else {
      out.push(
        `<line x1="${at(lx)}" y1="${at(y - 4)}" x2="${at(lx + 10)}" y2="${at(y - 4)}" stroke="${COLOR.whisker}" stroke-width="1.2"/>`,
      );
      out.push(`<line x1="${at(lx)}" y1="${at(y - 8)}" x2="${at(lx)}" y2="${at(y)}" stroke="${COLOR.whisker}" stroke-width="1.2"/>`);
      out.push(
        `<line x1="${at(lx + 10)}" y1="${at(y - 8)}" x2="${at(lx + 10)}" y2="${at(y)}" stroke="${COLOR.whisker}" stroke-width="1.2"/>`,
      );
    }
    out.push(`<text x="${at(lx + 15)}" y="${at(y)}" font-size="${SIZE.tick}" fill="${COLOR.muted}">${xml(label)}</text>`);
    lx += 15 + textWidth(label, SIZE.tick) + 14;
  }

  // The grid goes under the bars: its lines are drawn once the plot's height is known, then put first.
  const plotTop = y + 12;
  y = plotTop;
  const body: string[] = [];
  let right = 0;
  for (const g of chart.groups) {
    y += SIZE.group + 4;
    const budgetText = g.budget ? `· ${g.budget.label}` : "";
    body.push(
      `<text x="${MARGIN}" y="${at(y)}" font-size="${SIZE.group}" font-weight="bold" fill="${COLOR.text}">${xml(g.title)}` +
        (budgetText ? `<tspan dx="6" font-weight="normal" fill="${COLOR.budget}">${xml(budgetText)}</tspan>` : "") +
        "</text>",
    );
    const groupTop = y + 5;
    const barSpans: number[] = [];
    for (const b of g.bars) {
      let barTop: number;
      if (beside) {
        barTop = y + 5;
        body.push(
          `<text x="${x0 - 8}" y="${at(barTop + BAR_HEIGHT / 2 + 4)}" font-size="${SIZE.label}" text-anchor="end" fill="${COLOR.text}">${xml(b.label)}</text>`,
        );
      } else {
        y += SIZE.label + 4;
        body.push(`<text x="${MARGIN}" y="${at(y)}" font-size="${SIZE.label}" fill="${COLOR.text}">${xml(b.label)}</text>`);
        barTop = y + 3;
      }
      barSpans.push(barTop);
      const mid = barTop + BAR_HEIGHT / 2;
      const verdict = meets(b, g.budget);
      const fill = verdict === undefined ? COLOR.plain : verdict ? COLOR.meets : COLOR.misses;
      const from = Math.min(x(0), x(b.value));
      const to = Math.max(x(0), x(b.value));
      body.push(`<rect x="${at(from)}" y="${at(barTop)}" width="${at(Math.max(to - from, 1))}" height="${BAR_HEIGHT}" fill="${fill}"/>`);
      if (b.value > hi) {
        // A bar past the axis's end is cut: two white strokes across its end say so.
        for (const dx of [-12, -7])
          body.push(
            `<line x1="${at(to + dx - 2)}" y1="${at(barTop + BAR_HEIGHT + 1)}" x2="${at(to + dx + 2)}" y2="${at(barTop - 1)}" stroke="#ffffff" stroke-width="2"/>`,
          );
      }
      if (b.low !== undefined || b.high !== undefined) {
        const wl = x(b.low ?? b.value);
        const wh = x(b.high ?? b.value);
        body.push(`<line x1="${at(wl)}" y1="${at(mid)}" x2="${at(wh)}" y2="${at(mid)}" stroke="${COLOR.whisker}" stroke-width="1.2"/>`);
        // A whisker cut at either end of the axis has no cap there.
        for (const wx of [...(b.low === undefined || b.low >= lo ? [wl] : []), ...(b.high === undefined || b.high <= hi ? [wh] : [])])
          body.push(
            `<line x1="${at(wx)}" y1="${at(mid - 4)}" x2="${at(wx)}" y2="${at(mid + 4)}" stroke="${COLOR.whisker}" stroke-width="1.2"/>`,
          );
      }
      let textX = Math.max(to, x(b.high ?? b.value)) + 6;
      // Clear of the budget's line, where that would cross the text.
      const bx = g.budget && g.budget.limit <= hi ? x(g.budget.limit) : undefined;
      if (bx !== undefined && bx >= textX - 8 && bx <= textX + textWidth(textOf(b), SIZE.value) + 4) textX = bx + 6;
      body.push(`<text x="${at(textX)}" y="${at(mid + 4)}" font-size="${SIZE.value}" fill="${COLOR.text}">${xml(textOf(b))}</text>`);
      right = Math.max(right, textX + textWidth(textOf(b), SIZE.value));
      desc.push(
        `${g.title}, ${b.label}: ${textOf(b)}${verdict === undefined ? "" : verdict ? " (meets its budget)" : " (misses its budget)"}`,
      );
      y = barTop + BAR_HEIGHT;
    }
    if (g.budget && g.budget.limit <= hi) {
      // Across the group's bars; where labels stand above the bars, across each bar alone, clear of the labels.
      const bx = x(g.budget.limit);
      const spans = beside ? [[groupTop, y + 3]] : barSpans.map((top) => [top - 3, top + BAR_HEIGHT + 3]);
      for (const [y1, y2] of spans)
        body.push(
          `<line x1="${at(bx)}" y1="${at(y1!)}" x2="${at(bx)}" y2="${at(y2!)}" stroke="${COLOR.budget}" stroke-width="1.5" stroke-dasharray="4 3"/>`,
        );
    }
    y += 8;
  }
  const plotBottom = y;
  const grid: string[] = [];
  for (const tick of ticks) {
    const gx = x(tick.value);
    const stroke = Math.abs(tick.value) < step * 1e-9 && lo < 0 ? COLOR.axis : COLOR.grid;
    grid.push(`<line x1="${at(gx)}" y1="${at(plotTop)}" x2="${at(gx)}" y2="${at(plotBottom)}" stroke="${stroke}" stroke-width="1"/>`);
    grid.push(
      `<text x="${at(gx)}" y="${at(plotBottom + 14)}" font-size="${SIZE.tick}" text-anchor="middle" fill="${COLOR.muted}">${xml(tick.text)}</text>`,
    );
    right = Math.max(right, gx + textWidth(tick.text, SIZE.tick) / 2);
  }
  grid.push(
    `<line x1="${at(x0)}" y1="${at(plotBottom)}" x2="${at(x0 + plot)}" y2="${at(plotBottom)}" stroke="${COLOR.axis}" stroke-width="1"/>`,
  );
  out.push(...grid, ...body);
  y = plotBottom + 14;

  y += 8;
  for (const line of chart.caption.flatMap((c) => wrap(c, SIZE.caption, width - 2 * MARGIN))) {
    y += SIZE.caption + 4;
    out.push(`<text x="${MARGIN}" y="${at(y)}" font-size="${SIZE.caption}" fill="${COLOR.muted}">${xml(line)}</text>`);
  }
  desc.push(...chart.caption);
  const height = Math.ceil(y + MARGIN);
  width = Math.max(width, Math.ceil(right + MARGIN));

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" font-family="${xml(FONT)}">`,
    `<title>${xml(chart.title)}</title>`,
    `<desc>${xml(desc.join("\n"))}</desc>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...out,
    "</svg>",
    "",
  ].join("\n");
}
