/**
 * @module examples/server: a dual-era MCP server on Node `http`, the official SDK (`createMcpHandler`) behind wymcp's
 * `gateNode`. `npm start`; `PORT` (default 3000), endpoint `/mcp`. `WYMCP_OUTBOUND=report` checks what it sends back;
 * `WYMCP_OTEL=noop|sdk` adds telemetry (examples/otel-from-env.ts) to `/mcp`, and serves the same gate without it on
 * `/mcp-untraced`, so that the flood compares the two in one process.
 * For comparisons only: `WYMCP_GATE=off` serves the SDK alone (its `toNodeHandler`); `WYMCP_GATE=bridge` serves
 * through gateNode's bridge with no validation (the body read and parsed, then `serveFetch`), so the bench prices the gate alone.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from "@modelcontextprotocol/node";
import * as z from "zod";
import { answerClientErrors, gateNode, serveFetch, type RejectInfo } from "wymcp/node";
import { otelFromEnv } from "./otel-from-env.js";
import { outboundFromEnv } from "./outbound-from-env.js";

/** One tool, one prompt, one resource; the SDK builds a fresh server per HTTP request, in either era. */
function buildServer({ era }: { era: "legacy" | "modern" }): McpServer {
  const server = new McpServer({ name: "wymcp-example", version: "1.0.0" });
  server.registerTool("echo", { description: "Echoes the text back", inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: "text", text: `echo (${era}): ${text}` }],
  }));
  server.registerPrompt("greet", { description: "A greeting", argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }],
  }));
  server.registerResource("readme", "file:///readme.txt", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: "This server validates every message with wymcp first." }],
  }));
  return server;
}

const handler = createMcpHandler(buildServer);
const mode = process.env.WYMCP_GATE ?? "on";
const onReject = ({ status, reason, era }: RejectInfo) => console.error(`wymcp rejected: ${status} ${reason} (${era ?? "not judged"})`);
const outbound = await outboundFromEnv();
const otel = await otelFromEnv();
const mcp =
  mode === "off" ? toNodeHandler(handler) : mode === "bridge" ? bridgeOnly : gateNode(handler, { onReject, ...outbound, ...otel });
// With WYMCP_OTEL, /mcp-untraced is the same gate without telemetry, in the same process: the flood compares the two.
const untraced = otel.telemetry && mode === "on" ? gateNode(handler, { onReject, ...outbound }) : undefined;

/** `WYMCP_GATE=bridge`: what gateNode does for a valid POST, minus every check. */
async function bridgeOnly(req: http.IncomingMessage & { body?: unknown }, res: http.ServerResponse): Promise<void> {
  if (req.method === "POST") {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      req.body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return void res.writeHead(400).end();
    }
  }
  await serveFetch(handler, req, res).catch(() => res.headersSent || res.writeHead(500).end());
}

// The server listens on loopback only; these refuse DNS-rebinding attempts from browsers.
const hostIsLocal = localhostHostValidation();
const originIsLocal = localhostOriginValidation();

// answerClientErrors: requests Node's HTTP parser refuses get a JSON-RPC answer too, instead of Node's empty 400.
const server = answerClientErrors(
  http.createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const serve = path === "/mcp" ? mcp : path === "/mcp-untraced" ? untraced : undefined;
    if (!serve) {
      return void res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "not found" }));
    }
    if (hostIsLocal(req, res) && originIsLocal(req, res)) void serve(req, res);
  }),
);

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  console.log(`wymcp example listening on http://127.0.0.1:${port}/mcp${mode === "on" ? "" : ` (WYMCP_GATE=${mode}: no validation)`}`);
});

// Exit on a signal even though the SDK handler keeps timers alive, so tests that start this file can end it.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    void handler.close().finally(() => process.exit(0));
  });
}
