/**
 * @module rule-flags: the switchboard on the command line, the same in `wymcp proxy`, `wymcp stdio` and `wymcp check`:
 * `--rule NAME=STATE` (repeatable) sets one rule's state as the faces' `rules` option does, `--report` turns every
 * enforced rule to report (`mode: "report"`).
 */
import { didYouMean } from "../core/nearest-name.js";
import type { WymcpOptionError } from "../options/options.js";
import { type Mode, RULE_STATES, RULES, type RuleName, type RuleState, type Rules } from "../core/rules.js";
import { LIST, SWITCH, UsageError } from "./args.js";

export const RULE_FLAGS = { report: SWITCH, rule: LIST } as const;

export const RULE_FLAGS_USAGE = `  --report            report mode: every enforced rule reports instead (nothing is refused, every message reaches
                      the server, and each would-be refusal is one "report" line naming its rule)
  --rule NAME=STATE   one rule's state, enforce, report or off (repeatable): ${RULES.slice(0, 6).join(", ")},
                      ${RULES.slice(6).join(", ")}`;

/**
 * `--rule` and `--report`, read: each `NAME=STATE` checked (an unknown rule or state names the nearest), a rule given
 * twice refused; the states are checked against what the face was given when the face is built (`ruleProblem`).
 * @example ruleFlags({ rule: ["headers=report"] }).rules // { headers: "report" }
 */
export function ruleFlags(values: { report?: boolean | undefined; rule?: string[] | undefined }): { rules: Rules; mode: Mode } {
  const rules: { [R in RuleName]?: RuleState } = {};
  for (const given of values.rule ?? []) {
    const eq = given.indexOf("=");
    const name = eq < 0 ? given : given.slice(0, eq);
    const state = eq < 0 ? "" : given.slice(eq + 1);
    if (!(RULES as readonly string[]).includes(name))
      throw new UsageError(`--rule ${given}: no rule ${JSON.stringify(name)}${didYouMean(name, RULES)}; the rules are ${RULES.join(", ")}`);
    if (!(RULE_STATES as readonly string[]).includes(state))
      throw new UsageError(`--rule ${given}: a rule's state is enforce, report or off${didYouMean(state, RULE_STATES)}`);
    if (rules[name as RuleName] !== undefined) throw new UsageError(`--rule ${name} is given twice`);
    rules[name as RuleName] = state as RuleState;
  }
  return { rules, mode: values.report === true ? "report" : "enforce" };
}

/** What each rule's state needs beside it, as the command line spells it. */
const NEEDS: Readonly<Record<string, string>> = {
  "allow.hosts or allow.origins": "--allowed-host or --allowed-origin (the proxy on loopback sets them itself)",
  "tools.lock": "--tools-lock FILE",
};

/** A face's refusal of its rules, in the command line's words: `--rule lock=enforce needs --tools-lock FILE`. */
export function ruleProblem(error: WymcpOptionError): string {
  const message = error.message.replace(/^wymcp: /, "");
  const needs = /^rules\.(\w+): "(\w+)" needs (.+)$/.exec(message);
  if (needs) return `--rule ${needs[1]}=${needs[2]} needs ${NEEDS[needs[3]!] ?? needs[3]}`;
  return message.replace(/^limits\.maxBodyBytes/, "--max-body-bytes").replace(/^limits\.maxDepth/, "--max-depth");
}
