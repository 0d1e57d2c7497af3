/**
 * The body reader of the admission stage (readLimited in src/core/admission.ts), called directly with chunkings a host
 * can hand it: what it returns, and what that holds in memory. body-memory.test.ts measures the memory of a large body
 * in 1-byte chunks; this suite is the fast one, run by the mutation run too.
 */
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { describe, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { BODY_BLOCK_BYTES, BodyBytes, readBody, readLimited } from "../src/core/admission.js";
import { readNodeBody } from "../src/hosts/shared/node-body.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** `length` bytes that differ from their neighbours, so that a byte out of place shows. */
const pattern = (length: number, seed = 0) => Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 0xff);

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

const empty = () => new Uint8Array(0);

describe("readLimited: the body's bytes, whatever the chunking", () => {
  test("a body in one chunk is handed on as that chunk, not copied, empty chunks around it included", async () => {
    const chunk = pattern(40);
    assert.equal(await readLimited([chunk], 64), chunk);
    assert.equal(await readLimited([empty(), chunk, empty()], 64), chunk);
    assert.equal(await readLimited([chunk], 64, 40), chunk, "a right Content-Length changes nothing");
  });

  test("no bytes at all: an empty body, whether no chunk or only empty ones came", async () => {
    assert.deepEqual(await readLimited([], 64), new Uint8Array(0));
    assert.deepEqual(await readLimited([empty(), empty()], 64, 0), new Uint8Array(0));
  });

  test("with a right Content-Length, several chunks are copied into one buffer of exactly that length", async () => {
    for (const limit of [1000, 30]) {
      const parts = [pattern(10), pattern(7, 1), empty(), pattern(13, 2)];
      const got = await readLimited(parts, limit, 30);
      assert.deepEqual(got, concat(parts), `limit ${limit}`);
      assert.equal(got!.buffer.byteLength, 30, `limit ${limit}: one buffer of the declared length, no block`);
    }
  });

  test("a Content-Length the body does not keep to: the bytes are the body's, longer or shorter than declared", async () => {
    // Longer: the declared buffer fills, then what it holds moves into blocks with the rest.
    for (const parts of [
      [pattern(3), pattern(3, 1), pattern(3, 2)],
      [pattern(3), pattern(5, 1)],
      [pattern(6), pattern(1, 1), pattern(4, 2)],
    ]) {
      const whole = concat(parts);
      assert.deepEqual(await readLimited(parts, 64, 6), whole, `${parts.map((p) => p.length)} declared 6`);
    }
    // Shorter: only the bytes that came, not the declared buffer's zeros.
    const parts = [pattern(3), pattern(3, 1)];
    const got = await readLimited(parts, 64, 10);
    assert.deepEqual(got, concat(parts));
    assert.equal(got!.byteLength, 6);
  });

  test("a declared length the reader cannot take as it is (over the limit, fractional, not finite) allocates nothing of its size", async () => {
    const parts = [pattern(5), pattern(5, 1)];
    const whole = concat(parts);
    for (const declared of [10 * BODY_BLOCK_BYTES, 1.5, 10.5, Number.POSITIVE_INFINITY, Number.NaN, -1, 2 ** 60]) {
      const got = await readLimited(parts, 64, declared);
      assert.deepEqual(got, whole, String(declared));
      assert.ok(got!.buffer.byteLength <= BODY_BLOCK_BYTES, `${declared}: ${got!.buffer.byteLength} bytes held`);
    }
  });

  test("a body within one block, in several chunks and of no declared length, is a view of that block: not copied twice", async () => {
    const parts = [pattern(10), pattern(10, 1)];
    const got = await readLimited(parts, 64);
    assert.deepEqual(got, concat(parts));
    assert.equal(got!.buffer.byteLength, BODY_BLOCK_BYTES);
  });

  test("a body over several blocks, chunks straddling their edges, is joined in order into one buffer of its length", async () => {
    for (const parts of [
      [pattern(10), pattern(70_000, 1), pattern(10, 2)],
      [pattern(BODY_BLOCK_BYTES - 1), pattern(2, 1), pattern(BODY_BLOCK_BYTES, 2), pattern(5, 3)],
      [pattern(BODY_BLOCK_BYTES), pattern(BODY_BLOCK_BYTES, 1)],
    ]) {
      const whole = concat(parts);
      const got = await readLimited(parts, 4 * BODY_BLOCK_BYTES);
      assert.equal(got?.byteLength, whole.byteLength);
      assert.ok(Buffer.from(got!).equals(Buffer.from(whole)), `${parts.map((p) => p.length)}`);
      assert.equal(got!.buffer.byteLength, whole.byteLength, "the blocks are joined into one buffer of the exact length");
    }
  });

  test("a body past the limit is undefined, by one byte too, and a body of exactly the limit is read", async () => {
    const parts = [pattern(40), pattern(24, 1)];
    assert.deepEqual(await readLimited(parts, 64), concat(parts));
    assert.equal(await readLimited([...parts, pattern(1)], 64), undefined);
    assert.equal(await readLimited([...parts, pattern(1)], 64, 64), undefined);
  });
});

