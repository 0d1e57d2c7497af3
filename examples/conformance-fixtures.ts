/**
 * @module examples/conformance-fixtures: the tools, resources and prompts the official conformance suite's
 * server scenarios call, by the names and with the answers its scenarios check. One factory serves both
 * eras; the era decides only what the protocol itself allows (push requests on legacy, MRTR on modern).
 */
import { randomBytes } from "node:crypto";
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  completable,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse,
  McpServer,
  ResourceTemplate,
  type CallToolResult,
  type ClientCapabilities,
  type ServerContext,
} from "@modelcontextprotocol/server";
import * as z from "zod";

export type Era = "legacy" | "modern";

/** What the fixtures need from the host: the modern handler's listen notifier (unset on the legacy lane). */
export interface FixtureHost {
  notify?: { toolsChanged(): void; promptsChanged(): void };
}

// A 1x1 PNG and a minimal WAV: the suite only checks type, mimeType and that data is base64.
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV_EMPTY = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

// requestState round-trips through the client: sealed with an HMAC whose key lives only in this process.
const stateCodec = createRequestStateCodec<Record<string, unknown>>({ key: randomBytes(32) });

// The suite's SEP-1613/SEP-2106 tool: its listed inputSchema must keep every 2020-12 keyword as written.
const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
} as const;

// `x-mcp-header` is a SEP-2243 annotation that the SDK's JSON Schema type does not list, hence the widening.
const REGION_HEADER_SCHEMA = {
  type: "object",
  properties: { region: { type: "string", "x-mcp-header": "Region" } },
  required: ["region"],
} as Parameters<typeof fromJsonSchema>[0];

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nameSchema = { type: "object" as const, properties: { name: { type: "string" as const } }, required: ["name"] };

/** The text a sampling answer carried (a bare CreateMessageResult), or a fallback. */
function sampledText(value: unknown): string {
  const content = (value as { content?: { type?: string; text?: unknown } } | undefined)?.content;
  return typeof content?.text === "string" ? content.text : "no response";
}

/** Builds one server instance for one era; the SDK calls it per modern request and the host per legacy session. */
export function buildConformanceServer(era: Era, host: FixtureHost = {}): McpServer {
  const server = new McpServer(
    { name: "wymcp-conformance-server", version: "1.0.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: era === "legacy", listChanged: true },
        logging: {},
        completions: {},
      },
      // The fixtures never change between releases of this server, so lists may be cached and shared.
      cacheHints: {
        "tools/list": { ttlMs: 300_000, cacheScope: "public" },
        "prompts/list": { ttlMs: 300_000, cacheScope: "public" },
        "resources/list": { ttlMs: 300_000, cacheScope: "public" },
        "resources/templates/list": { ttlMs: 300_000, cacheScope: "public" },
      },
      requestState: { verify: stateCodec.verify },
    },
  );
  registerContentTools(server);
  registerNotifyingTools(server, host);
  if (era === "legacy") registerPushTools(server);
  registerInputRequiredTools(server);
  registerResources(server, era);
  registerPrompts(server);
  return server;
}

function registerContentTools(server: McpServer): void {
  server.registerTool("test_simple_text", { description: "Answers one text block" }, () =>
    text("This is a simple text response for testing."),
  );
  server.registerTool("test_image_content", { description: "Answers one image block" }, () => ({
    content: [{ type: "image", data: PNG_1X1, mimeType: "image/png" }],
  }));
  server.registerTool("test_audio_content", { description: "Answers one audio block" }, () => ({
    content: [{ type: "audio", data: WAV_EMPTY, mimeType: "audio/wav" }],
  }));
  server.registerTool("test_embedded_resource", { description: "Answers one embedded resource" }, () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
      },
    ],
  }));
  server.registerTool("test_multiple_content_types", { description: "Answers text, an image and a resource" }, () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG_1X1, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 }),
        },
      },
    ],
  }));
  server.registerTool("test_error_handling", { description: "Always fails" }, () => {
    throw new Error("This tool intentionally returns an error for testing");
  });
  // SEP-2243: the value of `region` also travels as the `Mcp-Param-Region` header, which the SDK checks against the body.
  server.registerTool(
    "test_custom_header",
    {
      description: "Echoes a region that the client mirrors into a header",
      inputSchema: fromJsonSchema<{ region: string }>(REGION_HEADER_SCHEMA),
    },
    ({ region }) => text(`region: ${region}`),
  );
  server.registerTool(
    "json_schema_2020_12_tool",
    { description: "Lists a JSON Schema 2020-12 input schema unchanged", inputSchema: fromJsonSchema(JSON_SCHEMA_2020_12) },
    (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
  );
}

