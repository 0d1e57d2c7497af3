/**
 * @module correct-spec: the corrections of `schemas/spec/corrections.json`, by revision, applied to a loaded schema.
 * Each one is a place where the published JSON Schema is narrower than the spec's TypeScript text and both official
 * SDKs follow the text: `JSONValue` of 2026-07-28 takes `number` and `null` (the file says integer, and no null), a
 * task's `ttl` and `pollInterval` of 2025-11-25 are `number`s (the file says integer). Without them a gate would refuse
 * what the server behind it serves. A correction names a JSON Pointer and the value it expects there; when the
 * published file holds anything else there, codegen stops, so a new spec is read before it is corrected.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { JsonSchema } from "./load-spec.js";

export interface Correction {
  pointer: string;
  from: unknown;
  to: unknown;
}

export type Corrections = Record<string, Correction[]>;

export class CorrectionError extends Error {
  override name = "CorrectionError";
}

const root = resolve(fileURLToPath(import.meta.url), "../../..");

/** `schemas/spec/corrections.json`. */
export function readCorrections(file: string = join(root, "schemas", "spec", "corrections.json")): Corrections {
  return JSON.parse(readFileSync(file, "utf8")) as Corrections;
}

/** A copy of `schema` with the corrections of `revision` applied; the input is left as it was. */
export function correctSpec(revision: string, schema: JsonSchema, corrections: Corrections = readCorrections()): JsonSchema {
  const copy = structuredClone(schema);
  for (const { pointer, from, to } of corrections[revision] ?? []) {
    const steps = pointer
      .split("/")
      .slice(1)
      .map((step) => step.replace(/~1/g, "/").replace(/~0/g, "~"));
    const key = steps.pop();
    let parent: unknown = copy;
    for (const step of steps) parent = (parent as Record<string, unknown> | undefined)?.[step];
    const holder = parent as Record<string, unknown> | undefined;
    if (key === undefined || holder === undefined || JSON.stringify(holder[key]) !== JSON.stringify(from)) {
      throw new CorrectionError(
        `correction ${pointer} of ${revision} expects ${JSON.stringify(from)} and finds ${JSON.stringify(key === undefined ? undefined : holder?.[key])}`,
      );
    }
    holder[key] = structuredClone(to);
  }
  return copy;
}
