import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createSseReader, eachEventData, sseScanned } from "../src/wire/sse.js";

/** Every event's data, the stream fed in the given pieces (each drained before the next, as the tap does), then ended. */
function read(pieces: string[], maxUnits?: number): string[] {
  const reader = createSseReader(maxUnits);
  const out: string[] = [];
  const drain = () => {
    for (let data = reader.next(); data !== undefined; data = reader.next()) out.push(data);
  };
  for (const piece of pieces) {
    reader.push(piece);
    drain();
  }
  reader.end();
  drain();
  return out;
}

describe("one SSE reader for the tap and the capture checker", () => {
  const cases: Array<[string, { pieces: string[]; want: string[] }]> = [
    ["LF, CRLF and CR line ends", { pieces: ["data: a\n\ndata: b\r\n\r\ndata: c\r\r"], want: ["a", "b", "c"] }],
    [
      "a CR ending one piece and an LF starting the next are one line end (a CRLF), not a line end and a blank line",
      { pieces: ["data: a\r", "\ndata: b\r", "\n\r", "\n"], want: ["a\nb"] },
    ],
    ["a lone CR ending one piece is a line end once the next piece shows no LF follows", { pieces: ["data: a\r", "\r"], want: ["a"] }],
    ["data lines join with a newline, one leading space of each dropped", { pieces: ["data:  a\ndata:b\ndata\n\n"], want: [" a\nb\n"] }],
    [
      "comments and the event, id and retry fields are not data; a field named like data is not data",
      { pieces: [": ping\nevent: message\nid: 4\nretry: 10\ndatum: x\ndata: a\n\n"], want: ["a"] },
    ],
    ["an event of one empty data line, or of no data, is no event", { pieces: ["data:\n\nid: 1\n\n: c\n\ndata: a\n\n"], want: ["a"] }],
    [
      "a byte order mark is not taken off: the first line's field is then not data (the tap's byte decoder takes it off)",
      { pieces: ["\uFEFFdata: a\n\ndata: b\n\n"], want: ["b"] },
    ],
    [
      "the last event without a blank line (its line ended or not) is still read at the end",
      { pieces: ["data: a\n\ndata: b\ndata: c"], want: ["a", "b\nc"] },
    ],
  ];
  for (const [name, { pieces, want }] of cases) {
    test(name, () => {
      assert.deepEqual(read(pieces), want);
      assert.deepEqual([...eachEventData(pieces.join(""))], want, "the whole text read at once");
      assert.deepEqual(read([...pieces.join("")]), want, "one character at a time");
    });
  }

  test("an event is given only once the blank line after it has come; the last one without it only at the end", () => {
    const reader = createSseReader();
    reader.push("data: a\n");
    assert.equal(reader.next(), undefined);
    reader.push("\ndata: b");
    assert.equal(reader.next(), "a");
    assert.equal(reader.next(), undefined);
    reader.end();
    assert.equal(reader.next(), "b");
    assert.equal(reader.next(), undefined);
  });

  test("a whole stream is read as it is asked for: its first event is given before the rest of it is scanned", () => {
    const stream = "data: {}\n\n".repeat(100_000);
    const before = sseScanned.units;
    const events = eachEventData(stream);
    assert.deepEqual(events.next(), { value: "{}", done: false });
    assert.ok(sseScanned.units - before < 100, `${sseScanned.units - before} units scanned for the first event`);
    let count = 1;
    for (const data of events) if (data === "{}") count++;
    assert.equal(count, 100_000);
  });

  test("past the bound an event is dropped whole, its over-long line skipped however it is cut, and the next one read", () => {
    const long = `data: ${"z".repeat(40)}`;
    const stream = `data: a\n\ndata: ${"x".repeat(12)}\ndata: ${"y".repeat(12)}\ndata: b\n\n${long}\ndata: c\n\ndata: d\n\n`;
    assert.deepEqual(read([stream], 20), ["a", "d"]);
    assert.deepEqual(read([...stream], 20), ["a", "d"]);
    assert.deepEqual(
      [...eachEventData(stream)],
      ["a", `${"x".repeat(12)}\n${"y".repeat(12)}\nb`, `${"z".repeat(40)}\nc`, "d"],
      "no bound, all read",
    );
  });

  test("an over-long line ended by a CRLF split between pieces: the LF ends that line, it is not a blank line ending the event", () => {
    const long = `data: ${"z".repeat(40)}`;
    assert.deepEqual(read([long.slice(0, 30), `${long.slice(30)}\r`, "\ndata: c\r\n\r\ndata: d\r\n\r\n"], 20), ["d"]);
    assert.deepEqual(read([long.slice(0, 30), long.slice(30), "zz\r", "\ndata: c\r\n\r\ndata: d\r\n\r\n"], 20), ["d"]);
    assert.deepEqual(
      read([long.slice(0, 30), long.slice(30), "zz\r", "\r\ndata: c\r\n\r\ndata: d\r\n\r\n"], 20),
      ["c", "d"],
      "a lone CR, then a blank line",
    );
  });
});
