/**
 * The redaction of the page's export and `--record` (src/inspect/redact.ts) keeps only what it lists: the words it
 * keeps are the schemas' own; every message kind of both eras, in both directions (the client's and the server's
 * requests, notifications, results and errors, sampled from every revision's schema, the spec's examples and the
 * project's captures), keeps nothing of a secret put in any value but at the positions it names; and a message that
 * passes still passes once redacted.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { validateMcpRequest } from "../src/core/validate.js";
import { validateMcpResponse } from "../src/outbound/validate-response.js";
import { PROTOCOL_WORDS, REDACTED, redact } from "../src/inspect/redact.js";
import { random, Sampler } from "./support/schema-samples.js";
import { type JsonObject, loadExamples, readSpecSchema, specRevisions } from "./support/spec.js";

const REVISIONS = specRevisions();
const MODERN = "2026-07-28";

/** Every `const` and `enum` string of a revision, by the name of the member it is the value of. */
function schemaWords(revision: string, into: Map<string, Set<string>>): void {
  const read = readSpecSchema(revision);
  const defs = (read.$defs ?? read.definitions) as Record<string, JsonObject>;
  const add = (key: string, value: unknown) => {
    if (typeof value !== "string") return;
    if (!into.has(key)) into.set(key, new Set());
    into.get(key)!.add(value);
  };
  const walk = (node: unknown, key: string | undefined): void => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, key));
    if (typeof node !== "object" || node === null) return;
    const schema = node as JsonObject;
    if (key !== undefined) {
      // A member whose schema is a definition of words (a role, a log level) has those words.
      const target = typeof schema.$ref === "string" ? defs[schema.$ref.split("/").at(-1)!] : schema;
      if (target && "const" in target) add(key, target.const);
      if (Array.isArray(target?.enum)) for (const word of target.enum) add(key, word);
    }
    for (const [name, sub] of Object.entries((schema.properties as JsonObject | undefined) ?? {})) walk(sub, name);
    for (const at of ["items", "anyOf", "oneOf", "allOf", "additionalProperties"]) walk(schema[at], key);
  };
  for (const definition of Object.values(defs)) walk(definition, undefined);
}

test("the words kept are the schemas' own: each const and enum string under its member's name, every revision, and the two open strings the spec's text lists", () => {
  const derived = new Map<string, Set<string>>();
  for (const revision of REVISIONS) schemaWords(revision, derived);
  derived.set("resultType", new Set(["complete", "input_required"]));
  derived.set("stopReason", new Set(["endTurn", "maxTokens", "stopSequence", "toolUse"]));
  const sorted = (entries: Iterable<[string, ReadonlySet<string>]>) =>
    Object.fromEntries([...entries].map(([key, words]) => [key, [...words].sort()]).sort(([a], [b]) => String(a).localeCompare(String(b))));
  assert.deepEqual(sorted(Object.entries(PROTOCOL_WORDS)), sorted(derived));
});

interface Sample {
  name: string;
  revision: string;
  message: JsonObject;
  /** For a result: the method it answers (its request's), to judge it by. */
  answers?: string;
}

/** The method a definition's message carries (its `method` const), if any. */
function methodOf(defs: Record<string, JsonObject>, definition: string): string | undefined {
  const method = (defs[definition]?.properties as JsonObject | undefined)?.method as JsonObject | undefined;
  return typeof method?.const === "string" ? method.const : undefined;
}

/** Messages of every kind a revision defines, both directions: sampled from its unions, wrapped as JSON-RPC messages. */
function sampled(revision: string): Sample[] {
  const schema = readSpecSchema(revision);
  const defs = (schema.$defs ?? schema.definitions) as Record<string, JsonObject>;
  const members = (union: string) =>
    ((defs[union]?.anyOf as JsonObject[] | undefined) ?? []).map((ref) => String(ref.$ref).split("/").at(-1)!);
  const out: Sample[] = [];
  let seed = 1;
  for (const union of ["ClientRequest", "ServerRequest", "ClientNotification", "ServerNotification", "ClientResult", "ServerResult"]) {
    for (const definition of members(union)) {
      const sampler = new Sampler(schema as Record<string, unknown>, random(seed++));
      for (let i = 0; i < 4; i++) {
        const made = sampler.valid(defs[definition]) as JsonObject;
        const name = `${revision} ${union} ${definition} #${i}`;
        if (union.endsWith("Request")) out.push({ name, revision, message: { ...made, jsonrpc: "2.0", id: 7 } });
        else if (union.endsWith("Notification")) {
          const { id: _id, ...notification } = made;
          out.push({ name, revision, message: { ...notification, jsonrpc: "2.0" } });
        } else {
          const answers = methodOf(defs, definition.replace(/Result$/, "Request")) ?? (definition === "Result" ? "ping" : undefined);
          out.push({ name, revision, message: { jsonrpc: "2.0", id: 7, result: made }, answers });
        }
      }
    }
  }
  const errorData = new Sampler(schema as Record<string, unknown>, random(seed)).valid({}) as JsonObject;
  out.push({
    name: `${revision} error`,
    revision,
    message: { jsonrpc: "2.0", id: 7, error: { code: -32602, message: "m", data: errorData } },
  });
  return out;
}

