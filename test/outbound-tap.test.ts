import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Era } from "../src/core/era.js";
import { sseScanned } from "../src/wire/sse.js";
import { createTap, type OutboundCheck } from "../src/outbound/tap.js";

/** A tap whose check records what it is given (and fails everything), over the given pieces. */
function run(
  type: string,
  pieces: Array<string | Uint8Array>,
  { body, limit, era = "modern" }: { body?: unknown; limit?: number; era?: Era } = {},
) {
  const checked: Array<{ message: unknown; method: string | undefined }> = [];
  const reported: unknown[] = [];
  const check: OutboundCheck = (message, context) => {
    checked.push({ message, method: context.method });
    return { outcome: "violation", violations: { message: "x", errors: [] } };
  };
  const tap = createTap({
    era,
    requestBody: body,
    header: (name) => (name === "content-type" ? type : null),
    hooks: { outboundCheck: check, onReport: (i) => reported.push(i) },
    maxMessageUnits: limit,
  });
  for (const piece of pieces) tap.push(piece);
  tap.end();
  return { checked, reported };
}

const sse = "text/event-stream";
const m = (n: number) => JSON.stringify({ jsonrpc: "2.0", method: `n/${n}` });

describe("the tap reads SSE events as the WHATWG parser does", () => {
  const cases: Array<[string, { pieces: string[]; want: unknown[] }]> = [
    ["LF, CRLF and CR line ends", { pieces: [`data: ${m(1)}\n\ndata: ${m(2)}\r\n\r\ndata: ${m(3)}\r\r`], want: [1, 2, 3] }],
    [
      "a CRLF split between chunks, and a line split anywhere",
      { pieces: [`data: ${m(1)}\r`, `\n\r\nda`, `ta: ${m(2)}\n`, `\n`], want: [1, 2] },
    ],
    [
      "event, id, retry and comment lines are not data",
      { pieces: [`: ping\nevent: message\nid: 4\nretry: 10\ndata: ${m(1)}\n\n`], want: [1] },
    ],
    ["data lines of one event join with a newline", { pieces: [`data: {"jsonrpc":"2.0",\ndata: "method":"n/7"}\n\n`], want: [7] }],
    ['"data:" without a space, and an empty priming event', { pieces: [`id: 0\ndata:\n\ndata:${m(5)}\n\n`], want: [5] }],
    ["the last event without a blank line is still read at the end", { pieces: [`data: ${m(6)}`], want: [6] }],
  ];
  for (const [name, { pieces, want }] of cases) {
    test(name, () => {
      const { checked } = run(sse, pieces);
      assert.deepEqual(
        checked.map((c) => Number(String((c.message as { method: string }).method).slice(2))),
        want,
      );
    });
  }

  test("every case read one character at a time gives the same events: a line is resumed where it stopped", () => {
    for (const [name, { pieces, want }] of cases) {
      const { checked } = run(sse, [...pieces.join("")]);
      assert.deepEqual(
        checked.map((c) => Number(String((c.message as { method: string }).method).slice(2))),
        want,
        name,
      );
    }
  });

  test("one long data line in small pieces is scanned for its end a bounded number of times per unit, not again with every piece", () => {
    const line = `data: ${JSON.stringify({ jsonrpc: "2.0", method: "n/8", params: { pad: "q".repeat(64 * 1024) } })}\n\n`;
    for (const size of [1, 4, 1000, line.length]) {
      const pieces: string[] = [];
      for (let i = 0; i < line.length; i += size) pieces.push(line.slice(i, i + size));
      const before = sseScanned.units;
      const { checked } = run(sse, pieces);
      const scanned = sseScanned.units - before;
      assert.deepEqual(
        checked.map((c) => (c.message as { method: string }).method),
        ["n/8"],
        `${size}-unit pieces`,
      );
      // Each unit at most twice: in the piece it came in, and once more when the line's end arrives and the line is
      // read. Rescanning the line so far with every piece would be about line.length² / (2 × size).
      assert.ok(scanned <= 2 * line.length, `${size}-unit pieces: ${scanned} units scanned for a stream of ${line.length}`);
    }
  });

  test("a byte order mark opening the bytes is the decoder's: the first event is read; in a string piece it is not taken off", () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    const events = new TextEncoder().encode(`data: ${m(1)}\n\ndata: ${m(2)}\n\n`);
    const methods = (pieces: Array<string | Uint8Array>) => run(sse, pieces).checked.map((c) => (c.message as { method: string }).method);
    assert.deepEqual(methods([bom, events]), ["n/1", "n/2"]);
    assert.deepEqual(methods([`\uFEFFdata: ${m(1)}\n\ndata: ${m(2)}\n\n`]), ["n/2"]);
  });

  test("a data field that is not JSON is checked as a message of no kind", () => {
    const { checked } = run(sse, ["data: [DONE]\n\n"]);
    assert.equal(checked.length, 1);
    assert.equal(typeof checked[0]!.message, "symbol");
  });

  test("an event past the bound is skipped whole, the next one is read", () => {
    const big = `data: ${"x".repeat(50)}\ndata: ${"y".repeat(50)}\n\n`;
    const longLine = `data: ${"z".repeat(200)}`;
    const { checked } = run(
      sse,
      [big, `data: ${m(1)}\n\n`, longLine.slice(0, 120), longLine.slice(120), `\ndata: more\n\ndata: ${m(2)}\n\n`],
      { limit: 80 },
    );
    assert.deepEqual(
      checked.map((c) => (c.message as { method: string }).method),
      ["n/1", "n/2"],
    );
  });
});

