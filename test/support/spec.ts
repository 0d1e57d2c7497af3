/**
 * Where the official MCP spec files are, and readers for them, shared by the test suites. The folder comes from the
 * one resolver codegen and every script use (scripts/spec-dir.ts).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { correctSpec } from "../../scripts/codegen/correct-spec.js";
import { specDir as resolveSpecDir } from "../../scripts/spec-dir.js";

export type JsonObject = { [key: string]: unknown };

/** The repository root (absolute). */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The spec folder (absolute), holding `schema/<revision>/schema.json`. */
export const specDir = resolveSpecDir();

/** The revision whose official examples the spec publishes. */
export const EXAMPLES_REVISION = "2026-07-28";

export function specSchemaPath(revision: string): string {
  return join(specDir, "schema", revision, "schema.json");
}

/** Every revision folder holding a `schema.json`, sorted. */
export function specRevisions(): string[] {
  return readdirSync(join(specDir, "schema"))
    .filter((name) => existsSync(specSchemaPath(name)))
    .sort();
}

/** A fresh parse of one revision's published schema on each call, so callers may mutate what they get. */
export function readPublishedSpecSchema(revision: string): JsonObject {
  return JSON.parse(readFileSync(specSchemaPath(revision), "utf8")) as JsonObject;
}

/**
 * One revision's schema as codegen reads it: published, with the corrections of `schemas/spec/corrections.json`
 * (where the JSON Schema is narrower than the spec's text); a fresh copy on each call. The references the tests compare
 * wymcp with are compiled from it.
 */
export function readSpecSchema(revision: string): JsonObject {
  return correctSpec(revision, readPublishedSpecSchema(revision)) as JsonObject;
}

/** The `$defs` of one revision's schema. */
export function specDefinitions(revision: string): Record<string, JsonObject> {
  return readSpecSchema(revision).$defs as Record<string, JsonObject>;
}

export interface Example {
  /** The definition the example is an instance of (its folder name). */
  definition: string;
  /** `<Definition>/<file>.json`, for test titles. */
  name: string;
  instance: unknown;
}

/** The spec's official examples, `examples/<Definition>/*.json`, sorted by definition then file. */
export function loadExamples(revision: string = EXAMPLES_REVISION): Example[] {
  const root = join(specDir, "schema", revision, "examples");
  if (!existsSync(root)) return [];
  const examples: Example[] = [];
  for (const definition of readdirSync(root).sort()) {
    const folder = join(root, definition);
    const files = readdirSync(folder)
      .filter((file) => file.endsWith(".json"))
      .sort();
    for (const file of files) {
      const instance: unknown = JSON.parse(readFileSync(join(folder, file), "utf8"));
      examples.push({ definition, name: `${definition}/${file}`, instance });
    }
  }
  return examples;
}
