/**
 * @module redact: a message with every value replaced but those known to be safe to keep, for the page's export and
 * `--record`. What is kept is listed here, never what is dropped: the envelope (`jsonrpc`, `id`, `method`, the error's
 * `code`), the names a method names (a tool's, a prompt's and their arguments'), a revision's date, the ids that pair
 * messages (`progressToken`, `requestId`), the protocol's own words where its schemas allow only a fixed set (a
 * content block's `type`, a role, a log level), and the protocol's flags (`isError`, `listChanged`). Every key stays,
 * so the shape does: each other string reads `"[redacted]"`, each number `0`, binary data `""`; inside what a server or
 * a user defines (tool arguments, structured content, an elicitation's answers, error data, log data, `_meta` beyond
 * the protocol's keys) a boolean reads `false` too. No host type: the page bundles it.
 */

import { PROTOCOL_METHODS } from "../telemetry/protocol-methods.js";
// A revision is a date: one of that shape says nothing else.
import { isRevision, PROTOCOL_VERSION_META_KEY } from "../core/routing-shapes.js";

export const REDACTED = "[redacted]";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/**
 * The words the protocol's schemas allow at a member of that name (their `const` and `enum` strings, every revision;
 * test/redact.test.ts derives them from the schemas), and two the spec's text names for open strings (`resultType`,
 * `stopReason`). Such a word says which of the protocol's cases a message is, never anything of its user's.
 */
export const PROTOCOL_WORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  action: new Set(["accept", "cancel", "decline"]),
  audience: new Set(["assistant", "user"]),
  cacheScope: new Set(["private", "public"]),
  format: new Set(["date", "date-time", "email", "uri"]),
  includeContext: new Set(["allServers", "none", "thisServer"]),
  "io.modelcontextprotocol/logLevel": new Set(["alert", "critical", "debug", "emergency", "error", "info", "notice", "warning"]),
  jsonrpc: new Set(["2.0"]),
  level: new Set(["alert", "critical", "debug", "emergency", "error", "info", "notice", "warning"]),
  method: PROTOCOL_METHODS,
  mode: new Set(["auto", "form", "none", "required", "url"]),
  role: new Set(["assistant", "user"]),
  status: new Set(["cancelled", "completed", "failed", "input_required", "working"]),
  taskSupport: new Set(["forbidden", "optional", "required"]),
  theme: new Set(["dark", "light"]),
  type: new Set([
    "array",
    "audio",
    "boolean",
    "image",
    "integer",
    "number",
    "object",
    "ref/prompt",
    "ref/resource",
    "resource",
    "resource_link",
    "string",
    "text",
    "tool_result",
    "tool_use",
  ]),
  // Open strings whose values the spec's text lists.
  resultType: new Set(["complete", "input_required"]),
  stopReason: new Set(["endTurn", "maxTokens", "stopSequence", "toolUse"]),
};

/** The `_meta` keys the protocol reserves for itself (the rest are the sender's own). */
const PROTOCOL_META = /^io\.modelcontextprotocol\//;
/** Methods whose `params.name` names what they call: a tool, a prompt. */
const NAMING_METHODS: ReadonlySet<string> = new Set(["tools/call", "prompts/get"]);
/** Content blocks whose `data` is base64: emptied (still base64). */
const BINARY_BLOCKS: ReadonlySet<unknown> = new Set(["image", "audio"]);

/**
 * Where a `name` is kept, by the members leading to it from `params` or `result` (array indices skipped): what a
 * method names and what the lists of tools and prompts name. A resource's name and URI are not kept: either may hold
 * a person's name, a path or a signed address.
 */
const NAMED_AT: ReadonlySet<string> = new Set([
  "result.tools",
  "result.prompts",
  "result.prompts.arguments",
  "params.ref",
  "params.argument",
]);
/** The prefixes of NAMED_AT: only along these is a path followed at all. */
const NAMED_PREFIXES: ReadonlySet<string> = new Set(["result.tools", "result.prompts", ...NAMED_AT]);

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value the sender defines, every leaf replaced: keys and types stay. */
function opaque(value: Json): Json {
  if (typeof value === "string") return REDACTED;
  if (typeof value === "number") return 0;
  if (typeof value === "boolean") return false;
  if (value === null) return null;
  if (Array.isArray(value)) return value.map(opaque);
  const out: JsonObject = {};
  for (const key of Object.keys(value)) out[key] = opaque(value[key]!);
  return out;
}

