/**
 * @module file-problem: the one wording of a file a command cannot read or write, the same in every command and for
 * every flag that names a file (`wymcp check`, `inspect`, `compile`, `--tools`, `--tools-lock`, `--record`). It reads
 * only an error's `code`, so it holds no host type.
 */

/** Why a file could not be opened, in a few words: the system's code named, anything else as its message says. */
export function fileReason(error: unknown, writing = false): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return writing ? "no such folder" : "no such file";
  if (code === "EISDIR") return "it is a folder";
  if (code === "ENOTDIR") return "a part of the path is not a folder";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message : String(error);
}

/** `cannot read "tools.json": no such file`. */
export function cannotRead(path: string, error: unknown): string {
  return `cannot read ${JSON.stringify(path)}: ${fileReason(error)}`;
}

/** `cannot write "out/record.jsonl": no such folder`. */
export function cannotWrite(path: string, error: unknown): string {
  return `cannot write ${JSON.stringify(path)}: ${fileReason(error, true)}`;
}
