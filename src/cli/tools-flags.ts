/**
 * @module tools-flags: the flags `wymcp proxy` and `wymcp stdio` take for the server's own tools (`--tools FILE`, and
 * one switch per check), the file read into the faces' `tools` option, and the lines the log writes about them.
 */
import type { Formats } from "../core/formats.js";
import type { ToolsOptions } from "../tools/tools-at-edge.js";
import { edgeCompiler } from "../compile/at-edge.js";
import { readToolsFile, ToolsFileError } from "../compile/tools-file.js";
import { logToolsEvent } from "../tools/tools-log.js";
import type { GateLog } from "../log/gate-log.js";
import { UsageError } from "./args.js";

/** `parseArgs` declarations of the tools flags. */
export const TOOLS_FLAG_SPECS = {
  tools: { type: "string" },
  "learn-tools": { type: "string" },
  "param-header-checks": { type: "string" },
  "argument-checks": { type: "string" },
} as const;

/** The flag of a face with many callers (`wymcp proxy`): the headers that tell them apart. */
export const CALLER_HEADER_SPEC = { "caller-header": { type: "string", multiple: true } } as const;

/** Help text of the tools flags. */
export const TOOLS_FLAGS_USAGE = `  --tools FILE        the server's tools, given: a tools/list result (or a JSON-RPC response carrying one),
                      or what wymcp compile wrote (its folder, manifest.json or index.js); tools/call
                      arguments are judged against each tool's inputSchema, and answered as the revision
                      says (isError: true from 2025-11-25 on and on 2026-07-28, -32602 before)
  --learn-tools on    learn the tools from the server's tools/list answers, so that no file is needed (off
                      by default: the proxy then answers only what it judged before)
  --argument-checks off
                      do not judge tools/call arguments (on by default)
  --param-header-checks off
                      do not check Mcp-Param-{Name} headers against the tools' x-mcp-header (on by default)
  --caller-header H   repeatable: a request header that tells callers apart (a key or tool selector of the
                      server's own), besides Authorization, Cookie and Mcp-Session-Id: the tools one caller's
                      list teaches judge only that caller's calls`;

/** The tools flags, checked. */
export interface ToolsFlags {
  file: string | undefined;
  learn: boolean;
  paramHeaders: boolean;
  arguments: boolean;
  /** `--caller-header`, when given. */
  callerHeaders?: string[];
}

/** The tools flags from `parseArgs` values. */
export function toolsFlags(values: Record<string, string | boolean | string[] | undefined>): ToolsFlags {
  const onOff = (flag: string, fallback = true): boolean => {
    const value = values[flag];
    if (value === undefined) return fallback;
    if (value === "on") return true;
    if (value === "off") return false;
    throw new UsageError(`--${flag} must be on or off, not ${JSON.stringify(value)}`);
  };
  const file = values.tools;
  if (file !== undefined && (typeof file !== "string" || file === "")) throw new UsageError("--tools takes a file");
  const callers = values["caller-header"];
  if (callers !== undefined && (!Array.isArray(callers) || !callers.every((name) => /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name))))
    throw new UsageError(`--caller-header takes a header name, not ${JSON.stringify(callers)}`);
  return {
    file,
    learn: onOff("learn-tools", false),
    paramHeaders: onOff("param-header-checks"),
    arguments: onOff("argument-checks"),
    ...(callers === undefined ? {} : { callerHeaders: callers }),
  };
}

/**
 * The faces' `tools` option from the flags: the file read (a usage error when it holds no tools), `wymcp compile`'s
 * engine for the schemas listed or learned (asserting formats only under `--formats strict`, as the face does), and the
 * log's lines; `undefined` when every check is off.
 */
export async function toolsFromFlags(flags: ToolsFlags, log: GateLog, formats?: Formats): Promise<ToolsOptions | undefined> {
  if (!flags.paramHeaders && !flags.arguments) return undefined;
  if (!flags.file && !flags.learn) return undefined;
  let given: unknown[] | undefined;
  try {
    given = flags.file === undefined ? undefined : await readToolsFile(flags.file);
  } catch (error) {
    throw error instanceof ToolsFileError ? new UsageError(error.message) : error;
  }
  let compile: ToolsOptions["compile"];
  if (flags.arguments) {
    const compiler = await edgeCompiler({ formats });
    if (typeof compiler === "function") compile = compiler;
    else log.line("tools-no-compiler", { reason: compiler.missing }, `tools/call arguments are not judged: ${compiler.missing}`);
  }
  return {
    ...(given === undefined ? {} : { given }),
    learn: flags.learn,
    ...(flags.callerHeaders ? { callerHeaders: flags.callerHeaders } : {}),
    paramHeaders: flags.paramHeaders,
    arguments: flags.arguments,
    ...(compile ? { compile } : {}),
    onToolsEvent: (event) => logToolsEvent(log, event),
  };
}
