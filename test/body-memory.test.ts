import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { gateFetch } from "../src/hosts/fetch/index.js";
import { BODY_BLOCK_BYTES, readLimited } from "../src/core/admission.js";
import { echoBody } from "../bench/body-memory.js";
import { modernCallHeaders } from "./support/messages.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

describe("the body reader's memory is bounded by the body, not by its chunking", () => {
  test("readLimited gives the same bytes whatever the chunking and whatever Content-Length says, and undefined past the limit", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 6000 }),
        fc.constantFrom("right", "short", "long", "none", "nonsense"),
        async (parts, limit, declared) => {
          const whole = concat(parts);
          const header = {
            right: whole.length,
            short: Math.max(0, whole.length - 7),
            long: whole.length + 7,
            none: undefined,
            nonsense: Number.NaN,
          }[declared];
          const got = await readLimited(parts, limit, header);
          if (whole.length > limit) assert.equal(got, undefined);
          else assert.deepEqual(got && [...got], [...whole]);
        },
      ),
      { numRuns: 500 },
    );
    // Across block boundaries, from an async source.
    const big = Uint8Array.from({ length: BODY_BLOCK_BYTES * 3 + 17 }, (_, i) => (i * 31) & 0xff);
    async function* pieces(size: number) {
      for (let i = 0; i < big.length; i += size) yield big.slice(i, i + size);
    }
    for (const size of [1, 7, 4096, BODY_BLOCK_BYTES + 3]) {
      assert.deepEqual(await readLimited(pieces(size), big.length), big, `${size}-byte chunks`);
      assert.deepEqual(await readLimited(pieces(size), big.length, big.length), big, `${size}-byte chunks, declared`);
      assert.equal(await readLimited(pieces(size), big.length - 1), undefined, `${size}-byte chunks, one byte over`);
    }
  });

  // What a chunking costs in memory is measured by `npm run bench -- --body-memory` (the server's peak RSS per piece
  // size, gated and ungated); here, that no chunk is kept, which is what made the cost grow with the chunk count.
  test("readLimited keeps no chunk: halfway through 1 MiB in 1-byte chunks, every chunk handed over before can be collected", async () => {
    const size = 1024 * 1024;
    for (const declared of [undefined, size]) {
      /** Every 1024th chunk, weakly: alive after a full collection means something still holds it. */
      const sampled: WeakRef<Uint8Array>[] = [];
      let held = -1;
      async function* bytes() {
        for (let i = 0; i < size; i++) {
          // Each chunk its own object, as Node's parser hands them over.
          const chunk = new Uint8Array([i & 0xff]);
          if (i % 1024 === 0) sampled.push(new WeakRef(chunk));
          yield chunk;
          if (i === size / 2) {
            // A turn of the event loop first: a WeakRef made in a job keeps its target until that job ends.
            await new Promise((resolve) => setImmediate(resolve));
            gc();
            // The last sampled chunk is the one just handed over, which the reader may still be copying.
            held = sampled.slice(0, -1).filter((ref) => ref.deref() !== undefined).length;
          }
        }
      }
      const body = await readLimited(bytes(), 4 * size, declared);
      assert.equal(body?.length, size);
      assert.equal(body![size - 1], (size - 1) & 0xff);
      // A reader that keeps its chunks holds every sampled one; one or two of the latest may still be seen through the
      // engine's own frames, which says nothing of the reader.
      assert.ok(
        held >= 0 && held <= 2,
        `${held} of ${sampled.length - 1} sampled chunks still held halfway through (declared ${declared})`,
      );
      // The bytes come back in one buffer of the body's size (and a block at most), not in the chunks' own.
      assert.ok(body!.buffer.byteLength <= size + BODY_BLOCK_BYTES, `${body!.buffer.byteLength} bytes behind a body of ${size}`);
    }
  });

  test("gateFetch answers a 1 MiB body streamed one byte per chunk", async () => {
    const body = echoBody(1024 * 1024);
    let i = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i < body.length) controller.enqueue(body.subarray(i, ++i));
        else controller.close();
      },
    });
    const seen: number[] = [];
    const gated = gateFetch(
      { fetch: async (_request, extra) => (seen.push(JSON.stringify(extra?.parsedBody).length), Response.json({ ok: true })) },
      { era: "modern" },
    );
    const response = await gated(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: modernCallHeaders("echo"),
        body: stream,
        duplex: "half",
      } as RequestInit),
    );
    assert.equal(response.status, 200);
    assert.deepEqual(seen, [body.length]);
  });
});