/** The spec's examples that are messages, or results and errors wrapped as one. */
function examples(): Sample[] {
  const defs = readSpecSchema(MODERN).$defs as Record<string, JsonObject>;
  const out: Sample[] = [];
  for (const { definition, name, instance } of loadExamples()) {
    const value = instance as JsonObject;
    if (typeof value.jsonrpc === "string") {
      const answers = definition.endsWith("ResultResponse") ? methodOf(defs, definition.replace(/ResultResponse$/, "Request")) : undefined;
      out.push({ name, revision: MODERN, message: value, answers });
    } else if (definition.endsWith("Result")) {
      out.push({
        name,
        revision: MODERN,
        message: { jsonrpc: "2.0", id: 7, result: value },
        answers: methodOf(defs, definition.replace(/Result$/, "Request")),
      });
    } else if (definition.endsWith("Error")) out.push({ name, revision: MODERN, message: { jsonrpc: "2.0", id: 7, error: value } });
  }
  return out;
}

/** The lines of the project's captures (legacy sessions: sampling, elicitation, roots, errors). */
function captured(): Sample[] {
  const out: Sample[] = [];
  for (const file of ["exchange.jsonl", "legacy-elicitation.jsonl", "mixed.jsonl", "session.jsonl"]) {
    readFileSync(`test/fixtures/cli/${file}`, "utf8")
      .split("\n")
      .forEach((line, i) => {
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          return;
        }
        if (typeof message === "object" && message !== null && !Array.isArray(message))
          out.push({ name: `${file}:${i + 1}`, revision: "2025-11-25", message: message as JsonObject });
      });
  }
  return out;
}

const ALL = [...REVISIONS.flatMap(sampled), ...examples(), ...captured()];

/**
 * The positions whose value the redaction promises to keep (a JSON Pointer, array indices as `N`): the envelope, the
 * names a method names, the ids that pair messages. A secret anywhere else must not survive.
 */
function kept(pointer: string, message: JsonObject, secret: string | number): boolean {
  const at = pointer.replace(/\/\d+(?=\/|$)/g, "/N");
  if (at === "/jsonrpc" || at === "/method" || at === "/id" || at === "/error/code") return true;
  if (/\/(progressToken|requestId)$/.test(at))
    return !/\/(arguments|structuredContent|data)\//.test(at) && !/\/_meta\/(?!progressToken$)/.test(at);
  // A name is kept when it is one: a string.
  if (typeof secret !== "string") return false;
  if (at === "/params/name") return message.method === "tools/call" || message.method === "prompts/get";
  return [
    "/params/ref/name",
    "/params/argument/name",
    "/result/tools/N/name",
    "/result/prompts/N/name",
    "/result/prompts/N/arguments/N/name",
  ].includes(at);
}

/** `message` with a distinct secret in every string and number but the protocol's words; the secrets by pointer. */
function withSecrets(message: JsonObject): { marked: JsonObject; secrets: Map<string, string | number> } {
  const secrets = new Map<string, string | number>();
  let n = 0;
  const mark = (value: unknown, key: string, pointer: string): unknown => {
    if (typeof value === "string") {
      if (PROTOCOL_WORDS[key]?.has(value) || pointer === "/jsonrpc" || pointer === "/method") return value;
      const secret = `s3cr3t-${++n}-x`;
      secrets.set(pointer, secret);
      return secret;
    }
    if (typeof value === "number") {
      if (pointer === "/id" || pointer === "/error/code") return value;
      const secret = 987_000 + ++n;
      secrets.set(pointer, secret);
      return secret;
    }
    if (Array.isArray(value)) return value.map((item, i) => mark(item, key, `${pointer}/${i}`));
    if (typeof value === "object" && value !== null)
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, mark(v, k, `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`)]),
      );
    return value;
  };
  return { marked: mark(message, "", "") as JsonObject, secrets };
}

