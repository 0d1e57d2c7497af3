/**
 * `wymcp check` on a HAR file whose one response is a long event stream: the file is held once, as its own bytes, and
 * the stream's events are read from them as they are judged, so the heap never holds the stream (nor the file as text).
 * Counted with the garbage collector run, halfway through the events and at the end; figures for larger files are in
 * docs/security.md.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { checkFiles } from "../src/check/check-files.js";
import { harMessages } from "../src/check/har.js";
import { LongString, parseLazily } from "../src/check/lazy-json.js";
import { parseCheckOptions } from "../src/cli/check/options.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** A HAR of one POST to an MCP endpoint whose answer is an event stream of `events` notifications. */
function streamHar(events: number): string {
  const event = `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x".repeat(200) } })}\n\n`;
  const entry = {
    request: {
      method: "POST",
      url: "http://h/mcp",
      headers: [{ name: "Content-Type", value: "application/json" }],
      postData: { mimeType: "application/json", text: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) },
    },
    response: { status: 200, headers: [], content: { mimeType: "text/event-stream", text: event.repeat(events) } },
  };
  return JSON.stringify({ log: { version: "1.2", entries: [entry] } });
}

test("wymcp check judges a HAR's event stream of 100,000 events with the heap holding none of it: the file stays bytes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-har-memory-"));
  try {
    const file = join(dir, "stream.har");
    const events = 100_000;
    writeFileSync(file, streamHar(events));
    const size = statSync(file).size;
    const { options, files } = parseCheckOptions(["--quiet", file]);
    const before = heapAfterGc();
    let judged = 0;
    let halfway = 0;
    const { tally } = await checkFiles(files, options, { write: () => true }, () => {
      if (++judged === events / 2) halfway = heapAfterGc() - before;
    });
    assert.deepEqual(tally, { pass: events + 1, reject: 0, bypass: 0, reported: 0, refused: 0, failed: 0 });
    // The stream is some 27 MB of text: held by the heap once as the file's text and once parsed, it would be both.
    assert.ok(halfway < size / 8, `the heap grew by ${halfway} bytes halfway through a ${size}-byte file`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a long string is read in pieces from the file's bytes, escapes and characters cut anywhere resolved as JSON.parse resolves them", () => {
  const text = `${'é€😀\\"\n\t\u0001 '.repeat(40_000)}\ud800 end`;
  const document = JSON.stringify({ short: "a", long: text, list: [text, 1] });
  for (const source of [document, new TextEncoder().encode(document)]) {
    const parsed = parseLazily(source) as { short: string; long: LongString; list: [LongString, number] };
    assert.equal(parsed.short, "a");
    assert.ok(parsed.long instanceof LongString);
    const pieces = [...parsed.long.pieces()];
    assert.ok(pieces.length > 1, "read in more than one piece");
    assert.equal(pieces.join(""), text);
    assert.equal(parsed.list[0].text(), text);
    assert.equal(parsed.list[0].text(100), undefined, "longer than the bound: not held whole");
  }
});

test("a long string JSON.parse would refuse (a raw control character, a bad escape) makes the file no JSON, as it did", () => {
  const long = "a".repeat(10_000);
  for (const bad of [`${long}\u0001`, `${long}\\x`, `${long}\\u12`]) {
    const document = `{"log":{"entries":[],"note":"${bad}"}}`;
    assert.throws(() => harMessages(document, 1 << 20), /not JSON/);
    assert.throws(() => harMessages(new TextEncoder().encode(document), 1 << 20), /not JSON/);
  }
});

test("a long base64 event stream is decoded as it is read: the same messages as the stream in plain text; bad base64 anywhere in it is undecodable", () => {
  const stream = `${'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"é"}}\n\n'.repeat(3_000)}`;
  const bytes = new TextEncoder().encode(stream);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  // Wrapped at 76 characters, as MIME writes base64: the line breaks are not base64.
  const base64 = btoa(binary).replace(/.{76}/g, "$&\r\n");
  const har = (content: Record<string, unknown>) =>
    JSON.stringify({
      log: {
        entries: [
          {
            request: {
              method: "POST",
              url: "http://h/mcp",
              headers: [],
              postData: { text: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) },
            },
            response: { status: 200, headers: [], content: { mimeType: "text/event-stream", ...content } },
          },
        ],
      },
    });
  const decode = (message: { bytes?: Uint8Array }) => new TextDecoder().decode(message.bytes);
  const plain = [...harMessages(new TextEncoder().encode(har({ text: stream })), 1 << 20).messages].map(decode);
  const reading = harMessages(new TextEncoder().encode(har({ text: base64, encoding: "base64" })), 1 << 20);
  assert.deepEqual([...reading.messages].map(decode), plain);
  assert.equal(plain.length, 3_001);
  assert.equal(reading.undecodable, 0);
  const middle = base64.length / 2 - ((base64.length / 2) % 4);
  for (const bad of [`${base64.slice(0, middle)}AA==${base64.slice(middle)}`, `${base64.slice(0, middle)}!${base64.slice(middle)}`]) {
    const broken = harMessages(new TextEncoder().encode(har({ text: bad, encoding: "base64" })), 1 << 20);
    assert.equal([...broken.messages].length, 1, "the request alone");
    assert.equal(broken.undecodable, 1);
  }
});
