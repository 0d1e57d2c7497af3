/**
 * @module tool-lock: pinning a server's tools. A lock (what `wymcp compile --lock` writes) holds, per tool a person
 * approved, the canonical form and digest of the fields a client's model reads: `inputSchema`, `outputSchema`,
 * `description`, `title`, `annotations`. A face holding one compares every `tools/list` result it relays with it,
 * reports each drift (a tool added, removed or changed, and which fields), and in enforce mode drops the changed and new
 * tools from the list and refuses calls to them with the answer the spec gives an unknown tool.
 */
import { canonicalJson, isAbsent } from "./canonical-json.js";
import type { RejectInfo } from "../core/admission.js";
import { answerId, INVALID_PARAMS, type JsonRpcErrorResponse, type JsonRpcId } from "../core/envelope.js";
import type { Era } from "../core/era.js";
import { escapeText } from "../core/log-safe.js";
import { WymcpOptionError } from "../core/option-error.js";
import { deliverReport, inboundReport, type Report, type RuleState } from "../core/rules.js";
import { sha256Hex } from "../wire/sha256.js";

/** The fields of a tool that are pinned, in the order drifts name them. */
export const PINNED_FIELDS = ["inputSchema", "outputSchema", "description", "title", "annotations"] as const;
export type PinnedField = (typeof PINNED_FIELDS)[number];

/** The lock's format version, the value of its `wymcpToolsLock` member. */
export const TOOLS_LOCK_VERSION = 1;

/** One approved tool as the lock file holds it. */
export interface LockedTool {
  name: string;
  /** `sha256:` and the hex SHA-256 of the canonical JSON of `pinned`. */
  digest: string;
  /** The pinned fields the tool had (an absent one stays absent), each in canonical form (keys sorted). */
  pinned: Partial<Record<PinnedField, unknown>>;
}

/** What `wymcp compile --lock` writes, and what the `tools.lock` option takes (the file's JSON, parsed). */
export interface ToolsLockFile {
  wymcpToolsLock: typeof TOOLS_LOCK_VERSION;
  tools: LockedTool[];
}

/** What a face does with a drift: drop the changed and new tools and refuse their calls (`enforce`), or report it. */
export type ToolsLockMode = "report" | "enforce";

/** One difference between a listed tool and the lock. `tool` is the name escaped and bounded as a log line takes it. */
export interface ToolDrift {
  tool: string;
  change: "added" | "removed" | "changed";
  /** For `changed`: the pinned fields that differ, in `PINNED_FIELDS` order. */
  fields?: PinnedField[];
}

/** Most drifts reported for one list: a server listing a hundred thousand new tools must not write as many log lines. */
export const MAX_DRIFTS_REPORTED = 64;
/** Longest tool name in a drift, in characters once escaped (as telemetry bounds a tool name). */
export const MAX_DRIFT_NAME_UNITS = 128;

/** The message of the answer to a call refused by the lock: the spec's words for an unknown tool, and why. */
export const LOCKED_TOOL_MESSAGE = "Unknown tool: not among the tools approved in the tools lock";

/** The pinned fields of a listed tool, in canonical JSON (absent fields absent). */
function pinnedTexts(tool: Record<string, unknown>): Partial<Record<PinnedField, string>> {
  const out: Partial<Record<PinnedField, string>> = {};
  for (const field of PINNED_FIELDS) if (!isAbsent(tool[field])) out[field] = canonicalJson(tool[field]);
  return out;
}

function digestOf(texts: Partial<Record<PinnedField, string>>): string {
  // The canonical JSON of the `pinned` object: its keys sorted, each value already canonical.
  const keys = Object.keys(texts).sort() as PinnedField[];
  return `sha256:${sha256Hex(`{${keys.map((k) => `${JSON.stringify(k)}:${texts[k]}`).join(",")}}`)}`;
}

/** Thrown by `lockTools` on tools that cannot be pinned (no name, a name twice). */
export class ToolsLockError extends Error {
  override name = "ToolsLockError";
}

