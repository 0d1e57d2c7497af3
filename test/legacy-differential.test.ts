/**
 * The legacy lane's params checks against two references, over generated legacy messages: for each revision and each
 * client request and notification method of it, valid messages built from the revision's own definition, then
 * mutated the ways clients break them.
 *
 * 1. wymcp's verdict equals the official schema of that revision compiled by Ajv at run time (the published file,
 *    prose and all; draft-07 for 2024-11-05 to 2025-06-18, 2020-12 for 2025-11-25), framing by 2025-11-25 as the
 *    lane frames every message; and each precompiled validator locates the same places as the run-time one.
 * 2. Every message wymcp refuses with -32602 is refused by the official SDK alone too, or is one of the kinds
 *    docs/validation.md lists as served by the SDK though the revision's schema forbids them (KNOWN_SERVED below,
 *    which a test keeps equal to the docs).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { completable, createMcpHandler, McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import * as z from "zod";
import { eras } from "../generated/index.js";
import type { Validator } from "../generated/validator.js";
import { underFormats } from "./support/formats.js";
import { FORMATS, type Formats } from "../src/core/formats.js";
import { validateMcpRequest } from "../src/core/validate.js";
import { random, Sampler } from "./support/schema-samples.js";
import { readSpecSchema, repoRoot, type JsonObject } from "./support/spec.js";

const REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const VALID_PER_METHOD = 12;
const MUTATIONS_PER_VALID = 14;
const SEED = 2811;
const formats = JSON.parse(readFileSync(join(repoRoot, "schemas", "formats.json"), "utf8")) as Record<string, string>;
const ajvFormats = Object.fromEntries(Object.entries(formats).map(([k, v]) => [k, new RegExp(v, "u")]));

/**
 * The published file of a revision, compiled now by the Ajv class of its own dialect: under `"strict"` with the formats
 * asserted, under `"annotation"` with formats ignored (an annotation in 2020-12, optional assertion in draft-07).
 */
function official(revision: string, mode: Formats) {
  const schema = readSpecSchema(revision);
  const draft07 = String(schema.$schema).includes("draft-07");
  const formatOptions = mode === "strict" ? { formats: ajvFormats } : { validateFormats: false };
  const options = { allErrors: true, allowUnionTypes: true, strict: false, ...formatOptions };
  const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
  const id = `urn:official:${revision}`;
  ajv.addSchema({ ...schema, $id: id });
  const where = draft07 ? "definitions" : "$defs";
  const defs = schema[where] as Record<string, JsonObject>;
  const members = (union: string) =>
    new Map(
      ((defs[union]!.anyOf ?? defs[union]!.oneOf) as JsonObject[]).map((m) => {
        const name = String(m.$ref).split("/").pop()!;
        return [((defs[name]!.properties as JsonObject).method as JsonObject).const as string, name] as const;
      }),
    );
  return {
    schema,
    defs,
    requests: members("ClientRequest"),
    notifications: members("ClientNotification"),
    validator: (name: string): ValidateFunction => ajv.getSchema(`${id}#/${where}/${name}`) ?? assert.fail(`no ${name} in ${revision}`),
  };
}

const referencesByMode = new Map(
  FORMATS.map((mode) => [mode, new Map(REVISIONS.map((revision) => [revision, official(revision, mode)]))] as const),
);
/** The references of the default mode, which also generate the messages (formats do not change a schema's shape). */
const references = referencesByMode.get("annotation")!;

/** Members that make a generated valid message one the SDK's test server can serve: a real tool, prompt, resource. */
const ANCHORS: Record<string, Record<string, unknown>> = {
  "tools/call": { name: "echo", arguments: { text: "hi" } },
  "prompts/get": { name: "greet", arguments: { name: "Ada" } },
  "resources/read": { uri: "file:///readme.txt" },
  "resources/subscribe": { uri: "file:///readme.txt" },
  "resources/unsubscribe": { uri: "file:///readme.txt" },
  "completion/complete": { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "A" } },
  "logging/setLevel": { level: "info" },
};

interface Generated {
  revision: string;
  body: unknown;
}

