/**
 * @module tools-at-edge: the server's own tools, known at the edge. Given (a `tools/list` result, a JSON-RPC response
 * carrying one, or the `tools` table of the module `wymcp compile` writes) or learned from the `tools/list` results a
 * face relays, they judge a `tools/call` before the server sees it: its `Mcp-Param-{Name}` headers against the tool's
 * `x-mcp-header` annotations (param-headers.ts), its arguments against the tool's `inputSchema`, compiled without `eval`
 * by an injected compiler. A failure is answered as the revision says: from 2025-11-25 on, and on the modern lane, a
 * `CallToolResult` with `isError: true` (an argument failure is a tool execution error); before, `-32602`. A tool the
 * face does not know, or whose schema could not be compiled, is passed on unjudged. Given tools judge every caller;
 * learned ones judge only the caller whose list taught them (caller-key.ts). Web APIs only.
 */
import type { RejectInfo } from "../core/admission.js";
import { answerId, errorResponse, INVALID_PARAMS, type JsonRpcErrorResponse, type ToolErrorAnswer } from "../core/envelope.js";
import type { Era } from "../core/era.js";
import { type CallerKey, type CallerSource, callerHeaders, callerKeys, ONE_CALLER, type Sha256 } from "./caller-key.js";
import type { RequestHeaders } from "../core/header-body.js";
import { legacyRevisionOf } from "../core/legacy-revision.js";
import { escapeText } from "../core/log-safe.js";
import { didYouMean } from "../core/nearest-name.js";
import { describeValue, optionalFunction, WymcpOptionError } from "../options/options.js";
import { type ParamDeclaration, paramDeclarations, paramMismatchResponse, paramProblem } from "./param-headers.js";
import { deliverReport, inboundReport, MAX_REPORT_NAME_UNITS, type Report, type RuleState } from "../core/rules.js";
import { schemaRisk } from "./schema-risk.js";
import type { ToolsLockFile } from "../lock/tool-lock.js";

/** A tool's arguments validator, in the shape `wymcp compile` emits (the SDK's `jsonSchemaValidator` result). */
export type ArgumentsValidator = (input: unknown) => { valid: boolean; errorMessage?: string | undefined };

/** The outcome of compiling one `inputSchema`. */
export type CompileOutcome = { ok: true; validate: ArgumentsValidator } | { ok: false; reason: string };

/** Compiles one `inputSchema` without `eval` (the command line's is `wymcp compile`'s own engine). */
export type ToolSchemaCompiler = (schema: object) => CompileOutcome | Promise<CompileOutcome>;

/**
 * What a face tells of its tools that is no refusal and no report (to its log, or `tools.onEvent`): tools learned, a
 * schema it could not compile (its calls pass unjudged), and, once, that it has no compiler at all.
 */
export type ToolsEvent =
  | { kind: "tools-learned"; tools: number; replaced: boolean; callers: number }
  | { kind: "schema-not-compiled"; tool: string; reason: string }
  | { kind: "no-compiler"; reason: string };

/** The `tools` option of every face. */
export interface ToolsOptions {
  /**
   * The server's tools, given: a `tools/list` result (`{ tools: [...] }`), a JSON-RPC response carrying one, the module
   * `wymcp compile` writes (its `tools` table of validators), or a list of these.
   * @default none
   */
  given?: unknown;
  /**
   * Learn the tools from the `tools/list` results the face relays (pages accumulate, a new first page replaces). What
   * one caller's list teaches judges that caller's calls alone.
   * @default `true`
   */
  learn?: boolean;
  /**
   * Compiles a listed `inputSchema` without `eval`, one per turn of the event loop.
   * @default on the Node faces, `edgeCompiler()` of `wymcp/compile`, loaded on first use where code generation is allowed and Ajv is installed; on the Fetch faces, none (a Worker's bundle cannot load one at run time). Without one, `onEvent` is told once (or a warning written) and calls pass unjudged
   */
  compile?: ToolSchemaCompiler;
  /**
   * The tools a person approved: the parsed JSON of what `wymcp compile --lock` wrote. Each `tools/list` answer that
   * drifts from it is reported; with `rules.lock: "enforce"`, the changed and new tools are also dropped from the list
   * and calls to them refused (docs/security.md#pinning-the-servers-tools).
   * @default none
   */
  lock?: ToolsLockFile;
  /**
   * Request headers that tell callers apart, besides `Authorization`, `Cookie` and `Mcp-Session-Id` (and the URL, and the
   * authentication the face hands the server): a server's own key or tool selector, such as `X-Api-Key`.
   * @default none
   */
  callerHeaders?: readonly string[];
  /**
   * Called with what the face learned (a list that changes nothing its caller knew is not told again), each schema it
   * could not compile (once per schema), and once when it has no compiler; must not throw. Refusals go to `onReject`,
   * reports to `onReport`.
   * @default none (no compiler: one `console.warn` line)
   */
  onEvent?: (event: ToolsEvent) => void;
}

