/**
 * @module Measurement helpers: spreads, time-boxed loops with a sink, and number formatting.
 */

export interface Spread {
  min: number;
  median: number;
  max: number;
  /** Every sample, in the order taken. */
  samples: number[];
}

export function spread(samples: number[]): Spread {
  if (samples.length === 0) throw new RangeError("spread of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]!, samples };
}

/** A loop over one expression, compiled fresh so that each variant owns its call sites (no shared, megamorphic feedback). */
export type Loop = (arg: unknown, iterations: number) => number;

/** Results land here so that no call can be dropped as dead code. */
export let sink = 0;

export function compileLoop(expression: string, deps: Record<string, unknown>): Loop {
  const names = Object.keys(deps);
  const body =
    `"use strict";\nreturn function loop(arg, n) {\n  let s = 0;\n` +
    `  for (let i = 0; i < n; i++) { if ((${expression}) === undefined) s++; }\n  return s;\n};`;
  // The benchmark's own source text, never a client's.
  return new Function(...names, body)(...names.map((n) => deps[n])) as Loop;
}

/** Runs `loop` in batches until `ms` have passed; returns operations per second. */
export function timeBox(loop: Loop, arg: unknown, batch: number, ms: number): number {
  let done = 0;
  const start = performance.now();
  let now = start;
  do {
    sink += loop(arg, batch);
    done += batch;
    now = performance.now();
  } while (now - start < ms);
  return (done * 1000) / (now - start);
}

/** Warms `loop` for about `ms` and returns a batch size worth about one millisecond. */
export function warm(loop: Loop, arg: unknown, ms: number): number {
  let batch = 1;
  const start = performance.now();
  let done = 0;
  while (performance.now() - start < ms) {
    const t = performance.now();
    sink += loop(arg, batch);
    done += batch;
    if (performance.now() - t < 0.5) batch *= 2;
  }
  const rate = done / Math.max(performance.now() - start, 1e-3);
  return Math.max(1, Math.round(rate));
}

export function formatOps(opsPerSecond: number): string {
  if (opsPerSecond >= 1e6) return `${(opsPerSecond / 1e6).toFixed(opsPerSecond >= 1e7 ? 1 : 2)} M/s`;
  if (opsPerSecond >= 1e3) return `${(opsPerSecond / 1e3).toFixed(opsPerSecond >= 1e5 ? 0 : 1)} k/s`;
  return `${opsPerSecond.toFixed(0)} /s`;
}

export function formatRatio(x: number): string {
  return `${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)}×`;
}

export function formatMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

export function formatBytes(bytes: number): string {
  return bytes >= 1000 ? `${(bytes / 1000).toFixed(1)} kB` : `${bytes} B`;
}

/** A plain-text table: a header row, a rule, then rows; columns padded to their widest cell. */
export function table(header: string[], rows: string[][], rightAligned: number[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (rightAligned.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/**
 * The order of `variants` in `round`: a Williams design, in which over a whole cycle (as many rounds as variants when
 * their number is even, twice that when odd) each variant runs in each place equally often and follows each other
 * variant equally often. A plain rotation has each variant follow the same one every round, so whatever a variant
 * leaves behind (a process still collecting, compiling or exporting after its round) always falls on the same next one.
 */
export function balancedOrder<T>(variants: readonly T[], round: number): T[] {
  const n = variants.length;
  // The first sequence: 0, 1, n-1, 2, n-2, ...; each later one shifts it by one; for odd n, their mirrors follow.
  const first: number[] = [];
  for (let k = 0; k < n; k++) first.push(k === 0 ? 0 : k % 2 === 1 ? (k + 1) / 2 : n - k / 2);
  const cycle = n % 2 === 0 ? n : 2 * n;
  const r = round % cycle;
  const shifted = first.map((i) => variants[(i + (r % n)) % n]!);
  return r < n ? shifted : shifted.reverse();
}

/** The fewest rounds, at least `atLeast`, that make whole cycles of `balancedOrder` for `count` variants. */
export function balancedRounds(count: number, atLeast: number): number {
  const cycle = count % 2 === 0 ? count : 2 * count;
  return Math.max(1, Math.ceil(atLeast / cycle)) * cycle;
}
