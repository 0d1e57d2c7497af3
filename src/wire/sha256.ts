/**
 * @module sha256: SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, synchronous and with Web APIs alone, because a
 * Worker has no synchronous digest and a tools lock is checked when a face is built. Used for the tools lock's digests,
 * and for the callers' keys on the Fetch faces, once per `tools/call`: so no allocation per digest of a short text.
 */

const INITIAL = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** Scratch space reused by every call (the function is synchronous and never re-entered): no allocation per digest. */
const schedule = new Int32Array(64);
const state = new Int32Array(8);
const SCRATCH_BYTES = 4096;
const scratch = new Uint8Array(SCRATCH_BYTES);
/** Made at the first digest, not at load: the core loads where no `TextEncoder` is (a bare `vm` context, as the tests run it). */
let encoder: { encodeInto(text: string, bytes: Uint8Array): { written?: number } } | undefined;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** The lowercase hex SHA-256 of `text` encoded as UTF-8. @example sha256Hex("abc").startsWith("ba7816bf") */
export function sha256Hex(text: string): string {
  // At most three bytes per UTF-16 unit, a 0x80 byte, zeros, and the length in bits as 64 bits big-endian, to a
  // multiple of 64 bytes. A larger text than the scratch space gets a buffer of its own, not kept.
  const most = ((text.length * 3 + 9 + 63) >> 6) << 6;
  const bytes = most <= SCRATCH_BYTES ? scratch : new Uint8Array(most);
  const length = (encoder ??= new TextEncoder()).encodeInto(text, bytes).written!;
  const total = (((length + 8) >> 6) + 1) << 6;
  bytes.fill(0, length, total);
  bytes[length] = 0x80;
  const high = Math.floor(length / 0x20000000);
  const low = (length << 3) >>> 0;
  for (let i = 0; i < 4; i++) {
    bytes[total - 8 + i] = (high >>> (24 - 8 * i)) & 0xff;
    bytes[total - 4 + i] = (low >>> (24 - 8 * i)) & 0xff;
  }
  const w = schedule;
  const h = state;
  h.set(INITIAL);
  for (let offset = 0; offset < total; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const j = offset + i * 4;
      w[i] = (bytes[j]! << 24) | (bytes[j + 1]! << 16) | (bytes[j + 2]! << 8) | bytes[j + 3]!;
    }
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
    }
    let a = h[0]!;
    let b = h[1]!;
    let c = h[2]!;
    let d = h[3]!;
    let e = h[4]!;
    let f = h[5]!;
    let g = h[6]!;
    let k = h[7]!;
    for (let i = 0; i < 64; i++) {
      const t1 =
        (k + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0;
      const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0]! + a) | 0;
    h[1] = (h[1]! + b) | 0;
    h[2] = (h[2]! + c) | 0;
    h[3] = (h[3]! + d) | 0;
    h[4] = (h[4]! + e) | 0;
    h[5] = (h[5]! + f) | 0;
    h[6] = (h[6]! + g) | 0;
    h[7] = (h[7]! + k) | 0;
  }
  let out = "";
  for (let i = 0; i < 8; i++) {
    const word = h[i]!;
    out += HEX[(word >>> 24) & 0xff]! + HEX[(word >>> 16) & 0xff]! + HEX[(word >>> 8) & 0xff]! + HEX[word & 0xff]!;
  }
  return out;
}
