/**
 * What the tests need beyond the root `npm ci` (the Python peers' `.venv/`, the Inspector's `tools/inspector/`),
 * installed by the test that needs it on first use, once per machine, and reused while its inputs are unchanged.
 *
 * `node --test` runs test files in parallel processes, so one install at a time: a lock file holds the installer's PID.
 * A run that was killed mid-install leaves its lock behind; the next run sees that the PID is dead and takes the lock
 * over at once, instead of waiting on it. The install writes a stamp (the inputs' hash) last, inside the folder it
 * installs, so a half-done install is never taken for a finished one.
 */
import { randomUUID, createHash } from "node:crypto";
import { existsSync, linkSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { setTimeout as poll } from "node:timers/promises";

export interface InstallOnce {
  /** What is installed, for the messages: "the Python peers (.venv/)". */
  what: string;
  /** The files whose content decides whether the install is current (a requirements list, a lockfile). */
  inputs: string[];
  /** Where the inputs' hash is written when the install completes; inside the installed folder, so a fresh install removes it. */
  stamp: string;
  /** The lock file; beside the installed folder, never inside it. */
  lock: string;
  /** Makes the folder from nothing (removing what is there first); throws when it fails. */
  install: () => Promise<void>;
}

/** How often a waiting process looks at the lock again (whether it is gone or its holder died). */
const LOOK_MS = 200;
/** The breaker (see `breakStale`) is held for two file operations; one older than this was left by a killed process. */
const BREAKER_STALE_MS = 10_000;

/** Installs `spec` unless its stamp says the install is current; returns once it is. */
export async function installOnce(spec: InstallOnce): Promise<void> {
  const wanted = hashOf(spec.inputs);
  const current = () => existsSync(spec.stamp) && readFileSync(spec.stamp, "utf8") === wanted;
  if (current()) return;
  await withLock(spec.lock, spec.what, async () => {
    if (current()) return;
    await spec.install();
    writeFileSync(spec.stamp, wanted);
  });
}

/** The sha256 of one input's content (what `sha256sum` prints), or of several inputs' sha256s in order. */
function hashOf(files: string[]): string {
  const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
  const each = files.map((file) => sha256(readFileSync(file)));
  return each.length === 1 ? each[0]! : sha256(each.join("\n"));
}

interface Holder {
  pid: number;
  token: string;
}

/** Runs `work` holding the lock at `lock`, waiting while a live process holds it and taking over one whose holder died. */
export async function withLock(lock: string, what: string, work: () => Promise<void>): Promise<void> {
  const mine: Holder = { pid: process.pid, token: randomUUID() };
  // No deadline: a live holder is installing (its install is killed once hung, HUNG_CHILD_MS), and a holder the
  // runner's limit killed is dead, so its lock is taken over. One line says what a long wait is waiting for.
  let said = false;
  while (!tryTake(lock, mine)) {
    const holder = readHolder(lock);
    if (holder && !alive(holder.pid) && breakStale(lock, holder)) continue;
    if (!said)
      process.stderr.write(
        `${what}: waiting for the install lock ${lock}, held by ${holder ? `process ${holder.pid}` : "no process this helper wrote"}\n`,
      );
    said = true;
    await poll(LOOK_MS);
  }
  try {
    await work();
  } finally {
    if (sameHolder(readHolder(lock), mine)) rmSync(lock, { force: true });
  }
}

/** Creates the lock with the holder already written in it (a hard link of a complete file), or says it exists. */
function tryTake(lock: string, mine: Holder): boolean {
  const draft = `${lock}.${mine.pid}.${mine.token}`;
  writeFileSync(draft, JSON.stringify(mine));
  try {
    linkSync(draft, lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    rmSync(draft, { force: true });
  }
}

function readHolder(lock: string): Holder | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(lock, "utf8"));
    const { pid, token } = parsed as Partial<Holder>;
    return typeof pid === "number" && typeof token === "string" ? { pid, token } : undefined;
  } catch {
    // Gone between the attempt and the read (the next attempt takes it), or not a lock this helper wrote: waited on
    // until it goes.
    return undefined;
  }
}

function sameHolder(a: Holder | undefined, b: Holder): boolean {
  return a !== undefined && a.pid === b.pid && a.token === b.token;
}

/** Whether a process with this PID exists (EPERM: it does, as another user's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes a lock whose holder is dead; false when another waiter is doing so. Two waiters may both see the dead PID; the breaker (a second lock) lets one
 * of them remove it, and only if it is still that dead holder's, so neither removes the lock the other just took.
 */
function breakStale(lock: string, dead: Holder): boolean {
  const breaker = `${lock}.break`;
  const mine: Holder = { pid: process.pid, token: randomUUID() };
  if (!tryTake(breaker, mine)) {
    const age = ageMs(breaker);
    if (age !== undefined && age > BREAKER_STALE_MS) rmSync(breaker, { force: true });
    return false;
  }
  try {
    if (sameHolder(readHolder(lock), dead)) unlinkSync(lock);
    return true;
  } finally {
    rmSync(breaker, { force: true });
  }
}

function ageMs(file: string): number | undefined {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}