/** What the server's tools at the edge take of the face beside their own option: the two rules' states and the hooks. */
export interface ToolsSwitches {
  paramHeaders: RuleState;
  toolArguments: RuleState;
  onReject?: ((info: RejectInfo) => void) | undefined;
  onReport?: ((report: Report) => void) | undefined;
  /** Where the compiler comes from when `compile` is not given (the hosts' lazy load of `wymcp/compile`). */
  loadCompiler?: (() => Promise<ToolSchemaCompiler | { missing: string }>) | undefined;
}

/** What the face does with a call it refused: the status and the body to answer with; the server never sees it. */
export interface ToolsRefusal {
  status: 200 | 400;
  response: JsonRpcErrorResponse | ToolErrorAnswer;
  /** Which check refused it. */
  check: "param-header" | "arguments";
  /** The one-line reason, as logged (the answer's message or text). */
  message: string;
}

/**
 * Largest `inputSchema` compiled, in UTF-16 units of its JSON: past it, the tool's calls pass unjudged. Compiling holds
 * the event loop (Ajv compiles synchronously; bench/tools-at-edge.ts times the largest schema:
 * docs/performance.md#figures-behind-code-comments), so the bound is the longest stall a server's list can cause per schema.
 */
export const MAX_COMPILED_SCHEMA_UNITS = 32 * 1024;
/** Distinct schemas compiled per face: a server that keeps changing its schemas cannot grow the face without bound. */
export const MAX_COMPILED_SCHEMAS = 1024;
/** Callers whose learned tools a face remembers: past it, the least recently used caller's are dropped. */
export const MAX_CALLERS = 1024;
/** Learned tools a face remembers over all its callers: past it, the least recently used callers' are dropped. */
export const MAX_LEARNED_TOOLS = 128 * 1024;
/** `tools/list` requests remembered until their answer (stream faces). */
const MAX_WAITING_LISTS = 64;
/** Longest tool name shown in an answer. */
const MAX_NAME_UNITS = 128;
/** The first revision where invalid arguments are a tool execution error, not a protocol error. */
const IS_ERROR_FROM = "2025-11-25";

interface Known {
  declarations: readonly ParamDeclaration[] | undefined;
  /**
   * The schema's text, the key of its compiled validator; `undefined` when the tool lists no object schema, or one that
   * is not run (past the bounds above).
   */
  text: string | undefined;
}

const NO_SCHEMA: Known = Object.freeze({ declarations: undefined, text: undefined });

/** One caller's learned tools, and the count of uses at its last one (the least recently used is dropped first). */
interface Learned {
  tools: Map<string, Known>;
  used: number;
}

type Compiled = CompileOutcome | Promise<CompileOutcome>;

const OPTION_KEYS: readonly string[] = ["given", "learn", "compile", "lock", "callerHeaders", "onEvent"];

