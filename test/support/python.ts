/**
 * The Python peers of the tests (the official Python SDK, FastMCP): a virtual environment under `.venv/`, made from
 * `test/python/requirements.txt` on first use and reused while that file is unchanged (`install-once.ts`). It needs
 * Python 3.10 or later with its `venv` module and pip (`PYTHON`, else `python3`); a missing interpreter fails these
 * suites with that message, never skips them.
 */
import { execFile } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { HUNG_CHILD_MS } from "../../examples/hung-child.js";
import { installOnce } from "./install-once.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const venv = join(root, ".venv");
const python = join(venv, "bin", "python");
const requirements = join(root, "test", "python", "requirements.txt");

let ready: Promise<string> | undefined;

/** The path of the virtual environment's `python`, with the pinned packages installed. */
export function pythonEnv(): Promise<string> {
  ready ??= installOnce({
    what: "the Python peers (.venv/)",
    inputs: [requirements],
    stamp: join(venv, "wymcp-requirements.sha256"),
    lock: join(root, ".venv.install.lock"),
    install: makeVenv,
  }).then(() => python);
  return ready;
}

async function makeVenv(): Promise<void> {
  rmSync(venv, { recursive: true, force: true });
  const interpreter = process.env.PYTHON ?? "python3";
  const needs = `the Python peers need Python 3.10 or later with venv and pip (set PYTHON to another interpreter than ${interpreter})`;
  let version: string;
  try {
    version = (await run(interpreter, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"])).stdout.trim();
  } catch (error) {
    throw new Error(`${needs}: ${interpreter} did not run`, { cause: error });
  }
  const [major = 0, minor = 0] = version.split(".").map(Number);
  if (major < 3 || (major === 3 && minor < 10)) throw new Error(`${needs}: ${interpreter} is ${version}`);
  try {
    await run(interpreter, ["-m", "venv", venv]);
  } catch (error) {
    throw new Error(`${needs}: ${interpreter} -m venv failed`, { cause: error });
  }
  // --retries 0: the machines' pip configuration lists local package indexes first; an unreachable default index fails fast.
  await run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--retries", "0", "-r", requirements], {
    maxBuffer: 16 * 1024 * 1024,
    timeout: HUNG_CHILD_MS,
  });
}
