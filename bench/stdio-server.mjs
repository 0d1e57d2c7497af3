// The stdio server of `npm run bench -- --proxy`: the official SDK's McpServer with one tool, `echo`, over its stdio
// transport, the kind of server `wymcp stdio` stands in front of.
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";

const server = new McpServer({ name: "wymcp-bench-stdio", version: "1.0.0" });
server.registerTool("echo", { description: "Echoes the text back", inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
  content: [{ type: "text", text }],
}));
await server.connect(new StdioServerTransport());
