/**
 * @module by-rule: what each rule found in a capture, for `wymcp check`'s table and its JSON summary: how many messages
 * it refused (enforced) and how many it would have refused (reported), under the state the run gave it. An operator
 * runs a day's capture through `wymcp check --report` before enforcing a rule, and reads here what each would refuse.
 */
import { RULES, type RuleName, type RuleState, type RuleStates } from "../core/rules.js";
import type { GateLogRecord } from "./gate-log-record.js";
import { judgedOut, type Verdict } from "./judge.js";

/** The rules `wymcp check` applies to a capture: it has no tools, tools lock or listener of its own. */
export const CHECKED_RULES: readonly RuleName[] = ["limits", "framing", "params", "formats", "headers", "versions", "outbound"];

/** One rule's counts: its state in the run, the messages it refused, those it reported. */
export interface RuleCount {
  state: RuleState;
  refused: number;
  reported: number;
}

export class RuleTally {
  private readonly counts = new Map<RuleName, RuleCount>();

  constructor(private readonly states: RuleStates) {}

  /** A judged message: the rule that refused it, or each rule in report it fails. */
  add(verdict: Verdict): void {
    if (verdict.own !== undefined) return;
    if (judgedOut(verdict)) {
      if (verdict.outcome === "violation") this.count("outbound", "refused");
      else if (verdict.reported) this.count("outbound", "reported");
      return;
    }
    if (verdict.outcome === "reject") this.count(verdict.rule, "refused");
    else if (verdict.outcome === "pass") for (const { rule } of verdict.reported ?? []) this.count(rule, "reported");
    for (const { rule } of verdict.reports ?? []) this.count(rule, "reported");
  }

  /** A gate's log line: its refusal or its report, by the rule it names (a line of an older log names none). */
  addRecord(record: GateLogRecord, outcome: "refused" | "reported" | "violation" | "event"): void {
    const rule = record.fields.rule;
    if (outcome === "event" || typeof rule !== "string" || !(RULES as readonly string[]).includes(rule)) return;
    this.count(rule as RuleName, outcome === "reported" ? "reported" : "refused");
  }

  private count(rule: RuleName, as: "refused" | "reported"): void {
    let found = this.counts.get(rule);
    if (!found) this.counts.set(rule, (found = { state: this.states[rule], refused: 0, reported: 0 }));
    found[as]++;
  }

  /** The table: one row per rule that found something, in the order a message meets them; nothing when none did. */
  render(): string {
    const rows = RULES.filter((rule) => this.counts.has(rule));
    if (rows.length === 0) return "";
    const width = Math.max(...rows.map((rule) => rule.length), "by rule".length);
    const line = (a: string, b: string, c: string, d: string) => `${a.padEnd(width)}  ${b.padEnd(7)}  ${c.padStart(7)}  ${d.padStart(8)}\n`;
    let text = line("by rule", "state", "refused", "reported");
    for (const rule of rows) {
      const { state, refused, reported } = this.counts.get(rule)!;
      text += line(rule, state, String(refused), String(reported));
    }
    return text;
  }

  /** Every rule the run applied (and any a gate's log named), with its state and counts, for `--json`'s summary. */
  json(): Record<string, RuleCount> {
    const out: Record<string, RuleCount> = {};
    for (const rule of RULES) {
      const found = this.counts.get(rule);
      if (found || CHECKED_RULES.includes(rule)) out[rule] = found ?? { state: this.states[rule], refused: 0, reported: 0 };
    }
    return out;
  }
}