/** Valid messages of every method of every revision, then their mutations. */
function generate(): Generated[] {
  const out: Generated[] = [];
  let n = 0;
  for (const revision of REVISIONS) {
    const ref = references.get(revision)!;
    for (const [kind, table] of [
      ["request", ref.requests],
      ["notification", ref.notifications],
    ] as const) {
      for (const [method, definition] of table) {
        const sampler = new Sampler(ref.schema as Record<string, unknown>, random(SEED + n++));
        for (let i = 0; i < VALID_PER_METHOD; i++) {
          const made = sampler.valid(ref.defs[definition]) as Record<string, unknown>;
          const params = { ...((made.params as Record<string, unknown> | undefined) ?? {}), ...(i % 2 === 0 ? ANCHORS[method] : {}) };
          const body = { ...made, jsonrpc: "2.0", method, ...(kind === "request" ? { id: i + 1 } : {}), params };
          if (kind === "notification") delete (body as { id?: unknown }).id;
          out.push({ revision, body });
          for (let m = 0; m < MUTATIONS_PER_VALID; m++) out.push({ revision, body: sampler.mutate(body) });
        }
      }
    }
  }
  return out;
}

const messages = generate();

/** The lane's rule restated over the run-time validators of `mode`: "pass", "bypass", or "reject <code>". */
function reference(revision: string, body: unknown, mode: Formats): { verdict: string; definition?: string } {
  const references = referencesByMode.get(mode)!;
  const framing = references.get("2025-11-25")!;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { verdict: "reject -32600" };
  const has = (key: string) => Object.hasOwn(body, key);
  if (!has("method")) return { verdict: has("id") && (has("result") || has("error")) ? "bypass" : "reject -32600" };
  const kind = has("id") ? "request" : "notification";
  const envelope = framing.validator(kind === "request" ? "JSONRPCRequest" : "JSONRPCNotification");
  const ref = references.get(revision)!;
  const method = (body as { method: unknown }).method;
  const definition = typeof method === "string" ? (kind === "request" ? ref.requests : ref.notifications).get(method) : undefined;
  const framed = envelope(body);
  const fits = definition === undefined || ref.validator(definition)(body);
  return { verdict: !framed ? "reject -32600" : fits ? "pass" : "reject -32602", definition };
}

function wymcp(revision: string, body: unknown, formats?: Formats): string {
  const result = validateMcpRequest(body, "legacy", {
    protocolVersion: revision,
    rules: { formats: formats === "strict" ? "enforce" : "off" },
  });
  return result.outcome === "reject" ? `reject ${result.response.error.code}` : result.outcome;
}

function located(validate: Validator | ValidateFunction, body: unknown): string {
  if (validate(body)) return "valid";
  return `invalid ${[...new Set((validate.errors ?? []).map((e) => e.instancePath))].sort().join(" ")}`;
}

describe("the legacy lane's params checks, differentially", () => {
  for (const mode of FORMATS)
    test(`formats ${mode}: wymcp's verdict equals each revision's official schema compiled at run time, on ${messages.length.toLocaleString("en")} messages`, (t) => {
      const disagreements: string[] = [];
      const counts: Record<string, number> = {};
      let locatedComparisons = 0;
      for (const { revision, body } of messages) {
        const want = reference(revision, body, mode);
        const got = wymcp(revision, body, mode);
        counts[got] = (counts[got] ?? 0) + 1;
        if (got !== want.verdict)
          disagreements.push(`${revision}: wymcp ${got}, Ajv ${want.verdict}: ${JSON.stringify(body).slice(0, 200)}`);
        if (want.definition === undefined) continue;
        // The precompiled validator of the revision's definition locates what Ajv's run-time one does.
        const kind = Object.hasOwn(body as object, "id") ? "requests" : "notifications";
        const own = eras.legacy.revisions.get(revision as never)![kind].get((body as { method: string }).method)!;
        const pre = underFormats(mode, () => located(own.validate, body));
        const run = located(referencesByMode.get(mode)!.get(revision)!.validator(want.definition), body);
        locatedComparisons++;
        if (pre !== run) disagreements.push(`${revision} ${want.definition}: ${pre} vs ${run}`);
      }
      t.diagnostic(
        `${messages.length} messages over 4 revisions; wymcp verdicts ${JSON.stringify(counts)}; ${locatedComparisons} validator comparisons; ${disagreements.length} disagreements`,
      );
      assert.ok((counts.pass ?? 0) > messages.length / 10, "too few valid messages to compare the pass path");
      assert.ok((counts["reject -32602"] ?? 0) > messages.length / 10, "too few params failures to compare");
      assert.deepEqual(disagreements.slice(0, 5), []);
    });
});

// ---------------------------------------------------------------------------------------------------------
// The SDK alone.

