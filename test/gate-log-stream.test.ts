/**
 * The log of `wymcp proxy` and `wymcp stdio` on a stream (their stderr): it keeps to the stream's backpressure by
 * dropping lines while the stream is full and counting them, never by holding them.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { createLog, type VerdictEvent } from "../src/log/gate-log.js";

const refusal: VerdictEvent = {
  outcome: "refused",
  era: undefined,
  kind: undefined,
  id: null,
  method: undefined,
  reason: "parse-error",
  code: -32700,
  message: "Parse error: the body is not valid JSON",
};

/** A stream that takes what it is given and finishes nothing until `release()`, as a pipe nobody reads. */
function heldStream(highWaterMark: number) {
  const held: Array<() => void> = [];
  const lines: string[] = [];
  const stream = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString("utf8"));
      held.push(callback);
    },
  });
  const release = () => {
    while (held.length > 0) held.shift()!();
  };
  return { stream, lines, release };
}

/** Lets the stream finish everything it was given, the line its `drain` brings included. */
async function drained(stream: Writable, release: () => void): Promise<void> {
  do {
    release();
    await new Promise((resolve) => setImmediate(resolve));
  } while (stream.writableLength > 0);
  release();
}

test("a log on a stream that does not keep up drops lines while it is full, holds none, and logs their count once it drains", async () => {
  const { stream, lines, release } = heldStream(256);
  const log = createLog("proxy", "text", stream);
  for (let i = 0; i < 10_000; i++) log.verdict(refusal);
  const line = "wymcp proxy: refused -32700 parse-error id=null: Parse error: the body is not valid JSON\n";
  assert.ok(stream.writableLength <= 256 + line.length, `the stream holds ${stream.writableLength} bytes: its buffer and one line`);
  await drained(stream, release);
  const taken = lines.filter((text) => text === line).length;
  assert.ok(taken >= 1 && taken <= 256 / line.length + 2, `${taken} lines taken before the stream was full`);
  assert.deepEqual(lines.slice(taken), [`wymcp proxy: ${10_000 - taken} log lines dropped: stderr did not keep up\n`]);
  // Kept up again: the next line is written.
  log.line("stopped", {}, "stopped");
  await drained(stream, release);
  assert.equal(lines.at(-1), "wymcp proxy: stopped\n");
});

test("as JSON lines, the count is a record of its own: event log-dropped, with the number of lines", async () => {
  const { stream, lines, release } = heldStream(16);
  const log = createLog("stdio", "json", stream);
  for (let i = 0; i < 3; i++) log.verdict(refusal);
  await drained(stream, release);
  const record = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
  assert.deepEqual([record.face, record.event, record.lines], ["stdio", "log-dropped", 2]);
});
