/**
 * @module Per message: in-process, warmed, time-boxed rounds; within a round every variant of a message runs once,
 * in an order rotated round by round, so that ratios compare figures taken under the same noise.
 */
import type { ValidateFunction } from "ajv";
import type * as Zod from "@modelcontextprotocol/core";
import type { Validator } from "../generated/validator.js";
import type { validateMcpRequest as ValidateMcpRequest } from "../src/core/validate.js";
import { entriesLength } from "../src/core/distill.js";
import { JoinedHeaders } from "../src/core/header-body.js";
import { resolveRules } from "../src/core/rules.js";
import { compileLoop, spread, timeBox, warm, type Spread } from "./measure.js";
import type { BenchMessage, BenchMessages } from "./messages.js";

export interface Variant {
  key: string;
  label: string;
  /** The loop's body evaluates this with `arg` bound to the text (`JSON.parse` variants), its UTF-8 bytes, or the parsed value. */
  expression: string;
  input: "text" | "bytes" | "value";
  deps: Record<string, unknown>;
  /** Checked once before timing: a benchmark of the wrong outcome measures nothing. */
  expect: (result: unknown) => boolean;
}

export interface Case {
  message: BenchMessage;
  variants: Variant[];
  /** The variant every ops/s is divided by for "× JSON.parse". */
  floor: string;
  /** The Zod variant every ops/s is divided by for "× Zod". */
  zodRef: string;
}

export interface VariantFigures {
  key: string;
  label: string;
  opsPerSec: Spread;
  /** ops/s ÷ the floor's ops/s of the same round. */
  vsParse: Spread;
  /** ops/s ÷ the Zod reference's ops/s of the same round. */
  vsZod: Spread;
}

export interface CaseFigures {
  key: string;
  label: string;
  era: string;
  bytes: number;
  source: string;
  zodRef: string;
  variants: VariantFigures[];
}

export interface Timing {
  warmupMs: number;
  roundMs: number;
  rounds: number;
}

export interface Subjects {
  validateMcpRequest: typeof ValidateMcpRequest;
  /** The nesting bound as the adapters run it (on the parsed value), and the byte scanner it was measured against. */
  depth: { parsed: (value: unknown, max: number) => boolean; bytes: (bytes: Uint8Array, max: number) => boolean; max: number };
  generated: Record<"legacy" | "modern", Record<string, Validator>>;
  boot: Record<string, Record<string, ValidateFunction>>;
  zod: typeof Zod;
}

const isTrue = (r: unknown) => r === true;
const isFalse = (r: unknown) => r === false;
const isObject = (r: unknown) => typeof r === "object" && r !== null;
const isString = (r: unknown) => typeof r === "string";
const is = (want: unknown) => (r: unknown) => r === want;

function parse(): Variant {
  return { key: "parse", label: "JSON.parse alone (floor)", expression: "JSON.parse(arg)", input: "text", deps: {}, expect: isObject };
}

/**
 * The variants shared by every valid message: wymcp three ways, Ajv at boot, and Zod. `protocolVersion` is the
 * request's header, which picks the legacy revision judging a known method (none: 2025-03-26).
 */
function validVariants(
  s: Subjects,
  m: BenchMessage,
  names: { framing: string; method?: string; outcome: "pass" | "bypass"; zodSchema?: string; protocolVersion?: string },
): Variant[] {
  const era = m.era;
  const gen = s.generated[era];
  const boot = s.boot[era]!;
  const both = names.method ? "framing(arg) && method(arg)" : "framing(arg)";
  const shown = names.method ? `${names.framing} + ${names.method}` : names.framing;
  const vmr = names.outcome === "bypass" ? "validateMcpRequest (bypass: not validated)" : "validateMcpRequest (parsed body)";
  const options = { protocolVersion: names.protocolVersion };
  const variants: Variant[] = [
    parse(),
    {
      key: "vmr",
      label: vmr,
      expression: `validate(arg, ${JSON.stringify(era)}, options).outcome`,
      input: "value",
      deps: { validate: s.validateMcpRequest, options },
      expect: is(names.outcome),
    },
    {
      // The same call asserting every format (formats: "strict"): the flag is set and restored around it.
      key: "vmr-strict",
      label: `${vmr.replace(" (parsed body)", "")}, formats: "strict"`,
      expression: `validate(arg, ${JSON.stringify(era)}, strict).outcome`,
      input: "value",
      deps: { validate: s.validateMcpRequest, strict: { ...options, formats: "strict" } },
      expect: is(names.outcome),
    },
    {
      key: "parse-vmr",
      label: "JSON.parse + validateMcpRequest",
      expression: `validate(JSON.parse(arg), ${JSON.stringify(era)}, options).outcome`,
      input: "text",
      deps: { validate: s.validateMcpRequest, options },
      expect: is(names.outcome),
    },
    {
      key: "raw",
      label: `generated ${era} ${shown}`,
      expression: both,
      input: "value",
      deps: { framing: gen[names.framing], method: names.method && gen[names.method] },
      expect: isTrue,
    },
    {
      key: "ajv-boot",
      label: `Ajv at boot, same ${shown}`,
      expression: both,
      input: "value",
      deps: { framing: boot[names.framing], method: names.method && boot[names.method] },
      expect: isTrue,
    },
    {
      key: "zod-framing",
      label: "Zod JSONRPCMessageSchema.safeParse",
      expression: "framing.safeParse(arg).success",
      input: "value",
      deps: { framing: s.zod.JSONRPCMessageSchema },
      expect: isTrue,
    },
  ];
  if (names.zodSchema) {
    const schema = (s.zod as unknown as Record<string, unknown>)[names.zodSchema];
    variants.push(
      {
        key: "zod-schema",
        label: `Zod ${names.zodSchema}.safeParse`,
        expression: "schema.safeParse(arg).success",
        input: "value",
        deps: { schema },
        expect: isTrue,
      },
      {
        key: "zod-sdk",
        label: `Zod JSONRPCMessageSchema then ${names.zodSchema} (SDK inbound path)`,
        expression: "framing.safeParse(arg).success && schema.safeParse(arg).success",
        input: "value",
        deps: { framing: s.zod.JSONRPCMessageSchema, schema },
        expect: isTrue,
      },
    );
  }
  return variants;
}

