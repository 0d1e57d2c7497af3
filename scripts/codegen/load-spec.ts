import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_SPEC_DIR, SPEC_DIR_SETTING, specDir } from "../spec-dir.js";
import { correctSpec } from "./correct-spec.js";

export { SPEC_DIR_SETTING, specDir };

export type JsonSchema = { [keyword: string]: unknown };

export interface SpecSchema {
  revision: string;
  /** Path relative to the spec folder, so the manifest does not depend on the machine. */
  file: string;
  sha256: string;
  /** The published schema with the corrections of `schemas/spec/corrections.json` applied (correct-spec.ts). */
  schema: JsonSchema;
}

export class SpecNotFoundError extends Error {
  override name = "SpecNotFoundError";
}

export function loadSpec(revision: string, dir: string = specDir()): SpecSchema {
  const file = join("schema", revision, "schema.json");
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(dir, file));
  } catch (cause) {
    throw new SpecNotFoundError(
      `cannot read MCP schema revision ${revision} at ${join(dir, file)}; ` +
        `set ${SPEC_DIR_SETTING} to the folder holding schema/<revision>/schema.json (default ${DEFAULT_SPEC_DIR})`,
      { cause },
    );
  }
  return {
    revision,
    file: file.split("\\").join("/"),
    sha256: createHash("sha256").update(bytes).digest("hex"),
    schema: correctSpec(revision, JSON.parse(bytes.toString("utf8")) as JsonSchema),
  };
}
