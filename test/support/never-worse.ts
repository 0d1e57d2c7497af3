/**
 * The never-worse differential's messages and judges. Messages: for each era, each revision and each client method
 * wymcp judges, valid ones built from the revision's own definition (and the spec's example instances on 2026-07-28),
 * their mutations, and the valid ones again with each string, number and member replaced by values real clients send
 * (IRIs, spaces, Windows paths, relative references, `data:` URIs, template characters, long mixed-script text, numbers
 * at the edges, a member left out). Judges: wymcp's pure check in its default mode, the official TypeScript SDK's Zod
 * schemas (`isSpecType`), and the official Python SDK's pydantic models (test/python/judge_messages.py, one process for
 * every message).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isSpecType } from "@modelcontextprotocol/server";
import { eras } from "../../generated/index.js";
import { validateMcpRequest } from "../../src/core/validate.js";
import { MODERN_META } from "./messages.js";
import { pythonEnv } from "./python.js";
import { random, Sampler } from "./schema-samples.js";
import { EXAMPLES_REVISION, loadExamples, readSpecSchema, repoRoot, type JsonObject } from "./spec.js";

export type EraName = "legacy" | "modern";

export interface Case {
  era: EraName;
  revision: string;
  kind: "request" | "notification";
  method: string;
  /** The definition the method's params are judged against. */
  definition: string;
  /** How the message was made: valid, example, mutation, value (a real-world value put in), absent (a member left out). */
  origin: "valid" | "example" | "mutation" | "value" | "absent";
  body: JsonObject;
}

/** Strings real clients put where the schemas say `uri`, `uri-template`, `byte`, or just `string`. */
export const REAL_WORLD_STRINGS: readonly string[] = [
  "file:///srv/notes/My Notes.txt",
  "file:///srv/notes/café.md",
  "file:///Users/José/My Documents",
  "file:///Users/Jos%C3%A9/My%20Documents",
  "C:/Users/Łukasz/report (final).docx",
  "C:\\Users\\Łukasz\\report.docx",
  "\\\\server\\share\\plan.txt",
  "test://items/a b",
  "test://items/{x}",
  "test://items/{+path}{?q,lang}{#frag}",
  "a|b",
  "notes/relative.md",
  "../up/one.md",
  "~/notes.md",
  "#section",
  "//host.example/path",
  "https://例え.jp/パス?q=値#見出し",
  "http://[::1]:8080/mcp",
  "mailto:José@example.com",
  "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66",
  "data:text/plain;base64,SGVsbG8=",
  "data:,Hello%2C%20World",
  "s3://bucket/key with space.csv",
  "%zz%",
  "SGVsbG8gd29ybGQ",
  "SGVsbG8gd29ybGQ=\n",
  "",
  " ",
  "\u0000",
  "\u202eevil.txt",
  "👩‍👩‍👧‍👦 family",
  "Ελληνικά русский 中文 العربية עברית हिन्दी ".repeat(200),
  "x".repeat(20_000),
];

/** Numbers at the edges of what JSON carries and what languages keep exactly. */
export const EDGE_NUMBERS: readonly number[] = [0, -1, 0.5, 1e-7, 2 ** 31, 2 ** 53 - 1, 2 ** 53 + 2, -(2 ** 53), 1e308, -1e308, 5e-324];

/** Members that make a generated message carry the places where real-world values matter. */
const LEGACY_ANCHORS: Record<string, JsonObject> = {
  initialize: {
    protocolVersion: "2025-11-25",
    capabilities: { roots: { listChanged: true }, sampling: {} },
    clientInfo: {
      name: "a-client",
      version: "1.0.0",
      websiteUrl: "https://example.com/client",
      icons: [{ src: "https://example.com/icon.png", mimeType: "image/png" }],
    },
  },
  "resources/read": { uri: "file:///srv/notes/readme.txt" },
  "resources/subscribe": { uri: "file:///srv/notes/readme.txt" },
  "resources/unsubscribe": { uri: "file:///srv/notes/readme.txt" },
  "completion/complete": { ref: { type: "ref/resource", uri: "test://items/{x}" }, argument: { name: "x", value: "a" } },
  "tools/call": { name: "search", arguments: { query: "notes" } },
  "prompts/get": { name: "summarize", arguments: { topic: "notes" } },
  "notifications/progress": { progressToken: "t1", progress: 1, total: 2, message: "half way" },
  "notifications/cancelled": { requestId: 3, reason: "the user went away" },
};

