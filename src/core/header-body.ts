/**
 * @module header-body: the HTTP headers of a modern request against its body (the Streamable HTTP transport of
 * 2026-07-28): `MCP-Protocol-Version` against `_meta["io.modelcontextprotocol/protocolVersion"]`, `Mcp-Method` against
 * `method`, `Mcp-Name` against `params.name` or `params.uri`. Names are matched in any case, values exactly, after the
 * optional whitespace around them is dropped (RFC 9110 §5.5). The answer names the header and the body's field, never
 * a value. Web APIs only (`atob`, `TextDecoder`).
 */
import { errorResponse, type JsonRpcErrorResponse, type JsonRpcId } from "./envelope.js";
import type { HeadersLike, HeadersReader } from "./era.js";
import { PROTOCOL_VERSION_META_KEY } from "./routing-shapes.js";

/** The spec's `HeaderMismatchError` code: headers missing, malformed or not matching the body. */
export const HEADER_MISMATCH = -32020;

/** Which body field `Mcp-Name` mirrors, per method (the transport's table; other methods take no `Mcp-Name`). */
export const MCP_NAME_SOURCE: Readonly<Record<string, "name" | "uri">> = Object.freeze({
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
});

/**
 * A request's headers as the rules read them: a Fetch `Headers`, a plain object (names in any case), or a function of a
 * lower-case name giving the header's value, or its values apart when it was repeated (a Node face reads `req.headers`
 * and, for a value with a comma in it, `req.headersDistinct`, so that a repeat is told from a comma).
 */
export type RequestHeaders = HeadersLike | JoinedHeaders | FetchHeaders | ((lowerName: string) => string | readonly string[] | undefined);

const JOINED: unique symbol = Symbol.for("wymcp.JoinedHeaders");

/** Whether `headers` are a `JoinedHeaders`, of whichever copy of this module made them. */
function isJoined(headers: RequestHeaders): headers is JoinedHeaders {
  return (headers as { [JOINED]?: unknown })[JOINED] === true;
}

/** Where `JoinedHeaders` reads: a Node `IncomingMessage` is one. */
export interface JoinedSource {
  /** Every name in lower case, a repeated header's values joined with ", " (`req.headers`). */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Each header's values apart (`req.headersDistinct`), read only for a value with a comma. */
  readonly headersDistinct: Readonly<Record<string, readonly string[] | undefined>>;
}

/**
 * A request's headers as Node's `http` keeps them (`JoinedSource`): the Node faces' form. Since no name is in another
 * case and a repeat shows as a comma, a value that is the body's own comma-free string is the only value sent: the
 * rules read three named members, with no call per header and no scan of the names.
 */
export class JoinedHeaders {
  constructor(readonly source: JoinedSource) {}

  /** Known by `instanceof`, and by this mark where that fails: a bundle may carry this module twice, each copy its own class. */
  get [JOINED](): true {
    return true;
  }

  /** One header: its value, or its values apart when it holds a comma. */
  read(lowerName: string): string | readonly string[] | undefined {
    const value = this.source.headers[lowerName];
    return typeof value === "string" && value.includes(",") ? this.source.headersDistinct[lowerName] : value;
  }
}

const FETCH: unique symbol = Symbol.for("wymcp.FetchHeaders");

/** Whether `headers` are a `FetchHeaders`, of whichever copy of this module made them. */
function isFetch(headers: RequestHeaders): headers is FetchHeaders {
  return (headers as { [FETCH]?: unknown })[FETCH] === true;
}

/**
 * A Fetch `Headers` with the `MCP-Protocol-Version` the face has read already (`get`, once per request, for the era
 * and the legacy revision): the Fetch faces' form. The rules take that value rather than ask the `Headers` again, and
 * read `Mcp-Method` and `Mcp-Name` from it; each `get` is a call through the runtime's checks of the name
 * (docs/performance.md#headersget-on-a-fetch-face), most of what the rules cost a Fetch face. `version` must be what
 * `headers.get("mcp-protocol-version")` gave.
 */
