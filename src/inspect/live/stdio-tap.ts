/**
 * @module stdio-tap: `wymcp stdio`'s messages for the live feed. The gate hands over what it reads and writes as it
 * goes (the client's bytes, the server's, wymcp's own answers); each side is split into lines here, one message a line.
 */
import { isBlank, LineSplitter } from "../../wire/lines.js";
import type { OwnAnswer } from "../../log/gate-log.js";
import type { Capture } from "./feed.js";

/** Who wrote the bytes: wymcp's own answers go to the client as the server's do. */
export type StdioSide = "client" | "server" | "wymcp";

/**
 * One side's lines as the feed shows them: a line longer than `maxBytes` is captured as over the limit (no text); a
 * line of only spaces, tabs and `\r` is no message and is not captured, as the gate neither forwards nor answers it
 * (any other whitespace, a form feed or a no-break space, is a line the gate judges, so it is shown); a `\r` ending a
 * line is not part of its text.
 */
class Lines {
  private readonly splitter: LineSplitter;

  constructor(
    maxBytes: number,
    private readonly line: (text: string | undefined) => void,
  ) {
    this.splitter = new LineSplitter(maxBytes);
  }

  push(chunk: Buffer): void {
    const { splitter } = this;
    splitter.push(chunk);
    for (let line = splitter.next(); line; line = splitter.next()) {
      if (line.kind === "too-long") {
        this.line(undefined);
        continue;
      }
      const { bytes } = line;
      if (isBlank(bytes)) continue;
      this.line(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8").replace(/\r$/, ""));
    }
  }
}

/** The observer `wymcp stdio` calls with each side's bytes as they pass. */
export function stdioTap(capture: (message: Capture) => void, { maxBytes }: { maxBytes: number }) {
  let lines = 0;
  const side = (from: "client" | "server", own?: OwnAnswer) =>
    new Lines(maxBytes, (text) =>
      capture(own ? { entry: ++lines, from, text, time: Date.now(), own } : { entry: ++lines, from, text, time: Date.now() }),
    );
  // Every line the stdio gate writes itself answers a message it refused (or junk it could not read).
  const sides = { client: side("client"), server: side("server"), wymcp: side("server", { answer: "refused" }) };
  return function chunk(from: StdioSide, data: Buffer | Uint8Array | string): void {
    sides[from].push(
      typeof data === "string"
        ? Buffer.from(data, "utf8")
        : Buffer.isBuffer(data)
          ? data
          : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    );
  };
}
