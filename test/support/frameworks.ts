/**
 * Servers built with other TypeScript MCP frameworks than the official SDK's `createMcpHandler`, each a plain
 * `(request) => Response` function: `mcp-handler` (Vercel's adapter over the SDK) and tmcp with its HTTP transport.
 * The same tool on each: `echo` returns its text, so a gated and an ungated run can be compared answer for answer.
 */
import { ZodJsonSchemaAdapter } from "@tmcp/adapter-zod";
import { HttpTransport } from "@tmcp/transport-http";
import { createMcpHandler } from "mcp-handler";
import { McpServer } from "tmcp";
import * as z from "zod";

export type PlainHandler = (request: Request) => Promise<Response>;

/** With `lookup`, a server also lists the tool `lookup` first, whose `region` argument is mirrored in `Mcp-Param-Region`. */
export interface FrameworkOptions {
  lookup?: boolean;
}

/** `lookup`'s arguments: zod's `.meta` carries the `x-mcp-header` annotation into both frameworks' JSON Schema. */
const lookupSchema = z.object({ region: z.string().meta({ "x-mcp-header": "Region" }).optional() });

/** An mcp-handler server; `calls` counts what reached it. A second tool, `whoami`, answers the caller's `clientId`. */
export function mcpHandlerServer({ lookup = false }: FrameworkOptions = {}): { handler: PlainHandler; calls: () => number } {
  let calls = 0;
  const inner = createMcpHandler(
    (server) => {
      if (lookup)
        server.registerTool("lookup", { description: "region", inputSchema: lookupSchema }, async ({ region }) => ({
          content: [{ type: "text", text: `region: ${region}` }],
        }));
      server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
        content: [{ type: "text", text: `echo: ${text}` }],
      }));
      server.registerTool("whoami", { inputSchema: z.object({}) }, async (_args, ctx) => ({
        content: [{ type: "text", text: ctx.http?.authInfo?.clientId ?? "nobody" }],
      }));
    },
    { serverInfo: { name: "mcp-handler-echo", version: "1.0.0" }, telemetry: false },
  );
  return { handler: (request) => (calls++, inner(request)), calls: () => calls };
}

/** A tmcp server on its HTTP transport, answering on every path; `calls` counts what reached it. */
export function tmcpServer({ lookup = false }: FrameworkOptions = {}): { handler: PlainHandler; calls: () => number } {
  let calls = 0;
  const server = new McpServer(
    { name: "tmcp-echo", version: "1.0.0", description: "echo" },
    { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: { listChanged: false } } },
  );
  if (lookup)
    server.tool({ name: "lookup", description: "region", schema: lookupSchema }, async ({ region }) => ({
      content: [{ type: "text", text: `region: ${region}` }],
    }));
  server.tool({ name: "echo", description: "echo", schema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: "text", text: `echo: ${text}` }],
  }));
  const transport = new HttpTransport(server, { path: null });
  return {
    handler: async (request) => (calls++, (await transport.respond(request)) ?? new Response(null, { status: 404 })),
    calls: () => calls,
  };
}
