/**
 * @module `npm test`'s first step (`pretest`): the official MCP spec files that codegen and the tests read must be
 * where `MCP_SPEC_DIR` (default `../shared/mcp-spec`) points, at the commit `schemas/spec/source.json` names. Without
 * them the suite would run for minutes and fail in many places; this fails in a second with one message instead.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(fileURLToPath(import.meta.url), "../..");

export interface SpecSource {
  repository: string;
  commit: string;
  /** Paths inside the spec repository; a trailing `/` is a folder. */
  files: string[];
}

export const specSource = JSON.parse(readFileSync(join(root, "schemas", "spec", "source.json"), "utf8")) as SpecSource;

/** What is wrong with the spec folder, or `[]`: missing files, then files that differ from those codegen compiled. */
export function specProblems(dir: string): string[] {
  const missing = specSource.files.filter((file) => {
    const path = join(dir, file);
    return !existsSync(path) || statSync(path).isDirectory() !== file.endsWith("/");
  });
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

/** The one message a clone without the spec gets. */
export function specMessage(dir: string, fromEnv: boolean, problems: string[]): string {
  const { repository, commit } = specSource;
  return [
    `wymcp: the tests need the official MCP spec, and ${dir} does not hold it (${fromEnv ? "MCP_SPEC_DIR" : "the default ../shared/mcp-spec; set MCP_SPEC_DIR to change it"}):`,
    ...problems.slice(0, 8).map((p) => `  - ${p}`),
    ...(problems.length > 8 ? [`  - and ${problems.length - 8} more`] : []),
    `Get github.com/${repository} at commit ${commit} and point MCP_SPEC_DIR at it:`,
    `  git clone https://github.com/${repository} mcp-spec && git -C mcp-spec checkout ${commit}`,
    `  MCP_SPEC_DIR=$PWD/mcp-spec npm test`,
  ].join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const fromEnv = Boolean(process.env.MCP_SPEC_DIR);
  const dir = resolve(process.env.MCP_SPEC_DIR || join(root, "../shared/mcp-spec"));
  const problems = specProblems(dir);
  if (problems.length > 0) {
    console.error(specMessage(dir, fromEnv, problems));
    process.exitCode = 1;
  }
}
