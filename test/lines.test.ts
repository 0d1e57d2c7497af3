import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { isBlank, type Line, LineSplitter } from "../src/wire/lines.js";

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (line: Uint8Array) => new TextDecoder().decode(line);

/** Every line of `chunks` (and the last without a `\n`), as `[number, text]`, or `[number, seen]` for one past the limit. */
function split(max: number, chunks: string[]): Array<[number, string | number]> {
  const splitter = new LineSplitter(max);
  const out: Array<[number, string | number]> = [];
  const add = (line: Line) => out.push([line.number, line.kind === "line" ? text(line.bytes) : line.seen]);
  for (const chunk of chunks) {
    splitter.push(bytes(chunk));
    for (let line = splitter.next(); line; line = splitter.next()) add(line);
  }
  const last = splitter.end();
  if (last) add(last);
  return out;
}

describe("LineSplitter", () => {
  test("splits across chunk boundaries, numbers every line (blank and too-long ones too) and gives the last line without a newline", () => {
    assert.deepEqual(split(5, ["ab", "c\nde", "fghij", "klm\n\n12", "345"]), [
      [1, "abc"],
      [2, 10],
      [3, ""],
      [4, "12345"],
    ]);
  });

  test("a line of exactly the limit is a line, one byte more is too long, inside one chunk or across several", () => {
    assert.deepEqual(split(3, ["abc\nabcd\n"]), [
      [1, "abc"],
      [2, 4],
    ]);
    assert.deepEqual(split(3, ["a", "bc\na", "bcd\n"]), [
      [1, "abc"],
      [2, 4],
    ]);
    assert.deepEqual(split(3, ["abcd"]), [[1, 4]]);
  });

  test("a line inside one chunk is a view of it, with where it lies, so that passing lines can go on as slices of the chunk", () => {
    const splitter = new LineSplitter(100);
    const chunk = bytes('{"a":1}\r\n{"b":2}\n{"c"');
    splitter.push(chunk);
    const first = splitter.next()!;
    const second = splitter.next()!;
    assert.equal(splitter.next(), undefined);
    assert.ok(first.kind === "line" && second.kind === "line");
    assert.deepEqual([first.start, first.end, first.inChunk, second.start, second.end, second.inChunk], [0, 9, true, 9, 17, true]);
    // The `\r` stays: JSON reads it as whitespace, and the line is forwarded as sent.
    assert.equal(text(first.bytes), '{"a":1}\r');
    assert.equal(first.bytes.buffer, chunk.buffer);
    assert.equal(text(chunk.subarray(first.start, second.end)), '{"a":1}\r\n{"b":2}\n');
    // The rest waits for the next chunk; the line it completes lies in no one chunk.
    splitter.push(bytes(":3}\n"));
    const third = splitter.next()!;
    assert.ok(third.kind === "line");
    assert.deepEqual([text(third.bytes), third.start, third.end, third.inChunk], ['{"c":3}', 0, 4, false]);
  });

  test("the rest of a chunk is copied: the caller may reuse the chunk's memory once its lines are read", () => {
    const splitter = new LineSplitter(100);
    const chunk = bytes("abc");
    splitter.push(chunk);
    assert.equal(splitter.next(), undefined);
    chunk.fill(120);
    splitter.push(bytes("def\n"));
    const line = splitter.next()!;
    assert.ok(line.kind === "line");
    assert.equal(text(line.bytes), "abcdef");
  });

  test("a line past the limit is never held: its bytes are dropped chunk by chunk and only its length is counted, to its end", () => {
    const max = 64;
    const splitter = new LineSplitter(max);
    let held = 0;
    for (let i = 0; i < 1000; i++) {
      splitter.push(bytes("x".repeat(10)));
      assert.equal(splitter.next(), undefined);
      held = Math.max(held, splitter.heldBytes);
    }
    assert.ok(held <= max, `held ${held} bytes of a line past the limit of ${max}`);
    assert.equal(splitter.heldBytes, 0);
    splitter.push(bytes("xx\nok\n"));
    const long = splitter.next()!;
    assert.ok(long.kind === "too-long");
    assert.equal(long.seen, 10_002);
    const after = splitter.next()!;
    assert.ok(after.kind === "line");
    assert.equal(text(after.bytes), "ok");
  });

  test("on any chunking, the lines are the text's lines, and each one past the limit is reported with its length", () => {
    const line = fc.stringMatching(/^[a-z{}":\r ]{0,12}$/);
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 8 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1 }),
        (lines, lastOpen, cuts) => {
          const whole = lines.join("\n") + (lastOpen || lines.length === 0 ? "" : "\n");
          const chunks: string[] = [];
          for (let at = 0, i = 0; at < whole.length; i++) {
            const size = cuts[i % cuts.length]!;
            chunks.push(whole.slice(at, at + size));
            at += size;
          }
          const expected = (whole.endsWith("\n") ? whole.slice(0, -1) : whole).split("\n");
          if (whole === "") expected.length = 0;
          const max = 6;
          assert.deepEqual(
            split(max, chunks),
            expected.map((l, i) => [i + 1, l.length > max ? l.length : l]),
          );
        },
      ),
      { seed: 11, numRuns: 1500 },
    );
  });
});

describe("isBlank", () => {
  test("a chunk let by unread drops what was held, and the line it ends inside is skipped to its end when reading resumes", () => {
    const splitter = new LineSplitter(100);
    const read = () => {
      const out: string[] = [];
      for (let line = splitter.next(); line; line = splitter.next()) if (line.kind === "line") out.push(text(line.bytes));
      return out;
    };
    splitter.push(bytes('{"a":1}\n{"half'));
    assert.deepEqual(read(), ['{"a":1}']);
    // Let by: the held half and this chunk's lines; it ends inside a line.
    splitter.pass(bytes('":2}\n{"b":3}\n{"c'));
    assert.equal(splitter.heldBytes, 0);
    splitter.push(bytes('":4}\n{"d":5}\n'));
    assert.deepEqual(read(), ['{"d":5}'], "the rest of the line let by is no line");
    // Let by at a line's end: the next chunk starts a line.
    splitter.pass(bytes('{"e":6}\n'));
    splitter.push(bytes('{"f":7}\n'));
    assert.deepEqual(read(), ['{"f":7}']);
    // A rest with no newline yet is dropped across chunks, and the stream's end is no line.
    splitter.pass(bytes('{"g'));
    splitter.push(bytes("xx"));
    assert.deepEqual(read(), []);
    assert.equal(splitter.end(), undefined);
  });

  test("only spaces, tabs and carriage returns are blank; an empty line is blank", () => {
    assert.equal(isBlank(bytes("")), true);
    assert.equal(isBlank(bytes(" \t\r")), true);
    assert.equal(isBlank(bytes(" {}")), false);
    assert.equal(isBlank(bytes("\u00a0")), false);
  });
});
