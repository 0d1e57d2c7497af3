/**
 * A Debian package's binary for a test (nginx, chromium): found where Debian puts it, installed with apt-get when it is
 * missing and this process is root (once, under install-once.ts's lock per package, since test files run in parallel
 * processes), otherwise a failure that says what to install.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withLock } from "./install-once.js";

/** The first of `binaries` that exists, or undefined. */
export function findBinary(binaries: readonly string[]): string | undefined {
  return binaries.find((path) => existsSync(path));
}

/** Runs one apt-get step; throws with the end of its output when it fails. */
function apt(what: string, args: string[]): void {
  const run = spawnSync("apt-get", args, {
    encoding: "utf8",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) {
    const output = `${run.stdout ?? ""}${run.stderr ?? ""}${run.error ? String(run.error) : ""}`.slice(-4_000);
    throw new Error(`${what}: \`apt-get ${args.join(" ")}\` failed (${run.status ?? run.signal}):\n${output}`);
  }
}

export interface AptBinary {
  /** The Debian package. */
  pkg: string;
  /** Where its binary may be, first the package's own place. */
  binaries: readonly string[];
  /** The user; undefined where the platform has none (then it cannot install). */
  uid?: number | undefined;
}

/**
 * The package's binary, installed first when missing: `apt-get update` then `apt-get install -y <pkg>`, as root, under
 * a lock that a parallel test process waits on (and then finds it installed). Not root and not installed: throws,
 * saying what to install.
 * @example const chromium = await ensureAptBinary({ pkg: "chromium", binaries: ["/usr/bin/chromium"] })
 */
export async function ensureAptBinary({ pkg, binaries, uid = process.getuid?.() }: AptBinary): Promise<string> {
  const install = `apt-get update && apt-get install -y ${pkg}`;
  const found = findBinary(binaries);
  if (found) return found;
  if (uid !== 0)
    throw new Error(`${pkg} is not installed, and this process is not root so the test cannot install it: run \`${install}\` as root`);
  let installed: string | undefined;
  await withLock(join(tmpdir(), `wymcp-${pkg}-install.lock`), pkg, async () => {
    // Another process may have installed it while this one waited for the lock.
    installed = findBinary(binaries);
    if (installed) return;
    apt(pkg, ["update"]);
    apt(pkg, ["install", "-y", pkg]);
    installed = findBinary(binaries);
  });
  if (!installed) throw new Error(`${pkg}: \`${install}\` succeeded but no binary is at ${binaries.join(", ")}`);
  return installed;
}
