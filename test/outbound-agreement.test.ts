/**
 * wymcp's outbound check and the conformance suite's `wire-schema-valid` agree on what a conforming server sends.
 * SDK clients of both eras drive the conformance server (report mode on); a fetch wrapper records every JSON-RPC
 * message the server sends them (JSON bodies and SSE events, POST answers and GET streams). Each message is then
 * judged twice: by `validateMcpResponse`, and by the suite's rule restated here from what the suite does
 * (@modelcontextprotocol/conformance 0.2.0-alpha.12): the official schema of the negotiated revision compiled by
 * Ajv at run time, `NumberSchema`'s minimum/maximum/default retyped `number` in 2025-06-18 and 2025-11-25, a
 * message with a `method` judged by whichever definition pins that method (any direction), an error (not null)
 * by the definition pinning its `code`, a result by `InputRequiredResult` when `resultType` is `input_required`
 * and otherwise by the name rule `XRequest` → `XResult` (no exceptions), then by the result envelope.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { launchExample, type LaunchedExample } from "../examples/launch.js";
import type { Era } from "../src/core/era.js";
import { validateMcpResponse } from "../src/outbound.js";
import { readSpecSchema, repoRoot, type JsonObject } from "./support/spec.js";

const REVISION: Record<Era, string> = { legacy: "2025-11-25", modern: "2026-07-28" };

// ---------------------------------------------------------------------------------------------------------
// The suite's rule, restated.

/** The union names the suite leaves out when it maps methods and codes to definitions. */
const UNIONS = new Set([
  "ClientRequest",
  "ClientNotification",
  "ClientResult",
  "ClientMessage",
  "ServerRequest",
  "ServerNotification",
  "ServerResult",
  "ServerMessage",
]);

interface SuiteRule {
  defs: Record<string, JsonObject>;
  byMethod: Map<string, string>;
  byCode: Map<number, string>;
  resultOf: Map<string, string>;
  validator(name: string): ValidateFunction;
}

const rules = new Map<string, SuiteRule>();

function suiteRule(revision: string): SuiteRule {
  const known = rules.get(revision);
  if (known) return known;
  const schema = readSpecSchema(revision);
  const defs = schema.$defs as Record<string, JsonObject>;
  // The suite's one erratum: these NumberSchema members are integers in the file but numbers in the spec's prose.
  if (revision === "2025-06-18" || revision === "2025-11-25") {
    for (const member of ["minimum", "maximum", "default"]) {
      const property = (defs.NumberSchema?.properties as Record<string, { type?: string }> | undefined)?.[member];
      if (property?.type === "integer") property.type = "number";
    }
  }
  // The suite checks uri and uri-template with ajv-formats and accepts any `byte`; uri and uri-template come from
  // schemas/formats.json here (ajv-formats is not a dependency), which agrees on every value these clients receive.
  const formats = JSON.parse(readFileSync(join(repoRoot, "schemas", "formats.json"), "utf8")) as Record<string, string>;
  const ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    formats: { uri: new RegExp(formats.uri!, "u"), "uri-template": new RegExp(formats["uri-template"]!, "u"), byte: true },
  });
  const id = `urn:suite:${revision}`;
  ajv.addSchema({ ...schema, $id: id });
  const byMethod = new Map<string, string>();
  const byCode = new Map<number, string>();
  const resultOf = new Map<string, string>();
  for (const [name, def] of Object.entries(defs)) {
    if (UNIONS.has(name)) continue;
    const properties = (def.properties ?? {}) as Record<string, JsonObject>;
    const method = properties.method?.const;
    if (typeof method === "string") {
      byMethod.set(method, name);
      if (name.endsWith("Request") && `${name.slice(0, -"Request".length)}Result` in defs)
        resultOf.set(method, `${name.slice(0, -"Request".length)}Result`);
    }
    for (const part of (properties.error?.allOf ?? []) as JsonObject[]) {
      const code = (part.properties as Record<string, JsonObject> | undefined)?.code?.const;
      if (typeof code === "number") byCode.set(code, name);
    }
  }
  const cache = new Map<string, ValidateFunction>();
  const rule: SuiteRule = {
    defs,
    byMethod,
    byCode,
    resultOf,
    validator(name) {
      let validate = cache.get(name);
      if (!validate) cache.set(name, (validate = ajv.compile({ $ref: `${id}#/$defs/${name}` })));
      return validate;
    },
  };
  rules.set(revision, rule);
  return rule;
}

