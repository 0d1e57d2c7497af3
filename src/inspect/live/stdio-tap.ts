/**
 * @module stdio-tap: `wymcp stdio`'s messages for the live feed. The gate hands over what it reads and writes as it
 * goes (the client's bytes, the server's, wymcp's own answers); each side is split into lines here, one message a line.
 */
import type { Capture } from "./feed.js";

/** Who wrote the bytes: wymcp's own answers go to the client as the server's do. */
export type StdioSide = "client" | "server" | "wymcp";

/** Splits one side's bytes into lines; a line longer than `maxBytes` is captured as over the limit. */
class Lines {
  private parts: Buffer[] = [];
  private size = 0;
  private over = false;

  constructor(
    private readonly maxBytes: number,
    private readonly line: (text: string | undefined) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      this.add(chunk.subarray(start, nl));
      start = nl + 1;
      const text = this.over ? undefined : Buffer.concat(this.parts, this.size).toString("utf8").replace(/\r$/, "");
      const blank = !this.over && text!.trim() === "";
      this.parts = [];
      this.size = 0;
      this.over = false;
      if (!blank) this.line(text);
    }
    this.add(chunk.subarray(start));
  }

  private add(piece: Buffer): void {
    if (this.over || piece.length === 0) return;
    if (this.size + piece.length > this.maxBytes) {
      this.over = true;
      this.parts = [];
      this.size = 0;
      return;
    }
    // A copy: the stream's chunk is not held past this call.
    this.parts.push(Buffer.from(piece));
    this.size += piece.length;
  }
}

/** The observer `wymcp stdio` calls with each side's bytes as they pass. */
export function stdioTap(capture: (message: Capture) => void, { maxBytes }: { maxBytes: number }) {
  let lines = 0;
  const side = (from: "client" | "server") => new Lines(maxBytes, (text) => capture({ entry: ++lines, from, text, time: Date.now() }));
  const sides = { client: side("client"), server: side("server"), wymcp: side("server") };
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
