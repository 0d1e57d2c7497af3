/**
 * `wymcp check` run as the installed bin runs: `node dist/cli.js` as a child process, no tsx.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "./spec.js";

export const CLI = join(repoRoot, "dist", "cli.js");
export const FIXTURES = join(repoRoot, "test", "fixtures", "cli");

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without colour settings or preloads, plus `env`. */
export function cleanEnv(env: Record<string, string> = {}): Record<string, string | undefined> {
  const base = { ...process.env };
  for (const name of ["FORCE_COLOR", "NO_COLOR", "NODE_OPTIONS"]) delete base[name];
  return { ...base, ...env };
}

/** Runs `wymcp check <args>` with a clean colour environment; `env` adds to it, `nodeArgs` go before the bin. */
export function wymcp(
  args: string[],
  {
    cwd = FIXTURES,
    input,
    env = {},
    nodeArgs = [],
  }: { cwd?: string; input?: string | Buffer; env?: Record<string, string>; nodeArgs?: string[] } = {},
): Run {
  const run = spawnSync(process.execPath, [...nodeArgs, CLI, "check", ...args], {
    cwd,
    input: input ?? "",
    env: cleanEnv(env),
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The header line printed for `position` (`file:line` then the verdict). */
export function lineFor(stdout: string, position: string): string {
  const found = stdout.split("\n").find((l) => l.startsWith(`${position} `));
  assert.ok(found, `no line for ${position} in:\n${stdout}`);
  return found;
}

/** The located errors printed under the header line for `position`. */
export function locationsFor(stdout: string, position: string): string[] {
  const lines = stdout.split("\n");
  const at = lines.findIndex((l) => l.startsWith(`${position} `));
  assert.ok(at >= 0, `no line for ${position}`);
  const located: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith("  ")) break;
    located.push(l.trim().replace(/\s{2,}/, "  "));
  }
  return located;
}