/** On 2026-07-28 a client answers a server's questions inside its retried request: roots, elicitation, sampling. */
const INPUT_RESPONSES: JsonObject = {
  roots: { roots: [{ uri: "file:///Users/José/My Documents", name: "documents" }] },
  ask: { action: "accept", content: { title: "a note" } },
  sample: { role: "assistant", content: { type: "image", data: "aGk=", mimeType: "image/png" }, model: "m" },
};

const MODERN_ANCHORS: Record<string, JsonObject> = {
  "resources/read": { uri: "file:///srv/notes/readme.txt", inputResponses: INPUT_RESPONSES, requestState: "s" },
  "completion/complete": { ref: { type: "ref/resource", uri: "test://items/{x}" }, argument: { name: "x", value: "a" } },
  "tools/call": { name: "search", arguments: { query: "notes" }, inputResponses: INPUT_RESPONSES },
  "prompts/get": { name: "summarize", arguments: { topic: "notes" }, inputResponses: INPUT_RESPONSES },
};

const VALID_PER_METHOD = 6;
const MUTATIONS_PER_VALID = 6;
/** How many valid messages of each method get every real-world value in every place. */
const VALUE_BASES = 2;
const SEED = 20_261_205;

/** Every method wymcp judges, per era and revision: the legacy revisions' requests and notifications, the modern requests. */
function methods(): Array<Omit<Case, "origin" | "body">> {
  const out: Array<Omit<Case, "origin" | "body">> = [];
  for (const [revision, tables] of eras.legacy.revisions)
    for (const kind of ["request", "notification"] as const)
      for (const [method, { definition }] of tables[kind === "request" ? "requests" : "notifications"])
        out.push({ era: "legacy", revision, kind, method, definition });
  // A modern notification is never judged (bypassed, answered 202): nothing of it can be refused.
  for (const [method, { definition }] of eras.modern.methods)
    out.push({ era: "modern", revision: eras.modern.revision, kind: "request", method, definition });
  return out;
}

/** Every path to a leaf or member of a JSON value, outside the JSON-RPC envelope's own members. */
function places(value: unknown, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  if (at.length > 0) out.push(at);
  if (Array.isArray(value)) value.forEach((item, i) => places(item, [...at, i], out));
  else if (value !== null && typeof value === "object")
    for (const [key, item] of Object.entries(value)) if (at.length > 0 || key === "params") places(item, [...at, key], out);
  return out;
}

function at(value: unknown, path: Array<string | number>): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], value);
}

