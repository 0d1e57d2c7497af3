/**
 * The Python peers of the tests (the official Python SDK, FastMCP): a virtual environment under `.venv/`, made from
 * `test/python/requirements.txt` on first use and reused while that file is unchanged. Python 3.11 is on every machine
 * the tests run on, CI's included, so a missing interpreter is a failure, never a skip.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const venv = join(root, ".venv");
const requirements = join(root, "test", "python", "requirements.txt");
const stamp = join(venv, "wymcp-requirements.sha256");
const lock = join(root, ".venv.lock");

let ready: Promise<string> | undefined;

/** The path of the virtual environment's `python`, with the pinned packages installed. */
export function pythonEnv(): Promise<string> {
  ready ??= prepare();
  return ready;
}

async function prepare(): Promise<string> {
  const python = join(venv, "bin", "python");
  const wanted = createHash("sha256").update(readFileSync(requirements)).digest("hex");
  const current = () => existsSync(stamp) && readFileSync(stamp, "utf8") === wanted;
  if (current()) return python;
  await withLock(async () => {
    if (current()) return;
    rmSync(venv, { recursive: true, force: true });
    await run(process.env.PYTHON ?? "python3", ["-m", "venv", venv]);
    // --retries 0: the machines' pip configuration lists local package indexes first; an unreachable default index fails fast.
    await run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--retries", "0", "-r", requirements], {
      maxBuffer: 16 * 1024 * 1024,
      timeout: 600_000,
    });
    writeFileSync(stamp, wanted);
  });
  return python;
}

/** One installer at a time across the test processes `node --test` runs in parallel. */
async function withLock(work: () => Promise<void>): Promise<void> {
  for (let waited = 0; ; waited += 250) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (waited > 600_000) throw new Error(`pythonEnv: ${lock} held for over 10 minutes; remove it if no install is running`);
      await sleep(250);
    }
  }
  try {
    await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
