/**
 * @module export: what the page shows, as JSONL or as a HAR file, which `wymcp check` reads back: the messages in the
 * order shown. Every value is redacted but those known to be safe (redact.ts) unless asked for; the shape stays, so
 * the export is judged as the capture was wherever the redacted values were free-form. wymcp's own answers are kept
 * whole (they never hold a value of the client's but its id) and carry the mark that says so (check/own-answer.ts).
 * No host type.
 */
import { transportHeadersFor } from "../core/header-value.js";
import type { OwnAnswer } from "../log/gate-log.js";
import { OWN_MARK } from "../check/own-answer.js";
import { REDACTED, redact } from "./redact.js";
import type { RowInput } from "./row.js";

export { REDACTED, redact };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The rows as JSONL: each message's text as captured (`reveal`), or its redacted JSON; a text that is no JSON is
 * kept as a marker only when redacting. Rows over the size limit have no text and are left out (counted).
 */
export function exportJsonl(rows: readonly RowInput[], reveal: boolean): { text: string; left: number } {
  const lines: string[] = [];
  let left = 0;
  for (const row of rows) {
    if (row.text === undefined) left++;
    else lines.push(jsonlLine(row.text, reveal, row.verdict.own));
  }
  return { text: lines.length === 0 ? "" : `${lines.join("\n")}\n`, left };
}

/**
 * One message's line of a JSONL export (without its newline): its JSON on one line, redacted unless `reveal`; wymcp's
 * own answer (`own`) whole, with its mark. A mark the message carried itself is dropped: only wymcp's answers have one.
 * @example jsonlLine('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}', false)
 */
export function jsonlLine(text: string, reveal: boolean, own?: OwnAnswer): string {
  let body: unknown;
  let parsed = true;
  try {
    body = JSON.parse(text);
  } catch {
    parsed = false;
  }
  // One message per line: a captured text's own newlines (pretty-printed JSON) go with a re-serialisation.
  if (!parsed) return reveal ? text.replace(/[\r\n]+/g, " ") : `${REDACTED} (not JSON)`;
  if (isObject(body) && Object.hasOwn(body, OWN_MARK)) {
    const { [OWN_MARK]: _forged, ...message } = body;
    body = message;
  }
  try {
    if (own !== undefined && isObject(body)) return JSON.stringify({ ...body, [OWN_MARK]: own });
    return JSON.stringify(reveal ? body : redact(body));
  } catch {
    // Nested deeper than the stack walks (what the gates refuse as nested too deeply): a line that says so, as junk.
    return `${REDACTED} (nested too deeply to write)`;
  }
}

/** Where a HAR export's exchanges are said to go: a name that resolves nowhere. */
const HAR_ENDPOINT = "http://mcp.invalid/mcp";

interface HarEntryOut {
  startedDateTime: string;
  time: number;
  request: {
    method: "POST" | "GET";
    url: string;
    httpVersion: string;
    headers: { name: string; value: string }[];
    postData?: { mimeType: string; text: string };
  };
  response: {
    status: number;
    httpVersion: string;
    headers: { name: string; value: string }[];
    content: { mimeType: string; text: string };
  };
}

/** Their names as the official client writes them. */
const HEADER_NAMES: Readonly<Record<string, string>> = {
  "mcp-protocol-version": "MCP-Protocol-Version",
  "mcp-method": "Mcp-Method",
  "mcp-name": "Mcp-Name",
};

/**
 * The transport headers of a modern request, derived from the exported body (`transportHeadersFor`). Without them,
 * `wymcp check` would hold the export to the header rules and refuse every modern request for headers the capture
 * never had.
 */
function transportHeadersOf(line: string): { name: string; value: string }[] {
  let body: unknown;
  try {
    body = JSON.parse(line);
  } catch {
    return [];
  }
  return Object.entries(transportHeadersFor(body)).map(([name, value]) => ({ name: HEADER_NAMES[name] ?? name, value }));
}

/**
 * The rows as a HAR file: each client's message a POST (with the MCP-Protocol-Version header of the revision it was
 * judged by, and a modern request's other transport headers), each server's answer an event of its request's response stream, and the server's own requests and
 * notifications events of a GET stream, in order. Values redacted as in `exportJsonl` unless `reveal`.
 */
export function exportHar(rows: readonly (RowInput & { time?: number })[], reveal: boolean): { text: string; left: number } {
  const entries: HarEntryOut[] = [];
  const byRequest = new Map<string, HarEntryOut>();
  let stream: HarEntryOut | undefined;
  let left = 0;
  const headersOf = (row: RowInput) => {
    const revision = "revision" in row.verdict ? row.verdict.revision : row.verdict.era === "modern" ? "2026-07-28" : undefined;
    return revision === undefined ? [] : [{ name: "MCP-Protocol-Version", value: revision }];
  };
  const entry = (row: RowInput & { time?: number }, method: "POST" | "GET"): HarEntryOut => ({
    startedDateTime: new Date(row.time ?? 0).toISOString(),
    time: 0,
    request: { method, url: HAR_ENDPOINT, httpVersion: "HTTP/1.1", headers: headersOf(row) },
    response: { status: 200, httpVersion: "HTTP/1.1", headers: [], content: { mimeType: "text/event-stream", text: "" } },
  });
  for (const row of rows) {
    if (row.text === undefined) {
      left++;
      continue;
    }
    const line = exportJsonl([row], reveal).text.trimEnd();
    const { verdict } = row;
    const fromClient = verdict.direction === "in" || verdict.answers?.from === "server";
    if (fromClient) {
      const post = entry(row, "POST");
      const transport = transportHeadersOf(line);
      // A modern request's own headers, its claim's version among them; any other message the revision it was judged by.
      if (transport.length > 0) post.request.headers = transport;
      post.request.headers.push({ name: "Content-Type", value: "application/json" });
      post.request.postData = { mimeType: "application/json", text: line };
      entries.push(post);
      byRequest.set(`${verdict.source}\u0000${verdict.line}\u0000${verdict.part ?? ""}`, post);
      stream = undefined;
      continue;
    }
    const answers = verdict.answers;
    let target = answers ? byRequest.get(`${verdict.source}\u0000${answers.line}\u0000${answers.part ?? ""}`) : undefined;
    if (!target) {
      if (!stream) {
        stream = entry(row, "GET");
        entries.push(stream);
      }
      target = stream;
    }
    target.response.content.text += `event: message\ndata: ${line}\n\n`;
  }
  const har = { log: { version: "1.2", creator: { name: "wymcp inspect", version: "1" }, entries } };
  return { text: `${JSON.stringify(har, null, 1)}\n`, left };
}
