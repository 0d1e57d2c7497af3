/**
 * @module by-method: the last lines of `wymcp check`: how many messages of each method passed, were rejected or
 * bypassed. Responses count under the method they answer (`tools/call result`). Methods are counted in the order
 * first met; past `MAX_ROWS` distinct ones, the rest count together, so a capture of junk methods stays a few lines.
 */
import type { RejectReason } from "../core/admission.js";
import type { OwnAnswer } from "../log/gate-log.js";
import type { Verdict } from "./judge.js";
import { methodOf } from "./capture.js";
import { methodLabel, type RecordView } from "./render.js";
export interface Counts {
  pass: number;
  reject: number;
  bypass: number;
}

export const MAX_ROWS = 50;
const OTHERS = "(other methods)";

export class MethodTally {
  private readonly rows = new Map<string, Counts>();

  /** `label` is already printable (escaped and bounded by the caller). */
  add(label: string, outcome: keyof Counts): void {
    let row = this.rows.get(label);
    if (!row) {
      const key = this.rows.size < MAX_ROWS ? label : OTHERS;
      row = this.rows.get(key) ?? { pass: 0, reject: 0, bypass: 0 };
      this.rows.set(key, row);
    }
    row[outcome]++;
  }

  get size(): number {
    return this.rows.size;
  }

  /** The table, one row per method, columns aligned; empty when nothing was judged. */
  render(): string {
    if (this.rows.size === 0) return "";
    const labels = [...this.rows.keys()];
    const width = Math.max("by method".length, ...labels.map((l) => l.length));
    const cell = (n: number | string, w: number) => String(n).padStart(w);
    let text = `${"by method".padEnd(width)}  ${cell("pass", 6)}  ${cell("rejected", 8)}  ${cell("bypassed", 8)}\n`;
    for (const [label, { pass, reject, bypass }] of this.rows)
      text += `${label.padEnd(width)}  ${cell(pass, 6)}  ${cell(reject, 8)}  ${cell(bypass, 8)}\n`;
    return text;
  }

  toJSON(): Record<string, Counts> {
    return Object.fromEntries(this.rows);
  }
}

/** What a refusal before judging counts under: the body was never judged as a message of a method. */
const UNJUDGED_ROWS: Record<
  Exclude<RejectReason, "invalid-message" | "invalid-tool-arguments" | "param-header-mismatch" | "tool-locked">,
  string
> = {
  "parse-error": "(not JSON)",
  "body-too-large": "(too large)",
  "nested-too-deeply": "(too deep)",
  "unsupported-media-type": "(not application/json)",
  "forbidden-host": "(forbidden Host)",
  "forbidden-origin": "(forbidden Origin)",
};

/** The row a gate log's refusal or violation counts in: the method it names, or why it was refused before one. */
export function recordRow(view: RecordView, outbound: boolean): string {
  if (view.method !== undefined) return outbound ? `${view.method} (out)` : view.method;
  const unjudged = view.reason !== undefined && Object.hasOwn(UNJUDGED_ROWS, view.reason);
  return unjudged ? UNJUDGED_ROWS[view.reason as keyof typeof UNJUDGED_ROWS] : outbound ? "(out, its request unknown)" : "(no method)";
}

/** The row a message counts in: its method, or for a response the method it answers. */
export function methodRow(verdict: Verdict, body: unknown): string {
  // Refused before it was judged as a message, or handed on unjudged (limits in report or off): no method read.
  const unjudged = verdict.outcome === "reject" || (verdict.outcome === "pass" && verdict.kind === null) ? verdict.reason : undefined;
  if (unjudged !== undefined && Object.hasOwn(UNJUDGED_ROWS, unjudged)) return UNJUDGED_ROWS[unjudged as keyof typeof UNJUDGED_ROWS];
  if (verdict.kind === "batch") return "(batch)";
  if (verdict.kind === "other") return "(no kind)";
  const own = methodOf(body);
  if (typeof own === "string") return methodLabel(own);
  const answer = verdict.kind === "error" || (body as { error?: unknown }).error !== undefined ? "error" : "result";
  return verdict.method === undefined ? `(${answer}, its request unknown)` : `${methodLabel(verdict.method)} ${answer}`;
}

/** The row wymcp's own answer counts in, as a call not served: `tools/call error (refused by wymcp)`. */
export function ownRow(verdict: Verdict, body: unknown, own: OwnAnswer): string {
  return `${methodRow(verdict, body)} (${own.answer === "refused" ? "refused by wymcp" : "upstream failed"})`;
}
