/**
 * @module tools-file: the server's tools as a file gives them (`--tools FILE` of `wymcp proxy` and `wymcp stdio`).
 */
import type { Stats } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { cannotRead } from "../log/file-problem.js";
import { toolsOf } from "../tools/tools-at-edge.js";

/** A file that holds no tools, or cannot be read: the command reports it as a usage error. */
export class ToolsFileError extends Error {
  override name = "ToolsFileError";
}

/**
 * `--tools FILE`: a `tools/list` result or a JSON-RPC response carrying one; or what `wymcp compile` wrote (its folder,
 * its `manifest.json`, or its `index.js`): the module's validators, and the tools of the inputs its manifest names,
 * for their `x-mcp-header` annotations.
 */
export async function readToolsFile(file: string): Promise<unknown[]> {
  let path = resolve(file);
  let info: Stats;
  try {
    info = await stat(path);
  } catch (error) {
    throw new ToolsFileError(`--tools: ${cannotRead(file, error)}`);
  }
  if (info.isDirectory()) path = join(path, "manifest.json");
  if (path.endsWith(".js")) path = join(dirname(path), "manifest.json");
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new ToolsFileError(`--tools: ${JSON.stringify(file)} is not a JSON file (${(error as Error).message.split("\n")[0]})`);
  }
  if (toolsOf(parsed)) return [parsed];
  const manifest = parsed as { generatedBy?: unknown; inputs?: Array<{ file?: unknown }> };
  if (typeof manifest.generatedBy !== "string" || !manifest.generatedBy.startsWith("wymcp compile"))
    throw new ToolsFileError(`--tools: ${JSON.stringify(file)} holds neither a tools/list result nor what wymcp compile wrote`);
  const folder = dirname(path);
  const module = (await import(pathToFileURL(join(folder, "index.js")).href)) as { tools?: unknown };
  const given: unknown[] = [{ tools: module.tools ?? {} }];
  for (const input of manifest.inputs ?? []) {
    if (typeof input.file !== "string") continue;
    // An input that is no longer there (or a running server's label) only leaves its tools' headers unchecked.
    const text = await readFile(resolve(folder, input.file), "utf8").catch(() => undefined);
    let list: unknown;
    try {
      list = text === undefined ? undefined : JSON.parse(text);
    } catch {
      continue;
    }
    const tools = toolsOf(list) ?? (Array.isArray(list) ? list : undefined);
    if (tools) given.push({ tools });
  }
  return given;
}
