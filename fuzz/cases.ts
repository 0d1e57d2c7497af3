/**
 * @module fuzz/cases: seeded HTTP fuzz cases built from the official 2026-07-28 examples. Case `i` of seed `s` is
 * the same bytes on every run and every machine, so a failure is reproduced by its seed and index alone.
 */
import { loadExamples, type JsonObject } from "../test/support/spec.js";

/** How the request is framed on the wire; the last three break HTTP framing on purpose (sent over raw sockets). */
export type Framing = "content-length" | "chunked" | "length-over" | "length-under" | "disconnect";

export interface FuzzCase {
  index: number;
  /** The mutation, for the per-kind counts: "flip", "deep", "content-type", ... */
  kind: string;
  /** The base message, e.g. "modern CallToolRequest/call-tool-request.json". */
  base: string;
  headers: Record<string, string>;
  body: Uint8Array;
  framing: Framing;
  /** A string planted in a body value that no error answer may carry; absent when the mutation could not keep one. */
  marker?: string;
}

/** A small, fast, seedable PRNG (mulberry32): the same seed gives the same cases everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const int = (r: Rand, n: number) => Math.floor(r() * n);
const pick = <T>(r: Rand, items: readonly T[]): T => items[int(r, items.length)]!;

interface Base {
  name: string;
  era: "legacy" | "modern";
  body: JsonObject;
}

const MODERN = "2026-07-28";
/** Methods whose `Mcp-Name` header mirrors a body member (the SDK's cross-check). */
const NAME_SOURCE: Record<string, string> = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" };

/**
 * The official examples that are whole client messages, pointed at what the example server offers (its `echo` tool,
 * `greet` prompt and `readme` resource) so that valid cases reach the handlers; each also in the legacy lane without
 * `_meta`, and the official results as legacy client responses. `subscriptions/listen` is left out: it opens a
 * stream that stays open by design.
 */
export function loadBases(): Base[] {
  const bases: Base[] = [];
  for (const { name, instance } of loadExamples()) {
    const body = instance as JsonObject;
    if (typeof body !== "object" || body === null || Array.isArray(body)) continue;
    if (body.jsonrpc === "2.0" && typeof body.method === "string") {
      if (body.method === "subscriptions/listen") continue;
      // Server-to-client requests (sampling, elicitation, roots) are not what a client POSTs.
      if (!(body.params as JsonObject | undefined)?._meta && "id" in body) continue;
      const modern = structuredClone(body);
      const params = modern.params as JsonObject | undefined;
      if (modern.method === "tools/call" && params) Object.assign(params, { name: "echo", arguments: { text: "hello" } });
      if (modern.method === "prompts/get" && params) Object.assign(params, { name: "greet", arguments: { name: "Ada" } });
      if (modern.method === "resources/read" && params) params.uri = "file:///readme.txt";
      bases.push({ name: `modern ${name}`, era: "modern", body: modern });
      const legacy = structuredClone(modern);
      delete (legacy.params as JsonObject | undefined)?._meta;
      bases.push({ name: `legacy ${name}`, era: "legacy", body: legacy });
    } else if (name.includes("Result/") && !name.includes("ResultResponse")) {
      bases.push({ name: `legacy response ${name}`, era: "legacy", body: { jsonrpc: "2.0", id: 41, result: body } });
    }
  }
  bases.push({
    name: "legacy initialize",
    era: "legacy",
    body: {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fuzz", version: "1.0.0" } },
    },
  });
  return bases;
}

/** The headers a conforming client of the base's era sends for it. */
function headersFor(base: Base): Record<string, string> {
  const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  if (base.era !== "modern") return headers;
  headers["MCP-Protocol-Version"] = MODERN;
  const method = base.body.method;
  if (typeof method === "string" && "id" in base.body) {
    headers["Mcp-Method"] = method;
    const source = NAME_SOURCE[method];
    const value = source && (base.body.params as JsonObject | undefined)?.[source];
    if (typeof value === "string") headers["Mcp-Name"] = value;
  }
  return headers;
}

/** Placeholders put in the JSON value and swapped for raw text afterwards (JSON.stringify cannot write 1e400 or 5,000 levels). */
const HOLE = "\u0001fuzz-hole\u0001";

/** Every path to a member or item, the root's own members included; `[]` is the root. */
function paths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = [], depth = 0): (string | number)[][] {
  if (depth > 12 || typeof value !== "object" || value === null) return out;
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key];
    out.push(path);
    paths(child, path, out, depth + 1);
  }
  return out;
}

/** Sets the value at `path`, making objects of whatever is missing or not an object on the way. */
function setAt(root: JsonObject, path: (string | number)[], value: unknown): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== "object" || next === null) node[key] = {};
    node = node[key] as Record<string | number, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