export class FetchHeaders {
  constructor(
    readonly headers: HeadersReader,
    readonly version: string | null | undefined,
  ) {}

  /** Known by `instanceof`, and by this mark, as `JoinedHeaders` is. */
  get [FETCH](): true {
    return true;
  }

  /** One header's value, as the `Headers` joined it; `undefined` when there is none. */
  read(lowerName: string): string | undefined {
    return (lowerName === VERSION ? this.version : this.headers.get(lowerName)) ?? undefined;
  }
}

/** One header of `headers` as the rules read it: its value, its values apart, or `undefined`. */
export function headerValues(headers: RequestHeaders, lowerName: string): string | readonly string[] | undefined {
  // Told apart as `headersAgree` tells them (see there).
  if (headers instanceof JoinedHeaders || headers instanceof FetchHeaders) return headers.read(lowerName);
  if (typeof headers === "function") return headers(lowerName);
  if (!plainRecord(headers) && (isJoined(headers) || isFetch(headers))) return headers.read(lowerName);
  return valuesOf(headers, lowerName);
}

/** Whether `headers` is an object literal's kind: its prototype `Object.prototype` or none (a record, never a class's instance). */
function plainRecord(headers: object): boolean {
  const proto: unknown = Object.getPrototypeOf(headers);
  return proto === Object.prototype || proto === null;
}

/** One failed header rule: which header, and the location in the body it was held against. */
export interface HeaderProblem {
  header: "MCP-Protocol-Version" | "Mcp-Method" | "Mcp-Name";
  /** JSON Pointer of the body field the header mirrors. */
  instancePath: string;
  /** What is wrong, in words of ours only. */
  problem: "missing" | "malformed" | "repeated" | "bad-base64" | "mismatch";
}

const WORDS: Record<HeaderProblem["problem"], string> = {
  missing: "is missing",
  malformed: "holds characters a header value may not (visible ASCII, spaces and tabs only)",
  repeated: "is repeated with different values",
  "bad-base64": "carries a =?base64?…?= value that is not valid Base64 of UTF-8",
  mismatch: "does not match the body",
};

/**
 * The first header rule `body` (a modern request) breaks under `headers`, or `undefined`: `MCP-Protocol-Version` and
 * `Mcp-Method` present and matching, and `Mcp-Name` where the method mirrors a string field (`MCP_NAME_SOURCE`).
 */
