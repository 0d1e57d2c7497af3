/**
 * The SDK v2 server of the tools-at-the-edge tests: `add` (two integers), `weather` (a region mirrored into the
 * `Mcp-Param-Region` header, days into `Mcp-Param-Days`), `odd` (a pattern with a backreference, which the
 * linear-time engine cannot run, so the edge does not run it); every tool answers with the arguments it received, so a test sees whether the server saw a call.
 * Also the raw requests of each era that call them.
 */
import { McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { MODERN_META } from "./messages.js";

export function edgeToolsServer(): McpServer {
  const server = new McpServer({ name: "wymcp-edge-tools", version: "1.0.0" });
  const echo = async (args: unknown) => ({ content: [{ type: "text" as const, text: `saw ${JSON.stringify(args)}` }] });
  server.registerTool("add", { inputSchema: z.object({ a: z.int(), b: z.int() }) }, echo);
  server.registerTool(
    "weather",
    {
      inputSchema: z.object({
        region: z.string().meta({ "x-mcp-header": "Region" }),
        days: z.int().meta({ "x-mcp-header": "Days" }).optional(),
      }),
    },
    echo,
  );
  server.registerTool("odd", { inputSchema: z.object({ word: z.string().regex(/^(a+)\1$/) }) }, echo);
  return server;
}

const COMMON = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** A request of `era` (`"modern"`, or a legacy revision named in `MCP-Protocol-Version`, or `"legacy"` with none). */
export function edgeRequest(
  era: string,
  method: string,
  params: Record<string, unknown>,
  extra: Record<string, string> = {},
  id = 7,
): { headers: Record<string, string>; body: string } {
  if (era === "modern") {
    const name: Record<string, string> = typeof params.name === "string" ? { "mcp-name": params.name } : {};
    return {
      headers: { ...COMMON, "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...name, ...extra },
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { _meta: MODERN_META, ...params } }),
    };
  }
  const version: Record<string, string> = era === "legacy" ? {} : { "mcp-protocol-version": era };
  return { headers: { ...COMMON, ...version, ...extra }, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) };
}

/** The JSON-RPC message of an answer (a JSON body or the first SSE event). */
export function messageIn(text: string): {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
} {
  const json = text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)?.[1];
  if (!json) throw new Error(`no JSON-RPC message in ${JSON.stringify(text.slice(0, 200))}`);
  return JSON.parse(json);
}