function deleteAt(root: JsonObject, path: (string | number)[]): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) {
    node = node[key] as Record<string | number, unknown>;
    if (typeof node !== "object" || node === null) return;
  }
  if (Array.isArray(node)) node.splice(path[path.length - 1] as number, 1);
  else delete node[path[path.length - 1]!];
}

/** Plants the marker where only a reflecting answer could carry it: a value under params, never a key, id or method. */
function plant(body: JsonObject, marker: string): void {
  const params = body.params;
  if (typeof params === "object" && params !== null && !Array.isArray(params)) {
    const p = params as JsonObject;
    if (typeof p.arguments === "object" && p.arguments !== null && !Array.isArray(p.arguments)) (p.arguments as JsonObject).note = marker;
    else p.fuzzNote = marker;
  } else if (typeof body.result === "object" && body.result !== null) {
    (body.result as JsonObject).fuzzNote = marker;
  } else {
    body.fuzzNote = marker;
  }
}

const HUGE_NUMBERS = [
  "1e400",
  "-1e400",
  "123456789012345678901234567890",
  "1E+999999999",
  `0.${"0".repeat(400)}1`,
  "9".repeat(5_000),
  "-0",
  "4.9e-325",
  "9007199254740993",
];
const SURROGATE_STRINGS = ['"\\ud800"', '"a\\udfffb"', '"\\udbff\\u0041"', '"\\udc00\\ud800"', '"\\ud83d"'];
const INVALID_UTF8 = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x80]];
const CONTENT_TYPES = [
  undefined,
  "",
  "text/plain",
  "application/json; charset=iso-8859-1",
  "application/json, text/plain",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  "APPLICATION/JSON; Charset=UTF-8",
  "application/jsonx",
  "application/json; charset=utf-16",
];
const DEPTHS = [8, 30, 58, 61, 62, 63, 64, 65, 100, 1_000, 3_000, 4_200, 5_000, 20_000, 100_000];

/** A random JSON value of a type other than the one it replaces. */
function otherValue(r: Rand, old: unknown): unknown {
  const options: unknown[] = [null, true, 0, -1, 1.5, "", "x", [], {}, [1, "a"], { a: 1 }, 2 ** 53, "2.0"];
  for (;;) {
    const value = pick(r, options);
    if (typeof value !== typeof old || Array.isArray(value) !== Array.isArray(old) || (value === null) !== (old === null)) return value;
  }
}

function nestText(r: Rand, levels: number, inner: string): string {
  const kind = int(r, 3);
  if (kind === 0) return `${"[".repeat(levels)}${inner}${"]".repeat(levels)}`;
  if (kind === 1) return `${'{"a":'.repeat(levels)}${inner}${"}".repeat(levels)}`;
  let open = "";
  let close = "";
  for (let i = 0; i < levels; i++) {
    open += i % 2 ? "[" : '{"b":';
    close = (i % 2 ? "]" : "}") + close;
  }
  return `${open}${inner}${close}`;
}

function manyKeysText(count: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(`"k${i}":${i}`);
  return `{${parts.join(",")}}`;
}

const encoder = new TextEncoder();

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.byteLength;
  }
  return out;
}

/** The mutations and their weights (out of the sum); a few expensive ones (10^5 keys, deep nesting) are rare on purpose. */
const KINDS: [string, number][] = [
  ["valid", 8],
  ["flip", 10],
  ["truncate", 8],
  ["wrong-type", 12],
  ["drop-member", 6],
  ["huge-number", 6],
  ["lone-surrogate", 5],
  ["invalid-utf8", 5],
  ["bom", 3],
  ["duplicate-keys", 6],
  ["many-keys", 0.25],
  ["deep", 6],
  ["not-a-message", 3],
  ["content-type", 5],
  ["chunked", 5],
  ["length-over", 3],
  ["length-under", 3],
  ["disconnect", 3],
];
const TOTAL_WEIGHT = KINDS.reduce((n, [, w]) => n + w, 0);

function chooseKind(r: Rand): string {
  let x = r() * TOTAL_WEIGHT;
  for (const [kind, weight] of KINDS) {
    x -= weight;
    if (x < 0) return kind;
  }
  return "valid";
}

