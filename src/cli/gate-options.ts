/**
 * @module gate-options: the flags `wymcp proxy` and `wymcp stdio` share (the gates' options, spelled as flags: the limits,
 * the rules, the server's tools and its lock, the log, the live page) and their checks, made once when the command
 * starts: a wrong value is a usage error, never a limit or a rule that quietly goes away.
 */
import { readFileSync } from "node:fs";
import { cannotRead } from "../log/file-problem.js";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_DEPTH, resolveLimits, WymcpOptionError } from "../options/options.js";
import { toolsLockOption } from "../lock/tool-lock.js";
import type { ToolsLockFile } from "../lock/tool-lock.js";
import { type GateFlags, resolveGate } from "../hosts/shared/gate-flags.js";
import type { LiveArgs } from "../inspect/live/start.js";
import { asFlags, type FlagValues, flagNumber, HELP, LIST, oneOf, SWITCH, UsageError, VALUE } from "./args.js";
import { LIVE_FLAGS, liveArgs } from "./live/live.js";
import { LIVE_USAGE } from "./live/usage.js";
import { RULE_FLAGS, RULE_FLAGS_USAGE, ruleFlags, ruleProblem } from "./rule-flags.js";

/** The flags both faces take. */
export const GATE_FLAGS = {
  "max-body-bytes": VALUE,
  "max-depth": VALUE,
  ...RULE_FLAGS,
  log: VALUE,
  "pass-through": SWITCH,
  otel: SWITCH,
  tools: VALUE,
  "learn-tools": SWITCH,
  "tools-lock": VALUE,
  ...LIVE_FLAGS,
  ...HELP,
} as const;

/** The proxy's flags for callers told apart (`--caller-header`), besides the shared ones. */
export const CALLER_FLAGS = { "caller-header": LIST } as const;

/** Help text of the shared flags, for each command's usage. */
export const GATE_FLAGS_USAGE = `  --tools FILE        the server's tools, given: a tools/list result (or a JSON-RPC response carrying one),
                      or what wymcp compile wrote (its folder, manifest.json or index.js); tools/call
                      arguments are judged against each tool's inputSchema (rule toolArguments), and
                      answered as the revision says (isError: true from 2025-11-25 on and on 2026-07-28,
                      -32602 before)
  --no-learn-tools    do not learn the tools from the server's tools/list answers (learned by default, each
                      caller's list judging that caller's calls alone)
  --tools-lock FILE   the tools a person approved (wymcp compile --lock): each tools/list answer that adds,
                      removes or changes a tool is reported, one line per drift (rule lock; --rule lock=enforce
                      also leaves changed and new tools out of the list and answers a call to one -32602)
${RULE_FLAGS_USAGE}
  --max-body-bytes N  largest message accepted, in bytes (default ${DEFAULT_MAX_BODY_BYTES}, as the gates)
  --max-depth N       deepest nesting of arrays and objects accepted (default ${DEFAULT_MAX_DEPTH}); Infinity turns it off
  --log F             text (default) or json: one line per refusal and per report on stderr, never a value of the
                      message
  --pass-through      judge nothing, forward everything: the same path without the gate (to measure it)
  --otel              OpenTelemetry traces and metrics of every judged message, exported as the OTEL_*
                      environment variables say (OTLP to localhost:4318 by default); needs the optional
                      peers @opentelemetry/api and @opentelemetry/sdk-node
${LIVE_USAGE}
  -h, --help          this text`;

/** What the shared flags come to: the face's options (its tools still to be read), the tools' flags, the live page's. */
export interface SharedFlags {
  options: GateFlags;
  tools: ToolsFlags;
  live: LiveArgs;
}

/** The tools flags, checked: the file still to read, learning, and (the proxy) the headers that tell callers apart. */
export interface ToolsFlags {
  file: string | undefined;
  learn: boolean;
  callerHeaders?: string[];
}

/**
 * The shared flags, checked as the faces check their options (`resolveGate`, with `hosts` for a face that sets a host
 * policy itself, and `allow` the proxy's): the limits, the rules and `--report`, the lock read, the live page's flags.
 */
export function sharedFlags(
  values: FlagValues<typeof GATE_FLAGS & typeof CALLER_FLAGS>,
  face: { hosts: boolean; allow?: GateFlags["allow"]; env?: Record<string, string | undefined> },
): SharedFlags {
  const log = oneOf("log", values.log ?? "text", ["text", "json"] as const);
  // The limits go through the gates' own check (resolveLimits), so a flag can never switch one off where an option could not.
  const limits = asFlags(
    () => resolveLimits({ maxBodyBytes: flagNumber(values["max-body-bytes"]), maxDepth: flagNumber(values["max-depth"]) }),
    values,
  );
  const passThrough = values["pass-through"] === true;
  const otel = values.otel === true;
  if (otel && passThrough) throw new UsageError("--otel records what the gate judges, and --pass-through judges nothing: use one");
  const lock = lockFile(values["tools-lock"]);
  const { rules, mode } = ruleFlags(values);
  const options: GateFlags = { limits, rules, mode, log, passThrough, otel, ...(lock ? { tools: { lock } } : {}) };
  if (face.allow) options.allow = face.allow;
  // The rules checked now as the face will check them: a rule switched on without what it judges by names the flag it needs.
  try {
    resolveGate(options, { headersOf: () => undefined, hosts: face.hosts });
  } catch (error) {
    if (!(error instanceof WymcpOptionError)) throw error;
    // A stdio line has no Host or Origin: no flag could give the origin rule what it judges by.
    if (error.option === "rules.origin" && face.allow === undefined)
      throw new UsageError("--rule origin: a line of wymcp stdio has no Host or Origin to judge");
    throw new UsageError(ruleProblem(error));
  }
  const file = values.tools;
  if (file === "") throw new UsageError("--tools takes a file");
  const callers = values["caller-header"];
  if (callers?.some((name) => !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)))
    throw new UsageError(`--caller-header takes a header name, not ${JSON.stringify(callers)}`);
  const tools: ToolsFlags = { file, learn: values["learn-tools"] !== false, ...(callers ? { callerHeaders: callers } : {}) };
  return { options, tools, live: liveArgs(values, face.env) };
}

/** `--tools-lock FILE`, read and checked as the faces check `tools.lock`. */
function lockFile(file: string | undefined): ToolsLockFile | undefined {
  if (file === undefined) return undefined;
  let lock: unknown;
  try {
    lock = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`--tools-lock: ${error instanceof SyntaxError ? `${JSON.stringify(file)} is not JSON` : cannotRead(file, error)}`);
  }
  try {
    toolsLockOption(lock);
  } catch (error) {
    if (error instanceof WymcpOptionError) throw new UsageError(error.message.replace(/^wymcp: tools\.lock:? /, "--tools-lock: "));
    throw error;
  }
  return lock as ToolsLockFile;
}