/** The nesting bound two ways (the deciding measurement), and the whole gate path from the bytes with it. */
function depthVariants(s: Subjects, m: BenchMessage): Variant[] {
  const deps = { parsed: s.depth.parsed, bytes: s.depth.bytes, validate: s.validateMcpRequest, max: s.depth.max };
  const isFalse = (r: unknown) => r === false;
  return [
    {
      key: "depth-parsed",
      label: `depth check on the parsed value (the adapters' check, maxDepth ${s.depth.max})`,
      expression: "parsed(arg, max)",
      input: "value",
      deps,
      expect: isFalse,
    },
    {
      key: "depth-bytes",
      label: "depth check on the bytes (scanner, before JSON.parse)",
      expression: "bytes(arg, max)",
      input: "bytes",
      deps,
      expect: isFalse,
    },
    {
      key: "parse-depth-vmr",
      label: "JSON.parse + depth check + validateMcpRequest (the gate from the bytes)",
      expression: `((v) => parsed(v, max) ? "too deep" : validate(v, ${JSON.stringify(m.era)}).outcome)(JSON.parse(arg))`,
      input: "text",
      deps,
      expect: (r) => r === "pass",
    },
  ];
}

/**
 * `validateMcpRequest` with the transport's header rules on, three ways a face holds the request's headers, each
 * agreeing with the body: Node's headers as the Node gates pass them (`JoinedHeaders`), a plain object with
 * lower-case keys (Node's `req.headers` itself), and a Fetch `Headers` (what the Fetch gates pass). The values are
 * strings of their own, as an HTTP parser makes them, never the body's. Against `vmr`, the rules' cost.
 */
function headerVariants(s: Subjects, m: BenchMessage): Variant[] {
  const body = m.value as { method: string; params: { name: string; _meta: Record<string, string> } };
  // A copy, character by character: a header value is never the very string JSON.parse made for the body.
  const own = (value: string) => [...value].join("");
  const raw: Record<string, string> = {
    host: "127.0.0.1:3000",
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "content-length": String(m.bytes),
    "mcp-protocol-version": own(body.params._meta["io.modelcontextprotocol/protocolVersion"]!),
    "mcp-method": own(body.method),
    "mcp-name": own(body.params.name),
    "user-agent": "node",
    connection: "keep-alive",
  };
  // As the Node faces hand them to the rules (hosts/shared/node-gate.ts): Node's headers, and their values apart.
  const distinct = Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, [value]]));
  const reader = new JoinedHeaders({ headers: raw, headersDistinct: distinct });
  const variant = (key: string, label: string, headers: unknown, more: object = {}): Variant => ({
    key,
    label,
    expression: `validate(arg, "modern", options).outcome`,
    input: "value",
    deps: { validate: s.validateMcpRequest, options: { headers, ...more } },
    expect: is("pass"),
  });
  // The rule states a face hands validation, resolved once when it is built: by default, and under `mode: "report"`.
  const context = { hosts: false, versions: false, outbound: false, lock: false };
  const [enforcing, reporting] = [resolveRules(undefined, undefined, context), resolveRules(undefined, "report", context)];
  return [
    variant(
      "vmr-headers",
      "validateMcpRequest + header rules, Node's headers as the Node faces pass them (MCP-Protocol-Version, Mcp-Method, Mcp-Name)",
      reader,
    ),
    variant("vmr-headers-plain", "validateMcpRequest + header rules, a plain object with lower-case keys", raw),
    variant("vmr-headers-fetch", "validateMcpRequest + header rules, a Fetch Headers", new Headers(raw)),
    variant(
      "vmr-headers-enforce",
      "validateMcpRequest + header rules, Node's headers, the default rule states as a face passes them",
      reader,
      {
        rules: enforcing,
      },
    ),
    variant("vmr-headers-report", 'validateMcpRequest + header rules, Node\'s headers, every rule in "report" (mode: "report")', reader, {
      rules: reporting,
    }),
  ];
}

