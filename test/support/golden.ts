import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "golden");

/** Compares `value` (as pretty JSON) with `test/golden/<name>.json`; `UPDATE_GOLDEN=1` rewrites the file instead. */
export function assertGolden(name: string, value: unknown): void {
  const file = join(GOLDEN_DIR, `${name}.json`);
  const actual = JSON.stringify(value, null, 2) + "\n";
  if (process.env.UPDATE_GOLDEN === "1") {
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
  if (process.env.UPDATE_GOLDEN === "1") {
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
