// The throughput floor for `wymcp check` on a JSONL file: read it, split it into lines, JSON.parse each, nothing else.
import { createReadStream } from "node:fs";

let messages = 0;
let rest = Buffer.alloc(0);
const parse = (bytes) => {
  if (bytes.length === 0) return;
  messages++;
  try {
    JSON.parse(bytes.toString("utf8"));
  } catch {
    // a line that is not JSON still counts as a message, as it does for the CLI
  }
};
// Same chunk size as the CLI.
for await (const chunk of createReadStream(process.argv[2], { highWaterMark: 256 * 1024 })) {
  const data = rest.length ? Buffer.concat([rest, chunk]) : chunk;
  let start = 0;
  for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10, start)) {
    parse(data.subarray(start, end));
    start = end + 1;
  }
  rest = data.subarray(start);
}
parse(rest);
console.log(messages);
