/**
 * @module feature-server: the official SDK v2's server (`McpServer` from @modelcontextprotocol/server) with every feature
 * a legacy client drives, for the real-client tests: tools (text, structured, an error, a slow one with progress that
 * stops when cancelled, one that logs, one that asks the client for a sample, an elicitation and its roots), resources
 * whose URIs are the ones real clients use (spaces, non-ASCII, a Windows path, template characters, relative
 * references), listed two to a page, a template, subscriptions, a prompt with completion. test/python/echo_servers.py
 * `features-*` serves the same with the Python SDK. Over stdio: `tsx test/support/feature-server.ts`.
 */
import { completable, McpServer, ProtocolError } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";

/** The static resources' URIs, in list order. */
export const RESOURCE_URIS = [
  "file:///srv/notes/My Notes.txt",
  "file:///srv/notes/café.md",
  "C:/Users/Łukasz/report (final).docx",
  "test://items/a b",
  "a|b",
  "notes/relative.md",
] as const;

export const TEMPLATE = "test://items/{x}";
const PAGE = 2;

/** The template's one variable, or undefined when `uri` does not match it. */
function itemOf(uri: string): string | undefined {
  return uri.startsWith("test://items/") ? uri.slice("test://items/".length) : undefined;
}

export function buildFeatureServer(): McpServer {
  const server = new McpServer(
    { name: "wymcp-features", version: "1.0.0" },
    { capabilities: { logging: {}, completions: {}, prompts: {}, resources: { subscribe: true } } },
  );
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: "text", text: `echo: ${text}` }],
  }));
  server.registerTool(
    "add",
    { inputSchema: z.object({ a: z.number(), b: z.number() }), outputSchema: z.object({ sum: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool("fail", { inputSchema: z.object({}) }, async () => ({
    content: [{ type: "text", text: "the tool failed on purpose" }],
    isError: true,
  }));
  server.registerTool("slow", { inputSchema: z.object({ steps: z.number().int().min(1).max(50) }) }, async ({ steps }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (ctx.mcpReq.signal.aborted) return { content: [{ type: "text", text: `stopped at ${i}` }] };
      if (token !== undefined)
        await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { content: [{ type: "text", text: `done ${steps}` }] };
  });
  server.registerTool("log", { inputSchema: z.object({ text: z.string() }) }, async ({ text }, ctx) => {
    await ctx.mcpReq.log("info", text, "features");
    await ctx.mcpReq.log("debug", `debug: ${text}`, "features");
    return { content: [{ type: "text", text: "logged" }] };
  });
  server.registerTool("ask", { inputSchema: z.object({}) }, async (_args, ctx) => {
    const sample = await ctx.mcpReq.requestSampling({
      messages: [{ role: "user", content: { type: "text", text: "Say café" } }],
      maxTokens: 10,
    });
    const answer = await ctx.mcpReq.elicitInput({
      message: "Your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    });
    const roots = await ctx.mcpReq.send({ method: "roots/list" });
    const said = (sample.content as { text?: string }).text;
    const text = JSON.stringify({ sample: said, answer: answer.content, roots: roots.roots });
    return { content: [{ type: "text", text }] };
  });
  server.registerPrompt(
    "greet",
    { argsSchema: z.object({ name: completable(z.string(), (value) => ["José", "Łukasz", "Ada"].filter((n) => n.startsWith(value))) }) },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }] }),
  );
  // Resources by hand, so that every URI is served as the client wrote it and the list comes in pages.
  const low = server.server;
  low.setRequestHandler("resources/list", (request) => {
    const start = Number(request.params?.cursor ?? 0);
    const next = start + PAGE;
    const resources = RESOURCE_URIS.slice(start, next).map((uri, i) => ({ uri, name: `r${start + i}`, mimeType: "text/plain" }));
    return { resources, ...(next < RESOURCE_URIS.length ? { nextCursor: String(next) } : {}) };
  });
  low.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: [{ uriTemplate: TEMPLATE, name: "item", mimeType: "text/plain" }],
  }));
  low.setRequestHandler("resources/read", (request) => {
    const { uri } = request.params;
    const item = itemOf(uri);
    if (!(RESOURCE_URIS as readonly string[]).includes(uri) && item === undefined) throw new ProtocolError(-32602, `no resource ${uri}`);
    return { contents: [{ uri, mimeType: "text/plain", text: item === undefined ? `the text of ${uri}` : `item ${item}` }] };
  });
  low.setRequestHandler("resources/subscribe", async (request, ctx) => {
    await ctx.mcpReq.notify({ method: "notifications/resources/updated", params: { uri: request.params.uri } });
    return {};
  });
  low.setRequestHandler("resources/unsubscribe", () => ({}));
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) await serveStdio(buildFeatureServer);
