/**
 * @module canonical: a schema's structure as one string and a short key, the same whatever the key order, so
 * that a schema re-read from JSON or written inline finds its precompiled validator. The generated module
 * carries these very functions, bundled into its runtime (runtime/index.ts, runtime-text.ts). The canonical JSON is
 * the core's, the tools lock's rule.
 */
import { canonicalJson } from "../lock/canonical-json.js";

/**
 * Two 32-bit FNV-1a lanes over the canonical JSON's UTF-16 units, and its length: a key, not a defence against
 * a chosen collision (the schemas are the server's own). Synchronous, because Workers have no sync SHA-256.
 * @example structureKey({ b: 1, a: 2 }) === structureKey({ a: 2, b: 1 })
 */
export function structureKey(schema: unknown): string {
  const text = canonicalJson(schema);
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ unit, 0x01000193);
    h2 = Math.imul(h2 ^ unit, 0x5bd1e995);
  }
  return `${hex(h1)}${hex(h2)}-${text.length.toString(36)}`;
}

function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}
