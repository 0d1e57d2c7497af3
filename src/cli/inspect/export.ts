/**
 * @module export: what the page shows, as JSONL that `wymcp check` reads back: each message's text, one per line, in
 * the order shown. Tool arguments, results' content and `_meta` values are redacted unless asked for; the shape stays,
 * so the export is judged as the capture was wherever the redacted values were free-form. No host type.
 */
import type { RowInput } from "./row.js";

export const REDACTED = "[redacted]";
/** The `_meta` keys the protocol itself defines, kept: the era and revision are read from them. */
const PROTOCOL_META = /^(io\.modelcontextprotocol\/|progressToken$)/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every value of an object replaced (its keys kept). */
function blank(object: { [key: string]: Json }, keep: (key: string) => boolean = () => false): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(object)) out[key] = keep(key) ? value : REDACTED;
  return out;
}

/** A result's payload: texts redacted, binary data emptied (still base64), structured content and answers blanked. */
function redactResult(value: Json, key?: string): Json {
  if (Array.isArray(value)) return value.map((item) => redactResult(item));
  if (!isObject(value)) {
    if (typeof value !== "string") return value;
    if (key === "text") return REDACTED;
    if (key === "data" || key === "blob") return "";
    return value;
  }
  const out: { [key: string]: Json } = {};
  for (const [name, item] of Object.entries(value)) {
    if (name === "_meta" && isObject(item)) out[name] = blank(item, (k) => PROTOCOL_META.test(k));
    else if (name === "structuredContent" && isObject(item)) out[name] = blank(item);
    // An elicitation's answer: the user's values under `content`, an object (a tool result's `content` is an array).
    else if (name === "content" && isObject(item) && !("type" in item)) out[name] = blank(item);
    else out[name] = redactResult(item, name);
  }
  return out;
}

/** `_meta` values blanked at any depth (protocol keys kept), tool arguments blanked. */
function redactParams(value: Json): Json {
  if (Array.isArray(value)) return value.map(redactParams);
  if (!isObject(value)) return value;
  const out: { [key: string]: Json } = {};
  for (const [name, item] of Object.entries(value)) {
    if (name === "_meta" && isObject(item)) out[name] = blank(item, (k) => PROTOCOL_META.test(k));
    else if (name === "arguments" && isObject(item)) out[name] = blank(item);
    else out[name] = redactParams(item);
  }
  return out;
}

/**
 * A message with its tool arguments, results' texts and data, and `_meta` values redacted.
 * @example redact({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: { q: "secret" } } })
 */
export function redact(body: unknown): unknown {
  if (!isObject(body)) return Array.isArray(body) ? body.map(redact) : body;
  const out: { [key: string]: Json } = {};
  for (const [name, item] of Object.entries(body)) out[name] = name === "result" ? redactResult(item) : redactParams(item);
  return out;
}

/**
 * The rows as JSONL: each message's text as captured (`reveal`), or its redacted JSON; a text that is no JSON is
 * kept as a marker only when redacting. Rows over the size limit have no text and are left out (counted).
 */
export function exportJsonl(rows: readonly RowInput[], reveal: boolean): { text: string; left: number } {
  const lines: string[] = [];
  let left = 0;
  for (const row of rows) {
    if (row.text === undefined) {
      left++;
      continue;
    }
    let body: unknown;
    let parsed = true;
    try {
      body = JSON.parse(row.text);
    } catch {
      parsed = false;
    }
    // One message per line: a captured text's own newlines (pretty-printed JSON) go with a re-serialisation.
    if (reveal) lines.push(parsed ? JSON.stringify(body) : row.text.replace(/[\r\n]+/g, " "));
    else lines.push(parsed ? JSON.stringify(redact(body)) : `${REDACTED} (not JSON)`);
  }
  return { text: lines.length === 0 ? "" : `${lines.join("\n")}\n`, left };
}
