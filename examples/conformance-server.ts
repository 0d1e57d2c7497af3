/**
 * @module examples/conformance-server: the server the official MCP conformance suite is run against
 * (`npm run conformance`). Both eras on one endpoint `/mcp`, wymcp in front of both lanes:
 * legacy (2025-era) traffic goes to sessionful SDK transports, one per `Mcp-Session-Id`, so that
 * server-to-client requests work; modern (2026-07-28) traffic goes to `createMcpHandler(..., { legacy: "reject" })`.
 * `npm run start:conformance`; `PORT` (default 3000); `WYMCP_GATE=off` serves the same without the gate;
 * `WYMCP_OUTBOUND=report` (gated only) checks what it sends, violations to `WYMCP_OUTBOUND_FILE`.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler, isLegacyRequest, type EventStore, type JSONRPCMessage } from "@modelcontextprotocol/server";
import {
  localhostHostValidation,
  localhostOriginValidation,
  NodeStreamableHTTPServerTransport,
  toNodeHandler,
} from "@modelcontextprotocol/node";
import { classifyEra } from "wymcp";
import { DEFAULT_MAX_BODY_BYTES, wymcpNode } from "wymcp/node";
import { buildConformanceServer } from "./conformance-fixtures.js";
import { outboundFromEnv } from "./outbound-from-env.js";

const gated = process.env.WYMCP_GATE !== "off";

const modern = createMcpHandler(() => buildConformanceServer("modern", { notify: modern.notify }), { legacy: "reject" });
const serveModern = toNodeHandler(modern);

/** Legacy sessions by id; an entry lives from its `initialize` until DELETE or the transport closes. */
const sessions = new Map<string, NodeStreamableHTTPServerTransport>();

/** Keeps every SSE event of this process so a legacy client can resume a stream with `Last-Event-ID` (SEP-1699). */
function memoryEventStore(): EventStore {
  const events: { id: string; streamId: string; message: JSONRPCMessage }[] = [];
  return {
    async storeEvent(streamId, message) {
      const id = `${streamId}::${String(events.length).padStart(10, "0")}`;
      events.push({ id, streamId, message });
      return id;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const streamId = lastEventId.slice(0, lastEventId.lastIndexOf("::"));
      for (const event of events) {
        if (event.streamId === streamId && event.id > lastEventId) await send(event.id, event.message);
      }
      return streamId;
    },
  };
}
const eventStore = memoryEventStore();

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
}

/**
 * A JSON-RPC error answer of this host: it echoes the request's id, or has none when there is no usable one.
 * Never `"id": null`: 2025-11-25's `JSONRPCErrorResponse` makes `id` optional but types it `RequestId`
 * (string or integer), and report mode flagged the `null` this host used to send (server-session-lifecycle).
 */
function sendError(res: http.ServerResponse, status: number, request: unknown, code: number, message: string): void {
  const id = (request as { id?: unknown } | null | undefined)?.id;
  const echoed = typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? { id } : {};
  sendJson(res, status, { jsonrpc: "2.0", ...echoed, error: { code, message } });
}

const isInitialize = (body: unknown) => (body as { method?: unknown } | null)?.method === "initialize";

/** The 2025-era lane: the session named in the header, or a new session for an `initialize`. */
async function serveLegacy(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
  const sessionId = req.headers["mcp-session-id"];
  if (typeof sessionId === "string") {
    const transport = sessions.get(sessionId);
    // A session that ended or never existed: 404 tells the client to start a new one.
    if (!transport) return sendError(res, 404, body, -32001, "Session not found");
    // Client responses to sampling, elicitation and roots arrive here too, and reach the request that waits for them.
    return transport.handleRequest(req, res, body);
  }
  if (req.method !== "POST" || !isInitialize(body)) {
    return sendError(res, 400, body, -32000, "Bad Request: no session; send initialize first");
  }
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    eventStore,
    retryInterval: 1_000,
    onsessioninitialized: (id) => void sessions.set(id, transport),
    onsessionclosed: (id) => void sessions.delete(id),
  });
  const server = buildConformanceServer("legacy");
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
    void server.close();
  };
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/** Ungated only: the host reads and parses the body itself, as the gate does when it is on. */
async function readBody(req: http.IncomingMessage, res: http.ServerResponse): Promise<{ body: unknown } | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Stopping at the limit must leave the socket open for the 413.
  for await (const chunk of req.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > DEFAULT_MAX_BODY_BYTES) {
      sendError(res, 413, undefined, -32600, "Request body too large");
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return { body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch {
    sendError(res, 400, undefined, -32700, "Parse error");
    return undefined;
  }
}

/**
 * The SDK's own routing decision for a parsed POST: legacy unless the body or the headers claim the modern
 * envelope. Routing on it means the modern entry answers everything it was built to answer.
 */
function isLegacy(req: http.IncomingMessage, body: unknown): Promise<boolean> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
  return isLegacyRequest(new Request("http://127.0.0.1/mcp", { method: "POST", headers }), body);
}

/** After the gate (or without it): route to the lane the SDK's classification names. */
async function dispatch(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.method !== "POST") {
    // GET and DELETE are session operations of the legacy era; without a session the modern entry answers them.
    return typeof req.headers["mcp-session-id"] === "string" ? serveLegacy(req, res, undefined) : serveModern(req, res);
  }
  let body: unknown;
  if (gated) {
    const result = req.wymcp?.result;
    // JSON-RPC forbids answering a notification with an error: a modern one is acknowledged whatever it holds.
    if (result?.outcome === "bypass" && result.reason === "modern-notification") return void res.writeHead(202).end();
    body = (req as { body?: unknown }).body;
  } else {
    const read = await readBody(req, res);
    if (!read) return;
    body = read.body;
  }
  return (await isLegacy(req, body)) ? serveLegacy(req, res, body) : serveModern(req, res, body);
}

const guard = wymcpNode({
  era: (req, body) => classifyEra(req.headers, body).era,
  onReject: ({ status, reason, era }) => console.error(`wymcp rejected: ${status} ${reason} (${era ?? "before parsing"})`),
  // WYMCP_OUTBOUND=report: every message either lane sends (POST answers and GET streams) is checked (examples/outbound-from-env.ts).
  ...(await outboundFromEnv()),
});
// Loopback only: refuse DNS-rebinding attempts from browsers before anything else.
const hostIsLocal = localhostHostValidation();
const originIsLocal = localhostOriginValidation();

const server = http.createServer((req, res) => {
  if (new URL(req.url ?? "/", "http://localhost").pathname !== "/mcp") return sendJson(res, 404, { error: "not found" });
  if (!hostIsLocal(req, res) || !originIsLocal(req, res)) return;
  const run = () =>
    dispatch(req, res).catch((error: unknown) => {
      console.error("conformance server: dispatch failed:", error);
      if (!res.headersSent) sendError(res, 500, (req as { body?: unknown }).body, -32603, "Internal error");
      else res.end();
    });
  if (gated) void guard(req, res, run);
  else void run();
});

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  console.log(`wymcp conformance server (gate ${gated ? "on" : "off"}) listening on http://127.0.0.1:${port}/mcp`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    const closing = [...sessions.values()].map((transport) => transport.close());
    void Promise.allSettled([...closing, modern.close()]).finally(() => process.exit(0));
  });
}
