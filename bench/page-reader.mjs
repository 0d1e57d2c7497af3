// The live page's reader for bench/live.ts, in a process of its own as a browser's page is: it follows the /events
// stream of the page URL it is given and writes, after each chunk, the rows read so far and the delays (ms from a row's
// capture time to its arrival) of every 16th row since the last line: "rows delay,delay,...".
import http from "node:http";

const page = process.argv[2];
let rows = 0;
const req = http.get(new URL("events", page), (res) => {
  res.setEncoding("utf8");
  let tail = "";
  res.on("data", (text) => {
    const now = Date.now();
    const chunk = tail + text;
    // Only whole events are read; the rest waits for the next chunk.
    const end = chunk.lastIndexOf("\n\n");
    tail = end < 0 ? chunk : chunk.slice(end + 2);
    const whole = end < 0 ? "" : chunk.slice(0, end + 2);
    const delays = [];
    const rowTime = /^data: \{"seq":\d+,"time":(\d+)/gm;
    for (let found = rowTime.exec(whole); found; found = rowTime.exec(whole)) if (rows++ % 16 === 0) delays.push(now - Number(found[1]));
    process.stdout.write(`${rows} ${delays.join(",")}\n`);
  });
  res.on("end", () => process.exit(0));
});
req.on("error", () => process.exit(0));
