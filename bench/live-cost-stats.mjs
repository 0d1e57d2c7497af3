// Preloaded into a proxy (NODE_OPTIONS=--import): on SIGUSR2, writes its CPU time and GC counts/times so far.
import { writeFileSync } from "node:fs";
import { constants, PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";

const names = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
};
const gc = { minor: { n: 0, ms: 0 }, major: { n: 0, ms: 0 }, incremental: { n: 0, ms: 0 }, weakcb: { n: 0, ms: 0 } };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = names[e.detail?.kind ?? e.kind] ?? "weakcb";
    gc[kind].n++;
    gc[kind].ms += e.duration;
  }
}).observe({ entryTypes: ["gc"] });
let seq = 0;
process.on("SIGUSR2", () => {
  const out = process.env.GCSTATS_DIR ?? "/tmp/uifeed";
  const heap = v8.getHeapStatistics();
  writeFileSync(
    `${out}/stats-${process.pid}.json`,
    JSON.stringify({
      seq: ++seq,
      cpu: process.cpuUsage(),
      gc,
      used: heap.used_heap_size,
      total: heap.total_heap_size,
      external: heap.external_memory,
    }),
  );
});
