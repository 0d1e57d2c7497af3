/**
 * @module Outbound per message: `validateMcpResponse` on what servers send, against `JSON.parse` of the same bytes
 * (the floor) and the official SDK's Zod schema for the same message (how the SDK checks its own results).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type * as Zod from "@modelcontextprotocol/core";
import type { Validator } from "../generated/validator.js";
import type { validateMcpResponse as ValidateMcpResponse } from "../src/outbound.js";
import type { BenchMessage } from "./messages.js";
import type { Case, Variant } from "./per-message.js";

export interface OutboundSubjects {
  validateMcpResponse: typeof ValidateMcpResponse;
  /** generated/<era>/outbound.js, by era. */
  generated: Record<"legacy" | "modern", Record<string, Validator>>;
  zod: typeof Zod;
}

interface OutboundMessage extends BenchMessage {
  method: string | undefined;
  /** The generated validators validateMcpResponse runs for it: framing, then the definition (on `result` when `ofResult`). */
  framing: string;
  definition: string;
  ofResult: boolean;
  /** The Zod schema the SDK has for the same thing, and whether it applies to `result` or to the whole message. */
  zod: { schema: string; ofResult: boolean };
  outcome: "pass" | "violation";
}

function message(
  _specDir: string,
  m: Omit<OutboundMessage, "text" | "value" | "bytes" | "label" | "source"> & { label: string; body: unknown; source: string },
): OutboundMessage {
  const text = JSON.stringify(m.body);
  const bytes = Buffer.byteLength(text);
  const { body: _body, ...rest } = m;
  return { ...rest, label: `${m.label} (${bytes} B)`, text, value: JSON.parse(text), bytes, source: m.source };
}

function example(specDir: string, path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(specDir, "schema", "2026-07-28", "examples", path), "utf8")) as Record<string, unknown>;
}

export function outboundMessages(specDir: string): OutboundMessage[] {
  const call = example(specDir, "CallToolResultResponse/call-tool-result-response.json");
  const list = example(specDir, "ListToolsResultResponse/list-tools-result-response.json");
  const log = example(specDir, "LoggingMessageNotification/log-database-connection-failed.json");
  const badResult = structuredClone(call.result) as { content: Array<Record<string, unknown>> };
  delete badResult.content[0]!.type;
  const spec = (path: string) => `official example ${path}`;
  return [
    message(specDir, {
      key: "out-tools-call",
      label: "modern tools/call result",
      era: "modern",
      method: "tools/call",
      body: call,
      source: spec("CallToolResultResponse/call-tool-result-response.json"),
      framing: "JSONRPCResultResponse",
      definition: "CallToolResult",
      ofResult: true,
      zod: { schema: "CallToolResultSchema", ofResult: true },
      outcome: "pass",
    }),
    message(specDir, {
      key: "out-tools-list",
      label: "modern tools/list result",
      era: "modern",
      method: "tools/list",
      body: list,
      source: spec("ListToolsResultResponse/list-tools-result-response.json"),
      framing: "JSONRPCResultResponse",
      definition: "ListToolsResult",
      ofResult: true,
      zod: { schema: "ListToolsResultSchema", ofResult: true },
      outcome: "pass",
    }),
    message(specDir, {
      key: "out-log",
      label: "legacy notifications/message",
      era: "legacy",
      method: undefined,
      body: log,
      source: spec("LoggingMessageNotification/log-database-connection-failed.json"),
      framing: "JSONRPCNotification",
      definition: "LoggingMessageNotification",
      ofResult: false,
      zod: { schema: "LoggingMessageNotificationSchema", ofResult: false },
      outcome: "pass",
    }),
    message(specDir, {
      key: "out-bad-tools-call",
      label: "bad modern tools/call result (content[0].type deleted)",
      era: "modern",
      method: "tools/call",
      body: { ...call, result: badResult },
      source: `${spec("CallToolResultResponse/call-tool-result-response.json")} with content[0].type deleted`,
      framing: "JSONRPCResultResponse",
      definition: "CallToolResult",
      ofResult: true,
      zod: { schema: "CallToolResultSchema", ofResult: true },
      outcome: "violation",
    }),
  ];
}

const is = (want: unknown) => (r: unknown) => r === want;

export function outboundCases(s: OutboundSubjects, messages: OutboundMessage[]): Case[] {
  return messages.map((m) => {
    const context = JSON.stringify({ era: m.era, method: m.method });
    const gen = s.generated[m.era];
    const definition = gen[m.definition];
    const raw = m.ofResult
      ? `(framing(arg), definition(arg.result, { instancePath: "/result", parentData: arg, parentDataProperty: "result", rootData: arg }))`
      : "(framing(arg), definition(arg))";
    const zodSchema = (s.zod as unknown as Record<string, unknown>)[m.zod.schema];
    const variants: Variant[] = [
      {
        key: "parse",
        label: "JSON.parse alone (floor)",
        expression: "JSON.parse(arg)",
        input: "text",
        deps: {},
        expect: (r) => typeof r === "object" && r !== null,
      },
      {
        key: "vmr",
        label: `validateMcpResponse (parsed message) → ${m.outcome}`,
        expression: `validate(arg, ${context}).outcome`,
        input: "value",
        deps: { validate: s.validateMcpResponse },
        expect: is(m.outcome),
      },
      {
        key: "parse-vmr",
        label: "JSON.parse + validateMcpResponse",
        expression: `validate(JSON.parse(arg), ${context}).outcome`,
        input: "text",
        deps: { validate: s.validateMcpResponse },
        expect: is(m.outcome),
      },
      {
        key: "raw",
        label: `generated ${m.era} outbound ${m.framing} + ${m.definition}${m.outcome === "violation" ? " (errors collected, not distilled)" : ""}`,
        expression: raw,
        input: "value",
        deps: { framing: gen[m.framing], definition },
        expect: is(m.outcome === "pass"),
      },
      {
        key: "zod",
        label: `Zod ${m.zod.schema}.safeParse (the SDK's own check)`,
        expression: m.zod.ofResult ? "schema.safeParse(arg.result).success" : "schema.safeParse(arg).success",
        input: "value",
        deps: { schema: zodSchema },
        // Zod's schemas are the SDK's, not the spec's: whatever it answers is timed, not judged.
        expect: (r) => typeof r === "boolean",
      },
    ];
    return { message: m, variants, floor: "parse", zodRef: "zod" };
  });
}
