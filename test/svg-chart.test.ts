/**
 * The benchmark's SVG bar chart (bench/svg-chart.ts): a well-formed document holding the figures it is given, bars in
 * proportion to them, each group's budget line at its limit, the same bytes for the same chart.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type BarChart, barChart, ChartError } from "../bench/svg-chart.js";

const chart = (): BarChart => ({
  title: "validateMcpRequest ÷ JSON.parse",
  subtitle: "How many validations fit in one parse.",
  unit: "×",
  groups: [
    {
      title: "modern tools/call",
      budget: { limit: 10, atLeast: true, label: "budget ≥ 10×" },
      bars: [
        { label: "annotation", value: 14.5, low: 13.8, high: 14.7 },
        { label: "strict", value: 10, low: 9.5, high: 10.5 },
        { label: "slow", value: 5, text: "5.00× (slow)" },
      ],
    },
    { title: "legacy initialize", bars: [{ label: "annotation", value: 7.25 }] },
  ],
  caption: ["Written by npm run bench on 2026-12-07 05:00 UTC: a CPU, 2 cores, Node v20.20.2 (linux/x64), load average 1.00 / 1.00 / 1.00"],
});

interface Element {
  name: string;
  attrs: Record<string, string>;
  text: string;
}

/** A strict reading of the XML the writer emits: balanced tags, quoted attributes, entities only where allowed. */
function parse(svg: string): Element[] {
  const elements: Element[] = [];
  const open: Element[] = [];
  const token = /<(\/?)([a-zA-Z][\w-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let end = 0;
  for (let m = token.exec(svg); m; m = token.exec(svg)) {
    end = token.lastIndex;
    const [, closing, name, attrText, selfClosing, text] = m;
    if (text !== undefined) {
      assert.doesNotMatch(text, /&(?!(amp|lt|gt|quot|#39);)/, `a bare & in ${JSON.stringify(text)}`);
      for (const e of open) e.text += text;
      continue;
    }
    if (closing) {
      assert.equal(open.pop()?.name, name, `</${name}> closes what it did not open`);
      continue;
    }
    const attrs = Object.fromEntries([...attrText!.matchAll(/([\w:-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!]));
    for (const value of Object.values(attrs)) assert.doesNotMatch(value, /&(?!(amp|lt|gt|quot|#39);)/);
    const element = { name: name!, attrs, text: "" };
    elements.push(element);
    if (!selfClosing) open.push(element);
  }
  assert.equal(end, svg.length, `not XML from ${JSON.stringify(svg.slice(end, end + 40))}`);
  assert.deepEqual(open, [], "every element is closed");
  return elements;
}

const textOf = (svg: string) =>
  parse(svg)
    .filter((e) => e.name === "text")
    .map((e) => e.text);

const barRects = (svg: string, fill?: string) =>
  parse(svg).filter((e) => e.name === "rect" && e.attrs.height === "13" && (fill === undefined || e.attrs.fill === fill));

test("the chart is one well-formed SVG document with its title, every bar's label and value, and the caption", () => {
  const svg = barChart(chart());
  const elements = parse(svg);
  assert.equal(elements[0]!.name, "svg");
  assert.equal(elements[0]!.attrs.xmlns, "http://www.w3.org/2000/svg");
  assert.match(elements[0]!.attrs.viewBox!, /^0 0 \d+ \d+$/);
  assert.equal(elements.find((e) => e.name === "title")!.text, "validateMcpRequest ÷ JSON.parse");
  const texts = textOf(svg);
  for (const expected of ["annotation", "strict", "slow", "14.5×", "10.0×", "5.00× (slow)", "7.25×", "modern tools/call· budget ≥ 10×"])
    assert.ok(texts.includes(expected), `${expected} among ${JSON.stringify(texts)}`);
  assert.ok(texts.some((t) => t.startsWith("Written by npm run bench on 2026-12-07 05:00 UTC")));
  // The accessible description carries the figures too, with each bar's verdict.
  assert.match(elements.find((e) => e.name === "desc")!.text, /modern tools\/call, slow: 5\.00× \(slow\) \(misses its budget\)/);
});

test("bars are in proportion to their values, and the budget's dashed line stands where a bar at the limit ends", () => {
  const svg = barChart(chart());
  const bars = barRects(svg);
  assert.equal(bars.length, 4);
  const [annotation, atLimit, slow, legacy] = bars.map((b) => ({
    x: Number(b.attrs.x),
    y: Number(b.attrs.y),
    width: Number(b.attrs.width),
  }));
  // One zero for every bar: the axis starts at 0.
  assert.ok([annotation, atLimit, slow, legacy].every((b) => b!.x === annotation!.x));
  assert.ok(Math.abs(annotation!.width / slow!.width - 14.5 / 5) < 0.01);
  assert.ok(Math.abs(legacy!.width / slow!.width - 7.25 / 5) < 0.01);
  const budget = parse(svg).filter((e) => e.name === "line" && e.attrs["stroke-dasharray"] === "4 3" && e.attrs.y1 !== e.attrs.y2);
  // Below the legend's sample, the group's line; the second group has no budget, so no line.
  const lines = budget.filter((l) => Number(l.attrs.y2) > annotation!.y);
  assert.equal(lines.length, 1);
  assert.ok(Math.abs(Number(lines[0]!.attrs.x1) - (atLimit!.x + atLimit!.width)) <= 0.1);
});

test("a bar meeting its budget, one missing it and one with none are told apart by colour and by the legend", () => {
  const svg = barChart(chart());
  const fills = barRects(svg).map((b) => b.attrs.fill);
  // ≥ 10×: 14.5 and 10 meet, 5 misses; the legacy group has no budget.
  assert.equal(fills[0], fills[1]);
  assert.notEqual(fills[0], fills[2]);
  assert.notEqual(fills[3], fills[0]);
  assert.notEqual(fills[3], fills[2]);
  const texts = textOf(svg);
  for (const entry of ["meets its budget", "misses it", "not judged", "budget", "range of the rounds"])
    assert.ok(texts.includes(entry), entry);
  // An at-most budget judges the other way round, and a bar can carry the verdict of another figure, or none.
  const atMost = barChart({
    ...chart(),
    groups: [
      {
        title: "cold start",
        budget: { limit: 10, atLeast: false, label: "≤ 10" },
        bars: [
          { label: "baseline", value: 200, meets: null },
          { label: "under", value: 6 },
          { label: "over", value: 12 },
          { label: "judged elsewhere", value: 12, meets: true },
        ],
      },
    ],
  });
  const [baseline, under, over, elsewhere] = barRects(atMost).map((b) => b.attrs.fill);
  assert.equal(under, elsewhere);
  assert.notEqual(under, over);
  assert.equal(baseline, fills[3]);
});

test("the same chart gives the same bytes, its input is left as it was, and another figure changes them", () => {
  const given = chart();
  const before = structuredClone(given);
  const once = barChart(given);
  assert.equal(barChart(given), once);
  assert.equal(barChart(structuredClone(given)), once);
  assert.deepEqual(given, before);
  const changed = chart();
  changed.groups[0]!.bars[0]!.value = 14.6;
  assert.notEqual(barChart(changed), once);
});

test("a bar past the axis's end is cut there, its whole value still printed after it", () => {
  const svg = barChart({
    ...chart(),
    max: 30,
    groups: [
      {
        title: "g",
        bars: [
          { label: "huge", value: 2232 },
          { label: "small", value: 15 },
        ],
      },
    ],
  });
  const [huge, small] = barRects(svg).map((b) => Number(b.attrs.width));
  assert.ok(Math.abs(huge! / small! - 2) < 0.01, "the cut bar ends at 30, twice 15");
  assert.ok(textOf(svg).includes("2232×"));
  const ticks = parse(svg).filter((e) => e.name === "text" && e.attrs["text-anchor"] === "middle");
  assert.equal(ticks.at(-1)!.text, "30×");
});

test("bars all at 0, or a value below 0, still draw on an axis that holds them", () => {
  const zero = barChart({ ...chart(), groups: [{ title: "g", bars: [{ label: "a", value: 0 }] }] });
  assert.doesNotMatch(zero, /NaN|Infinity/);
  const negative = barChart({
    ...chart(),
    unit: " ms",
    groups: [
      {
        title: "g",
        bars: [
          { label: "a", value: -85 },
          { label: "b", value: 200 },
        ],
      },
    ],
  });
  const [a, b] = barRects(negative).map((r) => ({ x: Number(r.attrs.x), width: Number(r.attrs.width) }));
  // The negative bar ends at 0, where the positive one starts.
  assert.ok(Math.abs(a!.x + a!.width - b!.x) <= 0.1);
  assert.ok(Math.abs(a!.width / b!.width - 85 / 200) < 0.01);
  assert.ok(textOf(negative).includes("-100 ms"), "the axis starts below the lowest value");
});

test("labels and titles are text, never markup: <, & and quotes are escaped", () => {
  const hostile = 'a <script>alert("x")</script> & b';
  const svg = barChart({ ...chart(), title: hostile, groups: [{ title: hostile, bars: [{ label: hostile, value: 1, text: hostile }] }] });
  assert.ok(!svg.includes("<script>"));
  assert.ok(textOf(svg).filter((t) => t === "a &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; b").length >= 3);
});

test("a chart that cannot be drawn throws ChartError: no bars, a figure that is not finite, a range not holding its value", () => {
  assert.throws(() => barChart({ ...chart(), groups: [] }), ChartError);
  assert.throws(() => barChart({ ...chart(), groups: [{ title: "g", bars: [{ label: "a", value: Number.NaN }] }] }), /not a finite number/);
  assert.throws(
    () => barChart({ ...chart(), groups: [{ title: "g", bars: [{ label: "a", value: 1, low: 2 }] }] }),
    /does not hold its value/,
  );
  assert.throws(
    () =>
      barChart({
        ...chart(),
        groups: [{ title: "g", budget: { limit: Number.POSITIVE_INFINITY, atLeast: true, label: "" }, bars: [{ label: "a", value: 1 }] }],
      }),
    ChartError,
  );
});