/** The suite's verdict on one message the server sent: "valid", or "invalid <definition>". */
function suiteVerdict(revision: string, message: unknown, method: string | undefined): string {
  const rule = suiteRule(revision);
  const judge = (definition: string, value: unknown) => (rule.validator(definition)(value) ? "valid" : `invalid ${definition}`);
  // A batch: every 2025-11-25 and later JSONRPCMessage refuses an array, whatever its elements.
  if (Array.isArray(message)) return "invalid JSONRPCMessage";
  const m = (typeof message === "object" && message !== null ? message : {}) as Record<string, unknown>;
  if (typeof m.method === "string")
    return judge(rule.byMethod.get(m.method) ?? ("id" in m ? "JSONRPCRequest" : "JSONRPCNotification"), message);
  if (m.error !== undefined && m.error !== null) {
    const code = (m.error as { code?: unknown }).code;
    return judge((typeof code === "number" ? rule.byCode.get(code) : undefined) ?? "JSONRPCErrorResponse", message);
  }
  if (m.result !== undefined) {
    const resultType = (m.result as { resultType?: unknown } | null)?.resultType;
    const definition =
      resultType === "input_required" && "InputRequiredResult" in rule.defs
        ? "InputRequiredResult"
        : resultType !== "task" && method !== undefined
          ? rule.resultOf.get(method)
          : undefined;
    if (definition && judge(definition, m.result) !== "valid") return `invalid ${definition}`;
    return judge("JSONRPCResultResponse", message);
  }
  return "invalid JSONRPCMessage";
}

const wymcpVerdict = (era: Era, message: unknown, method: string | undefined) => {
  // The suite asserts uri and uri-template, as formats: "strict" does (which asserts byte too).
  const result = validateMcpResponse(message, method === undefined ? { era, formats: "strict" } : { era, method, formats: "strict" });
  return result.outcome === "pass" ? "valid" : `invalid ${result.definition}`;
};

// ---------------------------------------------------------------------------------------------------------
// Capture: what the server sends, as the client receives it.

interface Captured {
  era: Era;
  /** The answered request's method for a response, the message's own otherwise. */
  method: string | undefined;
  message: unknown;
}

/** Splits an SSE body into the JSON of its `data:` events, as they complete (a GET stream never ends by itself). */
async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let text = "";
  let data: string[] = [];
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    const lines = text.split(/\r\n|\r|\n/);
    text = lines.pop()!;
    for (const line of lines) {
      if (line === "") {
        // An event without data (the SDK's priming event for resumption) carries no message.
        if (data.join("").trim() !== "") yield data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
  }
}

/** A fetch for the SDK's transport that hands the response on untouched and records a clone's messages. */
function recordingFetch(era: Era, into: Captured[], reading: Promise<void>[]) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    const asked = new Map<unknown, string>();
    if (typeof init?.body === "string") {
      const sent = JSON.parse(init.body) as unknown;
      for (const m of (Array.isArray(sent) ? sent : [sent]) as { id?: unknown; method?: unknown }[]) {
        if (typeof m.method === "string" && m.id !== undefined) asked.set(m.id, m.method);
      }
    }
    const record = (json: string) => {
      let message: unknown = json;
      try {
        message = JSON.parse(json);
      } catch {
        // Kept as the raw text: both rules then judge a non-message, so the test fails rather than losing it.
      }
      const m = (typeof message === "object" && message !== null ? message : {}) as Record<string, unknown>;
      into.push({ era, method: typeof m.method === "string" ? m.method : asked.get(m.id), message });
    };
    const type = response.headers.get("content-type") ?? "";
    const copy = response.clone();
    reading.push(
      (async () => {
        if (type.startsWith("application/json")) record(await copy.text());
        else if (type.startsWith("text/event-stream") && copy.body) for await (const json of sseData(copy.body)) record(json);
      })().catch(() => undefined), // a stream the client aborts (its GET at close) ends here; what was read is recorded
    );
    return response;
  };
}

const dir = mkdtempSync(join(tmpdir(), "wymcp-outbound-agreement-"));
const reportFile = join(dir, "outbound.jsonl");
let server: LaunchedExample | undefined;
const captured: Captured[] = [];
const negotiated: Record<Era, string | undefined> = { legacy: undefined, modern: undefined };

async function session(era: Era, use: (client: Client) => Promise<void>): Promise<void> {
  const reading: Promise<void>[] = [];
  const client = new Client(
    { name: "wymcp-outbound-agreement", version: "0.0.0" },
    {
      capabilities: { sampling: {}, elicitation: {}, roots: {} },
      ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    },
  );
  client.setRequestHandler("sampling/createMessage", async () => ({
    model: "test-model",
    role: "assistant",
    content: { type: "text", text: "Paris" },
  }));
  client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Ada", context: "tests" } }));
  client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
  await client.connect(new StreamableHTTPClientTransport(server!.url, { fetch: recordingFetch(era, captured, reading) }));
  try {
    negotiated[era] = client.getNegotiatedProtocolVersion();
    await use(client);
  } finally {
    await client.close();
    await Promise.all(reading);
  }
}

