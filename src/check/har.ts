/**
 * @module har: the MCP messages of a HAR file (HTTP Archive 1.2, as browsers' developer tools and the MCP Inspector
 * export a session): every POST to an MCP endpoint, in order, its request body with its headers (the era's signals),
 * then its response, as JSON or as an event stream split into its messages; and the event streams a client opened
 * with GET on the same endpoint. An endpoint is MCP when one of its POSTs carries a JSON-RPC body or an MCP header.
 * The file is read as it is (lazy-json.ts): a long body or event stream is never copied out of it whole, and an event
 * stream's events are read from it one at a time as the loop asks for them.
 */
import { mediaType } from "../core/header-value.js";
import { createSseReader } from "../wire/sse.js";
import { type JsonText, LazyJsonError, LongString, parseLazily } from "./lazy-json.js";

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
export function readHar(file: string | Uint8Array, maxBytes: number): HarReading {
  const reading = harMessages(file, maxBytes);
  const messages = [...reading.messages];
  return { messages, withoutBody: reading.withoutBody, undecodable: reading.undecodable };
}

/**
 * Reads a HAR file's MCP messages one at a time, from its bytes (or its text); `maxBytes` bounds each message as
 * `--max-body-bytes` does. `made` sees each message as it is made (a test counts how many are made ahead of the loop
 * that reads them).
 * @throws HarError when the file is not JSON or has no `log.entries`.
 */
export function harMessages(file: string | Uint8Array, maxBytes: number, made?: (message: CapturedMessage) => void): HarMessages {
  let har: unknown;
  try {
    har = parseLazily(file);
  } catch (error) {
    if (!(error instanceof LazyJsonError)) throw error;
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
  const method = stringOf(request?.method)?.toUpperCase() ?? "";
  const target = stringOf(request?.url);
  const url = target === undefined ? undefined : endpointOf(target);
  if (url === undefined || !endpoints.has(url) || (method !== "POST" && method !== "GET")) return;
  const headers = headerMap(request?.headers);
  const assigned = headerMap(entry.response?.headers)["mcp-session-id"];
  const session = assigned === undefined ? {} : { session: assigned };
  if (method === "POST") {
    const body = textOf(request?.postData?.text);
    if (body === undefined) counts.withoutBody++;
    else yield { entry: number, part: "request", bytes: bounded(body, maxBytes), headers, from: "client", ...session };
  }
  const response = entry.response;
  const content = response?.content;
  const text = textOf(content?.text);
  if (text === undefined) return;
  const read = content?.encoding === "base64" ? fromBase64(text) : () => pieces(text);
  if (read === undefined) {
    counts.undecodable++;
    return;
  }
  // Blank content (only whitespace) holds no message.
  if (!nonBlank(read())) return;
  const type = mediaType(stringOf(content?.mimeType) ?? headerMap(response?.headers)["content-type"]);
  if (type === "text/event-stream") {
    let k = 0;
    for (const data of eventData(read()))
      yield { entry: number, part: `event ${++k}`, bytes: bounded(data, maxBytes), headers, from: "server", ...session };
  } else if (method === "POST") {
    const whole = joined(read(), maxBytes);
    yield {
      entry: number,
      part: "response",
      bytes: whole === undefined ? undefined : bounded(whole, maxBytes),
      headers,
      from: "server",
      ...session,
    };
  }
}

/** Whether a text given in pieces holds anything but whitespace (read up to its first such character). */
function nonBlank(text: Iterable<string>): boolean {
  for (const piece of text) if (/\S/.test(piece)) return true;
  return false;
}

/** A text of the file: a string as it is, a long one (lazy-json.ts) left in the file; undefined for anything else. */
function textOf(value: unknown): JsonText | undefined {
  return typeof value === "string" || value instanceof LongString ? value : undefined;
}

/** A string of the file whole, long or not (a URL, a header: short in any real capture). */
function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : value instanceof LongString ? value.text() : undefined;
}

/** A text in pieces: a short one is one piece. */
function pieces(text: JsonText): Iterable<string> {
  return typeof text === "string" ? [text] : text.pieces();
}

/** The data of each event of an event stream given in pieces, each found when asked for. */
function* eventData(stream: Iterable<string>): Generator<string, void, undefined> {
  const reader = createSseReader();
  for (const piece of stream) {
    reader.push(piece);
    for (let data = reader.next(); data !== undefined; data = reader.next()) yield data;
  }
  reader.end();
  for (let data = reader.next(); data !== undefined; data = reader.next()) yield data;
}

/** A text given in pieces, whole; undefined when it is longer than `maxBytes` UTF-16 units (so more bytes): never held. */
function joined(text: Iterable<string>, maxBytes: number): string | undefined {
  const parts: string[] = [];
  let units = 0;
  for (const piece of text) {
    units += piece.length;
    if (units > maxBytes) return undefined;
    parts.push(piece);
  }
  return parts.join("");
}

/** The URLs (without query or fragment) some POST of which carries a JSON-RPC body or an MCP header. */
function mcpEndpoints(entries: HarEntry[]): Set<string> {
  const out = new Set<string>();
  for (const entry of entries) {
    const request = entry?.request;
    const target = stringOf(request?.url);
    if (target === undefined || stringOf(request?.method)?.toUpperCase() !== "POST") continue;
    const url = endpointOf(target);
    if (url === undefined) continue;
    const headers = headerMap(request?.headers);
    if (headers["mcp-protocol-version"] !== undefined || headers["mcp-session-id"] !== undefined || isJsonRpc(request?.postData?.text))
      out.add(url);
  }
  return out;
}

function isJsonRpc(value: unknown): boolean {
  const text = stringOf(value);
  if (text === undefined) return false;
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
    const [key, text] = [stringOf(name), stringOf(value)];
    if (key !== undefined && text !== undefined) out[key.toLowerCase()] = text;
  }
  return out;
}

/**
 * Base64 to UTF-8 text with Web APIs alone (the inspector's page reads HAR files too): a reader of its pieces as the
 * base64 comes, or undefined for bad base64, found before any piece is given (a first reading decodes and drops them).
 */
function fromBase64(text: JsonText): (() => Iterable<string>) | undefined {
  try {
    for (const _ of decodedBase64(pieces(text)));
  } catch {
    return undefined;
  }
  return () => decodedBase64(pieces(text));
}

/** The text base64 pieces decode to, as `atob` of the whole would (ASCII whitespace dropped, padding only at the end). */
function* decodedBase64(base64: Iterable<string>): Generator<string, void, undefined> {
  const decoder = new TextDecoder();
  let carry = "";
  let padded = false;
  for (const piece of base64) {
    const clean = carry + piece.replace(/[\s]/g, "");
    if (padded && clean !== "") throw new Error("base64 past its padding");
    const whole = clean.length - (clean.length % 4);
    carry = clean.slice(whole);
    if (whole === 0) continue;
    const group = clean.slice(0, whole);
    padded = group.endsWith("=");
    yield decoder.decode(binary(atob(group)), { stream: true });
  }
  yield decoder.decode(carry === "" ? undefined : binary(atob(carry)));
}

/** The bytes of a binary string (one byte per unit, as `atob` gives). */
function binary(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

const ENCODER = new TextEncoder();

function bounded(text: JsonText, maxBytes: number): Uint8Array | undefined {
  const whole = typeof text === "string" ? text : text.text(maxBytes);
  // A text of more than maxBytes UTF-16 units is more than maxBytes bytes: not encoded to be thrown away.
  if (whole === undefined || whole.length > maxBytes) return undefined;
  const bytes = ENCODER.encode(whole);
  return bytes.length > maxBytes ? undefined : bytes;
}
