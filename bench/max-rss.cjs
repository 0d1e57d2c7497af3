// Preloaded with `node -r` into a benchmark child: on exit, writes its peak RSS (KiB) and CPU time (ms) where WYMCP_BENCH_RSS points.
const { writeFileSync } = require("node:fs");

process.on("exit", () => {
  if (!process.env.WYMCP_BENCH_RSS) return;
  const usage = process.resourceUsage();
  // CPU time is the figure that shared cores disturb least: another job's load shows in wall time, not in ours.
  writeFileSync(
    process.env.WYMCP_BENCH_RSS,
    JSON.stringify({ maxRssKiB: usage.maxRSS, cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000 }),
  );
});
