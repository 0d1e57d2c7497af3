// A stdio peer for the tests of `wymcp stdio`: it appends every byte it receives to the file named by its first
// argument (so a test can prove what never reached it) and answers each request line with a result naming its
// method. `--half` writes its first answer in two halves, the second on SIGUSR1 (when the test says so); `--flood N` writes N bytes of notifications at start;
// `--bad-result` answers every request with a result that is not what its method returns; `--negotiate REV` answers
// `initialize` with `protocolVersion` REV (as a server that negotiated it; `REV1,REV2,...`: the nth initialize gets the
// nth); `--trail` writes the start of a notification line with its first answer, in one write, and the line's rest when
// `notifications/initialized` comes; `--result JSON` answers every other request
// with that result; `--exit N` exits N on end of input. SIGTERM is recorded and answered by exiting 42. Anything on stderr goes to the client's stderr.
import { appendFileSync } from "node:fs";

const [record, ...flags] = process.argv.slice(2);
const flag = (name) => flags.includes(name);
const value = (name) => Number(flags[flags.indexOf(name) + 1]);
if (!record) throw new Error("usage: stdio-echo.mjs RECORD-FILE [flags]");

process.on("SIGTERM", () => {
  appendFileSync(record, "<SIGTERM>");
  process.exit(42);
});
// Ready once SIGTERM is handled: a test that signals on this line must find the handler in place.
process.stderr.write("stdio-echo: ready\n");

if (flag("--flood")) {
  const line = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x".repeat(1000) } })}\n`;
  let left = value("--flood");
  const more = () => {
    while (left > 0) {
      left -= line.length;
      if (!process.stdout.write(line)) return void process.stdout.once("drain", more);
    }
  };
  more();
}

let pending = "";
let halves = flag("--half");
const trail = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "trailing" } })}\n`;
let trailing = flag("--trail") ? "start" : "";
let initializes = 0;
process.stdin.on("data", (chunk) => {
  appendFileSync(record, chunk);
  pending += chunk.toString("utf8");
  let nl = pending.indexOf("\n");
  while (nl >= 0) {
    answer(pending.slice(0, nl));
    pending = pending.slice(nl + 1);
    nl = pending.indexOf("\n");
  }
});
process.stdin.on("end", () => process.exit(flag("--exit") ? value("--exit") : 0));

function answer(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (trailing === "rest" && message?.method === "notifications/initialized") {
    trailing = "";
    return void process.stdout.write(trail.slice(20));
  }
  if (typeof message !== "object" || message === null || typeof message.method !== "string" || !("id" in message)) return;
  const negotiated = message.method === "initialize" && flag("--negotiate");
  const revisions = negotiated ? flags[flags.indexOf("--negotiate") + 1].split(",") : [];
  const revision = negotiated ? revisions[Math.min(initializes++, revisions.length - 1)] : undefined;
  const result = flag("--bad-result")
    ? { content: 5 }
    : negotiated
      ? { protocolVersion: revision, capabilities: {}, serverInfo: { name: "echo", version: "0" } }
      : flag("--result") && message.method !== "initialize"
        ? JSON.parse(flags[flags.indexOf("--result") + 1])
        : { echo: message.method };
  const text = `${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n`;
  if (trailing === "start") {
    trailing = "rest";
    return void process.stdout.write(text + trail.slice(0, 20));
  }
  if (!halves) return void process.stdout.write(text);
  halves = false;
  process.stdout.write(text.slice(0, 10));
  process.once("SIGUSR1", () => process.stdout.write(text.slice(10)));
}