describe("BodyBytes and a host that reads its stream itself", () => {
  test("add keeps a chunk within the limit and refuses, keeping nothing of it, one that would pass it", () => {
    const body = new BodyBytes(10);
    assert.equal(body.add(pattern(6)), true);
    assert.equal(body.add(pattern(5, 1)), false);
    assert.equal(body.size, 6);
    assert.equal(body.add(pattern(4, 2)), true);
    assert.deepEqual(body.bytes(), concat([pattern(6), pattern(4, 2)]));
  });

  test("readBody takes the bytes a host read itself, and its undefined as a body past the limit (413)", async () => {
    const bytes = pattern(20);
    assert.deepEqual(await readBody(() => Promise.resolve(bytes), { maxBodyBytes: 64 }), { ok: true, bytes });
    const refused = await readBody(() => Promise.resolve(undefined), { maxBodyBytes: 64 });
    assert.equal(refused.ok, false);
    assert.equal((refused as { status: number }).status, 413);
  });
});

describe("the body reader keeps no chunk: its memory follows the body, not the chunk count", () => {
  const size = 256 * 1024;
  /**
   * `size` bytes in 1-byte chunks, each its own object as Node's parser hands them over, every 256th watched weakly.
   * Halfway through, after a turn of the event loop and a full collection, counts the watched chunks still alive but
   * the last (which the reader may still be copying): alive means something still holds it.
   */
  function oneByteChunks() {
    const sampled: WeakRef<Uint8Array>[] = [];
    const seen = { held: -1, sampled: 0 };
    async function* chunks() {
      for (let i = 0; i < size; i++) {
        const chunk = Buffer.from([i & 0xff]);
        if (i % 256 === 0) sampled.push(new WeakRef(chunk));
        yield chunk;
        if (i === size / 2) {
          // A WeakRef made in a job keeps its target until that job ends: a turn of the event loop first.
          await new Promise((resolve) => setImmediate(resolve));
          gc();
          seen.held = sampled.slice(0, -1).filter((ref) => ref.deref() !== undefined).length;
          seen.sampled = sampled.length - 1;
        }
      }
    }
    return { chunks, seen };
  }
  const expected = (body: Uint8Array | undefined) => {
    assert.equal(body?.length, size);
    for (const i of [0, 1, size / 2, size - 1]) assert.equal(body![i], i & 0xff, `byte ${i}`);
    // One buffer of the body's size (and a block at most) behind it, not the chunks' own.
    assert.ok(body!.buffer.byteLength <= size + BODY_BLOCK_BYTES, `${body!.buffer.byteLength} bytes behind a body of ${size}`);
  };

  // A reader that keeps its chunks holds every sampled one (511 of 511); the collector may still see one or two of the
  // latest through the engine's own frames (a full run under load once found 1), which says nothing of the reader.
  const STRAY = 2;
  for (const declared of [undefined, size]) {
    test(`readLimited: halfway through, every chunk handed over before can be collected (Content-Length ${declared ?? "none"})`, async () => {
      const { chunks, seen } = oneByteChunks();
      expected(await readLimited(chunks(), 4 * size, declared));
      assert.ok(seen.held >= 0 && seen.held <= STRAY, `${seen.held} of ${seen.sampled} sampled chunks still held halfway through`);
    });

    test(`readNodeBody, as the proxy and gateNode read a request: the same from a stream's data events (Content-Length ${declared ?? "none"})`, async () => {
      const { chunks, seen } = oneByteChunks();
      const req = Object.assign(Readable.from(chunks(), { objectMode: false }), {
        headers: declared === undefined ? {} : { "content-length": String(declared) },
        complete: false,
      });
      req.once("end", () => {
        req.complete = true;
      });
      expected(await readNodeBody(req as unknown as IncomingMessage, 4 * size));
      assert.ok(seen.held >= 0 && seen.held <= STRAY, `${seen.held} of ${seen.sampled} sampled chunks still held halfway through`);
    });
  }
});
