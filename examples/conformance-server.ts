/**
 * @module examples/conformance-server: the server the official MCP conformance suite is run against
 * (`npm run conformance`). Both eras on one endpoint `/mcp`, wymcp in front of both lanes:
 * legacy (2025-era) traffic goes to sessionful SDK transports, one per `Mcp-Session-Id`, so that
 * server-to-client requests work; modern (2026-07-28) traffic goes to `createMcpHandler(..., { legacy: "reject" })`.
 * The two lanes form one `fetch`-shaped handler: gated, `gateNode(handler)`; ungated, the SDK's `toNodeHandler(handler)`.
 * `npm run start:conformance`; `PORT` (default 3000); `WYMCP_GATE=off` serves the same without the gate;
 * `WYMCP_OUTBOUND=report` (gated only) checks what it sends, violations to `WYMCP_OUTBOUND_FILE`;
 * `WYMCP_LEGACY_CHECKS=params|report|framing` (gated only) sets the gate's `legacyChecks` (unset: its default).
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type EventStore,
  type JSONRPCMessage,
  type McpHandlerRequestOptions,
} from "@modelcontextprotocol/server";
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from "@modelcontextprotocol/node";
import { gateNode } from "wymcp/node";
import { buildConformanceServer } from "./conformance-fixtures.js";
import { outboundFromEnv } from "./outbound-from-env.js";

const gated = process.env.WYMCP_GATE !== "off";

const modern = createMcpHandler(() => buildConformanceServer("modern", { notify: modern.notify }), { legacy: "reject" });

/** Legacy sessions by id; an entry lives from its `initialize` until DELETE or the transport closes. */
const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

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

function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}

/**
 * A JSON-RPC error answer of this host: it echoes the request's id, or has none when there is no usable one.
 * (wymcp's own answers carry `"id": null` there, as JSON-RPC 2.0 §5 asks; this host keeps the key out, as it did
 * when it was measured, so the suite's figures stay comparable.)
 */
function jsonError(status: number, request: unknown, code: number, message: string): Response {
  const id = (request as { id?: unknown } | null | undefined)?.id;
  const echoed = typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? { id } : {};
  return json(status, { jsonrpc: "2.0", ...echoed, error: { code, message } });
}

const isInitialize = (body: unknown) => (body as { method?: unknown } | null)?.method === "initialize";

/** The 2025-era lane: the session named in the header, or a new session for an `initialize`. */
async function serveLegacy(request: Request, options: McpHandlerRequestOptions): Promise<Response> {
  const body = options.parsedBody;
  const sessionId = request.headers.get("mcp-session-id");
  if (sessionId !== null) {
    const transport = sessions.get(sessionId);
    // A session that ended or never existed: 404 tells the client to start a new one.
    if (!transport) return jsonError(404, body, -32001, "Session not found");
    // Client responses to sampling, elicitation and roots arrive here too, and reach the request that waits for them.
    return transport.handleRequest(request, options);
  }
  if (request.method !== "POST" || !isInitialize(body)) {
    return jsonError(400, body, -32000, "Bad Request: no session; send initialize first");
  }
  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
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
  return transport.handleRequest(request, options);
}

/**
 * Both lanes as one `fetch`-shaped handler, routed by the SDK's own decision (`isLegacyRequest`), so that gateNode
 * and toNodeHandler serve it alike. Ungated, the body arrives unread and is parsed here once.
 */
const conformance = {
  async fetch(request: Request, options: McpHandlerRequestOptions = {}): Promise<Response> {
    if (request.method !== "POST") {
      // GET and DELETE are session operations of the legacy era; without a session the modern entry answers them.
      return request.headers.has("mcp-session-id") ? serveLegacy(request, options) : modern.fetch(request, options);
    }
    let { parsedBody } = options;
    if (parsedBody === undefined) {
      try {
        parsedBody = await request.json();
      } catch {
        return jsonError(400, undefined, -32700, "Parse error");
      }
    }
    const lane = { ...options, parsedBody };
    return (await isLegacyRequest(request, parsedBody)) ? serveLegacy(request, lane) : modern.fetch(request, lane);
  },
};

const legacyChecks = process.env.WYMCP_LEGACY_CHECKS as "params" | "report" | "framing" | undefined;
const serve = gated
  ? gateNode(conformance, {
      ...(legacyChecks && { legacyChecks }),
      onReject: ({ status, reason, era }) => console.error(`wymcp rejected: ${status} ${reason} (${era ?? "before parsing"})`),
      onLegacyReport: ({ status, response }) => console.error(`wymcp reported: ${status} ${response.error.message}`),
      // WYMCP_OUTBOUND=report: every message either lane sends (POST answers and GET streams) is checked (examples/outbound-from-env.ts).
      ...(await outboundFromEnv()),
    })
  : toNodeHandler(conformance);
// Loopback only: refuse DNS-rebinding attempts from browsers before anything else.
const hostIsLocal = localhostHostValidation();
const originIsLocal = localhostOriginValidation();

const server = http.createServer((req, res) => {
  if (new URL(req.url ?? "/", "http://localhost").pathname !== "/mcp") {
    return void res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "not found" }));
  }
  if (hostIsLocal(req, res) && originIsLocal(req, res)) void serve(req, res);
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
