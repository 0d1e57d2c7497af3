import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "golden");

/**
 * Whether this run rewrites the golden files. Never in CI: there a rewrite would turn every golden check into a
 * pass, so `UPDATE_GOLDEN=1` with `CI` set (to anything but "false" or "0") throws instead.
 */
export function updatingGoldens(env: Record<string, string | undefined> = process.env): boolean {
  if (env.UPDATE_GOLDEN !== "1") return false;
  if (env.CI !== undefined && env.CI !== "" && env.CI !== "false" && env.CI !== "0") {
    throw new Error(
      "UPDATE_GOLDEN=1 refuses to run under CI: golden files are rewritten on a developer's machine and reviewed in the diff",
    );
  }
  return true;
}

/** Compares `value` (as pretty JSON) with `test/golden/<name>.json`; `UPDATE_GOLDEN=1` rewrites the file instead. */
export function assertGolden(name: string, value: unknown): void {
  const file = join(GOLDEN_DIR, `${name}.json`);
  const actual = `${JSON.stringify(value, null, 2)}\n`;
  if (updatingGoldens()) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  let expected: string;
  try {
    expected = readFileSync(file, "utf8");
  } catch {
    assert.fail(`missing golden file test/golden/${name}.json; run npm run golden:update`);
  }
  assert.equal(actual, expected, `answer differs from test/golden/${name}.json (npm run golden:update rewrites it)`);
}

/** Compares `text` with `test/golden/<name>` byte for byte (for command output); `UPDATE_GOLDEN=1` rewrites the file. */
export function assertGoldenText(name: string, text: string): void {
  const file = join(GOLDEN_DIR, name);
  if (updatingGoldens()) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return;
  }
  let expected: string;
  try {
    expected = readFileSync(file, "utf8");
  } catch {
    assert.fail(`missing golden file test/golden/${name}; run npm run golden:update`);
  }
  assert.equal(text, expected, `output differs from test/golden/${name} (npm run golden:update rewrites it)`);
}