/** The tools a face knows, and the checks they allow. One per face (per upstream). */
export class ToolsAtEdge {
  readonly learns: boolean;
  readonly #paramHeaders: RuleState;
  readonly #arguments: RuleState;
  /** The compiler given, or the promise of the one loaded on first use; `undefined` when there is none. */
  #compile: ToolSchemaCompiler | Promise<ToolSchemaCompiler | undefined> | undefined;
  readonly #loadCompiler: ToolsSwitches["loadCompiler"];
  readonly #onEvent: ((event: ToolsEvent) => void) | undefined;
  readonly #onReject: ToolsSwitches["onReject"];
  readonly #onReport: ToolsSwitches["onReport"];
  /** Validators of a given compiled module, by tool name: they judge their tools whatever list is known. */
  readonly #given = new Map<string, ArgumentsValidator>();
  /** The tools of a given list: every caller's, until that caller's own list is learned. */
  readonly #givenList = new Map<string, Known>();
  /** The tools learned, per caller (a salted digest), with when each caller last learned or called. */
  readonly #callers = new Map<string, Learned>();
  #learnedTools = 0;
  /** Counts uses: a caller's `used` is the count at its last one (a field set per call, where moving a map entry is not). */
  #uses = 0;
  /** Each schema read once, whoever lists it: callers listing the same tools share their texts and declarations. */
  readonly #schemas = new Map<string, Known>();
  readonly #callerKeys: ReturnType<typeof callerKeys>;
  readonly #compiled = new Map<string, Compiled>();
  readonly #reported = new Set<string>();
  readonly #waiting = new Map<string, boolean>();
  #compiling = 0;
  #queue: Promise<void> = Promise.resolve();

  constructor(options: ToolsOptions = {}, switches: ToolsSwitches = { paramHeaders: "enforce", toolArguments: "enforce" }) {
    const learn = options.learn;
    if (learn !== undefined && typeof learn !== "boolean")
      throw new WymcpOptionError("tools.learn", `tools.learn must be a boolean, not ${describeValue(learn)}`);
    this.learns = learn !== false;
    this.#paramHeaders = switches.paramHeaders;
    this.#arguments = switches.toolArguments;
    this.#compile = optionalFunction<ToolSchemaCompiler>("tools.compile", options.compile);
    this.#loadCompiler = switches.loadCompiler;
    this.#onEvent = optionalFunction<(event: ToolsEvent) => void>("tools.onEvent", options.onEvent);
    this.#onReject = switches.onReject;
    this.#onReport = switches.onReport;
    this.#callerKeys = callerKeys(callerHeaders(options.callerHeaders));
    if (options.given !== undefined) for (const one of Array.isArray(options.given) ? options.given : [options.given]) this.#give(one);
  }

