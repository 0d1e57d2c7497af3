/**
 * Shared by the gate tests: a server whose one tool reports what it saw of the HTTP request (the caller and the
 * headers), requests of either era that call it, a fake token verifier, and a raw POST that can repeat headers.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { MODERN_META } from "./messages.js";

/** The headers the `seen` tool reports, as the SDK handed them to it. */
export const SEEN_HEADERS = ["content-type", "accept", "mcp-protocol-version", "mcp-session-id", "authorization"] as const;

/** One tool, `seen`: its text is JSON `{ caller, headers }`, the caller being `authInfo.clientId` or null. */
export function seenServer(): McpServer {
  const server = new McpServer({ name: "gate-test", version: "1.0.0" });
  server.registerTool("seen", { inputSchema: z.object({}) }, async (_args, ctx) => {
    const headers = Object.fromEntries(SEEN_HEADERS.map((name) => [name, ctx.http?.req?.headers.get(name) ?? null]));
    return { content: [{ type: "text", text: JSON.stringify({ caller: ctx.http?.authInfo?.clientId ?? null, headers }) }] };
  });
  return server;
}

export type EraName = "legacy" | "modern";

/** A `tools/call` of `seen` in each era, with the headers its era's clients send. */
export function callSeen(era: EraName): { headers: Record<string, string>; body: string } {
  const common = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  if (era === "modern") {
    return {
      headers: { ...common, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "seen" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { _meta: MODERN_META, name: "seen", arguments: {} } }),
    };
  }
  return {
    headers: common,
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "seen", arguments: {} } }),
  };
}

/** What the `seen` tool reported in an answer (JSON or one SSE event), or undefined when the answer holds none. */
export function seenIn(text: string): { caller: string | null; headers: Record<string, string | null> } | undefined {
  const json = text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)?.[1];
  const result = json ? (JSON.parse(json) as { result?: { content?: Array<{ text: string }> } }).result : undefined;
  const seen = result?.content?.[0]?.text;
  return seen === undefined ? undefined : JSON.parse(seen);
}

/** A verifier that accepts any token and names its client after it, as the SDK's bearer-auth helpers expect. */
export const fakeVerifier = {
  async verifyAccessToken(token: string) {
    return { token, clientId: `client-of-${token}`, scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
  },
};

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A POST through node:http, where an array value sends the header once per item, in order. */
export function rawPost(url: string, headers: Record<string, string | string[]>, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Starts a server on a free loopback port; `url` is its `/mcp` endpoint. */
export async function listening(server: http.Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