/** Tools whose point is what they send besides their result: logs, progress, list changes. */
function registerNotifyingTools(server: McpServer, host: FixtureHost): void {
  server.registerTool(
    "test_tool_with_logging",
    { description: "Logs three messages while it runs", inputSchema: {} },
    async (_args, ctx) => {
      for (const [i, message] of ["Tool execution started", "Tool processing data", "Tool execution completed"].entries()) {
        if (i > 0) await sleep(50);
        await ctx.mcpReq.log("info", message);
      }
      return text("Tool with logging executed successfully");
    },
  );
  server.registerTool(
    "test_tool_with_progress",
    { description: "Reports progress 0, 50, 100 of 100", inputSchema: {} },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken ?? 0;
      for (const progress of [0, 50, 100]) {
        if (progress > 0) await sleep(50);
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken, progress, total: 100, message: `Completed step ${progress} of 100` },
        });
      }
      return text(String(progressToken));
    },
  );
  // Modern diagnostics of the stateless scenario: a streamed call, and a log that must stay silent without a logLevel.
  server.registerTool(
    "test_streaming_elicitation",
    { description: "Streams progress (when asked for) before its result", inputSchema: {} },
    async (_args, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      if (progressToken !== undefined) {
        await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress: 50, total: 100 } });
      }
      return text("Streaming complete");
    },
  );
  server.registerTool("test_logging_tool", { description: "Logs once, at info", inputSchema: {} }, async (_args, ctx) => {
    await ctx.mcpReq.log("info", "Diagnostic trace logging activated");
    return text("Logging evaluated");
  });
  server.registerTool("test_trigger_tool_change", { description: "Announces a tool list change to listeners", inputSchema: {} }, () => {
    host.notify?.toolsChanged();
    return text("Mutation triggered");
  });
  server.registerTool("test_trigger_prompt_change", { description: "Announces a prompt list change to listeners", inputSchema: {} }, () => {
    host.notify?.promptsChanged();
    return text("Mutation triggered");
  });
}

/** 2025-era tools that push a request to the client on the call's stream; the client POSTs the answer back. */
function registerPushTools(server: McpServer): void {
  server.registerTool(
    "test_sampling",
    { description: "Asks the client's model", inputSchema: { prompt: z.string() } },
    async ({ prompt }, ctx) => {
      try {
        const result = await ctx.mcpReq.requestSampling({
          messages: [{ role: "user", content: { type: "text", text: prompt } }],
          maxTokens: 100,
        });
        return text(`LLM response: ${sampledText(result)}`);
      } catch (error) {
        return text(`Sampling not supported or error: ${(error as Error).message}`);
      }
    },
  );
  server.registerTool(
    "test_elicitation",
    { description: "Asks the user one question", inputSchema: { message: z.string() } },
    async ({ message }, ctx) =>
      elicited("User response", ctx, {
        message,
        requestedSchema: {
          type: "object",
          properties: { response: { type: "string", description: "User's response" } },
          required: ["response"],
        },
      }),
  );
  server.registerTool(
    "test_elicitation_sep1034_defaults",
    { description: "Asks with a default for every primitive type", inputSchema: {} },
    async (_args, ctx) =>
      elicited("Elicitation completed", ctx, {
        message: "Please review and update the form fields with defaults",
        requestedSchema: {
          type: "object",
          properties: {
            name: { type: "string", description: "User name", default: "John Doe" },
            age: { type: "integer", description: "User age", default: 30 },
            score: { type: "number", description: "User score", default: 95.5 },
            status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
            verified: { type: "boolean", description: "Verification status", default: true },
          },
          required: [],
        },
      }),
  );
  server.registerTool(
    "test_elicitation_sep1330_enums",
    { description: "Asks with all five enum shapes", inputSchema: {} },
    async (_args, ctx) =>
      elicited("Elicitation completed", ctx, {
        message: "Please select options from the enum fields",
        requestedSchema: {
          type: "object",
          properties: {
            untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
            titledSingle: {
              type: "string",
              description: "Select one option with titles",
              oneOf: [
                { const: "value1", title: "First Option" },
                { const: "value2", title: "Second Option" },
                { const: "value3", title: "Third Option" },
              ],
            },
            legacyEnum: {
              type: "string",
              description: "Select one option (legacy)",
              enum: ["opt1", "opt2", "opt3"],
              enumNames: ["Option One", "Option Two", "Option Three"],
            },
            untitledMulti: {
              type: "array",
              description: "Select multiple options",
              minItems: 1,
              maxItems: 3,
              items: { type: "string", enum: ["option1", "option2", "option3"] },
            },
            titledMulti: {
              type: "array",
              description: "Select multiple options with titles",
              minItems: 1,
              maxItems: 3,
              items: {
                anyOf: [
                  { const: "value1", title: "First Choice" },
                  { const: "value2", title: "Second Choice" },
                  { const: "value3", title: "Third Choice" },
                ],
              },
            },
          },
          required: [],
        },
      }),
  );
  server.registerTool(
    "test_reconnection",
    { description: "Closes its SSE stream mid-call; the client must resume it", inputSchema: {} },
    async (_args, ctx) => {
      ctx.http?.closeSSE?.();
      await sleep(100);
      return text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.");
    },
  );
}

