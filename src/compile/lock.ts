/**
 * @module lock: `wymcp compile --lock FILE`, the tools a person approved, written as the faces' `toolsLock` reads it
 * (core/tool-lock.ts): per tool its name, the digest of its pinned fields and those fields in canonical form.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { lockTools, renderToolsLock } from "../lock/tool-lock.js";
import { type InputFile, InputError } from "./read-inputs.js";

/** The tools of the inputs, in order: a tool, an array of tools or a `tools/list` result; a bare schema is no tool. */
export function toolsOf(inputs: readonly InputFile[]): unknown[] {
  const tools: unknown[] = [];
  for (const input of inputs)
    for (const { baseName, value } of input.values) {
      const listed = Array.isArray(value)
        ? value
        : isObject(value) && Array.isArray(value.tools)
          ? value.tools
          : isObject(value) && typeof value.name === "string"
            ? [value]
            : undefined;
      if (!listed)
        throw new InputError(`${input.file}: ${baseName} is not a tool, an array of tools or a tools/list result; a lock pins tools`);
      tools.push(...listed);
    }
  return tools;
}

/** The lock file's text for the inputs' tools; throws `InputError` (with the reason) on tools that cannot be pinned. */
export function lockText(inputs: readonly InputFile[]): { text: string; count: number } {
  try {
    const lock = lockTools(toolsOf(inputs));
    return { text: renderToolsLock(lock), count: lock.tools.length };
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`--lock: ${(error as Error).message}`, { cause: error });
  }
}

/** Writes the lock, or with `check` compares it with what is on disk; resolves to the exit code. */
export function writeLock(
  inputs: readonly InputFile[],
  file: string,
  check: boolean,
  out: (line: string, failed?: boolean) => void,
): number {
  const { text, count } = lockText(inputs);
  let onDisk: string | undefined;
  try {
    onDisk = readFileSync(file, "utf8");
  } catch {
    onDisk = undefined;
  }
  if (check) {
    if (onDisk === text) {
      out(`wymcp compile: ${file} is up to date (${count} tools)\n`);
      return 0;
    }
    out(
      `wymcp compile --check: ${file} is ${onDisk === undefined ? "missing" : "out of date"}; run the same command without --check\n`,
      true,
    );
    return 1;
  }
  if (onDisk !== text) writeFileSync(file, text);
  out(`wymcp compile: ${count} tools; ${onDisk === text ? "lock unchanged" : "wrote"} ${file}\n`);
  return 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
