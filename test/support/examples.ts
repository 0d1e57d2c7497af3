import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** The spec folder, located by the same setting codegen reads. */
export const SPEC_DIR = resolve(process.env.MCP_SPEC_DIR || "../shared/mcp-spec");

export interface Example {
  definition: string;
  file: string;
  value: unknown;
}

/** Every official example of a revision, as `examples/<Definition>/<name>.json`, sorted. */
export function officialExamples(revision = "2026-07-28"): Example[] {
  const root = join(SPEC_DIR, "schema", revision, "examples");
  return readdirSync(root)
    .sort()
    .flatMap((definition) =>
      readdirSync(join(root, definition))
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((file) => ({ definition, file, value: JSON.parse(readFileSync(join(root, definition, file), "utf8")) as unknown })),
    );
}

export function officialSchema(revision: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(SPEC_DIR, "schema", revision, "schema.json"), "utf8")) as Record<string, unknown>;
}