export function messageCases(s: Subjects, m: BenchMessages): Case[] {
  const toolsCall = { framing: "JSONRPCRequest", method: "CallToolRequest", outcome: "pass", zodSchema: "CallToolRequestSchema" } as const;
  return [
    {
      message: m.toolsCall,
      variants: [...validVariants(s, m.toolsCall, toolsCall), ...headerVariants(s, m.toolsCall), ...depthVariants(s, m.toolsCall)],
      floor: "parse",
      zodRef: "zod-schema",
    },
    {
      message: m.bigToolsCall,
      variants: [...validVariants(s, m.bigToolsCall, toolsCall), ...depthVariants(s, m.bigToolsCall)],
      floor: "parse",
      zodRef: "zod-schema",
    },
    {
      message: m.legacyToolsCall,
      variants: validVariants(s, m.legacyToolsCall, { ...toolsCall, protocolVersion: "2025-11-25" }),
      floor: "parse",
      zodRef: "zod-schema",
    },
    {
      // Its protocolVersion (2025-11-25) names the revision that judges it.
      message: m.initialize,
      variants: validVariants(s, m.initialize, {
        framing: "JSONRPCRequest",
        method: "InitializeRequest",
        outcome: "pass",
        zodSchema: "InitializeRequestSchema",
      }),
      floor: "parse",
      zodRef: "zod-framing",
    },
    {
      // No header: judged by 2025-03-26, whose CancelledNotification is the one 2024-11-05 defined.
      message: m.notification,
      variants: validVariants(s, m.notification, {
        framing: "JSONRPCNotification",
        method: "CancelledNotification_2024_11_05",
        outcome: "pass",
        zodSchema: "CancelledNotificationSchema",
      }),
      floor: "parse",
      zodRef: "zod-framing",
    },
    {
      message: m.response,
      variants: validVariants(s, m.response, { framing: "JSONRPCMessage", outcome: "bypass" }),
      floor: "parse",
      zodRef: "zod-framing",
    },
  ];
}

/** The error path: a tools/call that fails CallToolRequest at two locations. */
export function errorCase(s: Subjects, m: BenchMessages): Case {
  const gen = s.generated.modern;
  const validate = s.validateMcpRequest;
  const schema = s.zod.CallToolRequestSchema;
  return {
    message: m.badToolsCall,
    floor: "parse",
    zodRef: "zod-schema",
    variants: [
      parse(),
      {
        key: "vmr",
        label: "validateMcpRequest → reject (validation + distillation + envelope)",
        expression: 'validate(arg, "modern").outcome',
        input: "value",
        deps: { validate },
        expect: is("reject"),
      },
      {
        key: "vmr-bytes",
        label: "  … + JSON.stringify of the answer",
        expression: 'JSON.stringify(validate(arg, "modern").response)',
        input: "value",
        deps: { validate },
        expect: isString,
      },
      {
        key: "raw",
        label: "generated JSONRPCRequest + CallToolRequest (errors collected, not distilled)",
        expression: "(framing(arg), method(arg))",
        input: "value",
        deps: { framing: gen.JSONRPCRequest, method: gen.CallToolRequest },
        expect: isFalse,
      },
      {
        key: "zod-schema",
        label: "Zod CallToolRequestSchema.safeParse → error",
        expression: "schema.safeParse(arg).success",
        input: "value",
        deps: { schema },
        expect: isFalse,
      },
      {
        key: "zod-sdk",
        label: "Zod JSONRPCMessageSchema then CallToolRequestSchema (SDK inbound path)",
        expression: "framing.safeParse(arg).success && schema.safeParse(arg).success",
        input: "value",
        deps: { framing: s.zod.JSONRPCMessageSchema, schema },
        expect: isFalse,
      },
      {
        // What the SDK's server does with a failed request: triState() answers `message: String(parsed.error)`.
        key: "zod-message",
        label: "Zod safeParse + String(error) (the SDK server's own error path)",
        expression: "String(schema.safeParse(arg).error)",
        input: "value",
        deps: { schema },
        expect: isString,
      },
    ],
  };
}