async function elicited(
  label: string,
  ctx: ServerContext,
  params: Parameters<ServerContext["mcpReq"]["elicitInput"]>[0],
): Promise<CallToolResult> {
  try {
    const result = await ctx.mcpReq.elicitInput(params);
    return text(`${label}: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`);
  } catch (error) {
    return text(`Elicitation not supported or error: ${(error as Error).message}`);
  }
}

/** MRTR fixtures: each returns `input_required` until the retry carries the answers it asked for. */
function registerInputRequiredTools(server: McpServer): void {
  server.registerTool(
    "test_input_required_result_elicitation",
    { description: "MRTR: asks the user's name", inputSchema: {} },
    (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "user_name");
      if (typeof answer?.name === "string") return text(`Hello, ${answer.name}!`);
      return inputRequired({
        inputRequests: { user_name: inputRequired.elicit({ message: "What is your name?", requestedSchema: nameSchema }) },
      });
    },
  );
  server.registerTool(
    "test_input_required_result_sampling",
    { description: "MRTR: asks the client's model", inputSchema: {} },
    (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "sample_request");
      if (answer.kind === "sampling") return text(`Sampling result: ${sampledText(answer.result)}`);
      return inputRequired({
        inputRequests: {
          sample_request: inputRequired.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
            maxTokens: 100,
          }),
        },
      });
    },
  );
  server.registerTool(
    "test_input_required_result_list_roots",
    { description: "MRTR: asks the client's roots", inputSchema: {} },
    (_args, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "roots_request");
      if (answer.kind === "roots") return text(`Found ${answer.roots.length} root(s)`);
      return inputRequired({ inputRequests: { roots_request: inputRequired.listRoots() } });
    },
  );
  server.registerTool(
    "test_input_required_result_request_state",
    { description: "MRTR: carries sealed state across the round", inputSchema: {} },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<Record<string, unknown>>();
      const confirm = acceptedContent(ctx.mcpReq.inputResponses, "confirm");
      if (state?.kind === "request-state" && confirm?.ok === true) return text("state-ok: requestState validated");
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: "Please confirm",
            requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
          }),
        },
        requestState: await stateCodec.mint({ kind: "request-state" }),
      });
    },
  );
  server.registerTool(
    "test_input_required_result_multiple_inputs",
    { description: "MRTR: asks three things at once", inputSchema: {} },
    async (_args, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      const state = ctx.mcpReq.requestState<Record<string, unknown>>();
      const name = acceptedContent(responses, "user_name");
      const greeting = inputResponse(responses, "greeting");
      const roots = inputResponse(responses, "client_roots");
      if (state?.kind === "multiple-inputs" && typeof name?.name === "string" && greeting.kind === "sampling" && roots.kind === "roots") {
        return text(`Name: ${name.name}; Greeting: ${sampledText(greeting.result)}; Roots: ${roots.roots.length}`);
      }
      return inputRequired({
        inputRequests: {
          user_name: inputRequired.elicit({ message: "What is your name?", requestedSchema: nameSchema }),
          greeting: inputRequired.createMessage({
            messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
            maxTokens: 50,
          }),
          client_roots: inputRequired.listRoots(),
        },
        requestState: await stateCodec.mint({ kind: "multiple-inputs" }),
      });
    },
  );
  server.registerTool(
    "test_input_required_result_multi_round",
    { description: "MRTR: two rounds, the second depending on the first", inputSchema: {} },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<{ round?: number; name?: string }>();
      const step1 = acceptedContent(ctx.mcpReq.inputResponses, "step1");
      const step2 = acceptedContent(ctx.mcpReq.inputResponses, "step2");
      if (state?.round === 2 && typeof step2?.color === "string")
        return text(`Multi-round complete for ${state.name ?? "friend"} who likes ${step2.color}`);
      if (state?.round === 1 && typeof step1?.name === "string") {
        return inputRequired({
          inputRequests: {
            step2: inputRequired.elicit({
              message: "Step 2: What is your favorite color?",
              requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
            }),
          },
          requestState: await stateCodec.mint({ round: 2, name: step1.name }),
        });
      }
      return inputRequired({
        inputRequests: { step1: inputRequired.elicit({ message: "Step 1: What is your name?", requestedSchema: nameSchema }) },
        requestState: await stateCodec.mint({ round: 1 }),
      });
    },
  );
  // A tampered requestState never reaches this handler: the codec's verify hook refuses it with -32602 first.
  server.registerTool(
    "test_input_required_result_tampered_state",
    { description: "MRTR: refuses state it did not seal", inputSchema: {} },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<Record<string, unknown>>();
      if (state?.kind === "tamper-test" && inputResponse(ctx.mcpReq.inputResponses, "confirm").kind === "elicit")
        return text("integrity-ok: state verified");
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: "Please confirm",
            requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
          }),
        },
        requestState: await stateCodec.mint({ kind: "tamper-test" }),
      });
    },
  );
  server.registerTool(
    "test_input_required_result_capabilities",
    { description: "MRTR: asks only what the client declared it can answer", inputSchema: {} },
    (_args, ctx) => {
      const received = Object.keys(ctx.mcpReq.inputResponses ?? {});
      if (received.length > 0) return text(`capabilities-ok: received ${received.join(",")}`);
      // The SDK types the envelope as an empty object; the key is the spec's clientCapabilities entry.
      const declared = ((ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] ??
        {}) as ClientCapabilities;
      const inputRequests: Record<string, ReturnType<typeof inputRequired.listRoots>> = {};
      if (declared.elicitation) {
        inputRequests.elicit_input = inputRequired.elicit({
          message: "Elicitation input",
          requestedSchema: { type: "object", properties: { value: { type: "string" } }, required: ["value"] },
        });
      }
      if (declared.sampling) {
        inputRequests.sample_input = inputRequired.createMessage({
          messages: [{ role: "user", content: { type: "text", text: "Sample request" } }],
          maxTokens: 50,
        });
      }
      if (Object.keys(inputRequests).length === 0) return text("No supported capabilities declared");
      return inputRequired({ inputRequests });
    },
  );
  // Needs sampling: without it the SDK refuses the input request with -32021 (HTTP 400) before anything is sent.
  server.registerTool(
    "test_missing_capability",
    { description: "Needs the client's sampling capability", inputSchema: {} },
    (_args, ctx) => {
      if (inputResponse(ctx.mcpReq.inputResponses, "sample").kind === "sampling") return text("Success");
      return inputRequired({
        inputRequests: {
          sample: inputRequired.createMessage({ messages: [{ role: "user", content: { type: "text", text: "Say hi" } }], maxTokens: 10 }),
        },
      });
    },
  );
}

