/**
 * One official SDK server behind four doors, for comparing what real clients see gated and ungated: `/params`,
 * `/report` and `/framing` are `gateNode` in each state of the `params` rule, `/off` is the SDK alone (its `toNodeHandler`).
 * The server has what legacy clients exercise: tools (one slow, for cancellation and progress), a prompt and a resource
 * template with completions, a static resource, logging. Every refusal and every report is recorded.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { completable, createMcpHandler, McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import * as z from "zod";
import { classifyEra } from "wymcp";
import { gateNode, serveFetch, type McpFetchHandler, type RejectInfo, type Report } from "wymcp/node";
import { validateMcpRequest } from "wymcp";

/**
 * `answer400` is no mode of wymcp's: the gate's params checks (formats asserted) with a refusal answered `400` instead
 * of `200`, the answer wymcp gave before, kept to show what legacy clients make of it. `strict` is `gateNode` with
 * `formats: "strict"`, for what a client shows of a format refusal.
 */
export type Door = "params" | "report" | "framing" | "off" | "answer400" | "strict";
export const DOORS: readonly Door[] = ["params", "report", "framing", "off"];

export interface LegacyServers {
  url(door: Door): URL;
  /** What the gate refused, by door. */
  rejected: Record<Exclude<Door, "answer400" | "strict">, RejectInfo[]>;
  /** What the params rule in `"report"` reported. */
  reported: Report[];
  /** Every POST body the gated doors parsed, by its method (`response`, `batch`), by door, in arrival order. */
  seen: Record<Exclude<Door, "answer400" | "strict">, string[]>;
  stop(): Promise<void>;
}

function buildServer(): McpServer {
  const server = new McpServer({ name: "wymcp-legacy-clients", version: "1.0.0" }, { capabilities: { logging: {} } });
  server.registerTool("echo", { description: "Echoes the text back", inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: "text", text: `echo: ${text}` }],
  }));
  server.registerTool("add", { inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => ({
    content: [{ type: "text", text: String(a + b) }],
    structuredContent: { sum: a + b },
  }));
  server.registerTool("slow", { inputSchema: z.object({ steps: z.number().int().min(1).max(5) }) }, async ({ steps }, ctx) => {
    const token = ctx.mcpReq?._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      if (ctx.mcpReq?.signal?.aborted) break;
      if (token !== undefined)
        await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { content: [{ type: "text", text: `done ${steps}` }] };
  });
  server.registerPrompt(
    "greet",
    {
      description: "A greeting",
      argsSchema: z.object({ name: completable(z.string(), (value) => ["Ada", "Alan"].filter((n) => n.startsWith(value))) }),
    },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }] }),
  );
  server.registerResource("readme", "file:///readme.txt", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: "legacy clients read this" }],
  }));
  server.registerResource(
    "note",
    new ResourceTemplate("note://{id}", {
      list: undefined,
      complete: { id: (value) => ["1", "2", "12"].filter((id) => id.startsWith(value)) },
    }),
    { mimeType: "text/plain" },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${String(id)}` }] }),
  );
  return server;
}

/** Starts the four doors on one loopback port. */
export async function startLegacyServers(): Promise<LegacyServers> {
  const handler = createMcpHandler(buildServer);
  const rejected: LegacyServers["rejected"] = { params: [], report: [], framing: [], off: [] };
  const seen: LegacyServers["seen"] = { params: [], report: [], framing: [], off: [] };
  const reported: Report[] = [];
  const gated = (door: Exclude<Door, "off" | "answer400" | "strict">) =>
    gateNode(handler, {
      rules: { params: ({ params: "enforce", report: "report", framing: "off" } as const)[door] },
      onReject: (info) => rejected[door].push(info),
      onReport: (report) => reported.push(report),
      era: (req, body) => {
        const method = (body as { method?: unknown } | null)?.method;
        seen[door].push(typeof method === "string" ? method : Array.isArray(body) ? "batch" : "response");
        return classifyEra(req.headers, body).era;
      },
    });
  const listeners: Record<Door, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
    params: gated("params"),
    report: gated("report"),
    framing: gated("framing"),
    off: toNodeHandler(handler) as (req: http.IncomingMessage, res: http.ServerResponse) => void,
    answer400: (req, res) => void answer400(handler, req, res),
    strict: gateNode(handler, { rules: { formats: "enforce" } }),
  };
  const server = http.createServer((req, res) => {
    const door = new URL(req.url ?? "/", "http://localhost").pathname.slice(1) as Door;
    const listener = listeners[door];
    if (!listener) return void res.writeHead(404).end();
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (door) => new URL(`http://127.0.0.1:${port}/${door}`),
    rejected,
    reported,
    seen,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handler.close();
    },
  };
}

/** The `answer400` door: a legacy params failure (formats asserted) answered `400` with wymcp's JSON-RPC error, everything else served. */
async function answer400(
  handler: McpFetchHandler,
  req: http.IncomingMessage & { body?: unknown },
  res: http.ServerResponse,
): Promise<void> {
  if (req.method === "POST") {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    req.body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const header = req.headers["mcp-protocol-version"];
    const protocolVersion = Array.isArray(header) ? header[0] : header;
    const result = validateMcpRequest(req.body, "legacy", { protocolVersion, rules: { formats: "enforce" } });
    if (result.outcome === "reject") {
      return void res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(result.response));
    }
  }
  await serveFetch(handler, req, res);
}
