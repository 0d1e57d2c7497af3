/**
 * A bare 2026-07-28 server on node:http that checks nothing of the transport: no Host or Origin check, no header against
 * body, no version check, no argument check. It answers `server/discover`, `tools/list` (the tool `lookup`, whose `region`
 * argument is mirrored in the `Mcp-Param-Region` header, and `test_simple_text`) and `tools/call`; a notification gets 202,
 * any other method -32601. What a transport rule catches in front of it is wymcp's doing alone.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";

const VERSION = "2026-07-28";
const SERVER_INFO = { name: "wymcp-bare-server", version: "1.0.0" };

/** The tools the bare server lists; the first carries the `x-mcp-header` annotation the custom-header scenario looks for. */
export const BARE_TOOLS = [
  {
    name: "lookup",
    description: "Answers the region it was asked about.",
    inputSchema: {
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" } },
      required: ["region"],
    },
  },
  {
    name: "test_simple_text",
    description: "Answers a fixed text.",
    inputSchema: { type: "object", properties: {} },
  },
];

const complete = (result: Record<string, unknown>) => ({
  resultType: "complete",
  _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
  ...result,
});

function answer(message: { id?: unknown; method?: unknown; params?: Record<string, unknown> }): unknown {
  const { id, method, params } = message;
  switch (method) {
    case "server/discover":
      return {
        jsonrpc: "2.0",
        id,
        result: complete({ supportedVersions: [VERSION], capabilities: { tools: {} }, cacheScope: "public", ttlMs: 0 }),
      };
    case "tools/list":
      return { jsonrpc: "2.0", id, result: complete({ tools: BARE_TOOLS, cacheScope: "public", ttlMs: 0 }) };
    case "tools/call": {
      const args = (params?.arguments ?? {}) as Record<string, unknown>;
      if (params?.name === "lookup")
        return { jsonrpc: "2.0", id, result: complete({ content: [{ type: "text", text: `region: ${String(args.region)}` }] }) };
      if (params?.name === "test_simple_text")
        return {
          jsonrpc: "2.0",
          id,
          result: complete({ content: [{ type: "text", text: "This is a simple text response for testing." }] }),
        };
      return { jsonrpc: "2.0", id, error: { code: -32602, message: `unknown tool ${JSON.stringify(params?.name)}` } };
    }
    default:
      return { jsonrpc: "2.0", id, error: { code: -32601, message: `method not found: ${String(method)}` } };
  }
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** The server as a Fetch handler: POST bodies only, one JSON-RPC message each. */
export async function bareFetch(request: Request): Promise<Response> {
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
  let message: unknown;
  try {
    message = JSON.parse(await request.text());
  } catch {
    return json(400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
  }
  if (typeof message !== "object" || message === null || Array.isArray(message))
    return json(400, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "not a request" } });
  if (!("id" in message)) return new Response(null, { status: 202 });
  return json(200, answer(message));
}

/** A Fetch handler served on a free loopback port: its `/mcp` URL and a stop function. */
export interface ServedFetch {
  url: URL;
  stop: () => Promise<void>;
}

/**
 * Serves a Fetch handler on node:http at `127.0.0.1:0`; `make` receives the port first, for options that name it
 * (`allow.hosts`).
 */
export async function serveFetch(make: (port: number) => (request: Request) => Response | Promise<Response>): Promise<ServedFetch> {
  let handler: ((request: Request) => Response | Promise<Response>) | undefined;
  const server = http.createServer(getRequestListener((request) => handler!(request)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  handler = make(port);
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts the bare server on a free loopback port. */
export const startBareServer = (): Promise<ServedFetch> => serveFetch(() => bareFetch);