  /** Tells the face's `onReport` (a host that adds the exchange's trace to a report calls this for the face's part). */
  report(report: Report): void {
    deliverReport(this.#onReport, report);
  }

  /** Whether any check is on: a face with none keeps no hook at all. */
  get active(): boolean {
    return this.#paramHeaders !== "off" || this.#arguments !== "off";
  }

  /** How many tools judge the calls of the face's one caller (stdio's, or a caller no key names): given, or learned. */
  get size(): number {
    return (this.#callers.get(ONE_CALLER())?.tools ?? this.#givenList).size;
  }

  /** How many callers' learned tools are remembered. */
  get callers(): number {
    return this.#callers.size;
  }

  /**
   * The caller of one request, by what it carries (`sha256`: the host's own, where it has a faster one). A face that
   * learns nothing has one caller: given tools judge everyone.
   */
  callerOf(source: CallerSource, sha256?: Sha256): CallerKey {
    return this.learns ? this.#callerKeys(source, sha256) : ONE_CALLER;
  }

  /** Whether a schema is being compiled: `judge` may then answer with a promise. */
  get compiling(): boolean {
    return this.#compiling > 0;
  }

  /** Whether a `tools/list` sent on a stream (`sent`) still waits for its answer: until one does, `received` learns nothing. */
  get awaitingList(): boolean {
    return this.#waiting.size > 0;
  }

  /** Settles once every compilation started so far has (tests, and a face that wants its first call judged). */
  async settled(): Promise<void> {
    await Promise.all([...this.#compiled.values()]);
  }

  #give(source: unknown): void {
    const tools = toolsOf(source);
    if (tools) {
      for (const tool of tools)
        if (isObject(tool) && typeof tool.name === "string") this.#givenList.set(tool.name, this.#knownOf(tool.name, tool.inputSchema));
      return;
    }
    const table = isObject(source) && isObject(source.tools) ? source.tools : undefined;
    if (!table)
      throw new WymcpOptionError(
        "tools.given",
        `tools.given must be a tools/list result, a JSON-RPC response carrying one or a module wymcp compile wrote, not ${describeValue(source)}`,
      );
    for (const [name, roles] of Object.entries(table)) {
      const input = isObject(roles) ? roles.input : undefined;
      if (typeof input === "function") this.#given.set(name, input as ArgumentsValidator);
    }
  }

  /**
   * Learns one page of tools for `caller` (the face's one caller by default): `continued` (its request named a cursor)
   * adds it to the pages before; a first page replaces what the caller knew. Other callers' tools are left alone.
   */
  learnList(tools: readonly unknown[], continued: boolean, caller: CallerKey = ONE_CALLER): void {
    const key = caller();
    const before = this.#callers.get(key)?.tools;
    this.#learnedTools -= before?.size ?? 0;
    // A further page adds to what judged the caller until now (its pages before, or the given list), in a copy: the
    // list before must stay as it was for the comparison below.
    const known = continued ? new Map(before ?? this.#givenList) : new Map<string, Known>();
    for (const tool of tools)
      if (isObject(tool) && typeof tool.name === "string") known.set(tool.name, this.#knownOf(tool.name, tool.inputSchema));
    // A list that changes nothing the caller knew (a client asking again) is no news: no event, so no log line per list.
    if (before !== undefined && sameTools(before, known)) {
      this.#learnedTools += before.size;
      this.#callers.get(key)!.used = ++this.#uses;
      return;
    }
    this.#callers.set(key, { tools: known, used: ++this.#uses });
    this.#learnedTools += known.size;
    if (this.#callers.size > MAX_CALLERS || this.#learnedTools > MAX_LEARNED_TOOLS) this.#forgetBeyondBounds(key);
    this.#notify({ kind: "tools-learned", tools: tools.length, replaced: !continued, callers: this.#callers.size });
  }

  /** The least recently used callers dropped while past a bound; never `kept`, the caller just learned. */
  #forgetBeyondBounds(kept: string): void {
    const oldestFirst = [...this.#callers].sort(([, a], [, b]) => a.used - b.used);
    for (const [key, learned] of oldestFirst) {
      if (this.#callers.size <= MAX_CALLERS && this.#learnedTools <= MAX_LEARNED_TOOLS) return;
      if (key === kept) continue;
      this.#callers.delete(key);
      this.#learnedTools -= learned.tools.size;
    }
  }

  /** One listed tool's schema as read for the checks: shared with every other tool listing the same schema. */
  #knownOf(name: string, schema: unknown): Known {
    if (!isObject(schema)) return NO_SCHEMA;
    const text = JSON.stringify(schema);
    let known = this.#schemas.get(text);
    if (known === undefined) {
      // Past the bounds a schema is not compiled: its reading is not kept, so that a caller's copy never grows with it.
      const kept = text.length <= MAX_COMPILED_SCHEMA_UNITS && this.#schemas.size < MAX_COMPILED_SCHEMAS;
      known = { declarations: this.#paramHeaders !== "off" ? paramDeclarations(schema) : undefined, text: kept ? text : undefined };
      if (kept) this.#schemas.set(text, known);
    }
    if (this.#arguments !== "off" && !this.#given.has(name)) this.#compileOnce(name, schema, known.text ?? text);
    return known;
  }

  /** The tools that judge `caller`'s calls: its own learned list, or the given one; the caller is then the most recent. */
  #knownFor(caller: CallerKey): Map<string, Known> {
    if (this.#callers.size === 0) return this.#givenList;
    const learned = this.#callers.get(caller());
    if (learned === undefined) return this.#givenList;
    learned.used = ++this.#uses;
    return learned.tools;
  }

  /**
   * The compiler: the one given, or the one `loadCompiler` brings on first use (a promise until then). Without one,
   * `onEvent` is told once, or a warning is written once: arguments going unjudged is never silent.
   */
  #compiler(): ToolSchemaCompiler | Promise<ToolSchemaCompiler | undefined> | undefined {
    if (this.#compile !== undefined || this.#loadCompiler === undefined) return this.#compile;
    const load = this.#loadCompiler;
    const loading = load().then(
      (loaded) => (typeof loaded === "function" ? loaded : this.#noCompiler(loaded.missing)),
      (error: unknown) => this.#noCompiler(`the compiler could not be loaded: ${reasonOf(error)}`),
    );
    this.#compile = loading;
    void loading.then((compiler) => {
      this.#compile = compiler;
    });
    return loading;
  }

  #noCompiler(reason: string): undefined {
    const text = `the arguments of listed tools are not judged: ${reason}; give tools.compile to judge them`;
    if (this.#onEvent) this.#notify({ kind: "no-compiler", reason: text });
    else console.warn(`wymcp: ${text}`);
    return undefined;
  }

  #compileOnce(tool: string, schema: object, text: string): void {
    if (this.#compiled.has(text)) return;
    const compiler = this.#compiler();
    if (compiler === undefined) return;

    const risky = text.length > MAX_COMPILED_SCHEMA_UNITS ? `larger than ${MAX_COMPILED_SCHEMA_UNITS} characters` : riskOf(schema);
    if (risky !== undefined) return this.#settle(tool, text, { ok: false, reason: risky });
    if (this.#compiled.size >= MAX_COMPILED_SCHEMAS)
      return this.#settle(tool, text, { ok: false, reason: `more than ${MAX_COMPILED_SCHEMAS} schemas compiled` });
    // One schema per turn of the event loop: a list of many tools never holds it for more than one compilation.
    const turn = this.#queue.then(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
    const pending: Promise<CompileOutcome> = turn.then(async () => {
      const compile = await compiler;
      return compile ? compile(schema) : NO_COMPILER;
    });
    this.#queue = pending.then(
      () => undefined,
      () => undefined,
    );
    this.#compiling++;
    const done = () => void this.#compiling--;
    this.#compiled.set(
      text,
      pending.then(
        (outcome) => (done(), this.#settle(tool, text, outcome), outcome),
        (error: unknown) => {
          done();
          const outcome = { ok: false as const, reason: reasonOf(error) };
          this.#settle(tool, text, outcome);
          return outcome;
        },
      ),
    );
  }

  #settle(tool: string, text: string, outcome: CompileOutcome): void {
    this.#compiled.set(text, outcome);
    // No compiler was said once already, not once per schema.
    if (outcome.ok || outcome === NO_COMPILER || this.#reported.has(text)) return;
    this.#reported.add(text);
    this.#notify({ kind: "schema-not-compiled", tool, reason: outcome.reason });
  }

  #notify(event: ToolsEvent): void {
    try {
      this.#onEvent?.(event);
    } catch {
      // A hook's failure must not break the exchange it watches.
    }
  }

  /**
   * The hook for the messages of the answer to `requestBody` (a face that sees each exchange: the HTTP faces), or
   * `undefined` when it asks for no list.
   */
  watch(requestBody: unknown, caller: CallerKey = ONE_CALLER): ((message: unknown) => void) | undefined {
    if (!this.learns || !this.active || !isListRequest(requestBody)) return undefined;
    const id = requestBody.id;
    const continued = hasCursor(requestBody);
    // The key is taken now, from the request: the answer teaches the caller who asked.
    const key = caller();
    return (message) => {
      if (isObject(message) && message.id === id) {
        const tools = toolsOf(message);
        if (tools) this.learnList(tools, continued, () => key);
      }
    };
  }

  /** A message the client sent on a stream (stdio): a `tools/list` request is remembered until its answer. */
  sent(body: unknown): void {
    if (!this.learns || !this.active || !isListRequest(body)) return;
    const key = keyOf(body.id);
    if (key === undefined) return;
    if (this.#waiting.size >= MAX_WAITING_LISTS) this.#waiting.delete(this.#waiting.keys().next().value!);
    this.#waiting.set(key, hasCursor(body));
  }

  /** A message the server sent on a stream: the answer to a remembered `tools/list` is learned. */
  received(message: unknown): void {
    if (this.#waiting.size === 0 || !isObject(message) || Object.hasOwn(message, "method")) return;
    const key = keyOf(message.id);
    const continued = key === undefined ? undefined : this.#waiting.get(key);
    if (continued === undefined) return;
    this.#waiting.delete(key!);
    const tools = toolsOf(message);
    if (tools) this.learnList(tools, continued);
  }

  /**
   * The answer to a `tools/call` that fails a check whose rule is enforced (told to `onReject`), or `undefined` to pass
   * it on (a failure of a rule in `"report"` told to `onReport`); a promise while its tool's schema is still compiling.
   */
  judge({
    body,
    era,
    protocolVersion,
    headers,
    caller = ONE_CALLER,
    onReport,
  }: ToolCall): ToolsRefusal | undefined | Promise<ToolsRefusal | undefined> {
    const judged = this.#judge(body, era, protocolVersion, headers, caller);
    if (judged === undefined) return undefined;
    if (judged instanceof Promise) return judged.then((refusal) => this.#ruled(body, era, refusal, onReport));
    return this.#ruled(body, era, judged, onReport);
  }

  /** A failure under its rule's state: refused (told to `onReject`), or reported (to `onReport`) and passed on. */
  #ruled(body: unknown, era: Era, refusal: ToolsRefusal | undefined, onReport: ToolCall["onReport"]): ToolsRefusal | undefined {
    if (refusal === undefined) return undefined;
    const rule = refusal.check === "arguments" ? "toolArguments" : "paramHeaders";
    const { status, response, message } = refusal;
    if ((rule === "toolArguments" ? this.#arguments : this.#paramHeaders) === "enforce") {
      const reason = refusal.check === "arguments" ? "invalid-tool-arguments" : "param-header-mismatch";
      try {
        this.#onReject?.({ status, response, reason, rule, era, kind: "request" });
      } catch {
        // A logging hook must not break the answer.
      }
      return refusal;
    }
    const hook = onReport ?? this.#onReport;
    if (hook) {
      const code = "error" in response ? response.error.code : undefined;
      const report = inboundReport(rule, body, era, { status, code, message });
      report.tool = escapeText(String((body as { params: { name: string } }).params.name), MAX_REPORT_NAME_UNITS);
      deliverReport(hook, report);
    }
    return undefined;
  }

  #judge(
    body: unknown,
    era: Era,
    protocolVersion: string | null | undefined,
    headers: RequestHeaders | undefined,
    caller: CallerKey,
  ): ToolsRefusal | undefined | Promise<ToolsRefusal | undefined> {
    if (!isObject(body) || body.method !== "tools/call" || !isObject(body.params)) return undefined;
    const params = body.params;
    const name = params.name;
    if (typeof name !== "string") return undefined;
    const known = this.#knownFor(caller).get(name);
    const given = this.#given.get(name);
    if (known === undefined && given === undefined) return undefined;
    const args = params.arguments === undefined ? {} : params.arguments;
    if (this.#paramHeaders !== "off" && era === "modern" && headers !== undefined && known?.declarations && known.declarations.length > 0) {
      const problem = paramProblem(known.declarations, args, headers);
      if (problem) {
        const response = paramMismatchResponse(answerId(body), problem);
        return { status: 400, response, check: "param-header", message: response.error.message };
      }
    }
    if (this.#arguments === "off") return undefined;
    if (given) return this.#verdict(given, args, name, era, body, protocolVersion);
    const compiled = known?.text === undefined ? undefined : this.#compiled.get(known.text);
    if (compiled === undefined) return undefined;
    if (compiled instanceof Promise)
      return compiled.then((outcome) => (outcome.ok ? this.#verdict(outcome.validate, args, name, era, body, protocolVersion) : undefined));
    return compiled.ok ? this.#verdict(compiled.validate, args, name, era, body, protocolVersion) : undefined;
  }

  #verdict(
    validate: ArgumentsValidator,
    args: unknown,
    name: string,
    era: Era,
    body: unknown,
    protocolVersion: string | null | undefined,
  ): ToolsRefusal | undefined {
    let result: ReturnType<ArgumentsValidator>;
    try {
      result = validate(args);
    } catch {
      // A validator that throws judges nothing: the server answers the call.
      return undefined;
    }
    if (result.valid) return undefined;
    // The id is read only for an answer: a call that passes costs no more than the validator.
    const id = answerId(body);
    const brief = result.errorMessage ?? "the arguments do not match the tool's inputSchema";
    const tool = escapeText(name, MAX_NAME_UNITS);
    const asError = era === "modern" || legacyRevisionOf(body, protocolVersion).revision >= IS_ERROR_FROM;
    if (asError) {
      const text = `Invalid arguments for tool ${tool}: ${brief}`;
      const result = { content: [{ type: "text", text }] as [{ type: "text"; text: string }], isError: true as const };
      const response: ToolErrorAnswer = {
        jsonrpc: "2.0",
        id,
        result: era === "modern" ? { ...result, resultType: "complete" } : result,
      };
      return { status: 200, response, check: "arguments", message: text };
    }
    const response = errorResponse(
      id,
      INVALID_PARAMS,
      `Invalid params: the arguments of tool ${tool} do not match its inputSchema: ${brief}`,
      {
        errors: [{ instancePath: "/params/arguments", messages: [brief] }],
      },
    );
    return { status: 200, response, check: "arguments", message: response.error.message };
  }
}

/** Whether two lists of tools name the same tools, each read from the same schema (its reading is shared per schema text). */
function sameTools(a: ReadonlyMap<string, Known>, b: ReadonlyMap<string, Known>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, known] of a) if (b.get(name) !== known) return false;
  return true;
}

/**
 * The `tools` option checked: its keys (a misspelt one names the nearest), or what `given` takes on its own (a
 * `tools/list` result, a JSON-RPC response carrying one, a compiled module, a list of these); `undefined` when unset.
 */
export function toolsOptions(value: unknown): ToolsOptions | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return { given: value };
  if (!isObject(value)) throw new WymcpOptionError("tools", `tools must be an object, not ${describeValue(value)}`);
  if (Object.hasOwn(value, "tools") || Object.hasOwn(value, "jsonrpc") || Object.hasOwn(value, "result")) return { given: value };
  for (const key of Object.keys(value))
    if (!OPTION_KEYS.includes(key))
      throw new WymcpOptionError(
        `tools.${key}`,
        `unknown option ${JSON.stringify(`tools.${key}`.slice(0, 80))}${didYouMean(key, OPTION_KEYS)}; tools takes ${OPTION_KEYS.join(", ")}`,
      );
  return value as ToolsOptions;
}

/** The face's tools from its `tools` option and its rules; `undefined` when the option is unset. */
export function toolsOption(value: unknown, switches?: ToolsSwitches): ToolsAtEdge | undefined {
  if (value instanceof ToolsAtEdge) return value;
  const options = toolsOptions(value);
  return options === undefined ? undefined : new ToolsAtEdge(options, switches);
}

/** One `tools/call` to judge, and what is known around it. */
export interface ToolCall {
  body: unknown;
  era: Era;
  /** The `MCP-Protocol-Version` header, or the revision a stdio session negotiated. */
  protocolVersion: string | null | undefined;
  /** The request's headers, on HTTP (none on stdio, where no `Mcp-Param-*` header exists). */
  headers: RequestHeaders | undefined;
  /** Who asks (`callerOf`); the face's one caller by default. */
  caller?: CallerKey;
  /** Where this call's report goes instead of the face's `onReport` (the face's own, with its trace). */
  onReport?: ((report: Report) => void) | undefined;
}

/** The outcome of compiling with no compiler: the calls pass unjudged, and that was said once. */
const NO_COMPILER: CompileOutcome = Object.freeze({ ok: false, reason: "no compiler" });

/** The `tools` array of a `tools/list` result, or of a JSON-RPC response carrying one. */
export function toolsOf(source: unknown): readonly unknown[] | undefined {
  if (!isObject(source)) return undefined;
  if (Array.isArray(source.tools) && !Object.hasOwn(source, "jsonrpc")) return source.tools;
  const result = source.result;
  return isObject(result) && Array.isArray(result.tools) ? result.tools : undefined;
}

/**
 * Why `schema` is not run at the edge, or `undefined`. Patterns need no reading: the compiler runs them on a
 * linear-time engine or refuses them. The reader is bounded and tested, but the schema is the server's: one it fails
 * on is not run, and learning the rest of its list goes on.
 */
function riskOf(schema: object): string | undefined {
  try {
    return schemaRisk(schema);
  } catch {
    return "a schema the edge could not read";
  }
}

function isListRequest(body: unknown): body is Record<string, unknown> & { id: string | number } {
  return isObject(body) && body.method === "tools/list" && (typeof body.id === "string" || typeof body.id === "number");
}

function hasCursor(body: Record<string, unknown>): boolean {
  return isObject(body.params) && typeof body.params.cursor === "string";
}

function keyOf(id: unknown): string | undefined {
  return typeof id === "string" ? `s${id}` : typeof id === "number" ? `n${id}` : undefined;
}

function reasonOf(error: unknown): string {
  return escapeText(error instanceof Error ? error.message : String(error), 300);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
