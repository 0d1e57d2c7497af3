/**
 * @module har: the MCP messages of a HAR file (HTTP Archive 1.2, as browsers' developer tools and the MCP Inspector
 * export a session): every POST to an MCP endpoint, in order, its request body with its headers (the era's signals),
 * then its response, as JSON or as an event stream split into its messages; and the event streams a client opened
 * with GET on the same endpoint. An endpoint is MCP when one of its POSTs carries a JSON-RPC body or an MCP header.
 */
import { eventData } from "./sse.js";

/** One message of the capture, with where it was and what came with it. */
export interface CapturedMessage {
  /** The entry's number in the HAR file (1-based, as developer tools count the requests). */
  entry: number;
  /** `request`, `response`, or `event N` of a response's event stream. */
  part: string;
  /** The message's bytes; undefined when it is larger than the limit. */
  bytes: Uint8Array | undefined;
  /** The HTTP request's headers, names lower-cased (the last of a repeated name). */
  headers: Record<string, string>;
  /** Who sent it: the client (a request body) or the server (a response). */
  from: "client" | "server";
  /** The `Mcp-Session-Id` the server's response assigned (its answer to `initialize`), when it has one. */
  session?: string;
}

export interface HarReading {
  messages: CapturedMessage[];
  /** Entries on an MCP endpoint whose body the capture did not keep (developer tools leave out large or binary ones). */
  withoutBody: number;
}

export class HarError extends Error {
  override name = "HarError";
}

interface HarEntry {
  request?: { method?: unknown; url?: unknown; headers?: unknown; postData?: { text?: unknown; mimeType?: unknown } };
  response?: { status?: unknown; headers?: unknown; content?: { text?: unknown; mimeType?: unknown; encoding?: unknown } };
}

/** Reads a HAR file's MCP messages; `maxBytes` bounds each message as `--max-bytes` does. */
export function readHar(text: string, maxBytes: number): HarReading {
  let har: unknown;
  try {
    har = JSON.parse(text);
  } catch {
    throw new HarError("not JSON, so not a HAR file");
  }
  const entries = (har as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries)) throw new HarError("no log.entries: not a HAR file");
  const endpoints = mcpEndpoints(entries as HarEntry[]);
  const messages: CapturedMessage[] = [];
  let withoutBody = 0;
  (entries as HarEntry[]).forEach((entry, i) => {
    const request = entry?.request;
    const method = typeof request?.method === "string" ? request.method.toUpperCase() : "";
    const url = typeof request?.url === "string" ? endpointOf(request.url) : undefined;
    if (url === undefined || !endpoints.has(url) || (method !== "POST" && method !== "GET")) return;
    const headers = headerMap(request?.headers);
    const assigned = headerMap(entry.response?.headers)["mcp-session-id"];
    const session = assigned === undefined ? {} : { session: assigned };
    const number = i + 1;
    if (method === "POST") {
      const body = request?.postData?.text;
      if (typeof body !== "string") withoutBody++;
      else messages.push({ entry: number, part: "request", bytes: bounded(body, maxBytes), headers, from: "client", ...session });
    }
    const response = entry.response;
    const content = response?.content;
    let payload = typeof content?.text === "string" ? content.text : undefined;
    if (payload !== undefined && content?.encoding === "base64") payload = fromBase64(payload);
    if (payload === undefined || payload.trim() === "") return;
    const type = mediaType(typeof content?.mimeType === "string" ? content.mimeType : headerMap(response?.headers)["content-type"]);
    if (type === "text/event-stream") {
      eventData(payload).forEach((data, k) => {
        messages.push({ entry: number, part: `event ${k + 1}`, bytes: bounded(data, maxBytes), headers, from: "server", ...session });
      });
    } else if (method === "POST") {
      messages.push({ entry: number, part: "response", bytes: bounded(payload, maxBytes), headers, from: "server", ...session });
    }
  });
  return { messages, withoutBody };
}

/** The URLs (without query or fragment) some POST of which carries a JSON-RPC body or an MCP header. */
function mcpEndpoints(entries: HarEntry[]): Set<string> {
  const out = new Set<string>();
  for (const entry of entries) {
    const request = entry?.request;
    if (typeof request?.url !== "string" || typeof request.method !== "string" || request.method.toUpperCase() !== "POST") continue;
    const url = endpointOf(request.url);
    if (url === undefined) continue;
    const headers = headerMap(request.headers);
    if (headers["mcp-protocol-version"] !== undefined || headers["mcp-session-id"] !== undefined || isJsonRpc(request.postData?.text))
      out.add(url);
  }
  return out;
}

function isJsonRpc(text: unknown): boolean {
  if (typeof text !== "string") return false;
  try {
    const body = JSON.parse(text) as unknown;
    const first = Array.isArray(body) ? body[0] : body;
    return typeof first === "object" && first !== null && (first as { jsonrpc?: unknown }).jsonrpc === "2.0";
  } catch {
    return false;
  }
}

function endpointOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

function headerMap(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(headers)) return out;
  for (const header of headers) {
    const { name, value } = (header ?? {}) as { name?: unknown; value?: unknown };
    if (typeof name === "string" && typeof value === "string") out[name.toLowerCase()] = value;
  }
  return out;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]!.trim().toLowerCase();
}

/** Base64 to UTF-8 text with Web APIs alone (the inspector's page reads HAR files too); bad base64 reads as empty. */
function fromBase64(text: string): string {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(text.replace(/[\s]/g, "")), (c) => c.charCodeAt(0)));
  } catch {
    return "";
  }
}

function bounded(text: string, maxBytes: number): Uint8Array | undefined {
  const bytes = new TextEncoder().encode(text);
  return bytes.length > maxBytes ? undefined : bytes;
}
