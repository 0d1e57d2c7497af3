// A stdio server for `npm run fuzz -- --transport`'s stdio family, in one of a few behaviours (argv[2]):
// - echo: answers every line that is JSON with an id ({"result":{}} with that id), leaves the rest, exits 0 at the end
//   of its input;
// - flood: writes argv[3] MiB of notification lines as fast as its output takes them, then exits 0;
// - forever: writes notification lines until it is killed, as fast as its output takes them;
// - mid-line: writes the start of an answer, no end of line, and exits 3.
const mode = process.argv[2];
const note = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x".repeat(200) } })}\n`;

if (mode === "echo") {
  let held = Buffer.alloc(0);
  const answer = (line) => {
    try {
      const message = JSON.parse(line.toString("utf8"));
      if (message && typeof message === "object" && "id" in message && "method" in message)
        process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: {} })}\n`);
    } catch {
      // Not JSON: a server alone has no one to tell.
    }
  };
  process.stdin.on("data", (chunk) => {
    held = Buffer.concat([held, chunk]);
    for (let nl = held.indexOf(10); nl >= 0; nl = held.indexOf(10)) {
      answer(held.subarray(0, nl));
      held = held.subarray(nl + 1);
    }
  });
  process.stdin.on("end", () => {
    if (held.length) answer(held);
    process.exitCode = 0;
  });
} else if (mode === "flood" || mode === "forever") {
  const lines = mode === "flood" ? Math.ceil((Number(process.argv[3]) * 1024 * 1024) / note.length) : Number.POSITIVE_INFINITY;
  let written = 0;
  const more = () => {
    while (written < lines) {
      written++;
      if (!process.stdout.write(note)) return void process.stdout.once("drain", more);
    }
    process.exit(0);
  };
  process.stdout.on("error", () => process.exit(0));
  more();
} else if (mode === "mid-line") {
  process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{"con', () => process.exit(3));
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