export function headerProblem(body: Record<string, unknown>, headers: RequestHeaders): HeaderProblem | undefined {
  const params = body.params;
  const meta = isObject(params) ? params._meta : undefined;
  const claim = isObject(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
  const version = judge(headers, "mcp-protocol-version", typeof claim === "string" ? claim : undefined, true, false);
  if (version) return { header: "MCP-Protocol-Version", instancePath: `/params/_meta/${META_POINTER}`, problem: version };
  const method = typeof body.method === "string" ? body.method : undefined;
  const byMethod = judge(headers, "mcp-method", method, true, false);
  if (byMethod) return { header: "Mcp-Method", instancePath: "/method", problem: byMethod };
  // Compared, not looked up: a keyed read with the client's string costs more than the three comparisons.
  const field = method === "tools/call" || method === "prompts/get" ? "name" : method === "resources/read" ? "uri" : undefined;
  if (field === undefined) return undefined;
  const source = isObject(params) ? params[field] : undefined;
  // A body with no string there is the validator's to refuse; the header has nothing to mirror.
  if (typeof source !== "string") return undefined;
  const byName = judge(headers, "mcp-name", source, true, true);
  return byName ? { header: "Mcp-Name", instancePath: `/params/${field}`, problem: byName } : undefined;
}

/**
 * Whether `headers` agree with `body` exactly, in the usual way: each header the rules read is one value, the very
 * string of the body's field (no whitespace around it, no sentinel to decode, no repeat in another case). `true` only
 * where `headerProblem` finds nothing; `false` says nothing, and `headerProblem` judges. The hot path of a modern
 * request that passed: a few reads and comparisons, no array, no scan of a Fetch `Headers`. `commaFree` is a version the
 * caller knows to hold no comma (validation gives the revision its validators are of): a body claiming it skips the
 * search for a comma in its claim, which Node's headers need (a repeat shows as one; docs/performance.md#where-the-header-rules-time-goes).
 */
export function headersAgree(body: Record<string, unknown>, headers: RequestHeaders, commaFree?: string): boolean {
  const params = body.params;
  if (typeof params !== "object" || params === null) return false;
  const meta = (params as Record<string, unknown>)._meta;
  if (typeof meta !== "object" || meta === null) return false;
  const claim = (meta as Record<string, unknown>)[PROTOCOL_VERSION_META_KEY];
  const method = body.method;
  if (typeof claim !== "string" || typeof method !== "string" || Array.isArray(params) || Array.isArray(meta)) return false;
  const field = method === "tools/call" || method === "prompts/get" ? "name" : method === "resources/read" ? "uri" : undefined;
  const source = field === undefined ? undefined : (params as Record<string, unknown>)[field];
  // A value that could read as a sentinel is decoded first: the general rules' to judge.
  const name = typeof source === "string" && (source.charCodeAt(0) !== 0x3d || !source.startsWith(PREFIX)) ? source : undefined;
  if (name === undefined && typeof source === "string") return false;
  // The form, told first by class and then by prototype: a load of a member caches what it found by the receiver's shape
  // at that place in the code, and past four shapes in one place V8 keeps one cache for all such places in the process,
  // where two shapes can evict each other on every request; records and `req.headers` take as many shapes as clients
  // send sets of headers. `instanceof` reads the prototype chain, whatever the shape; the marks (a second copy of this
  // module's forms) are read only on a class's instance, never on a record.
  let joined: JoinedSource["headers"] | undefined;
  let fetch: FetchHeaders | undefined;
  let plain = false;
  if (headers instanceof JoinedHeaders) joined = headers.source.headers;
  else if (headers instanceof FetchHeaders) fetch = headers;
  else if (typeof headers === "function") {
    return (
      headers("mcp-protocol-version") === claim && headers("mcp-method") === method && (name === undefined || headers("mcp-name") === name)
    );
  } else if ((plain = plainRecord(headers))) {
    // A record: no mark to read.
  } else if (isJoined(headers)) joined = headers.source.headers;
  else if (isFetch(headers)) fetch = headers;
  if (joined !== undefined) {
    // A comma in the body's value could be a repeat's join: the general rules read the values apart. A method that
    // names a field is one of three literals, with none.
    return (
      joined[VERSION] === claim &&
      joined[METHOD] === method &&
      (name === undefined || joined[NAME] === name) &&
      (claim === commaFree || !claim.includes(",")) &&
      (field !== undefined || !method.includes(",")) &&
      (name === undefined || !name.includes(","))
    );
  }
  if (fetch !== undefined) {
    // The version as the face read it; the two others from the `Headers`, which has dropped the whitespace around them.
    const reader = fetch.headers;
    return fetch.version === claim && reader.get(METHOD) === method && (name === undefined || reader.get(NAME) === name);
  }
  if (typeof (headers as HeadersReader).get === "function" && typeof (headers as HeadersReader).has === "function") {
    const reader = headers as HeadersReader;
    return (
      reader.get("mcp-protocol-version") === claim &&
      reader.get("mcp-method") === method &&
      (name === undefined || reader.get("mcp-name") === name)
    );
  }
  return recordAgrees(headers as Record<string, unknown>, plain && !lentByObjectPrototype(), claim, method, name);
}

const VERSION = "mcp-protocol-version";
const METHOD = "mcp-method";
const NAME = "mcp-name";

/** Whether `Object.prototype` lends one of the three names (to every record that has it for prototype). */
function lentByObjectPrototype(): boolean {
  return VERSION in Object.prototype || METHOD in Object.prototype || NAME in Object.prototype;
}

/**
 * Whether a record's three headers are the body's values, read in the one pass over its names that must be made anyway
 * (a name in another case, `Mcp-Method` beside `mcp-method`, is a second value the general rules judge): a member read
 * with the name the pass is at takes the value by its place in the record, where a read by a fixed name caches by the
 * record's shape. Own members only, as the general rules read them; `ownOnly` says no prototype can lend these names.
 */
function recordAgrees(record: Record<string, unknown>, ownOnly: boolean, claim: string, method: string, name: string | undefined): boolean {
  let version: unknown;
  let byMethod: unknown;
  let byName: unknown;
  for (const key in record) {
    // Only a name of one of the three lengths can be one; by its length, the one name it can be, then any case of it.
    const length = key.length;
    if (length === 20) {
      if (key === VERSION) {
        if (!ownOnly && !Object.hasOwn(record, key)) return false;
        version = record[key];
        continue;
      }
    } else if (length === 10) {
      if (key === METHOD) {
        if (!ownOnly && !Object.hasOwn(record, key)) return false;
        byMethod = record[key];
        continue;
      }
    } else if (length === 8) {
      if (key === NAME) {
        if (!ownOnly && !Object.hasOwn(record, key)) return false;
        byName = record[key];
        continue;
      }
    } else continue;
    if ((key.charCodeAt(0) | 0x20) !== 0x6d) continue;
    const lower = key.toLowerCase();
    if ((lower === VERSION || lower === METHOD || lower === NAME) && Object.hasOwn(record, key)) return false;
  }
  return version === claim && byMethod === method && (name === undefined || byName === name);
}

/** The `400` answer to a broken header rule: one line naming the header and the body's field, the id as validation echoes it. */
export function headerMismatchResponse(id: JsonRpcId, { header, instancePath, problem }: HeaderProblem): JsonRpcErrorResponse {
  const field =
    instancePath === "/method"
      ? "method"
      : instancePath.startsWith("/params/_meta")
        ? "_meta protocol version"
        : `params.${instancePath.slice(8)}`;
  return errorResponse(id, HEADER_MISMATCH, `Header mismatch: the ${header} header ${WORDS[problem]} (the body's ${field})`, {
    errors: [{ instancePath, messages: [`must match the ${header} header, which ${WORDS[problem]}`] }],
  });
}

const META_POINTER = PROTOCOL_VERSION_META_KEY.replace("/", "~1");

/**
 * One header against the body's value: its values (a repeat in any case of the name included), each trimmed of
 * spaces and tabs; every value must be well formed and all alike; `decode` reads the Base64 sentinel.
 */
function judge(
  headers: RequestHeaders,
  lowerName: string,
  expected: string | undefined,
  required: boolean,
  decode: boolean,
): HeaderProblem["problem"] | undefined {
  const found = headerValues(headers, lowerName);
  // The usual case, and the hot path: one value, exactly the body's (no whitespace, no sentinel to read).
  if (typeof found === "string" && found === expected && !(decode && found.startsWith(PREFIX))) return undefined;
  const values = typeof found === "string" ? [found] : found;
  if (values === undefined) return required ? "missing" : undefined;
  let value: string | undefined;
  for (const raw of values) {
    const trimmed = trimOws(raw);
    if (!wellFormed(trimmed)) return "malformed";
    if (value === undefined) value = trimmed;
    else if (trimmed !== value) return "repeated";
  }
  if (value === undefined) return required ? "missing" : undefined;
  const read = decode ? decodeSentinel(value) : value;
  if (read !== undefined && (expected === undefined || read === expected)) return undefined;
  // A Fetch `Headers` joins a repeated header with ", ": the same value sent twice is still that value (a sentinel
  // sent twice too, which read whole is no sentinel).
  if (expected !== undefined && value.includes(",") && sameRepeated(value, expected, decode)) return undefined;
  return read === undefined ? "bad-base64" : "mismatch";
}

function sameRepeated(joined: string, expected: string, decode: boolean): boolean {
  const parts = joined.split(",");
  if (parts.length < 2) return false;
  for (const part of parts) {
    const trimmed = trimOws(part);
    if ((decode ? decodeSentinel(trimmed) : trimmed) !== expected) return false;
  }
  return true;
}

/** The header's values, every key whose name matches in any case; `undefined` when there is none. */
export function valuesOf(headers: HeadersLike, lowerName: string): string | readonly string[] | undefined {
  if (typeof (headers as HeadersReader).get === "function" && typeof (headers as HeadersReader).has === "function") {
    return (headers as HeadersReader).get(lowerName) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  // Node lower-cases header names: the direct look-up is the usual hit, and the hot path.
  const direct = Object.hasOwn(record, lowerName) ? record[lowerName] : undefined;
  let found: string[] | undefined;
  for (const key in record) {
    if (!Object.hasOwn(record, key) || key === lowerName || key.length !== lowerName.length || key.toLowerCase() !== lowerName) continue;
    const value = record[key];
    if (value === undefined) continue;
    found ??= [];
    if (Array.isArray(value)) found.push(...value);
    else found.push(String(value));
  }
  if (found === undefined) return direct === undefined ? undefined : Array.isArray(direct) ? direct : String(direct);
  if (direct !== undefined) found.unshift(...(Array.isArray(direct) ? direct : [String(direct)]));
  return found;
}

/** Spaces and tabs around a field value are not part of it (RFC 9110 §5.5). */
export function trimOws(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && (value.charCodeAt(start) === 0x20 || value.charCodeAt(start) === 0x09)) start++;
  while (end > start && (value.charCodeAt(end - 1) === 0x20 || value.charCodeAt(end - 1) === 0x09)) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** Visible ASCII, spaces and tabs: what a header value that needs no Base64 is made of. */
export function wellFormed(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code > 0x7e) return false;
  }
  return true;
}