describe("the tap reads JSON bodies", () => {
  test("a body in pieces, a character cut between them, is one message", () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", method: "n/é" }));
    const { checked } = run("application/json; charset=utf-8", [bytes.subarray(0, bytes.length - 3), bytes.subarray(bytes.length - 3)]);
    assert.deepEqual(
      checked.map((c) => (c.message as { method: string }).method),
      ["n/é"],
    );
  });

  test("bytes split anywhere read as one streaming decoder reads them: a byte order mark is dropped only at the very start", () => {
    const text = `\uFEFF${JSON.stringify({ jsonrpc: "2.0", method: "n/\uFEFFé€𝄞" })}`;
    const bytes = new TextEncoder().encode(text);
    const want = new TextDecoder().decode(bytes);
    const methodOf = (pieces: Uint8Array[]) => run("application/json", pieces).checked.map((c) => (c.message as { method: string }).method);
    for (let cut = 0; cut <= bytes.length; cut++)
      for (const second of [cut, Math.min(bytes.length, cut + 1), Math.min(bytes.length, cut + 3)])
        assert.deepEqual(
          methodOf([bytes.subarray(0, cut), bytes.subarray(cut, second), bytes.subarray(second)]),
          [(JSON.parse(want) as { method: string }).method],
          `cut at ${cut} and ${second}`,
        );
  });

  test("a batch array is checked element by element", () => {
    assert.equal(run("application/json", [`[${m(1)},${m(2)}]`]).checked.length, 2);
  });

  test("a body past the bound is not checked", () => {
    assert.deepEqual(run("application/json", [m(1), " ".repeat(100)], { limit: 50 }).checked, []);
  });

  test("other content types and an empty body are not looked at", () => {
    assert.deepEqual(run("text/plain", [m(1)]).checked, []);
    assert.deepEqual(run("application/json", []).checked, []);
  });
});

describe("the tap remembers the request's method for its response", () => {
  test("a response whose id matches the POSTed request is checked with its method, another id without one, a notification with its own", () => {
    const body = { jsonrpc: "2.0", id: 7, method: "tools/call", params: {} };
    const response = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, result: {} });
    const { checked, reported } = run(sse, [`data: ${response(7)}\n\ndata: ${response("7")}\n\ndata: ${m(1)}\n\n`], { body });
    assert.deepEqual(
      checked.map((c) => c.method),
      ["tools/call", undefined, "n/1"],
    );
    assert.deepEqual(
      reported.map((r) => {
        const { method, id } = r as { method?: string; id?: unknown };
        return [method, id];
      }),
      [
        ["tools/call", 7],
        [undefined, "7"],
        ["n/1", undefined],
      ],
    );
  });
});