/** The lock of `tools` (a `tools/list` result's array), tools in name order. */
export function lockTools(tools: readonly unknown[]): ToolsLockFile {
  const seen = new Set<string>();
  const locked: LockedTool[] = [];
  for (const [index, tool] of tools.entries()) {
    if (!isObject(tool) || typeof tool.name !== "string") throw new ToolsLockError(`tool ${index} has no name: a lock pins tools by name`);
    if (seen.has(tool.name)) throw new ToolsLockError(`tool ${JSON.stringify(escapeText(tool.name, 128))} is listed twice`);
    seen.add(tool.name);
    const texts = pinnedTexts(tool);
    const pinned: Partial<Record<PinnedField, unknown>> = {};
    for (const field of PINNED_FIELDS) if (texts[field] !== undefined) pinned[field] = JSON.parse(texts[field]!);
    locked.push({ name: tool.name, digest: digestOf(texts), pinned });
  }
  locked.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { wymcpToolsLock: TOOLS_LOCK_VERSION, tools: locked };
}

/** The lock as its file's text: keys sorted, two-space indent, one final newline; the same lock gives the same bytes. */
export function renderToolsLock(lock: ToolsLockFile): string {
  return `${pretty(lock, "")}\n`;
}

function pretty(value: unknown, indent: string): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((item) => inner + pretty(item, inner)).join(",\n")}\n${indent}]`;
  }
  const keys = Object.keys(value)
    .filter((k) => !isAbsent((value as Record<string, unknown>)[k]))
    .sort();
  if (keys.length === 0) return "{}";
  return `{\n${keys.map((k) => `${inner}${JSON.stringify(k)}: ${pretty((value as Record<string, unknown>)[k], inner)}`).join(",\n")}\n${indent}}`;
}

/** A lock checked and ready to compare lists with: per tool, its pinned fields' canonical texts. */
export interface ToolLock {
  mode: ToolsLockMode;
  approved: ReadonlyMap<string, Partial<Record<PinnedField, string>>>;
}

/**
 * Checks the `tools.lock` option (a parsed lock file) when a face is built, with the `lock` rule's state (`"off"`: no
 * lock at all): misuse throws `WymcpOptionError`, and so does a lock whose digest does not match its content (an edit by hand).
 */
export function toolsLockOption(value: unknown, state: RuleState = "report"): ToolLock | undefined {
  if (value === undefined || state === "off") return undefined;
  const chosen: ToolsLockMode = state;
  if (!isObject(value) || value.wymcpToolsLock !== TOOLS_LOCK_VERSION || !Array.isArray(value.tools))
    throw new WymcpOptionError(
      "tools.lock",
      `tools.lock must be a tools lock as wymcp compile --lock writes it ({ "wymcpToolsLock": ${TOOLS_LOCK_VERSION}, "tools": [...] })${isObject(value) ? "" : `, not ${shown(value)}`}`,
    );
  const approved = new Map<string, Partial<Record<PinnedField, string>>>();
  for (const [index, entry] of value.tools.entries()) {
    if (!isObject(entry) || typeof entry.name !== "string" || !isObject(entry.pinned) || typeof entry.digest !== "string")
      throw new WymcpOptionError("tools.lock", `tools.lock: tools[${index}] needs a name, a digest and pinned fields`);
    const texts = pinnedTexts(entry.pinned);
    if (digestOf(texts) !== entry.digest)
      throw new WymcpOptionError(
        "tools.lock",
        `tools.lock: the digest of tool ${JSON.stringify(escapeText(entry.name, 128))} does not match its pinned fields; write the lock again with wymcp compile --lock`,
      );
    if (approved.has(entry.name))
      throw new WymcpOptionError("tools.lock", `tools.lock: tool ${JSON.stringify(escapeText(entry.name, 128))} is locked twice`);
    approved.set(entry.name, texts);
  }
  return { mode: chosen, approved };
}

/** What one `tools/list` result does against the lock: the drifts, and the tools the client may see. */
export interface ListVerdict {
  drifts: Array<{ name: string; drift: ToolDrift }>;
  /** The listed tools that match the lock (enforce mode keeps only these). */
  kept: unknown[];
  /** Whether a tool is left out of `kept`. */
  dropped: number;
}

/**
 * Compares a listed page of tools with the lock. `whole`: the list is complete (asked without a cursor, answered
 * without `nextCursor`), so a locked tool missing from it was removed; a page alone says nothing of the others.
 * A listed entry with no string name is kept and not judged: the outbound check is what reports a malformed tool.
 */
export function compareTools(lock: ToolLock, tools: readonly unknown[], whole: boolean): ListVerdict {
  const drifts: ListVerdict["drifts"] = [];
  const kept: unknown[] = [];
  const listed = new Set<string>();
  for (const tool of tools) {
    if (!isObject(tool) || typeof tool.name !== "string") {
      kept.push(tool);
      continue;
    }
    const { name } = tool;
    listed.add(name);
    const locked = lock.approved.get(name);
    if (!locked) {
      drifts.push({ name, drift: { tool: safeName(name), change: "added" } });
      continue;
    }
    const texts = pinnedTexts(tool);
    const fields = PINNED_FIELDS.filter((field) => texts[field] !== locked[field]);
    if (fields.length === 0) kept.push(tool);
    else drifts.push({ name, drift: { tool: safeName(name), change: "changed", fields } });
  }
  if (whole)
    for (const name of lock.approved.keys())
      if (!listed.has(name)) drifts.push({ name, drift: { tool: safeName(name), change: "removed" } });
  return { drifts, kept, dropped: tools.length - kept.length };
}

function safeName(name: string): string {
  return escapeText(name, MAX_DRIFT_NAME_UNITS);
}

/** What a face's watch over the lock tells: each drift and each call the lock would keep out, as reports; each call it refuses. */
export interface LockHooks {
  onReport?: ((report: Report) => void) | undefined;
  onReject?: ((info: RejectInfo) => void) | undefined;
}

/**
 * A face's watch over the lock: it judges the `tools/list` results the face relays, remembers which locked tools the
 * server now lists otherwise, reports each drift once (rule `lock`), and answers whether a call is locked out: refused
 * when the lock is enforced, reported when it reports.
 */
export class ToolLockWatch {
  /** Locked tools the server last listed otherwise than the lock holds. */
  private readonly drifted = new Set<string>();
  /** Per tool, the drift last reported, so that a client listing tools again does not report it again. */
  private readonly reported = new Map<string, string>();

  constructor(
    readonly lock: ToolLock,
    private readonly hooks: LockHooks,
  ) {}

  /** Tells the face's `onReport` (a host that adds the exchange's trace to a report calls this for the face's part). */
  report(report: Report): void {
    deliverReport(this.hooks.onReport, report);
  }

  get enforcing(): boolean {
    return this.lock.mode === "enforce";
  }

  /**
   * A `tools/list` result relayed to the client: reports what drifted, and returns the result the client is to see in
   * its place (enforce mode, a tool dropped), or `undefined` to pass it on as it is. `id`: the request's it answers.
   */
  listed(result: unknown, askedWithCursor: boolean, id?: JsonRpcId): Record<string, unknown> | undefined {
    if (!isObject(result) || !Array.isArray(result.tools)) return undefined;
    const whole = !askedWithCursor && (result.nextCursor === undefined || result.nextCursor === null);
    const verdict = compareTools(this.lock, result.tools, whole);
    const fresh: ToolDrift[] = [];
    const now = new Set<string>();
    for (const { name, drift } of verdict.drifts) {
      now.add(name);
      if (drift.change !== "removed" && this.lock.approved.has(name)) this.drifted.add(name);
      const signature = `${drift.change}:${drift.fields?.join(",") ?? ""}`;
      if (this.reported.get(name) === signature) continue;
      this.reported.set(name, signature);
      fresh.push(drift);
    }
    // A tool listed as the lock holds it is in line again: a later drift of it is news.
    for (const tool of verdict.kept)
      if (isObject(tool) && typeof tool.name === "string" && !now.has(tool.name)) {
        this.drifted.delete(tool.name);
        this.reported.delete(tool.name);
      }
    const dropped = this.enforcing ? verdict.dropped : 0;
    for (const report of driftReports(fresh, dropped, id)) deliverReport(this.hooks.onReport, report);
    return dropped > 0 ? { ...result, tools: verdict.kept } : undefined;
  }

  /** Whether a call to `name` is kept out: the tool is not in the lock, or the server lists it changed. */
  lockedOut(name: string): boolean {
    return !this.lock.approved.has(name) || this.drifted.has(name);
  }

  /**
   * The answer to a body that calls a locked-out tool, to send instead of handing it on (enforced: told to `onReject`),
   * or `undefined` to hand it on (reported: each such call told to `onReport`). A legacy batch holding such a call is
   * answered whole: each request in it gets the error (none reaches the server).
   */
  refusal(
    body: unknown,
    era?: Era,
    onReport: ((report: Report) => void) | undefined = this.hooks.onReport,
  ): JsonRpcErrorResponse | JsonRpcErrorResponse[] | undefined {
    const locked = (Array.isArray(body) ? body : [body]).filter((item) => this.calls(item));
    if (locked.length === 0) return undefined;
    if (!this.enforcing) {
      for (const item of locked.slice(0, MAX_DRIFTS_REPORTED)) {
        const report = inboundReport("lock", item, era, { status: 200, code: INVALID_PARAMS, message: LOCKED_TOOL_MESSAGE });
        report.tool = safeName((item.params as { name: string }).name);
        deliverReport(onReport, report);
      }
      return undefined;
    }
    const answer = Array.isArray(body) ? body.filter(isRequest).map((item) => unknownTool(answerId(item))) : unknownTool(answerId(body));
    try {
      this.hooks.onReject?.({
        status: 200,
        response: Array.isArray(answer) ? answer[0]! : answer,
        reason: "tool-locked",
        rule: "lock",
        era,
        kind: Array.isArray(body) ? "batch" : "request",
      });
    } catch {
      // A broken logger must not break the answer.
    }
    return answer;
  }

  private calls(body: unknown): body is Record<string, unknown> {
    if (!isRequest(body) || body.method !== "tools/call" || !isObject(body.params)) return false;
    const { name } = body.params;
    return typeof name === "string" && this.lockedOut(name);
  }
}

/** One report per fresh drift (at most `MAX_DRIFTS_REPORTED`), and one for those left out past the bound. */
function driftReports(fresh: readonly ToolDrift[], dropped: number, id: JsonRpcId | undefined): Report[] {
  const out: Report[] = [];
  const base = { rule: "lock", direction: "out", era: undefined, method: "tools/list", id, client: undefined } as const;
  const tail = dropped > 0 ? ` (${dropped} tools left out of the list the client sees)` : "";
  for (const drift of fresh.slice(0, MAX_DRIFTS_REPORTED)) {
    const fields = drift.fields ? ` (${drift.fields.join(", ")})` : "";
    out.push({
      ...base,
      tool: drift.tool,
      message: `tool ${JSON.stringify(drift.tool)} ${drift.change}${fields} against the tools lock${tail}`,
    });
  }
  if (fresh.length > MAX_DRIFTS_REPORTED)
    out.push({ ...base, message: `${fresh.length - MAX_DRIFTS_REPORTED} more tools drifted from the tools lock${tail}` });
  return out;
}

/** The spec's answer to a call of an unknown tool: `-32602` (the SDKs' own code for it), in band. */
export function unknownTool(id: JsonRpcId): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id, error: { code: INVALID_PARAMS, message: LOCKED_TOOL_MESSAGE } };
}

/**
 * The ids of the `tools/list` requests in a body (a request or a legacy batch), each with whether it asked with a
 * cursor; empty when there are none, so that a face watches only the answers to those.
 */
export function toolsListRequests(body: unknown): Map<string | number, boolean> {
  const out = new Map<string | number, boolean>();
  for (const item of Array.isArray(body) ? body : [body]) {
    if (!isRequest(item) || item.method !== "tools/list") continue;
    const { id } = item;
    if (typeof id !== "string" && typeof id !== "number") continue;
    const cursor = isObject(item.params) ? item.params.cursor : undefined;
    out.set(id, cursor !== undefined && cursor !== null);
  }
  return out;
}

/**
 * One message the server sent on an exchange: when it answers one of `requests` with a `tools/list` result, the watch
 * judges it; returns the message to send instead, or `undefined` to send the original bytes.
 */
export function lockedMessage(watch: ToolLockWatch, requests: ReadonlyMap<string | number, boolean>, message: unknown): unknown {
  if (Array.isArray(message)) {
    let changed = false;
    const out = message.map((item) => {
      const replaced = lockedMessage(watch, requests, item);
      if (replaced === undefined) return item;
      changed = true;
      return replaced;
    });
    return changed ? out : undefined;
  }
  if (!isObject(message) || Object.hasOwn(message, "method") || !Object.hasOwn(message, "result")) return undefined;
  const { id } = message;
  if ((typeof id !== "string" && typeof id !== "number") || !requests.has(id)) return undefined;
  const result = watch.listed(message.result, requests.get(id)!, id);
  return result === undefined ? undefined : { ...message, result };
}

/** A value as an option error shows it: its type, or a short string itself (never an object's content). */
function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a value of type ${typeof value}`;
}

function isRequest(value: unknown): value is Record<string, unknown> & { method: string } {
  return isObject(value) && typeof value.method === "string" && Object.hasOwn(value, "id");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