/** Calls that send every kind of message the suite's server scenarios see, and one error each. */
async function common(client: Client): Promise<void> {
  await client.listTools();
  await client.callTool({ name: "test_simple_text", arguments: {} });
  await client.callTool({ name: "test_multiple_content_types", arguments: {} });
  await client.callTool({ name: "test_error_handling", arguments: {} });
  await client.callTool({ name: "test_tool_with_progress", arguments: {} }, { onprogress: () => undefined });
  await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} });
  await client.callTool({ name: "test_input_required_result_sampling", arguments: {} });
  await client.listPrompts();
  await client.getPrompt({ name: "test_prompt_with_image" });
  await client.getPrompt({ name: "test_input_required_result_prompt" });
  await client.listResources();
  await client.listResourceTemplates();
  await client.readResource({ uri: "test://static-binary" });
  await client.readResource({ uri: "test://template/7/data" });
  await client.complete({ ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "a" } });
  await assert.rejects(client.readResource({ uri: "test://no-such-resource" }));
}

before(async () => {
  server = await launchExample({
    script: "examples/conformance-server.ts",
    env: { WYMCP_GATE: "on", WYMCP_OUTBOUND: "report", WYMCP_OUTBOUND_FILE: reportFile },
  });
  await session("legacy", async (client) => {
    await common(client);
    await client.setLoggingLevel("info");
    await client.callTool({ name: "test_tool_with_logging", arguments: {} });
    // Push-style requests of the 2025 era, on the call's SSE stream.
    await client.callTool({ name: "test_sampling", arguments: { prompt: "Capital of France?" } });
    await client.callTool({ name: "test_elicitation", arguments: { message: "Continue?" } });
    await client.callTool({ name: "test_input_required_result_list_roots", arguments: {} });
    await client.ping();
  });
  await session("modern", common);
  await server.stop();
});

after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A short name for what a message is, for coverage and for failure messages. */
function label({ era, method, message }: Captured): string {
  if (typeof message !== "object" || message === null) return `${era} not-a-message ${method ?? "-"}`;
  const m = message as Record<string, unknown>;
  const kind =
    "method" in m
      ? "id" in m
        ? "request"
        : "notification"
      : "error" in m
        ? "error"
        : (m.result as { resultType?: string } | undefined)?.resultType === "input_required"
          ? "input_required"
          : "result";
  return `${era} ${kind} ${method ?? "-"}`;
}