/** `_meta`: the protocol's keys as the protocol's members (a revision kept, a progress token kept), the rest opaque. */
function meta(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const item = value[key]!;
    if (key === "progressToken") out[key] = typeof item === "string" || typeof item === "number" ? item : opaque(item);
    else if (key === PROTOCOL_VERSION_META_KEY) out[key] = typeof item === "string" && isRevision(item) ? item : opaque(item);
    else out[key] = PROTOCOL_META.test(key) ? walk(key, item, undefined) : opaque(item);
  }
  return out;
}

/**
 * A member of the protocol's own structure by its name: what the sender defines under it (tool arguments, structured
 * content, data, an elicitation's answers, `_meta`) opaque, the rest walked. `path`: see `walk`.
 */
function member(key: string, value: Json, path: string | undefined, parent: JsonObject): Json {
  switch (key) {
    case "structuredContent":
      return opaque(value);
    case "_meta":
      return isObject(value) ? meta(value) : opaque(value);
    case "data":
      return typeof value === "string" && BINARY_BLOCKS.has(parent.type) ? "" : opaque(value);
    case "blob":
      return typeof value === "string" ? "" : opaque(value);
    case "arguments":
      // A call's arguments (an object); a prompt's list of its arguments (an array) is the protocol's.
      if (!Array.isArray(value)) return opaque(value);
      break;
    case "content":
      // An elicitation's answers: the user's values under `content`, an object (a content block has a `type`).
      if (isObject(value) && !("type" in value)) return opaque(value);
  }
  return walk(key, value, path);
}

/**
 * A value of the protocol's own structure under `key`: its words, flags, revisions, pairing ids and the names at
 * `path` kept, every other value replaced. `path` is the members leading here from `params` or `result` while they
 * lead to a kept name (NAMED_PREFIXES), else undefined.
 */
function walk(key: string, value: Json, path: string | undefined): Json {
  if (typeof value === "string") {
    if (PROTOCOL_WORDS[key]?.has(value)) return value;
    if (key === "name" && path !== undefined && NAMED_AT.has(path)) return value;
    if (key === "protocolVersion" && isRevision(value)) return value;
    return key === "requestId" || key === "progressToken" ? value : REDACTED;
  }
  if (typeof value === "number") return key === "requestId" || key === "progressToken" ? value : 0;
  if (typeof value === "boolean" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => walk(key, item, path));
  const next = path === undefined ? undefined : `${path}.${key}`;
  const inner = next !== undefined && NAMED_PREFIXES.has(next) ? next : undefined;
  const out: JsonObject = {};
  for (const name of Object.keys(value)) {
    const item = value[name]!;
    // A schema's `properties` are named by its author: each is a schema, whatever its name.
    out[name] = key === "properties" ? walk(name, item, undefined) : member(name, item, inner, value);
  }
  return out;
}

/** `params` or `result`: followed from its root, `params.name` kept for the methods that name what they call. */
function body(root: "params" | "result", value: Json, method: unknown): Json {
  if (!isObject(value)) return walk(root, value, undefined);
  const out: JsonObject = {};
  for (const name of Object.keys(value)) {
    const item = value[name]!;
    if (name === "name" && root === "params" && typeof item === "string" && typeof method === "string" && NAMING_METHODS.has(method))
      out[name] = item;
    else out[name] = member(name, item, root, value);
  }
  return out;
}

/** A JSON-RPC error: its code kept, its message and data replaced. */
function error(value: Json): Json {
  if (!isObject(value)) return opaque(value);
  const out: JsonObject = {};
  for (const name of Object.keys(value)) {
    const item = value[name]!;
    out[name] = name === "code" && typeof item === "number" ? item : opaque(item);
  }
  return out;
}

/**
 * A message (or a batch) with every value replaced but those known to be safe: see the module's comment.
 * @example redact({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: { q: "secret" } } })
 * // { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x", arguments: { q: "[redacted]" } } }
 */
export function redact(message: unknown): unknown {
  if (Array.isArray(message)) return message.map(redact);
  if (!isObject(message)) return opaque(message as Json);
  const out: JsonObject = {};
  for (const name of Object.keys(message)) {
    const item = message[name]!;
    switch (name) {
      case "jsonrpc":
        out[name] = item === "2.0" ? item : opaque(item);
        break;
      case "id":
        out[name] = typeof item === "string" || typeof item === "number" || item === null ? item : opaque(item);
        break;
      case "method":
        out[name] = typeof item === "string" ? item : opaque(item);
        break;
      case "params":
      case "result":
        out[name] = body(name, item, message.method);
        break;
      case "error":
        out[name] = error(item);
        break;
      default:
        out[name] = opaque(item);
    }
  }
  return out;
}
