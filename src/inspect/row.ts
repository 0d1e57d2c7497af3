/**
 * @module row: one judged message as the inspector shows it, and the facts of its columns read from the verdict that
 * `wymcp check` gives (check/judge.ts). No host type: the server and the page both read it.
 */
import { isResponse } from "../wire/is-response.js";
import type { LocatedError } from "../core/envelope.js";
import type { OutboundVerdict, Verdict } from "../check/judge.js";
import type { OwnAnswer } from "../log/gate-log.js";
import type { RuleName } from "../core/rules.js";

/** What a rule in report would have refused of a message, as the page lists it: the rule, and what enforcing would answer. */
export interface RowReport {
  rule: RuleName;
  status?: number | undefined;
  code?: number | undefined;
  message: string;
  locations: LocatedError[];
}

/** A judged message, as the judging hands it over. */
export interface RowInput {
  verdict: Verdict;
  body: unknown;
  /** The message's text as captured; undefined when it was over the size limit. */
  text: string | undefined;
}

export interface InspectRow extends RowInput {
  /** Its number in the order rows were pushed, from 1. */
  seq: number;
  /** When it was judged (milliseconds since the epoch). */
  time: number;
}

/** What the columns show. */
export interface RowFacts {
  /** `in`: a client's message as the gates judge it; `out`: a server's (or a client's answer), as wymcp/outbound does. */
  direction: "in" | "out";
  era: string;
  revision: string;
  /** The method, its request's for a response; with the tool or prompt name where the message names one. */
  method: string;
  verdict: "pass" | "reject" | "bypass" | "violation";
  /** The JSON-RPC code: the one the gate answers with for a rejection, else an error response's own. */
  code: number | undefined;
  /** Each failing location of the message (a JSON Pointer) with its messages. */
  locations: LocatedError[];
  /** An answer that is an error: a JSON-RPC error, or a tool's result with `isError` (whatever the verdict on its shape). */
  error: "error" | "tool error" | undefined;
  /** wymcp's own answer, not the server's. */
  own: OwnAnswer | undefined;
  /** What the verdict column says: wymcp's answer (`refused`, `failed`), an error answer, `would refuse`, or the verdict. */
  shown: string;
  /** Each rule in report the message fails (the gate's judging and, live, the face's after admitting it): the page's "would refuse". */
  reports: RowReport[];
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * The columns of a row.
 * @example rowFacts(row).method // "tools/call echo"
 */
export function rowFacts({ verdict, body }: RowInput): RowFacts {
  const message = record(body);
  const own = typeof message?.method === "string" ? message.method : undefined;
  let method = own ?? verdict.method ?? (isResponse(message) ? "(response)" : "");
  const name = record(message?.params)?.name;
  if (own !== undefined && typeof name === "string" && (own === "tools/call" || own === "prompts/get")) method = `${own} ${name}`;
  let code = record(record(message)?.error)?.code as number | undefined;
  let locations: LocatedError[] = [];
  if (verdict.outcome === "reject") {
    code = verdict.response.error.code;
    locations = verdict.response.error.data?.errors ?? [];
  } else if (verdict.outcome === "violation") locations = verdict.violations?.errors ?? [];
  const revision =
    "revision" in verdict && verdict.revision !== undefined ? verdict.revision : verdict.era === "modern" ? "2026-07-28" : "";
  const error = isResponse(message)
    ? record(message?.error) !== undefined
      ? "error"
      : record(message?.result)?.isError === true
        ? "tool error"
        : undefined
    : undefined;
  const { own: wymcp } = verdict;
  const reports = reportsOf(verdict);
  // A message handed on that a rule in report would have refused: its first report's locations are marked.
  if (reports.length > 0 && locations.length === 0) locations = reports[0]!.locations;
  // A message the verdict faults reads as such; else wymcp's own answer, else one a rule would refuse, else an error answer.
  const faulted = verdict.outcome === "reject" || verdict.outcome === "violation";
  return {
    direction: verdict.direction,
    era: verdict.era ?? "",
    revision,
    method,
    verdict: verdict.outcome,
    code: typeof code === "number" ? code : undefined,
    locations,
    error,
    own: wymcp,
    shown: faulted
      ? verdict.outcome
      : wymcp !== undefined
        ? wymcp.answer
        : reports.length > 0
          ? "would refuse"
          : (error ?? verdict.outcome),
    reports,
  };
}

/** A verdict of wymcp/outbound's (check/judge.ts's `judgedOut`, without loading what that module loads). */
function judgedOut(verdict: Verdict): verdict is OutboundVerdict {
  return verdict.direction === "out" && verdict.outcome !== "reject" && verdict.kind !== null;
}

/** The reports a verdict carries: the rules in report its judging found, and the face's own after admission (live). */
export function reportsOf(verdict: Verdict): RowReport[] {
  const out: RowReport[] = [];
  // Judged as wymcp/outbound judges a server's message: the outbound rule's report.
  if (judgedOut(verdict)) {
    if (verdict.reported)
      out.push({ rule: "outbound", message: "the server's message fails its definition", locations: [...verdict.reported.errors] });
    return out;
  }
  if (verdict.outcome === "pass")
    for (const { rule, status, response } of verdict.reported ?? [])
      out.push({ rule, status, code: response.error.code, message: response.error.message, locations: response.error.data?.errors ?? [] });
  for (const { rule, status, code, message, errors } of verdict.reports ?? [])
    out.push({ rule, status, code, message, locations: [...(errors ?? [])] });
  return out;
}

/** The key a request row is found by from the response that answers it (`verdict.answers`). */
export function positionKey(source: string, line: number, part: string | undefined): string {
  return `${source}\u0000${line}\u0000${part ?? ""}`;
}
