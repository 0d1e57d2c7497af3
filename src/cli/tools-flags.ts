/**
 * @module tools-flags: the server's own tools on the command line: `--tools FILE` read, learning, the headers that tell
 * callers apart, the lock, into the faces' `tools` option, and the lines the log writes about them.
 */
import type { Formats } from "../core/formats.js";
import type { ToolsOptions } from "../tools/tools-at-edge.js";
import type { GateLog } from "../log/gate-log.js";
import { edgeCompiler } from "../compile/at-edge.js";
import { readToolsFile, ToolsFileError } from "../compile/tools-file.js";
import type { GateFlags } from "../hosts/shared/gate-flags.js";
import { logToolsEvent } from "../tools/tools-log.js";
import { UsageError } from "./args.js";
import type { ToolsFlags } from "./gate-options.js";

/**
 * The faces' `tools` option from the flags: the file read (a usage error when it holds no tools), `wymcp compile`'s
 * engine for the schemas listed or learned (asserting formats unless the formats rule is off, as the face reads the
 * protocol's), the lock, and the log's lines; only the lock when both tools rules are off or there is nothing to judge by.
 */
export async function toolsFromFlags(
  flags: ToolsFlags,
  log: GateLog,
  options: Pick<GateFlags, "tools" | "rules">,
): Promise<ToolsOptions | undefined> {
  const lock = options.tools?.lock;
  const only = lock === undefined ? undefined : { lock };
  const { rules } = options;
  const judged = (rules?.toolArguments ?? "enforce") !== "off" || (rules?.paramHeaders ?? "enforce") !== "off";
  if (!judged || (!flags.file && !flags.learn)) return only;
  let given: unknown[] | undefined;
  try {
    given = flags.file === undefined ? undefined : await readToolsFile(flags.file);
  } catch (error) {
    throw error instanceof ToolsFileError ? new UsageError(error.message) : error;
  }
  let compile: ToolsOptions["compile"];
  if ((rules?.toolArguments ?? "enforce") !== "off") {
    const formats: Formats = (rules?.formats ?? "off") === "off" ? "annotation" : "strict";
    const compiler = await edgeCompiler({ formats });
    if (typeof compiler === "function") compile = compiler;
    else log.line("tools-no-compiler", { reason: compiler.missing }, `tools/call arguments are not judged: ${compiler.missing}`);
  }
  return {
    ...(given === undefined ? {} : { given }),
    learn: flags.learn,
    ...(flags.callerHeaders ? { callerHeaders: flags.callerHeaders } : {}),
    ...(compile ? { compile } : {}),
    ...only,
    onEvent: (event) => logToolsEvent(log, event),
  };
}