function replaced(body: JsonObject, path: Array<string | number>, value: unknown): JsonObject {
  const copy = structuredClone(body);
  const parent = at(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  const key = path[path.length - 1]!;
  if (value === undefined) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else parent[key] = value;
  return copy;
}

/** The messages of one run, the same on every run. */
export function generateCases(): Case[] {
  const out: Case[] = [];
  const schemas = new Map<string, JsonObject>();
  const examples = loadExamples();
  let n = 0;
  for (const method of methods()) {
    let schema = schemas.get(method.revision);
    if (!schema) schemas.set(method.revision, (schema = readSpecSchema(method.revision)));
    const defs = (schema.$defs ?? schema.definitions) as Record<string, JsonObject>;
    const sampler = new Sampler(schema, random(SEED + n++));
    const anchors = (method.era === "modern" ? MODERN_ANCHORS : LEGACY_ANCHORS)[method.method] ?? {};
    const bases: Case[] = [];
    if (method.era === "modern" && method.revision === EXAMPLES_REVISION)
      for (const example of examples)
        if (example.definition === method.definition) bases.push({ ...method, origin: "example", body: example.instance as JsonObject });
    for (let i = 0; i < VALID_PER_METHOD; i++) {
      const made = sampler.valid(defs[method.definition]) as JsonObject;
      const params: JsonObject = { ...((made.params as JsonObject | undefined) ?? {}) };
      if (i % 2 === 0) {
        Object.assign(params, anchors);
        if (method.era === "modern") params._meta = { ...MODERN_META, ...(params._meta as JsonObject | undefined) };
      }
      const body: JsonObject = { ...made, jsonrpc: "2.0", method: method.method, params };
      if (method.kind === "request") body.id = i + 1;
      else delete body.id;
      bases.push({ ...method, origin: "valid", body });
    }
    for (const base of bases) {
      out.push(base);
      for (let m = 0; m < MUTATIONS_PER_VALID; m++)
        out.push({ ...method, origin: "mutation", body: sampler.mutate(base.body) as JsonObject });
    }
    // The real-world values, in every place of the first anchored messages (and every example).
    for (const base of bases.filter((b, i) => b.origin === "example" || i % 2 === 0).slice(0, VALUE_BASES + 2)) {
      for (const path of places(base.body)) {
        const current = at(base.body, path);
        out.push({ ...method, origin: "absent", body: replaced(base.body, path, undefined) });
        if (typeof current === "string")
          for (const value of REAL_WORLD_STRINGS) out.push({ ...method, origin: "value", body: replaced(base.body, path, value) });
        else if (typeof current === "number")
          for (const value of EDGE_NUMBERS) out.push({ ...method, origin: "value", body: replaced(base.body, path, value) });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The judges.

export interface WymcpVerdict {
  refused: boolean;
  /** For a refusal: the kind, as docs/validation.md names kinds: era, method, first location (indices and map keys generalised), messages. */
  kind?: string;
}

/** wymcp's default mode, the lane's rule as the gates apply it; the revision as an `MCP-Protocol-Version` header names it. */
export function wymcpVerdict(c: Case): WymcpVerdict {
  const result = validateMcpRequest(c.body, c.era, { protocolVersion: c.revision });
  if (result.outcome !== "reject") return { refused: false };
  const first = result.response.error.data?.errors[0];
  const where = first ? `${generalised(first.instancePath)}: ${first.messages.join("; ")}` : result.response.error.message;
  return { refused: true, kind: `${c.era} ${c.method} ${where}` };
}

/** Array indices become `*`, and so do the keys of the maps whose keys the client chooses. */
function generalised(pointer: string): string {
  return pointer
    .replace(/\/\d+(?=\/|$)/g, "/*")
    .replace(/\/(arguments|inputResponses|experimental|extensions)\/[^/]+/g, (_, map: string) => `/${map}/*`)
    .replace(/\/extra\d+(?=\/|$)/g, "/*");
}

type Guard = (value: unknown) => boolean;
const guards = isSpecType as unknown as Record<string, Guard>;

/** The official TypeScript SDK's Zod schemas: the JSON-RPC envelope of the message's kind, then its method's definition. */
export function tsAccepts(c: Case): boolean {
  const envelope = guards[c.kind === "request" ? "JSONRPCRequest" : "JSONRPCNotification"]!;
  if (typeof c.body !== "object" || c.body === null || Array.isArray(c.body)) return false;
  if (!Object.hasOwn(c.body, "method")) return guards.JSONRPCMessage!(c.body);
  const method = guards[c.definition];
  if (!method) throw new Error(`the TypeScript SDK has no schema named ${c.definition}`);
  return envelope(c.body) && method(c.body);
}

/** The official Python SDK's models, for every case at once: true where it accepts the message. */
export async function pythonAccepts(cases: readonly Case[]): Promise<boolean[]> {
  const python = await pythonEnv();
  const child = spawn(python, [join(repoRoot, "test", "python", "judge_messages.py")], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  for (const c of cases) child.stdin.write(`${JSON.stringify({ version: c.revision, body: c.body })}\n`);
  child.stdin.end();
  const code = await exited;
  if (code !== 0) throw new Error(`judge_messages.py exited ${code}: ${stderr.slice(-2000)}`);
  const lines = stdout.split("\n").filter(Boolean);
  if (lines.length !== cases.length) throw new Error(`judge_messages.py answered ${lines.length} of ${cases.length} messages`);
  return lines.map((line) => (JSON.parse(line) as { ok: boolean }).ok);
}

// ---------------------------------------------------------------------------------------------------------
// The allow-list: docs/validation.md's table of kinds wymcp refuses though both SDKs accept them.

export const ALLOW_LIST_HEADING = "### Refused though both SDKs accept";

/** The kinds the doc lists under ALLOW_LIST_HEADING, each with its reason: rows `| \`kind\` | reason |`. */
export function readAllowList(doc = readFileSync(join(repoRoot, "docs", "validation.md"), "utf8")): Map<string, string> {
  const start = doc.indexOf(`\n${ALLOW_LIST_HEADING}\n`);
  if (start < 0) throw new Error(`docs/validation.md has no section "${ALLOW_LIST_HEADING}"`);
  const rest = doc.slice(start + ALLOW_LIST_HEADING.length + 2);
  const end = rest.search(/\n#{1,3} /);
  const section = end < 0 ? rest : rest.slice(0, end);
  const listed = new Map<string, string>();
  for (const row of section.split("\n")) {
    const match = /^\| `(.+)` \| (.+) \|$/.exec(row);
    if (match) listed.set(match[1]!.replace(/\\\|/g, "|"), match[2]!.trim());
  }
  return listed;
}
