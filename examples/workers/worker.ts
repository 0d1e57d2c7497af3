/**
 * @module A Cloudflare Worker: the SDK's `createMcpHandler` behind `gateFetch`, its tools' input schemas precompiled
 * by `wymcp compile` (no Ajv and no code generation at run time, so it runs on workerd's default flags).
 * The schemas live in tools.json, which both the compiler and this Worker read; after changing it, run
 * `npx wymcp compile examples/workers/tools.json --out examples/workers/mcp-tools` (test/workers-example.test.ts
 * fails while mcp-tools/ is stale).
 */
import { createMcpHandler, fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { gateFetch } from "wymcp/fetch";
import { jsonSchemaValidator, type AddNoteInput, type SumInput } from "./mcp-tools/index.js";
import tools from "./tools.json" with { type: "json" };

const schemaOf = (name: string): object => {
  const tool = tools.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`tools.json has no tool ${name}`);
  return tool.inputSchema;
};

function buildServer(): McpServer {
  // The provider validates elicitation answers too, should a tool ask for one.
  const server = new McpServer({ name: "workers-notes", version: "1.0.0" }, { jsonSchemaValidator });
  server.registerTool(
    "add_note",
    {
      description: "Stores a note and answers its id",
      inputSchema: fromJsonSchema<AddNoteInput>(schemaOf("add_note"), jsonSchemaValidator),
    },
    async ({ title, tags = [] }) => ({ content: [{ type: "text", text: `note "${title}" stored with ${tags.length} tag(s)` }] }),
  );
  server.registerTool(
    "sum",
    { description: "Adds numbers", inputSchema: fromJsonSchema<SumInput>(schemaOf("sum"), jsonSchemaValidator) },
    async ({ numbers }) => ({ content: [{ type: "text", text: String(numbers.reduce((a, b) => a + b, 0)) }] }),
  );
  return server;
}

export default { fetch: gateFetch(createMcpHandler(buildServer)) };