/** Case `index` of `seed`: deterministic, independent of every other case. */
export function makeCase(bases: Base[], seed: number, index: number): FuzzCase {
  const r = prng((seed * 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b));
  const base = pick(r, bases);
  const kind = chooseKind(r);
  const body = structuredClone(base.body);
  const marker = `zqfuzz${seed.toString(36)}x${index.toString(36)}mark`;
  plant(body, marker);
  const headers = headersFor(base);
  let framing: Framing = "content-length";
  let text: string | undefined;
  let bytes: Uint8Array | undefined;
  const holes: string[] = [];
  const hole = (raw: string) => {
    holes.push(raw);
    return `${HOLE}${holes.length - 1}`;
  };
  const anyPath = () => pick(r, paths(body).length ? paths(body) : [["id"]]);

  switch (kind) {
    case "wrong-type": {
      for (let n = 1 + int(r, 2); n > 0; n--) {
        const path = anyPath();
        setAt(
          body,
          path,
          otherValue(
            r,
            path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)?.[key], body),
          ),
        );
      }
      break;
    }
    case "drop-member":
      deleteAt(body, pick(r, [["jsonrpc"], ["id"], ["method"], ["params"], ["params", "_meta"], ...paths(body)]));
      break;
    case "huge-number":
      setAt(body, pick(r, [["id"], ...paths(body)]), hole(pick(r, HUGE_NUMBERS)));
      break;
    case "lone-surrogate":
      setAt(body, pick(r, [["params", "arguments", "text"], ["id"], ["method"], ...paths(body)]), hole(pick(r, SURROGATE_STRINGS)));
      break;
    case "deep": {
      const levels = pick(r, DEPTHS);
      const inner = nestText(r, levels, '"deep"');
      const where = int(r, 5);
      if (where === 0) setAt(body, ["params", "arguments", "nested"], hole(inner));
      else if (where === 1) setAt(body, ["id"], hole(inner));
      else if (where === 2) setAt(body, ["params", "_meta", "io.modelcontextprotocol/clientCapabilities", "experimental"], hole(inner));
      else if (where === 3) setAt(body, [pick(r, ["jsonrpc", "method", "params", "result", "extra"])], hole(inner));
      else text = nestText(r, levels, "1");
      break;
    }
    case "many-keys": {
      const where = int(r, 3);
      const keys = hole(manyKeysText(100_000));
      if (where === 0) setAt(body, ["params", "arguments"], keys);
      else if (where === 1) setAt(body, ["params"], keys);
      else text = manyKeysText(100_000);
      break;
    }
    case "not-a-message":
      text = pick(r, [
        "null",
        "1",
        '"x"',
        "[]",
        "{}",
        "true",
        `[${JSON.stringify(body)},${JSON.stringify(body)}]`,
        '{"jsonrpc":"2.0"}',
        " ",
      ]);
      break;
    case "content-type": {
      const type = pick(r, CONTENT_TYPES);
      if (type === undefined) delete headers["Content-Type"];
      else headers["Content-Type"] = type;
      break;
    }
    default:
      break;
  }

  if (text === undefined) {
    text = JSON.stringify(body);
    // The holes were placed as JSON strings: swap each quoted placeholder for its raw text.
    text = text.replace(/"\\u0001fuzz-hole\\u0001(\d+)"/g, (_, i: string) => holes[Number(i)]!);
    if (kind === "duplicate-keys") {
      const dup = pick(r, ['"id":{"x":1}', '"method":7', '"jsonrpc":"1.0"', '"params":[]', '"id":null', '"method":"tools/call"']);
      text = int(r, 2) ? text.replace(/^\{/, `{${dup},`) : text.replace(/\}$/, `,${dup}}`);
    }
  }
  bytes = encoder.encode(text);

  switch (kind) {
    case "flip": {
      bytes = bytes.slice();
      for (let n = 1 + int(r, 4); n > 0; n--) bytes[int(r, bytes.length)]! ^= 1 + int(r, 255);
      break;
    }
    case "truncate":
      bytes = bytes.slice(0, int(r, bytes.length));
      break;
    case "invalid-utf8": {
      const at = int(r, bytes.length + 1);
      bytes = concat(bytes.slice(0, at), new Uint8Array(pick(r, INVALID_UTF8)), bytes.slice(at));
      break;
    }
    case "bom":
      bytes = concat(
        new Uint8Array(
          pick(r, [
            [0xef, 0xbb, 0xbf],
            [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf],
            [0xfe, 0xff],
            [0xff, 0xfe],
          ]),
        ),
        bytes,
      );
      break;
    case "chunked":
    case "length-over":
    case "length-under":
    case "disconnect":
      framing = kind;
      break;
    default:
      break;
  }
  // Judged only where the marker's bytes survived the mutation whole.
  const planted = text.includes(marker) && new TextDecoder().decode(bytes).includes(marker);
  return { index, kind, base: base.name, headers, body: bytes, framing, ...(planted ? { marker } : {}) };
}
