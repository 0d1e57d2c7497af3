/**
 * @module format-tools: tools whose parameter carries a `format`, as each SDK writes and serves them, for the
 * tool-argument formats differential. The TypeScript SDK's `McpServer` with Zod 4 types (in this process, through
 * `createMcpHandler`), and the Python SDK's `MCPServer` and FastMCP with pydantic types (test/python/format_tools.py).
 * Each answers, per kind, the property schema its `tools/list` lists and the values its `tools/call` accepts.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { MODERN_META } from "./messages.js";
import { pythonEnv } from "./python.js";
import { repoRoot } from "./spec.js";
import { transportHeaders } from "./transport-headers.js";

export interface Served {
  /** The parameter's schema as the server lists it. */
  schema: Record<string, unknown>;
  /** The values its `tools/call` answered without `isError`. */
  accepted: string[];
}

/** SDK → kind → what it serves. */
export type FormatTools = Record<string, Record<string, Served>>;

/** The Zod types the TypeScript SDK's users write for each kind (both spellings where Zod has two readings). */
const ZOD_KINDS: Record<string, z.ZodType> = {
  datetime: z.iso.datetime(),
  "datetime (offset, local)": z.iso.datetime({ offset: true, local: true }),
  date: z.iso.date(),
  time: z.iso.time(),
  uuid: z.uuid(),
  "uuid (guid)": z.guid(),
  email: z.email(),
  url: z.url(),
  ipv4: z.ipv4(),
  ipv6: z.ipv6(),
};

/** The TypeScript SDK: one tool per Zod kind, listed and called through its own handler. */
export async function zodFormatTools(values: Record<string, string[]>): Promise<Record<string, Served>> {
  const build = () => {
    const server = new McpServer({ name: "wymcp-format-tools", version: "1.0.0" });
    for (const [kind, type] of Object.entries(ZOD_KINDS))
      server.registerTool(toolName(kind), { inputSchema: z.object({ v: type }) }, async () => ({
        content: [{ type: "text", text: "ok" }],
      }));
    return server;
  };
  const handler = createMcpHandler(build);
  const post = async (body: Record<string, unknown>) => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", ...transportHeaders(body) };
    const response = await handler.fetch(new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) }));
    return (await response.json()) as { result?: Record<string, unknown> };
  };
  try {
    const listed = await post({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } });
    const tools = listed.result?.tools as Array<{ name: string; inputSchema: { properties: { v: Record<string, unknown> } } }>;
    const out: Record<string, Served> = {};
    for (const kind of Object.keys(ZOD_KINDS)) {
      const tool = tools.find((t) => t.name === toolName(kind));
      if (!tool) throw new Error(`the SDK did not list ${toolName(kind)}`);
      const accepted: string[] = [];
      for (const v of values[baseKind(kind)] ?? []) {
        const answer = await post({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { _meta: MODERN_META, name: tool.name, arguments: { v } },
        });
        if (answer.result && answer.result.isError !== true) accepted.push(v);
      }
      out[kind] = { schema: tool.inputSchema.properties.v, accepted };
    }
    return out;
  } finally {
    await handler.close();
  }
}

/** The Python SDK's `MCPServer` (`mcp`) and FastMCP, each with one tool per pydantic kind. */
export async function pythonFormatTools(values: Record<string, string[]>): Promise<FormatTools> {
  const python = await pythonEnv();
  const script = join(repoRoot, "test", "python", "format_tools.py");
  const output = await new Promise<string>((resolve, reject) => {
    const child = execFile(
      python,
      [script],
      { maxBuffer: 16 * 1024 * 1024, env: { ...process.env, FASTMCP_LOG_LEVEL: "ERROR", FASTMCP_SHOW_CLI_BANNER: "false" } },
      (error, stdout, stderr) =>
        error ? reject(new Error(`format_tools.py failed: ${stderr.slice(-2000)}`, { cause: error })) : resolve(stdout),
    );
    child.stdin?.end(JSON.stringify(values));
  });
  return JSON.parse(output) as FormatTools;
}

/** `datetime (offset, local)` → `datetime`: the values tried are the kind's. */
export function baseKind(kind: string): string {
  return kind.split(" ")[0]!;
}

function toolName(kind: string): string {
  return `k_${kind.replace(/\W+/g, "_")}`;
}
