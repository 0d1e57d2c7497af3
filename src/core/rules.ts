/**
 * @module rules: the switchboard. Every rule a face applies takes one of three states: `"enforce"` (refuse; for
 * `outbound`, whose messages are already on their way, report), `"report"` (judge, hand on, and report what enforcing
 * would have refused) or `"off"`. `mode: "report"` turns every enforced rule to report: the shadow mode an operator runs
 * before enforcing, rule by rule. Every would-be refusal and violation is one {@link Report}, the same for the hook
 * (`onReport`), the log, the telemetry and the page. Web APIs only.
 */
import { answerId, type JsonRpcId, type LocatedError } from "./envelope.js";
import type { Era } from "./era.js";
import { escapeText } from "./log-safe.js";
import { didYouMean } from "./nearest-name.js";
import { WymcpOptionError } from "./option-error.js";

/** Every rule a face applies, in the order a message meets them. */
export const RULES = [
  "origin",
  "limits",
  "framing",
  "params",
  "formats",
  "headers",
  "versions",
  "lock",
  "paramHeaders",
  "toolArguments",
  "outbound",
] as const;
export type RuleName = (typeof RULES)[number];

/** `"enforce"`: refuse (outbound: report, the answer is already on its way); `"report"`: hand on and report; `"off"`: not judged. */
export type RuleState = "enforce" | "report" | "off";
export const RULE_STATES: readonly RuleState[] = ["enforce", "report", "off"];

/** The `rules` option: a state per rule; a rule left out keeps its default ({@link defaultRules}). */
export type Rules = { readonly [R in RuleName]?: RuleState };

/** Every rule's state, as a face applies it. */
export type RuleStates = { readonly [R in RuleName]: RuleState };

/** The `mode` option: `"report"` turns every enforced rule to report (nothing is refused); `"enforce"` leaves the states as they are. */
export type Mode = "enforce" | "report";
export const MODES: readonly Mode[] = ["enforce", "report"];

/** One would-be refusal or violation, as `onReport`, the log, the telemetry and the page receive it. Log-safe. */
export interface Report {
  rule: RuleName;
  /** "in": a client's message the face would have refused; "out": a server's message that failed the outbound check, or drifted from the lock. */
  direction: "in" | "out";
  era: Era | undefined;
  /** The message's method (for a server's answer, the method of the request it answers), escaped and bounded. */
  method: string | undefined;
  /** The message's id, under the answers' rules (the client's only when valid and bounded). */
  id: JsonRpcId | undefined;
  /** `params._meta` clientInfo's name (modern), or the `initialize` clientInfo name when the face knows it; escaped and bounded. */
  client: string | undefined;
  /** What enforcing would have answered (in): the HTTP status and the JSON-RPC error code. */
  status?: number;
  code?: number;
  /** One line: what the rule found. */
  message: string;
  /** The legacy revision whose definitions judged the message, when one did (a params failure, an outbound violation). */
  revision?: string;
  /** The tool a `toolArguments`, `paramHeaders` or `lock` report is about, escaped and bounded. */
  tool?: string;
  /** Where the message fails, one entry per location, as the answer (in) or the outbound check (out) lists them; bounded. */
  errors?: readonly LocatedError[];
  /** Locations found but not listed, when some were left out to bound the list. */
  omitted?: number;
}

/** What the defaults depend on: what the face was given beside the rules. */
export interface RuleContext {
  /** A `Host`/`Origin` policy is given (`allow.hosts`, `allow.origins`), or the face sets one itself (the proxy on loopback). */
  readonly hosts: boolean;
  /** `allow.versions` is given: an unknown version is then refused by default. */
  readonly versions: boolean;
  /** An outbound check is given (`outbound: validateMcpResponse`): the server's messages are then checked by default. */
  readonly outbound: boolean;
  /** A tools lock is given (`tools.lock`). */
  readonly lock: boolean;
}

/**
 * The states a face applies when its `rules` name none: today's behaviour. Every check of the protocol and the tools is
 * enforced; `formats` is off (a format is an annotation, as the official SDKs read it); `versions` reports an unknown
 * modern version unless `allow.versions` lists the server's; `origin` is enforced only with a policy to enforce; the
 * lock reports drift; the outbound check reports once it is given.
 */
export function defaultRules(context: RuleContext): RuleStates {
  return {
    origin: context.hosts ? "enforce" : "off",
    limits: "enforce",
    framing: "enforce",
    params: "enforce",
    formats: "off",
    headers: "enforce",
    versions: context.versions ? "enforce" : "report",
    lock: context.lock ? "report" : "off",
    paramHeaders: "enforce",
    toolArguments: "enforce",
    outbound: context.outbound ? "report" : "off",
  };
}

/** What a rule needs beside its state, named in the error when it is switched on without it. */
const NEEDS: Partial<Record<RuleName, { has: keyof RuleContext; option: string }>> = {
  origin: { has: "hosts", option: "allow.hosts or allow.origins" },
  outbound: { has: "outbound", option: 'outbound (validateMcpResponse from "wymcp/outbound")' },
  lock: { has: "lock", option: "tools.lock" },
};