/** Every leaf of a value, strings and numbers. */
function leaves(value: unknown, into: Set<unknown> = new Set()): Set<unknown> {
  if (Array.isArray(value)) value.forEach((item) => leaves(item, into));
  else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) leaves(item, into);
  else into.add(value);
  return into;
}

describe("a secret in any value of any message survives only where the redaction says it keeps one", () => {
  test(`${ALL.length} messages: every revision's kinds sampled both ways, the spec's examples, the project's captures`, () => {
    const kinds = new Set(
      ALL.map((s) =>
        s.message.method !== undefined
          ? `${s.message.id !== undefined ? "request" : "notification"} ${s.message.method}`
          : s.message.error
            ? "error"
            : `result ${s.answers}`,
      ),
    );
    // Both directions of both eras are here: the server's requests and notifications, the client's answers to them.
    for (const kind of [
      "request sampling/createMessage",
      "request elicitation/create",
      "request roots/list",
      "notification notifications/message",
      "result completion/complete",
      "result sampling/createMessage",
      "result elicitation/create",
      "error",
    ])
      assert.ok(kinds.has(kind), kind);
    let secretsSeen = 0;
    for (const sample of ALL) {
      const { marked, secrets } = withSecrets(sample.message);
      const out = leaves(redact(marked));
      for (const [pointer, secret] of secrets) {
        secretsSeen++;
        assert.equal(out.has(secret), kept(pointer, marked, secret), `${sample.name} ${pointer}: ${JSON.stringify(redact(marked))}`);
      }
    }
    assert.ok(secretsSeen > 2_000, `${secretsSeen} secrets`);
  });

  test('the values that are no words of the protocol read [redacted], 0 or "": the shape stays, each key and type', () => {
    const message = {
      jsonrpc: "2.0",
      id: 3,
      method: "sampling/createMessage",
      params: {
        messages: [
          { role: "user", content: { type: "text", text: "my PIN is 1234" } },
          { role: "user", content: { type: "image", data: "AAAA", mimeType: "image/png" } },
        ],
        maxTokens: 100,
        systemPrompt: "you are",
        includeContext: "thisServer",
      },
    };
    assert.deepEqual(redact(message), {
      jsonrpc: "2.0",
      id: 3,
      method: "sampling/createMessage",
      params: {
        messages: [
          { role: "user", content: { type: "text", text: REDACTED } },
          { role: "user", content: { type: "image", data: "", mimeType: REDACTED } },
        ],
        maxTokens: 0,
        systemPrompt: REDACTED,
        includeContext: "thisServer",
      },
    });
    // What a user or a server defines keeps its keys and types alone: a flag reads false there.
    assert.deepEqual(
      redact({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: { admin: true, type: "text" } } }),
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "t", arguments: { admin: false, type: REDACTED } },
      },
    );
    // Structured content of any type, not only an object's.
    assert.deepEqual(redact({ jsonrpc: "2.0", id: 4, result: { content: [], structuredContent: ["a", 1, true, { k: "v" }] } }), {
      jsonrpc: "2.0",
      id: 4,
      result: { content: [], structuredContent: [REDACTED, 0, false, { k: REDACTED }] },
    });
    assert.deepEqual(
      redact({ jsonrpc: "2.0", id: 2, error: { code: -32001, message: "no access to /home/ann", data: { path: "/home/ann" } } }),
      {
        jsonrpc: "2.0",
        id: 2,
        error: { code: -32001, message: REDACTED, data: { path: REDACTED } },
      },
    );
  });
});

describe("a message that passes still passes once redacted", () => {
  test("every sample and example the validators pass, requests as the gates judge them and the rest as wymcp/outbound does", () => {
    let judged = 0;
    for (const sample of ALL) {
      const { message, revision } = sample;
      const era = revision === MODERN ? "modern" : "legacy";
      const judge = (body: unknown) => {
        const isRequest = typeof message.method === "string" && message.id !== undefined;
        const clientSends = isRequest && !["sampling/createMessage", "elicitation/create", "roots/list"].includes(message.method as string);
        if (clientSends) return validateMcpRequest(body, era, { protocolVersion: era === "legacy" ? revision : undefined }).outcome;
        return validateMcpResponse(body, { era, method: sample.answers, protocolVersion: era === "legacy" ? revision : undefined }).outcome;
      };
      if (judge(message) !== "pass") continue;
      judged++;
      assert.equal(judge(redact(message)), "pass", `${sample.name}: ${JSON.stringify(redact(message))}`);
    }
    assert.ok(judged > 300, `${judged} judged`);
  });
});