function registerResources(server: McpServer, era: Era): void {
  server.registerResource("static-text", "test://static-text", { title: "Static Text Resource", mimeType: "text/plain" }, () => ({
    contents: [{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }],
  }));
  server.registerResource("static-binary", "test://static-binary", { title: "Static Binary Resource", mimeType: "image/png" }, () => ({
    contents: [{ uri: "test://static-binary", mimeType: "image/png", blob: PNG_1X1 }],
  }));
  server.registerResource(
    "template",
    new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    { title: "Resource Template", mimeType: "application/json" },
    (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }),
        },
      ],
    }),
  );
  server.registerResource("watched-resource", "test://watched-resource", { title: "Watched Resource", mimeType: "text/plain" }, () => ({
    contents: [{ uri: "test://watched-resource", mimeType: "text/plain", text: "Watched resource content" }],
  }));
  if (era === "legacy") {
    // Subscriptions are a 2025-era method pair; nothing here changes, so accepting them is all there is to do.
    server.server.setRequestHandler("resources/subscribe", () => ({}));
    server.server.setRequestHandler("resources/unsubscribe", () => ({}));
  }
}

function registerPrompts(server: McpServer): void {
  server.registerPrompt("test_simple_prompt", { title: "Simple Test Prompt", description: "No arguments" }, () => ({
    messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }],
  }));
  server.registerPrompt(
    "test_prompt_with_arguments",
    {
      title: "Prompt With Arguments",
      description: "Two required arguments",
      argsSchema: z.object({
        arg1: completable(z.string().describe("First test argument"), () => []),
        arg2: z.string().describe("Second test argument"),
      }),
    },
    ({ arg1, arg2 }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    }),
  );
  server.registerPrompt(
    "test_prompt_with_embedded_resource",
    { title: "Prompt With Embedded Resource", description: "Embeds the named resource", argsSchema: z.object({ resourceUri: z.string() }) },
    ({ resourceUri }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." },
          },
        },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ],
    }),
  );
  server.registerPrompt("test_prompt_with_image", { title: "Prompt With Image", description: "One image" }, () => ({
    messages: [
      { role: "user", content: { type: "image", data: PNG_1X1, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } },
    ],
  }));
  server.registerPrompt("test_input_required_result_prompt", { title: "MRTR prompt", description: "Asks for context first" }, (ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, "user_context");
    if (typeof answer?.context === "string") {
      return { messages: [{ role: "user", content: { type: "text", text: `Prompt with context: ${answer.context}` } }] };
    }
    return inputRequired({
      inputRequests: {
        user_context: inputRequired.elicit({
          message: "What context should the prompt use?",
          requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] },
        }),
      },
    });
  });
}