/**
 * A face's rule states from its `rules` and `mode` options, checked once when the face is built: an unknown rule or state
 * throws `WymcpOptionError` naming the nearest known one, and so does a rule switched on without what it judges by
 * (`origin` without a policy, `outbound` without a check, `lock` without a lock). `mode: "report"` turns every rule
 * enforced by default to report; a rule `rules` names keeps the state named, so one rule can be enforced while the
 * others report.
 * @example resolveRules({ headers: "report" }, undefined, context).headers === "report"
 */
export function resolveRules(rules: unknown, mode: unknown, context: RuleContext): RuleStates {
  const states: Record<RuleName, RuleState> = defaultRules(context);
  // The mode turns the defaults to report; a state the rules name stays as named (a rule enforced while others report).
  if (modeOption(mode) === "report") for (const name of RULES) if (states[name] === "enforce") states[name] = "report";
  if (rules !== undefined) {
    if (typeof rules !== "object" || rules === null || Array.isArray(rules))
      throw new WymcpOptionError("rules", `rules must be an object of rule states, not ${rules === null ? "null" : typeof rules}`);
    for (const [name, state] of Object.entries(rules)) {
      if (!(RULES as readonly string[]).includes(name))
        throw new WymcpOptionError(
          `rules.${name}`,
          `unknown rule ${JSON.stringify(name)}${didYouMean(name, RULES)}; the rules are ${RULES.join(", ")}`,
        );
      if (state === undefined) continue;
      if (!(RULE_STATES as readonly unknown[]).includes(state))
        throw new WymcpOptionError(
          `rules.${name}`,
          `rules.${name} must be "enforce", "report" or "off", not ${typeof state === "string" ? JSON.stringify(state.slice(0, 40)) : typeof state}${typeof state === "string" ? didYouMean(state, RULE_STATES) : ""}`,
        );
      const needs = NEEDS[name as RuleName];
      if (needs && state !== "off" && !context[needs.has])
        throw new WymcpOptionError(`rules.${name}`, `rules.${name}: ${JSON.stringify(state)} needs ${needs.option}`);
      states[name as RuleName] = state as RuleState;
    }
  }
  return Object.freeze(states);
}

/** The `mode` option: `"enforce"` (the default) or `"report"`. */
export function modeOption(value: unknown): Mode {
  if (value === undefined) return "enforce";
  if ((MODES as readonly unknown[]).includes(value)) return value as Mode;
  const shown = typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : typeof value;
  throw new WymcpOptionError(
    "mode",
    `mode must be "enforce" or "report", not ${shown}${typeof value === "string" ? didYouMean(value, MODES) : ""}`,
  );
}

/** Longest method, client or tool name a report carries, once escaped. */
export const MAX_REPORT_NAME_UNITS = 128;

const CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo";

/**
 * The client's name a message carries, escaped and bounded: a modern request's `params._meta` clientInfo, or a legacy
 * `initialize`'s `params.clientInfo`; `undefined` when it names none.
 */
export function clientOf(body: unknown): string | undefined {
  const params = isObject(body) ? body.params : undefined;
  if (!isObject(params)) return undefined;
  const meta = isObject(params._meta) ? params._meta[CLIENT_INFO_META_KEY] : undefined;
  const info = isObject(meta) ? meta : isObject(params.clientInfo) ? params.clientInfo : undefined;
  return info && typeof info.name === "string" ? escapeText(info.name, MAX_REPORT_NAME_UNITS) : undefined;
}

/** The method a message names, escaped and bounded; `undefined` when it names none as a string. */
export function methodOf(body: unknown): string | undefined {
  const method = isObject(body) ? body.method : undefined;
  return typeof method === "string" ? escapeText(method, MAX_REPORT_NAME_UNITS) : undefined;
}

/**
 * The report of a client's message `rule` would have refused: its method, id and client read from `body` (when it
 * parsed), and what enforcing would have answered.
 */
export function inboundReport(
  rule: RuleName,
  body: unknown,
  era: Era | undefined,
  answer: {
    status?: number | undefined;
    code?: number | undefined;
    message: string;
    errors?: readonly LocatedError[] | undefined;
    omitted?: number | undefined;
  },
): Report {
  const report: Report = {
    rule,
    direction: "in",
    era,
    method: methodOf(body),
    id: body === undefined ? undefined : answerId(body),
    client: clientOf(body),
    message: answer.message,
  };
  if (answer.status !== undefined) report.status = answer.status;
  if (answer.code !== undefined) report.code = answer.code;
  if (answer.errors !== undefined) report.errors = answer.errors;
  if (answer.omitted !== undefined) report.omitted = answer.omitted;
  return report;
}

/** Hands a report to a face's `onReport`; a hook that throws changes nothing (the message goes on all the same). */
export function deliverReport(onReport: ((report: Report) => void) | undefined, report: Report): void {
  if (!onReport) return;
  try {
    onReport(report);
  } catch {
    // A logging hook must not break a message that goes on.
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
