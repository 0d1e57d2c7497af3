/**
 * @module bench/soak-server: the Fetch face behind `@hono/node-server`, for `npm run bench -- --soak`. `SOAK_MODE`:
 * `sdk` serves `handler.fetch` alone; `gated` serves `gateFetch(handler)`; `reader`, `arrayBuffer` and `text` read
 * the body of Hono's `Request` that way, parse it and hand the SDK the parsed body (no wymcp), to price each way of
 * reading on that host. `GET /memory` collects garbage (the process runs with `--expose-gc`) and answers
 * `process.memoryUsage()`.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod";
import { gateFetch } from "wymcp/fetch";

function buildServer(): McpServer {
  const server = new McpServer({ name: "wymcp-soak", version: "1.0.0" });
  server.registerTool("echo", { description: "Echoes the text back", inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

const handler = createMcpHandler(buildServer);
const mode = process.env.SOAK_MODE ?? "gated";
const gated = gateFetch(handler);

/** The body read the way `mode` names, parsed, and handed to the SDK as wymcp hands it. */
async function readThen(request: Request): Promise<Response> {
  if (request.method !== "POST") return handler.fetch(request);
  let text: string;
  if (mode === "text") text = await request.text();
  else if (mode === "arrayBuffer") text = new TextDecoder().decode(await request.arrayBuffer());
  else {
    const parts: Uint8Array[] = [];
    const reader = request.body!.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
    text = new TextDecoder().decode(Buffer.concat(parts));
  }
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(text);
  } catch {
    return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }, { status: 400 });
  }
  return handler.fetch(request, { parsedBody });
}

const gc = (globalThis as { gc?: () => void }).gc;

serve(
  {
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request: Request) => {
      if (new URL(request.url).pathname === "/memory") {
        gc?.();
        gc?.();
        return Response.json(process.memoryUsage());
      }
      if (mode === "sdk") return handler.fetch(request);
      if (mode === "gated") return gated(request);
      return readThen(request);
    },
  },
  (info: AddressInfo) => console.log(`wymcp soak (${mode}) listening on http://127.0.0.1:${info.port}/mcp`),
);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(0));
