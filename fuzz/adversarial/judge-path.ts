/**
 * @module fuzz/adversarial/judge-path: the whole judgement a message gets after parsing, as each host runs it:
 * inbound the core's admission stage on a parsed body (the nesting bound, the SDK's routing, validateMcpRequest);
 * outbound validateMcpResponse; and the CLI's `judge` (check/judge.ts), which parses the bytes itself. Used by the
 * bench, the tests and the HTTP fuzzer.
 */
import { judgeBody } from "../../src/core/admission.js";
import { classifyEra } from "../../src/core/era.js";
import type { Formats } from "../../src/core/formats.js";
import { DEFAULT_MAX_BODY_BYTES, resolveLimits } from "../../src/options/options.js";
import { judge as cliJudge, type Verdict } from "../../src/check/judge.js";
import { validateMcpResponse } from "../../src/outbound.js";
import type { Target } from "./cases.js";

export { DEFAULT_MAX_BODY_BYTES };

/** The gates' default limits. */
import { resolveRules } from "../../src/core/rules.js";
const DEFAULTS = resolveLimits({});

/**
 * The limits with the formats policy `formats`. The adversarial path defaults to `"strict"`, the costlier mode: every
 * format's regex runs there, where by default a format costs one property read and refuses nothing.
 */
const settingsFor = (formats: Formats) => ({
  ...DEFAULTS,
  rules: resolveRules({ formats: formats === "strict" ? "enforce" : "off" }, undefined, {
    hosts: false,
    versions: false,
    outbound: false,
    lock: false,
  }),
});

/** The modern era's names for the `Mcp-Name` header: the body member it mirrors (the SDK cross-checks them). */
const NAME_SOURCE: Record<string, string> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/** The headers a client of the target's era sends with the message. */
export function headersFor(target: Target, message: unknown): Record<string, string> {
  const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  if (target.root.protocolVersion) headers["MCP-Protocol-Version"] = target.root.protocolVersion;
  if (target.era !== "modern" || target.direction !== "inbound") return headers;
  headers["MCP-Protocol-Version"] = "2026-07-28";
  const body = message as { method?: unknown; params?: Record<string, unknown> };
  if (typeof body.method === "string") {
    headers["Mcp-Method"] = body.method;
    const source = NAME_SOURCE[body.method];
    const value = source && body.params?.[source];
    if (typeof value === "string" && value.length < 1024) headers["Mcp-Name"] = value;
  }
  return headers;
}

export interface Judged {
  rejected: boolean;
  /** The locations the answer lists (data.errors[].instancePath), in order. */
  locations: string[];
  /** The location the one-line summary names first. */
  first: string;
}

/** The judgement of a parsed message, as its lane's host makes it under the formats policy `formats`. */
export function judgeParsed(target: Target, body: unknown, headers: Record<string, string>, formats: Formats = "strict"): Judged {
  if (target.direction === "inbound") {
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const era = (parsed: unknown) => classifyEra(lower, parsed).era;
    const admission = judgeBody(body, { era, protocolVersion: lower["mcp-protocol-version"] }, settingsFor(formats));
    if (admission.ok) return { rejected: false, locations: [], first: "" };
    if (admission.reason === "nested-too-deeply") return { rejected: true, locations: [], first: "(too deep)" };
    return summary(admission.response.error.message, admission.response.error.data?.errors ?? []);
  }
  const result = validateMcpResponse(body, { era: target.era, method: target.root.method, formats });
  if (result.outcome === "pass") return { rejected: false, locations: [], first: "" };
  return summary(result.violations.message, result.violations.errors);
}

const UNION_ONLY = "must match one of the allowed shapes";

/** The answer's locations; the first is the one its summary names (distill.ts: the first not only "must match one of"). */
function summary(_message: string, errors: ReadonlyArray<{ instancePath: string; messages: string[] }>): Judged {
  const first = errors.find((e) => !(e.messages.length === 1 && e.messages[0] === UNION_ONLY)) ?? errors[0];
  return { rejected: true, locations: errors.map((e) => e.instancePath), first: first?.instancePath ?? "" };
}

/** The CLI's verdict on one message's bytes (it parses them itself), judged in the target's direction. */
export function judgeCli(target: Target, bytes: Buffer, formats: Formats = "strict"): Verdict {
  const headers: Record<string, string> =
    target.era === "modern" && target.direction === "inbound"
      ? { "mcp-protocol-version": "2026-07-28" }
      : target.root.protocolVersion
        ? { "mcp-protocol-version": target.root.protocolVersion }
        : {};
  return cliJudge(
    { source: "adversarial.json", line: 1, bytes },
    {
      direction: target.direction === "inbound" ? "in" : "out",
      era: target.direction === "inbound" ? "auto" : target.era,
      headers,
      method: target.root.method,
      settings: settingsFor(formats),
    },
  ).verdict;
}
