/**
 * @module write-out: what `wymcp compile` does around the library: reading a running server's tools, writing a
 * compilation into a folder (or checking that folder is current), and the official client `--from` loads (an
 * optional peer). Its lines go to `say`, a failure's marked so.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerSource } from "./from-server.js";
import { type Files, generate } from "./generate.js";
import { type InputFile, inputOf } from "./read-inputs.js";

/** Where a command's lines go: `failed` marks one that reports a failure (stderr, for the command line). */
export type Say = (line: string, failed?: boolean) => void;

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

/** A running server's tools/list as one input, labelled by where it came from; `save` keeps a copy. */
export async function fromServer(source: ServerSource, save: string | undefined, say: Say): Promise<InputFile> {
  const { listServerTools } = await loadClient();
  const { tools, pages } = await listServerTools(source);
  const label = "url" in source ? source.url : `stdio: ${[source.command, ...source.args].join(" ")}`;
  const text = `${JSON.stringify({ tools }, null, 2)}\n`;
  const bytes = Buffer.from(text, "utf8");
  if (save !== undefined) writeFileSync(save, bytes);
  say(`wymcp compile: ${tools.length} tools in ${pages} page${pages === 1 ? "" : "s"} from ${label}\n`, true);
  return inputOf(save ?? label, bytes, { tools }, "server", save === undefined ? label : undefined);
}

/** Compiles `inputs` into `out` (or, with `check`, says whether `out` is current): the command's exit code. */
export async function compileTo({
  inputs,
  out,
  check,
  say,
}: {
  inputs: InputFile[];
  out: string;
  check: boolean;
  say: Say;
}): Promise<number> {
  let files: Files;
  try {
    files = await generate(inputs, out);
  } catch (error) {
    say(`wymcp compile: ${error instanceof Error ? error.message : String(error)}\n`, true);
    return 2;
  }
  const stale = staleFiles(files, out);
  if (check) {
    for (const { file, problem } of stale) say(`${join(out, file)}: ${problem}\n`, true);
    if (stale.length > 0) {
      say(`wymcp compile --check: ${out} is out of date (${stale.length} file(s)); run the same command without --check\n`, true);
      return 1;
    }
    say(`wymcp compile: ${out} is up to date (${schemaCount(files)} schemas)\n`);
    return 0;
  }
  mkdirSync(out, { recursive: true });
  for (const { file } of stale) writeFileSync(join(out, file), files.get(file)!);
  say(`wymcp compile: ${schemaCount(files)} schemas; wrote ${stale.length} of ${files.size} files in ${out}\n`);
  return 0;
}
