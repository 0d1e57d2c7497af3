/**
 * @module spec-dir: where the official MCP spec is, for everything that reads it (codegen, `npm test`'s first step, the
 * tests, the bench, mutation testing, the runtime matrix): `MCP_SPEC_DIR` (resolved against the working directory),
 * else `../shared/mcp-spec` beside the repository. And what a clone without it is told: the repository, the commit
 * `schemas/spec/source.json` names, and `MCP_SPEC_DIR`.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The one setting that locates the spec. */
export const SPEC_DIR_SETTING = "MCP_SPEC_DIR";
/** Where the spec is looked for without the setting, relative to the repository. */
export const DEFAULT_SPEC_DIR = "../shared/mcp-spec";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** The spec folder (absolute), holding `schema/<revision>/schema.json`. */
export function specDir(env: NodeJS.ProcessEnv = process.env): string {
  const set = env[SPEC_DIR_SETTING];
  return set ? resolve(set) : resolve(root, DEFAULT_SPEC_DIR);
}

export interface SpecSource {
  repository: string;
  commit: string;
  /** Paths inside the spec repository; a trailing `/` is a folder. */
  files: string[];
}

export const specSource = JSON.parse(readFileSync(join(root, "schemas", "spec", "source.json"), "utf8")) as SpecSource;

/** The files `schemas/spec/source.json` names that `dir` lacks (or holds as the wrong kind: file or folder). */
export function missingSpecFiles(dir: string): string[] {
  return specSource.files.filter((file) => {
    const path = join(dir, file);
    return !existsSync(path) || statSync(path).isDirectory() !== file.endsWith("/");
  });
}

/** What is wrong with the spec folder, or `[]`: missing files, then files that differ from those codegen compiled. */
export function specProblems(dir: string): string[] {
  const missing = missingSpecFiles(dir);
  if (missing.length > 0) return missing.map((file) => `missing ${file}`);
  const manifest = JSON.parse(readFileSync(join(root, "generated", "manifest.json"), "utf8")) as { eras: Record<string, unknown> };
  const inputs = new Map<string, string>();
  // Every { file, sha256 } the manifest records is a spec file codegen compiled.
  JSON.stringify(manifest.eras, (key, value: unknown) => {
    const input = value as { file?: unknown; sha256?: unknown } | null;
    if (key === "input" && typeof input?.file === "string" && typeof input.sha256 === "string") inputs.set(input.file, input.sha256);
    return value;
  });
  return [...inputs]
    .filter(
      ([file, sha256]) =>
        createHash("sha256")
          .update(readFileSync(join(dir, file)))
          .digest("hex") !== sha256,
    )
    .map(([file]) => `${file} differs from the one generated/ was compiled from`);
}

/**
 * The one message a clone without the spec gets, whichever command found out (`who`: "the tests", "codegen").
 * `env` says whether the folder came from `MCP_SPEC_DIR` or the default.
 */
export function specMessage(dir: string, problems: string[], who = "the tests", env: NodeJS.ProcessEnv = process.env): string {
  const { repository, commit } = specSource;
  const where = env[SPEC_DIR_SETTING] ? SPEC_DIR_SETTING : `the default ${DEFAULT_SPEC_DIR}; set ${SPEC_DIR_SETTING} to change it`;
  return [
    `wymcp: ${who} need${who.startsWith("the ") ? "" : "s"} the official MCP spec, and ${dir} does not hold it (${where}):`,
    ...problems.slice(0, 8).map((p) => `  - ${p}`),
    ...(problems.length > 8 ? [`  - and ${problems.length - 8} more`] : []),
    `Get github.com/${repository} at commit ${commit} and point ${SPEC_DIR_SETTING} at it:`,
    `  git clone https://github.com/${repository} mcp-spec && git -C mcp-spec checkout ${commit}`,
    `  ${SPEC_DIR_SETTING}=$PWD/mcp-spec npm ${who === "codegen" ? "run codegen" : "test"}`,
  ].join("\n");
}
