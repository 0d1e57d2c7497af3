// Stands between `wymcp stdio` and a real stdio server to prove what reached the server: every byte written to it is
// appended to the file named first, then passed on; its output and exit code are the server's.
//   node record-stdin.mjs RECORD-FILE -- command [args...]
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";

const [record, dashes, command, ...args] = process.argv.slice(2);
if (!record || dashes !== "--" || !command) throw new Error("usage: record-stdin.mjs RECORD-FILE -- command [args...]");
writeFileSync(record, "");
const server = spawn(command, args, { stdio: ["pipe", "inherit", "inherit"] });
server.stdin.on("error", () => undefined);
process.stdin.on("data", (chunk) => {
  appendFileSync(record, chunk);
  if (!server.stdin.write(chunk)) {
    process.stdin.pause();
    server.stdin.once("drain", () => process.stdin.resume());
  }
});
process.stdin.on("end", () => server.stdin.end());
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
