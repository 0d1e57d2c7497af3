// Readers of the live page's /rows that never read, for bench/listener.ts, in a process of their own (opened in the
// bench's process, their sockets would take the flood's client thread). Given the page's URL and a count, each line
// "open" on stdin opens that many connections, each sending GET /rows and reading nothing past the first bytes of the
// answer; "close" destroys them. Each status line is written to stdout as "status N" once it came, "cut" for a
// connection the listener closed while held, and "closed" once a "close" is done.
import { connect } from "node:net";
import { createInterface } from "node:readline";

const page = new URL(process.argv[2]);
const count = Number(process.argv[3]);
let sockets = [];

function open() {
  for (let i = 0; i < count; i++) {
    const socket = connect(Number(page.port), page.hostname);
    let closing = false;
    socket.on("error", () => undefined);
    socket.once("connect", () => socket.write(`GET /rows HTTP/1.1\r\nHost: ${page.host}\r\n\r\n`));
    socket.once("data", (chunk) => {
      socket.pause();
      process.stdout.write(`status ${/^HTTP\/1\.1 (\d+)/.exec(chunk.toString("latin1"))?.[1] ?? "other"}\n`);
    });
    socket.once("close", () => closing || process.stdout.write("cut\n"));
    sockets.push({ socket, close: () => ((closing = true), socket.destroy()) });
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "open") open();
  else if (line === "close") {
    for (const reader of sockets) reader.close();
    sockets = [];
    process.stdout.write("closed\n");
  }
});
process.stdin.once("end", () => process.exit(0));
