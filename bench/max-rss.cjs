// Preloaded with `node -r` into a benchmark child: on exit, writes the process's peak RSS (KiB) where WYMCP_BENCH_RSS points.
const { writeFileSync } = require("node:fs");

process.on("exit", () => {
  if (process.env.WYMCP_BENCH_RSS) writeFileSync(process.env.WYMCP_BENCH_RSS, String(process.resourceUsage().maxRSS));
});