describe("validateMcpResponse and the suite's wire-schema-valid agree on the conformance server's traffic", () => {
  test("both eras negotiated the revision the suite would judge them by", () => {
    assert.deepEqual(negotiated, { legacy: REVISION.legacy, modern: REVISION.modern });
  });

  test("the traffic covers results, input_required, errors, notifications and legacy server requests in both eras", () => {
    const seen = new Set(captured.map(label));
    for (const expected of [
      "legacy result initialize",
      "legacy result tools/call",
      "legacy result tools/list",
      "legacy result prompts/get",
      "legacy result resources/read",
      "legacy result completion/complete",
      "legacy result ping",
      "legacy error resources/read",
      "legacy notification notifications/progress",
      "legacy notification notifications/message",
      "legacy request sampling/createMessage",
      "legacy request elicitation/create",
      "legacy request roots/list",
      "modern result tools/call",
      "modern result tools/list",
      "modern result prompts/get",
      "modern result resources/read",
      "modern result completion/complete",
      "modern input_required tools/call",
      "modern input_required prompts/get",
      "modern error resources/read",
      "modern notification notifications/progress",
    ]) {
      assert.ok(seen.has(expected), `no ${expected} among: ${[...seen].sort().join(", ")}`);
    }
  });

  test("every message: both say valid", () => {
    const verdicts = captured.map((c) => ({
      what: label(c),
      wymcp: wymcpVerdict(c.era, c.message, c.method),
      suite: suiteVerdict(REVISION[c.era], c.message, c.method),
    }));
    const notBothValid = verdicts.filter((v) => v.wymcp !== "valid" || v.suite !== "valid");
    assert.deepEqual(notBothValid, []);
    assert.ok(verdicts.length >= 50, `only ${verdicts.length} messages captured`);
  });

  test("the server's own report: every message checked, no violation", () => {
    const records = readFileSync(reportFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      records.filter((r) => r.kind === "violation"),
      [],
    );
    const summary = records.find((r) => r.kind === "summary") as { checked: number; byEra: Record<Era, number> } | undefined;
    // The tap sees every message the client received (and any the client stopped reading), in the same era.
    for (const era of ["legacy", "modern"] as const) {
      const received = captured.filter((c) => c.era === era).length;
      assert.ok(summary && summary.byEra[era] >= received, `${era}: checked ${summary?.byEra[era]}, received ${received}`);
    }
  });

  /** A copy of the first captured message that `pick` accepts, changed by `change`. */
  // biome-ignore lint/suspicious/noExplicitAny: the change edits any captured message shape
  const broken = (pick: (c: Captured) => boolean, change: (m: any) => void): Captured => {
    const found = captured.find(pick);
    assert.ok(found, "no message to break");
    const message = structuredClone(found.message);
    change(message);
    return { ...found, message };
  };
  const is = (what: string) => (c: Captured) => label(c) === what;
  const SDK_405 = { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null };

  test("deliberately broken messages: both say invalid", () => {
    const cases: Record<string, Captured> = {
      "legacy tools/call content item without type": broken(is("legacy result tools/call"), (m) => delete m.result.content[0].type),
      "modern tools/call content item without type": broken(is("modern result tools/call"), (m) => delete m.result.content[0].type),
      "modern tools/call result without resultType": broken(is("modern result tools/call"), (m) => delete m.result.resultType),
      "modern tools/list inputSchema of type string": broken(
        is("modern result tools/list"),
        (m) => (m.result.tools[0].inputSchema = { type: "string" }),
      ),
      "legacy tools/list inputSchema of type string": broken(
        is("legacy result tools/list"),
        (m) => (m.result.tools[0].inputSchema = { type: "string" }),
      ),
      // The schema leaves "at least one of inputRequests or requestState" to prose: a wrong type is what both can see.
      "modern input_required with a numeric requestState": broken(
        is("modern input_required tools/call"),
        (m) => (m.result.requestState = 7),
      ),
      "legacy sampling request with a string maxTokens": broken(
        is("legacy request sampling/createMessage"),
        (m) => (m.params.maxTokens = "100"),
      ),
      "legacy progress notification without progressToken": broken(
        is("legacy notification notifications/progress"),
        (m) => delete m.params.progressToken,
      ),
      "legacy error response with id true": broken(is("legacy error resources/read"), (m) => (m.id = true)),
      "modern error response with a string code": broken(is("modern error resources/read"), (m) => (m.error.code = String(m.error.code))),
    };
    const verdicts = Object.entries(cases).map(([what, c]) => ({
      what,
      wymcp: wymcpVerdict(c.era, c.message, c.method).split(" ")[0],
      suite: suiteVerdict(REVISION[c.era], c.message, c.method).split(" ")[0],
    }));
    assert.deepEqual(
      verdicts,
      Object.keys(cases).map((what) => ({ what, wymcp: "invalid", suite: "invalid" })),
    );
  });

  test("where they differ on purpose (README, Outbound checks), each difference as documented", () => {
    const cases: Array<{ what: string; c: Captured; wymcp: string; suite: string }> = [
      {
        what: "input_required on tools/list: the suite takes it for any method, the schema's ListToolsResultResponse refuses it",
        c: broken(is("modern result tools/list"), (m) => (m.result = { resultType: "input_required", inputRequests: {} })),
        wymcp: "invalid",
        suite: "valid",
      },
      {
        what: "a modern server's request: the suite judges it by the definition of its method, wymcp refuses any",
        c: { era: "modern", method: "ping", message: { jsonrpc: "2.0", id: 9, method: "ping" } },
        wymcp: "invalid",
        suite: "valid",
      },
      // wymcp's erratum (schemas/outbound/errata.json, docs/hosts.md): JSON-RPC 2.0 §5 asks for a null id when it cannot be determined.
      {
        what: "an error response with id null: the suite holds it to RequestId, wymcp accepts JSON-RPC's null",
        c: broken(is("legacy error resources/read"), (m) => (m.id = null)),
        wymcp: "valid",
        suite: "invalid",
      },
      ...(["legacy", "modern"] as const).map((era) => ({
        // Verbatim, the SDK's 405 to a GET without a session (createMcpHandler); no suite scenario sends that GET to this server.
        what: `the SDK's 405 to a session-less GET, ${era}: id null, as above`,
        c: { era, method: undefined, message: SDK_405 } as Captured,
        wymcp: "valid",
        suite: "invalid",
      })),
      {
        what: '"error": null beside a result: the suite judges a result, wymcp an error response',
        c: broken(is("modern result tools/call"), (m) => (m.error = null)),
        wymcp: "invalid",
        suite: "valid",
      },
    ];
    const verdicts = cases.map(({ what, c }) => ({
      what,
      wymcp: wymcpVerdict(c.era, c.message, c.method).split(" ")[0],
      suite: suiteVerdict(REVISION[c.era], c.message, c.method).split(" ")[0],
    }));
    assert.deepEqual(
      verdicts,
      cases.map(({ what, wymcp, suite }) => ({ what, wymcp, suite })),
    );
  });
});
