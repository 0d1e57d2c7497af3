/**
 * @module examples/server: a dual-era MCP server on Node `http`, with wymcp validating every POST in
 * front of the official SDK (`createMcpHandler`). `npm start`; `PORT` (default 3000), endpoint `/mcp`.
 * `WYMCP_GATE=off` starts the same server without wymcp (the SDK reads every body itself), for comparisons only.
 * `WYMCP_OUTBOUND=report` (and optionally `WYMCP_OUTBOUND_FILE`) checks what it sends back.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, McpServer, type McpHttpHandler } from "@modelcontextprotocol/server";
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from "@modelcontextprotocol/node";
import * as z from "zod";
import { classifyEra } from "wymcp";
import { wymcpNode } from "wymcp/node";
import { outboundFromEnv } from "./outbound-from-env.js";

/** One tool, one prompt, one resource; the SDK builds a fresh server per HTTP request, in either era. */
function buildServer({ era }: { era: "legacy" | "modern" }): McpServer {
  const server = new McpServer({ name: "wymcp-example", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echoes the text back", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text: `echo (${era}): ${text}` }] }),
  );
  server.registerPrompt(
    "greet",
    { description: "A greeting", argsSchema: z.object({ name: z.string() }) },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }] }),
  );
  server.registerResource("readme", "file:///readme.txt", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: "This server validates every message with wymcp first." }],
  }));
  return server;
}

const gated = process.env.WYMCP_GATE !== "off";
const handler = createMcpHandler(buildServer);
const mcp = toNodeHandler(handler);
const guard = wymcpNode({
  era: (req, body) => classifyEra(req.headers, body).era,
  onReject: ({ status, reason, era }) => console.error(`wymcp rejected: ${status} ${reason} (${era ?? "not judged"})`),
  // WYMCP_OUTBOUND=report: development mode, every message the server sends is checked (examples/outbound-from-env.ts).
  ...(await outboundFromEnv()),
});
// The server listens on loopback only; these refuse DNS-rebinding attempts from browsers.
const hostIsLocal = localhostHostValidation();
const originIsLocal = localhostOriginValidation();

/** The dispatch step after wymcp: what the contract leaves to the dispatcher, then the SDK. */
async function dispatch(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const result = req.wymcp?.result;
  if (result?.outcome === "bypass" && result.reason === "modern-notification") {
    // JSON-RPC forbids answering a notification with an error, so its body is not judged: 202 whatever it holds.
    // The SDK itself would answer a malformed one 400.
    res.writeHead(202).end();
    return;
  }
  // Legacy client responses go to the SDK too: delivering them to the session that minted the id is
  // its transport's job (its stateless legacy leg accepts them with 202, as there is no session).
  await serveParsed(handler, req, res, (req as { body?: unknown }).body);
}

/**
 * Serves a request whose body wymcp parsed (the README's `serveParsed`): the SDK's `fetch` gets a body-less Web
 * `Request` and the parsed value. `mcp(req, res, body)` would re-serialize it (`JSON.stringify`, ~270 µs on 50 KiB).
 */
async function serveParsed(sdk: Pick<McpHttpHandler, "fetch">, req: http.IncomingMessage, res: http.ServerResponse, parsedBody: unknown): Promise<void> {
  const abort = new AbortController();
  // The SDK ends a stream (subscriptions/listen, a call in flight) when its client goes away.
  res.once("close", () => res.writableFinished || abort.abort());
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const url = `http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`;
  const response = await sdk.fetch(new Request(url, { method: req.method, headers, signal: abort.signal }), { parsedBody });
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) return void res.end();
  // A reader loop, not Readable.fromWeb + pipeline, which cost 3× as much per answer (measured).
  const reader = response.body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      abort.signal.throwIfAborted();
      // Backpressure while an SSE stream is written; the wait ends if the client goes away.
      if (!res.write(read.value)) await once(res, "drain", { signal: abort.signal });
    }
  } catch {
    void reader.cancel().catch(() => {}); // the client went away: cancel the SDK's stream
  }
  res.end();
}

const server = http.createServer((req, res) => {
  if (new URL(req.url ?? "/", "http://localhost").pathname !== "/mcp") {
    res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "not found" }));
    return;
  }
  if (!hostIsLocal(req, res) || !originIsLocal(req, res)) return;
  if (!gated) {
    mcp(req, res).catch((error: unknown) => {
      console.error("example dispatch failed:", error);
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
      res.end();
    });
    return;
  }
  void guard(req, res, () => {
    dispatch(req, res).catch((error: unknown) => {
      console.error("example dispatch failed:", error);
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
      res.end();
    });
  });
});

// Requests Node's HTTP parser refuses (a lying Content-Length, bad chunking) never reach a handler. Node's
// default answers them with an empty 400; this answers them as JSON-RPC too, like every other refusal here.
server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
  const answering = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === "ECONNRESET" || !socket.writable || answering?.headersSent) return void socket.destroy();
  const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const text = JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `${http.STATUS_CODES[status]}: the HTTP request is malformed` } });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
});

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  console.log(`wymcp example listening on http://127.0.0.1:${port}/mcp${gated ? "" : " (WYMCP_GATE=off: no wymcp in front)"}`);
});

// Exit on a signal even though the SDK handler keeps timers alive, so tests that start this file can end it.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    void handler.close().finally(() => process.exit(0));
  });
}
