/**
 * One dual-era MCP server (the official SDK) behind several doors, for test/deploy-nginx.test.ts: each door is a
 * loopback port of its own, all serving the same handler and the same legacy session table, so that a `wymcp proxy`
 * per door shows which proxy forwarded each request. Legacy (2025-era) traffic gets sessionful SDK transports, one per
 * `Mcp-Session-Id`; modern (2026-07-28) traffic gets `createMcpHandler(..., { legacy: "reject" })`, routed by the SDK's
 * own `isLegacyRequest`. Every request that reaches a door is recorded, and the SDK's `X-Accel-Buffering: no` is taken
 * off its answers.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  type McpHandlerRequestOptions,
} from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import * as z from "zod";

/** One request as a door received it. */
export interface Arrival {
  door: number;
  /** GET, POST or DELETE. */
  verb: string;
  /** The JSON-RPC method of a POST (`"response"` for a client's answer), or undefined. */
  method?: string;
  /** The session: the request's `Mcp-Session-Id`, or for an `initialize` the one its answer created. */
  session?: string;
  /** The request's `MCP-Protocol-Version` header. */
  protocolVersion?: string;
  /** The tool a `tools/call` names. */
  tool?: string;
}

/** What the tests plug into the tools while they run. */
export interface Hooks {
  /** `stream` awaits this after sending progress `step` (of `steps`), before it sends the next one. */
  afterStep: (step: number, steps: number) => Promise<void>;
  /** `hold` awaits this before it answers. */
  release: () => Promise<void>;
  /** Called when a `hold` call has started, with the number now held. */
  held: (count: number) => void;
}

export interface DualEraDoors {
  urls: URL[];
  arrivals: Arrival[];
  hooks: Hooks;
  stop: () => Promise<void>;
}

function buildServer(hooks: Hooks): McpServer {
  const server = new McpServer({ name: "wymcp-deploy", version: "1.0.0" });
  server.registerTool("echo", { description: "Echoes the text back", inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool(
    "stream",
    {
      description: "Sends `steps` progress notifications, one at a time, then its result",
      inputSchema: z.object({ steps: z.number().int() }),
    },
    async ({ steps }, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken;
      if (progressToken === undefined) throw new Error("stream needs a progress token");
      for (let step = 1; step <= steps; step++) {
        await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress: step, total: steps } });
        await hooks.afterStep(step, steps);
      }
      return { content: [{ type: "text", text: `streamed ${steps}` }] };
    },
  );
  let holding = 0;
  server.registerTool("hold", { description: "Answers once the test releases it", inputSchema: z.object({}) }, async () => {
    hooks.held(++holding);
    await hooks.release();
    holding--;
    return { content: [{ type: "text", text: "released" }] };
  });
  return server;
}

function jsonError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status });
}

/** Starts the server with `count` doors on loopback ports picked by the system. */
export async function startDualEraDoors(count: number): Promise<DualEraDoors> {
  const hooks: Hooks = { afterStep: async () => undefined, release: async () => undefined, held: () => undefined };
  const modern = createMcpHandler(() => buildServer(hooks), { legacy: "reject" });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const servers = new Set<McpServer>();

  async function legacy(request: Request, options: McpHandlerRequestOptions): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const transport = sessions.get(sessionId);
      return transport ? transport.handleRequest(request, options) : jsonError(404, -32001, "Session not found");
    }
    if (request.method !== "POST" || (options.parsedBody as { method?: unknown } | undefined)?.method !== "initialize") {
      return jsonError(400, -32000, "Bad Request: no session; send initialize first");
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    const server = buildServer(hooks);
    servers.add(server);
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      servers.delete(server);
      void server.close();
    };
    await server.connect(transport);
    return transport.handleRequest(request, options);
  }

  const arrivals: Arrival[] = [];
  const door = (index: number) => ({
    async fetch(request: Request, options: McpHandlerRequestOptions = {}): Promise<Response> {
      const arrival: Arrival = { door: index, verb: request.method };
      const session = request.headers.get("mcp-session-id");
      const protocolVersion = request.headers.get("mcp-protocol-version");
      if (session !== null) arrival.session = session;
      if (protocolVersion !== null) arrival.protocolVersion = protocolVersion;
      arrivals.push(arrival);
      if (request.method !== "POST") return session !== null ? legacy(request, options) : modern.fetch(request, options);
      let parsedBody: unknown;
      try {
        parsedBody = await request.json();
      } catch {
        return jsonError(400, -32700, "Parse error");
      }
      const message = parsedBody as { method?: unknown; params?: { name?: unknown } } | null;
      if (typeof message?.method === "string") arrival.method = message.method;
      else if (message && !Array.isArray(message) && "id" in message) arrival.method = "response";
      if (arrival.method === "tools/call" && typeof message?.params?.name === "string") arrival.tool = message.params.name;
      const lane = { ...options, parsedBody };
      const answer = (await isLegacyRequest(request, parsedBody)) ? await legacy(request, lane) : await modern.fetch(request, lane);
      const created = answer.headers.get("mcp-session-id");
      if (arrival.session === undefined && created !== null) arrival.session = created;
      if (!answer.headers.has("x-accel-buffering")) return answer;
      // The SDK asks nginx not to buffer its streams (X-Accel-Buffering: no); servers in other languages may not, so
      // the doors drop it and the stream reaches the client unbuffered through nginx's configuration alone.
      const headers = new Headers(answer.headers);
      headers.delete("x-accel-buffering");
      return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers });
    },
  });

  const listeners = await Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const server = http.createServer(toNodeHandler(door(index)));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return server;
    }),
  );
  return {
    urls: listeners.map((server) => new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)),
    arrivals,
    hooks,
    stop: async () => {
      await Promise.allSettled([...sessions.values()].map((transport) => transport.close()));
      await Promise.allSettled([...servers].map((server) => server.close()));
      await modern.close();
      await Promise.all(
        listeners.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}
