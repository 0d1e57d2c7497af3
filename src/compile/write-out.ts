/**
 * @module write-out: what `wymcp compile` needs around the library: which files on disk a compilation would change,
 * how many schemas it holds, and the official client `--from` loads (an optional peer).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Files } from "./generate.js";

/** The module that talks to a server, with the message a missing optional peer deserves. */
export async function loadClient(): Promise<typeof import("./from-server.js")> {
  try {
    return await import("./from-server.js");
  } catch (error) {
    const missing =
      (error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" &&
      String((error as Error).message).includes("@modelcontextprotocol/client");
    if (!missing) throw error;
    throw new Error(
      "--from and --from-stdio need @modelcontextprotocol/client (an optional peer dependency of wymcp), which is not installed.\n" +
        "Install it beside wymcp: npm install --save-dev @modelcontextprotocol/client@^2.4.0",
      { cause: error },
    );
  }
}

/** The files whose bytes on disk differ from `files` (other files in the folder are the user's and left alone). */
export function staleFiles(files: Files, dir: string): Array<{ file: string; problem: "missing" | "stale" }> {
  const out: Array<{ file: string; problem: "missing" | "stale" }> = [];
  for (const [file, text] of files) {
    let onDisk: Buffer;
    try {
      onDisk = readFileSync(join(dir, file));
    } catch {
      out.push({ file, problem: "missing" });
      continue;
    }
    if (!onDisk.equals(Buffer.from(text, "utf8"))) out.push({ file, problem: "stale" });
  }
  return out;
}

export function schemaCount(files: Files): number {
  return (JSON.parse(files.get("manifest.json")!) as { schemas: unknown[] }).schemas.length;
}
