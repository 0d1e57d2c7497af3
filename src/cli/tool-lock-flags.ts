/**
 * @module tool-lock-flags: `--tools-lock FILE` and `--tools-lock-mode report|enforce` of `wymcp proxy` and `wymcp stdio`:
 * the lock read and checked when the command starts (the face writes its drifts to its log: `loggedToolLock`).
 */
import { readFileSync } from "node:fs";
import { WymcpOptionError } from "../core/options.js";
import { type ToolsLockFile, type ToolsLockMode, toolsLockOption } from "../lock/tool-lock.js";
import type { ToolLockFlags } from "../hosts/shared/gate-flags.js";

export const TOOL_LOCK_FLAG_SPECS = {
  "tools-lock": { type: "string" },
  "tools-lock-mode": { type: "string" },
} as const;

export const TOOL_LOCK_FLAGS_USAGE = `  --tools-lock FILE   the tools a person approved (wymcp compile --lock): each tools/list answer that adds, removes
                      or changes a tool (schema, description, title, annotations) is logged, one line per drift
  --tools-lock-mode M report (default) or enforce: enforce also leaves changed and new tools out of the list the
                      client sees and answers a call to one as an unknown tool (-32602), never reaching the server`;

/** Reads and checks the lock named by the flags; `fail` turns a problem into the command's usage error. */
export function toolLockFlags(values: Record<string, string | boolean | undefined>, fail: (message: string) => Error): ToolLockFlags {
  const file = values["tools-lock"];
  const mode = values["tools-lock-mode"];
  if (file === undefined) {
    if (mode !== undefined) throw fail("--tools-lock-mode goes with --tools-lock FILE");
    return {};
  }
  let lock: unknown;
  try {
    lock = JSON.parse(readFileSync(String(file), "utf8"));
  } catch (error) {
    throw fail(
      `--tools-lock: cannot read ${JSON.stringify(String(file))}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  try {
    toolsLockOption(lock, mode);
  } catch (error) {
    if (error instanceof WymcpOptionError)
      throw fail(
        error.message
          .replace(/^wymcp: /, "")
          .replace(/^toolsLockMode/, "--tools-lock-mode")
          .replace(/^toolsLock(:?) /, "--tools-lock$1 "),
      );
    throw error;
  }
  return { toolsLock: lock as ToolsLockFile, toolsLockMode: (mode ?? "report") as ToolsLockMode };
}
