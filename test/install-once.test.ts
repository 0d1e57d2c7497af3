/**
 * The helper that installs what the tests need beyond the root `npm ci` (test/support/install-once.ts): one install at
 * a time across processes, reused while its inputs are unchanged, and a lock left by a killed run taken over instead
 * of waited on.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { alive, installOnce, withLock } from "./support/install-once.js";

const dir = mkdtempSync(join(tmpdir(), "wymcp-install-once-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let cases = 0;

/** A fresh folder with one input file, and an install that counts its runs and marks the folder. */
function fixture(input = "pins v1\n") {
  const root = join(dir, `case-${++cases}`);
  const folder = join(root, "installed");
  mkdirSync(root);
  const inputs = [join(root, "requirements.txt")];
  writeFileSync(inputs[0]!, input);
  const spec = {
    what: `case ${cases}`,
    inputs,
    stamp: join(folder, "stamp"),
    lock: join(root, "installed.lock"),
    runs: 0,
    install: async () => {
      spec.runs++;
      rmSync(folder, { recursive: true, force: true });
      mkdirSync(folder);
    },
  };
  return spec;
}

/** A PID no process has: the highest free one below the kernel's bound. */
function deadPid(): number {
  let pid = existsSync("/proc/sys/kernel/pid_max") ? Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")) - 1 : 99_999;
  while (alive(pid)) pid--;
  return pid;
}

test("installs once, then reuses the install while the inputs are unchanged; a changed input installs again", async () => {
  const spec = fixture();
  await installOnce(spec);
  await installOnce(spec);
  assert.equal(spec.runs, 1);
  assert.ok(existsSync(spec.stamp));
  writeFileSync(spec.inputs[0]!, "pins v2\n");
  await installOnce(spec);
  assert.equal(spec.runs, 2);
});

test("the stamp of one input is its sha256, as sha256sum prints it (existing installs stay current)", async () => {
  const spec = fixture("mcp==2.3.0\n");
  await installOnce(spec);
  // printf 'mcp==2.3.0\n' | sha256sum
  assert.equal(readFileSync(spec.stamp, "utf8"), "b2a3a41cb92969a57ba10746218731ed453fe6528322ddda667df989ac494035");
});

test("callers at once: one installs, the others wait for it and find it done", async () => {
  const spec = fixture();
  let active = 0;
  let most = 0;
  const install = spec.install;
  spec.install = async () => {
    most = Math.max(most, ++active);
    await Promise.resolve();
    await install();
    active--;
  };
  await Promise.all([installOnce(spec), installOnce(spec), installOnce(spec)]);
  assert.equal(spec.runs, 1);
  assert.equal(most, 1);
  assert.equal(existsSync(spec.lock), false, "the lock is released");
});

test("an install that fails leaves no stamp and releases the lock; the next call installs again", async () => {
  const spec = fixture();
  const install = spec.install;
  spec.install = async () => {
    await install();
    throw new Error("pip: no matching distribution");
  };
  await assert.rejects(installOnce(spec), /no matching distribution/);
  assert.equal(existsSync(spec.stamp), false);
  assert.equal(existsSync(spec.lock), false);
  spec.install = install;
  await installOnce(spec);
  assert.equal(spec.runs, 2);
});

test("a lock whose holder is alive is waited for: the work runs once the holder lets go", async () => {
  const spec = fixture();
  // This process is alive; the token differs from any withLock's own.
  writeFileSync(spec.lock, JSON.stringify({ pid: process.pid, token: "another holder" }));
  let ran = false;
  const waiting = withLock(spec.lock, spec.what, async () => {
    ran = true;
  });
  // withLock's first attempt is synchronous: it found the lock taken.
  assert.equal(ran, false);
  rmSync(spec.lock);
  await waiting;
  assert.equal(ran, true);
  assert.equal(existsSync(spec.lock), false);
});

test("a lock left by a killed run (its PID is dead) is taken over, not waited on", async () => {
  const spec = fixture();
  const pid = deadPid();
  writeFileSync(spec.lock, JSON.stringify({ pid, token: "killed mid-install" }));
  await installOnce(spec);
  assert.equal(spec.runs, 1);
  assert.equal(existsSync(spec.lock), false);
});

test("two waiters on a dead holder's lock: it is broken once, and the works still run one at a time", async () => {
  const spec = fixture();
  writeFileSync(spec.lock, JSON.stringify({ pid: deadPid(), token: "killed mid-install" }));
  let active = 0;
  let most = 0;
  let runs = 0;
  const work = async () => {
    most = Math.max(most, ++active);
    await Promise.resolve();
    runs++;
    active--;
  };
  await Promise.all([withLock(spec.lock, spec.what, work), withLock(spec.lock, spec.what, work)]);
  assert.equal(runs, 2);
  assert.equal(most, 1);
});

test("a lock this helper cannot read (no PID in it) is never broken: it is waited on until it goes", () => {
  const spec = fixture();
  writeFileSync(spec.lock, "not json");
  let ran = false;
  const waiting = withLock(spec.lock, spec.what, async () => {
    ran = true;
  });
  assert.equal(ran, false);
  assert.equal(readFileSync(spec.lock, "utf8"), "not json");
  rmSync(spec.lock);
  return waiting.then(() => assert.equal(ran, true));
});
