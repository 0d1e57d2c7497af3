/**
 * The body reader of the admission stage (readLimited in src/core/admission.ts), called directly with chunkings a host
 * can hand it: what it returns, and what that holds in memory. body-memory.test.ts measures the memory of a large body
 * in 1-byte chunks; this suite is the fast one, run by the mutation run too.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { BODY_BLOCK_BYTES, BodyBytes, readBody, readLimited } from "../src/core/admission.js";

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
