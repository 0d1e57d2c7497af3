/**
 * A bench script run to its end as a child process, for the bench's smoke tests: no bound on its time but the runner's
 * limit, and the child is killed with the test if the runner cancels it.
 */
import { spawn } from "node:child_process";
import type { TestContext } from "node:test";
import { repoRoot } from "./spec.js";

export interface BenchRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `node --import tsx <script> <args>` from the repository's root, `env` added to this process's environment. */
export function runBench(t: TestContext, script: string, args: string[], env: Record<string, string> = {}): Promise<BenchRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      signal: t.signal,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => void (stdout += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => void (stderr += text));
    child.once("error", reject);
    child.once("close", (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}
