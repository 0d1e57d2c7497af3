/**
 * @module examples/dual-era-host: one `fetch`-shaped handler serving both eras with the official SDK v2. Legacy
 * (2025-era) traffic goes to sessionful SDK transports, one per `Mcp-Session-Id` (an `initialize` opens one, with
 * resumable streams), so that server-to-client requests (sampling, elicitation, roots) reach the client and its answers
 * come back; modern (2026-07-28) traffic goes to a `createMcpHandler` handler. Routed by the SDK's own decision
 * (`isLegacyRequest`), so that `gateNode(host)` and the SDK's `toNodeHandler(host)` serve it alike. Used by the
 * conformance server and the real-client tests.
 */
import { randomUUID } from "node:crypto";
import {
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type EventStore,
  type JSONRPCMessage,
  type McpHandlerRequestOptions,
  type McpHttpHandler,
  type McpServer,
} from "@modelcontextprotocol/server";

export interface DualEraHost {
  fetch(request: Request, options?: McpHandlerRequestOptions): Promise<Response>;
  /** Closes every legacy session and the modern handler. */
  close(): Promise<void>;
}

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

function json(status: number, body: unknown): Response {
  return Response.json(body, { status });
}

/**
 * A JSON-RPC error answer of this host: it echoes the request's id, or has none when there is no usable one.
 * (wymcp's own answers carry `"id": null` there, as JSON-RPC 2.0 §5 asks; this host keeps the key out, as it did
 * when it was measured, so the conformance suite's figures stay comparable.)
 */
function jsonError(status: number, request: unknown, code: number, message: string): Response {
  const id = (request as { id?: unknown } | null | undefined)?.id;
  const echoed = typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? { id } : {};
  return json(status, { jsonrpc: "2.0", ...echoed, error: { code, message } });
}

const isInitialize = (body: unknown) => (body as { method?: unknown } | null)?.method === "initialize";

/** Both eras as one handler: `buildLegacy` makes each legacy session's server, `modern` serves 2026-07-28. */
export function dualEraHost(buildLegacy: () => McpServer, modern: McpHttpHandler): DualEraHost {
  /** Legacy sessions by id; an entry lives from its `initialize` until DELETE or the transport closes. */
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const eventStore = memoryEventStore();

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
    const server = buildLegacy();
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void server.close();
    };
    await server.connect(transport);
    return transport.handleRequest(request, options);
  }

  return {
    async fetch(request: Request, options: McpHandlerRequestOptions = {}): Promise<Response> {
      if (request.method !== "POST") {
        // GET and DELETE are session operations of the legacy era; without a session the modern entry answers them.
        return request.headers.has("mcp-session-id") ? serveLegacy(request, options) : modern.fetch(request, options);
      }
      // Ungated, the body arrives unread and is parsed here once.
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
    async close() {
      const closing = [...sessions.values()].map((transport) => transport.close());
      await Promise.allSettled([...closing, modern.close()]);
    },
  };
}