/**
 * The long error path: 20 locations, so distill.ts measures the answer's UTF-8 size. Beside the rejection, three
 * ways to take that size on the very entries the answer lists: what ships (`entriesLength`, no JSON built), what
 * shipped before (`JSON.stringify` then Node's `Buffer.byteLength`; Node only), and the portable `TextEncoder`.
 */
export function longErrorCase(s: Subjects, m: BenchMessages): Case {
  const gen = s.generated.modern;
  const validate = s.validateMcpRequest;
  const schema = s.zod.GetPromptRequestSchema;
  const answer = validate(m.longErrorList.value, "modern");
  if (answer.outcome !== "reject") throw new Error("the long error list must be rejected");
  const entries = answer.response.error.data?.errors ?? [];
  const encoder = new TextEncoder();
  const bytes = entriesLength(entries);
  return {
    message: m.longErrorList,
    floor: "parse",
    zodRef: "zod-schema",
    variants: [
      parse(),
      {
        key: "vmr",
        label: "validateMcpRequest → reject (validation + distillation + envelope)",
        expression: 'validate(arg, "modern").outcome',
        input: "value",
        deps: { validate },
        expect: is("reject"),
      },
      {
        key: "raw",
        label: "generated JSONRPCRequest + GetPromptRequest (errors collected, not distilled)",
        expression: "(framing(arg), method(arg))",
        input: "value",
        deps: { framing: gen.JSONRPCRequest, method: gen.GetPromptRequest },
        expect: isFalse,
      },
      {
        key: "zod-schema",
        label: "Zod GetPromptRequestSchema.safeParse → error",
        expression: "schema.safeParse(arg).success",
        input: "value",
        deps: { schema },
        expect: isFalse,
      },
      {
        key: "entries-length",
        label: `  UTF-8 size of the listed entries (${bytes} B): entriesLength (shipped)`,
        expression: "count(entries)",
        input: "value",
        deps: { count: entriesLength, entries },
        expect: is(bytes),
      },
      {
        key: "buffer-bytelength",
        label: "  same: Buffer.byteLength(JSON.stringify(…)) (before; Node only)",
        expression: "count(JSON.stringify(entries))",
        input: "value",
        deps: { count: Buffer.byteLength, entries },
        expect: is(bytes),
      },
      {
        key: "text-encoder",
        label: "  same: TextEncoder.encode(JSON.stringify(…)).length",
        expression: "encoder.encode(JSON.stringify(entries)).length",
        input: "value",
        deps: { encoder, entries },
        expect: is(bytes),
      },
    ],
  };
}

export function runCase(c: Case, timing: Timing): CaseFigures {
  const prepared = c.variants.map((v) => {
    const arg = v.input === "text" ? c.message.text : v.input === "bytes" ? new TextEncoder().encode(c.message.text) : c.message.value;
    const once = compileLoop(`(globalThis.__wymcpBenchOnce = (${v.expression}), 0)`, v.deps);
    once(arg, 1);
    const result = (globalThis as { __wymcpBenchOnce?: unknown }).__wymcpBenchOnce;
    if (!v.expect(result)) {
      throw new Error(`${c.message.label} / ${v.label}: unexpected outcome ${JSON.stringify(result)?.slice(0, 200)}`);
    }
    return { v, arg, loop: compileLoop(v.expression, v.deps), batch: 1 };
  });
  delete (globalThis as { __wymcpBenchOnce?: unknown }).__wymcpBenchOnce;
  for (const p of prepared) p.batch = warm(p.loop, p.arg, timing.warmupMs);

  const ops = new Map<string, number[]>(prepared.map((p) => [p.v.key, []]));
  for (let round = 0; round < timing.rounds; round++) {
    for (let i = 0; i < prepared.length; i++) {
      const p = prepared[(i + round) % prepared.length]!;
      ops.get(p.v.key)!.push(timeBox(p.loop, p.arg, p.batch, timing.roundMs));
    }
  }
  const floor = ops.get(c.floor)!;
  const zod = ops.get(c.zodRef)!;
  return {
    key: c.message.key,
    label: c.message.label,
    era: c.message.era,
    bytes: c.message.bytes,
    source: c.message.source,
    zodRef: c.variants.find((v) => v.key === c.zodRef)!.label,
    variants: prepared.map(({ v }) => {
      const mine = ops.get(v.key)!;
      return {
        key: v.key,
        label: v.label,
        opsPerSec: spread(mine),
        vsParse: spread(mine.map((x, r) => x / floor[r]!)),
        vsZod: spread(mine.map((x, r) => x / zod[r]!)),
      };
    }),
  };
}