const PREFIX = "=?base64?";
const SUFFIX = "?=";
const ASCII = /^[\x00-\x7f]*$/;
/** Each Base64 character's six bits by its code, -1 for any other ASCII character. */
const SEXTETS = (() => {
  const table = new Int8Array(128).fill(-1);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
})();
// Made on the first sentinel read: the pure check loads in contexts with no TextDecoder, where no header is judged.
let utf8: { decode(bytes: Uint8Array): string } | undefined;

/**
 * A value as it reads after the transport's sentinel: `=?base64?…?=` (lower case, exactly) decoded as strict Base64
 * (the alphabet, the padding, no stray bits) of strict UTF-8; `undefined` when it is not. Any other value, an upper-case
 * sentinel included, is itself.
 */
export function decodeSentinel(value: string): string | undefined {
  if (!(value.length >= PREFIX.length + SUFFIX.length && value.startsWith(PREFIX) && value.endsWith(SUFFIX))) return value;
  const binary = strictBase64(value.slice(PREFIX.length, value.length - SUFFIX.length));
  if (binary === undefined) return undefined;
  // ASCII bytes are their own UTF-8: the usual sentinel (surrounding spaces, a sentinel-like value) needs no decoder.
  if (ASCII.test(binary)) return binary;
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    utf8 ??= new TextDecoder("utf-8", { fatal: true });
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * `payload` decoded as strict Base64 (whole quads of the alphabet, `=` padding only at the end, zero bits past the last
 * whole byte: one value, one encoding), as a binary string; `undefined` when it is not. `atob` reads the alphabet
 * natively, in one pass; it also takes whitespace, which shows as fewer bytes than the length promises, and ignores
 * stray bits, which the last character shows.
 */
function strictBase64(payload: string): string | undefined {
  const length = payload.length;
  if (length % 4 !== 0) return undefined;
  const pad = length > 0 && payload.charCodeAt(length - 1) === 0x3d ? (payload.charCodeAt(length - 2) === 0x3d ? 2 : 1) : 0;
  let binary: string;
  try {
    binary = atob(payload);
  } catch {
    return undefined;
  }
  if (binary.length !== (length / 4) * 3 - pad) return undefined;
  if (pad === 0) return binary;
  const code = payload.charCodeAt(length - pad - 1);
  const last = code < 128 ? SEXTETS[code]! : -1;
  return last >= 0 && (last & (pad === 2 ? 0x0f : 0x03)) === 0 ? binary : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