/**
 * The kinds of message the official SDK (2.4.0) serves though the revision's schema forbids them, formats read as the
 * annotations they are by default (under `formats: "strict"`, an icon's relative `src` or a non-ASCII `websiteUrl` in
 * `initialize` is refused though the SDK serves it: what that opt-in is for). docs/validation.md
 * lists each one, verbatim, with what the SDK answers. A notification's kind is its method (the SDK accepts every
 * notification with 202 before anything reads its params); a request's is its method and first failed location,
 * indices generalised.
 */
const KNOWN_SERVED = [
  "notification notifications/cancelled",
  "notification notifications/progress",
  "notification notifications/tasks/status",
];

function buildServer(): McpServer {
  const server = new McpServer({ name: "wymcp-differential", version: "1.0.0" }, { capabilities: { logging: {} } });
  server.registerTool("echo", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: "text", text }] }));
  server.registerPrompt("greet", { argsSchema: z.object({ name: completable(z.string(), () => ["Ada"]) }) }, ({ name }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }],
  }));
  server.registerResource("readme", "file:///readme.txt", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: "r" }],
  }));
  server.registerResource("note", new ResourceTemplate("note://{id}", { list: undefined }), {}, async (uri) => ({
    contents: [{ uri: uri.href, text: "n" }],
  }));
  return server;
}

const handler = createMcpHandler(buildServer);
after(() => handler.close());

/** What the SDK alone answers: "served" (a result, or a notification accepted) or "refused <code or status>". */
async function sdkAnswer(revision: string, body: unknown): Promise<{ answer: string; text: string }> {
  const response = await handler.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": revision },
      body: JSON.stringify(body),
    }),
  );
  const text = await response.text();
  if (response.status === 202) return { answer: "served", text: "202" };
  if (response.status >= 400) return { answer: `refused ${response.status}`, text };
  const json = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "{}");
  const message = JSON.parse(json) as { result?: unknown; error?: { code: number } };
  return message.error ? { answer: `refused ${message.error.code}`, text: json } : { answer: "served", text: json };
}

/** The kind of a refused message, as KNOWN_SERVED names kinds. */
function kindOf(body: unknown, revision: string): string {
  const result = validateMcpRequest(body, "legacy", { protocolVersion: revision });
  assert.equal(result.outcome, "reject");
  const method = (body as { method: string }).method;
  if (result.kind === "notification") return `notification ${method}`;
  const first = result.response.error.data!.errors[0]!;
  return `request ${method} ${first.instancePath.replace(/\/\d+(?=\/|$)/g, "/*")}: ${first.messages.join("; ")}`;
}

describe("every legacy message wymcp refuses with -32602, sent to the official SDK alone", () => {
  test("is refused by the SDK too, or is a kind listed as served though the schema forbids it", async (t) => {
    const refused = messages.filter(({ revision, body }) => wymcp(revision, body) === "reject -32602");
    const served = new Map<string, { count: number; answer: string; revisions: Set<string> }>();
    const sdkCodes: Record<string, number> = {};
    let sdkRefused = 0;
    for (const { revision, body } of refused) {
      const { answer, text } = await sdkAnswer(revision, body);
      if (answer !== "served") {
        sdkRefused++;
        const key = `${(body as { method: string }).method} ${answer}`;
        sdkCodes[key] = (sdkCodes[key] ?? 0) + 1;
        continue;
      }
      const kind = kindOf(body, revision);
      const entry = served.get(kind) ?? { count: 0, answer: text.slice(0, 160), revisions: new Set<string>() };
      entry.count++;
      entry.revisions.add(revision);
      served.set(kind, entry);
    }
    const servedCount = [...served.values()].reduce((n, e) => n + e.count, 0);
    t.diagnostic(
      `${refused.length} messages refused -32602 by wymcp: ${sdkRefused} refused by the SDK alone too, ${servedCount} served by it, in ${served.size} kinds`,
    );
    t.diagnostic(`the SDK's refusals, by method and answer: ${JSON.stringify(sdkCodes)}`);
    for (const [kind, { count, answer, revisions }] of [...served].sort())
      t.diagnostic(`served: ${kind} ×${count} [${[...revisions].join(" ")}] → ${answer}`);
    assert.deepEqual(
      [...served.keys()].filter((kind) => !KNOWN_SERVED.includes(kind)),
      [],
      "served by the SDK, refused by wymcp, and listed nowhere",
    );
  });

  test("docs/validation.md lists every kind the SDK serves though the schema forbids it", () => {
    const doc = readFileSync(join(repoRoot, "docs", "validation.md"), "utf8");
    for (const kind of KNOWN_SERVED) assert.ok(doc.includes(`\`${kind}\``), `docs/validation.md does not list ${kind}`);
  });
});
