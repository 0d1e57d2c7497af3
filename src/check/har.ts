/**
 * @module har: the MCP messages of a HAR file (HTTP Archive 1.2, as browsers' developer tools and the MCP Inspector
 * export a session): every POST to an MCP endpoint, in order, its request body with its headers (the era's signals),
 * then its response, as JSON or as an event stream split into its messages; and the event streams a client opened
 * with GET on the same endpoint. An endpoint is MCP when one of its POSTs carries a JSON-RPC body or an MCP header.
 */
import { mediaType } from "../core/header-value.js";
import { eachEventData } from "../core/sse.js";

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

/** A HAR file's messages, all at once: a short capture's reading (the tests'). */
export interface HarReading {
  messages: CapturedMessage[];
  /** Entries on an MCP endpoint whose body the capture did not keep (developer tools leave out large or binary ones). */
  withoutBody: number;
  /** Responses on an MCP endpoint whose base64 content does not decode: their messages cannot be read. */
  undecodable: number;
}

/**
 * A HAR file's messages one at a time: each is made when the loop asks for it, so a response of millions of tiny
 * events is never held as millions of messages. The counts grow as the messages are read and are complete once
 * `messages` has been read to its end.
 */
export interface HarMessages {
  /** The messages in order; read once. */
  messages: Iterable<CapturedMessage>;
  /** The entry of the last message (a report lines its positions up by it before the first), undefined for none. */
  lastEntry: number | undefined;
  withoutBody: number;
  undecodable: number;
}

export class HarError extends Error {
  override name = "HarError";
}

interface HarEntry {
  request?: { method?: unknown; url?: unknown; headers?: unknown; postData?: { text?: unknown; mimeType?: unknown } };
  response?: { status?: unknown; headers?: unknown; content?: { text?: unknown; mimeType?: unknown; encoding?: unknown } };
}

/** Reads a HAR file's MCP messages all at once; `maxBytes` bounds each message as `--max-body-bytes` does. */
export function readHar(text: string, maxBytes: number): HarReading {
  const reading = harMessages(text, maxBytes);
  const messages = [...reading.messages];
  return { messages, withoutBody: reading.withoutBody, undecodable: reading.undecodable };
}

/**
 * Reads a HAR file's MCP messages one at a time; `maxBytes` bounds each message as `--max-body-bytes` does. `made` sees
 * each message as it is made (a test counts how many are made ahead of the loop that reads them).
 * @throws HarError when the text is not JSON or has no `log.entries`.
 */
export function harMessages(text: string, maxBytes: number, made?: (message: CapturedMessage) => void): HarMessages {
  let har: unknown;
  try {
    har = JSON.parse(text);
  } catch {
    throw new HarError("not JSON, so not a HAR file");
  }
  const entries = (har as { log?: { entries?: unknown } } | null)?.log?.entries;
  if (!Array.isArray(entries)) throw new HarError("no log.entries: not a HAR file");
  const endpoints = mcpEndpoints(entries as HarEntry[]);
  // The last entry that holds a message: its first message is made, and dropped, to know (its counts are not kept).
  let lastEntry: number | undefined;
  for (let i = entries.length - 1; i >= 0 && lastEntry === undefined; i--) {
    const probe = { withoutBody: 0, undecodable: 0 };
    if (!entryMessages(entries[i] as HarEntry, i + 1, { endpoints, maxBytes, counts: probe }).next().done) lastEntry = i + 1;
  }
  const reading: HarMessages = { messages: [], lastEntry, withoutBody: 0, undecodable: 0 };
  reading.messages = (function* () {
    for (let i = 0; i < entries.length; i++) {
      for (const message of entryMessages(entries[i] as HarEntry, i + 1, { endpoints, maxBytes, counts: reading })) {
        made?.(message);
        yield message;
      }
    }
  })();
  return reading;
}

/** The messages of one entry (`number`: 1-based), made one at a time; what cannot be read is counted in `counts`. */
function* entryMessages(
  entry: HarEntry,
  number: number,
  { endpoints, maxBytes, counts }: { endpoints: Set<string>; maxBytes: number; counts: { withoutBody: number; undecodable: number } },
): Generator<CapturedMessage, void, undefined> {
  const request = entry?.request;
  const method = typeof request?.method === "string" ? request.method.toUpperCase() : "";
  const url = typeof request?.url === "string" ? endpointOf(request.url) : undefined;
  if (url === undefined || !endpoints.has(url) || (method !== "POST" && method !== "GET")) return;
  const headers = headerMap(request?.headers);
  const assigned = headerMap(entry.response?.headers)["mcp-session-id"];
  const session = assigned === undefined ? {} : { session: assigned };
  if (method === "POST") {
    const body = request?.postData?.text;
    if (typeof body !== "string") counts.withoutBody++;
    else yield { entry: number, part: "request", bytes: bounded(body, maxBytes), headers, from: "client", ...session };
  }
  const response = entry.response;
  const content = response?.content;
  let payload = typeof content?.text === "string" ? content.text : undefined;
  if (payload !== undefined && content?.encoding === "base64") {
    payload = fromBase64(payload);
    if (payload === undefined) counts.undecodable++;
  }
  if (payload === undefined || !/\S/.test(payload)) return;
  const type = mediaType(typeof content?.mimeType === "string" ? content.mimeType : headerMap(response?.headers)["content-type"]);
  if (type === "text/event-stream") {
    let k = 0;
    for (const data of eachEventData(payload))
      yield { entry: number, part: `event ${++k}`, bytes: bounded(data, maxBytes), headers, from: "server", ...session };
  } else if (method === "POST") {
    yield { entry: number, part: "response", bytes: bounded(payload, maxBytes), headers, from: "server", ...session };
  }
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

/** Base64 to UTF-8 text with Web APIs alone (the inspector's page reads HAR files too); undefined for bad base64. */
function fromBase64(text: string): string | undefined {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(text.replace(/[\s]/g, "")), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

const ENCODER = new TextEncoder();

function bounded(text: string, maxBytes: number): Uint8Array | undefined {
  // A text of more than maxBytes UTF-16 units is more than maxBytes bytes: not encoded to be thrown away.
  if (text.length > maxBytes) return undefined;
  const bytes = ENCODER.encode(text);
  return bytes.length > maxBytes ? undefined : bytes;
}
