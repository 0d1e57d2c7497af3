import assert from "node:assert/strict";
import "./support/built.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { outbound } from "../generated/outbound.js";
import { applyErrata } from "../scripts/codegen/select-outbound.js";
import { MAX_ANSWER_BYTES, type Era } from "wymcp";
import { validateMcpResponse, type OutboundResult } from "wymcp/outbound";
import { LEGACY_SERVER_MESSAGES } from "./support/outbound-messages.js";
import { reference } from "./support/outbound-reference.js";
import { loadExamples, repoRoot, type JsonObject } from "./support/spec.js";

const refs = { legacy: reference("legacy"), modern: reference("modern") };
const example = (name: string) =>
  structuredClone(loadExamples().find((e) => e.name === name)?.instance ?? assert.fail(`no example ${name}`)) as JsonObject;
const respond = (result: unknown, id: number | string = 1) => ({ jsonrpc: "2.0", id, result });
const locations = (r: OutboundResult) => (r.outcome === "violation" ? r.violations.errors.map((e) => e.instancePath) : []);

describe("validateMcpResponse: the deliberately broken results are reported where they are broken", () => {
  const cases: Array<[string, { era: Era; method: string; message: unknown; want: string }]> = [
    [
      "a content item without type (modern tools/call)",
      {
        era: "modern",
        method: "tools/call",
        message: respond({ resultType: "complete", content: [{ text: "hi" }] }),
        want: "/result/content/0/type",
      },
    ],
    [
      "a content item without type (legacy tools/call)",
      {
        era: "legacy",
        method: "tools/call",
        message: respond({ content: [{ type: "text", text: "a" }, { text: "b" }] }),
        want: "/result/content/1/type",
      },
    ],
    [
      "a modern result without resultType (tools/call)",
      {
        era: "modern",
        method: "tools/call",
        message: respond({ content: [{ type: "text", text: "hi" }] }),
        want: "/result/resultType",
      },
    ],
    [
      "a modern result without resultType (prompts/list)",
      {
        era: "modern",
        method: "prompts/list",
        message: respond({ prompts: [], ttlMs: 0, cacheScope: "public" }),
        want: "/result/resultType",
      },
    ],
    [
      'a tool whose inputSchema is { type: "string" } (legacy tools/list)',
      {
        era: "legacy",
        method: "tools/list",
        message: respond({ tools: [{ name: "echo", inputSchema: { type: "string" } }] }),
        want: "/result/tools/0/inputSchema/type",
      },
    ],
  ];
  for (const [name, { era, method, message, want }] of cases) {
    test(name, () => {
      const result = validateMcpResponse(message, { era, method });
      assert.equal(result.outcome, "violation");
      assert.ok(locations(result).includes(want), `${want} not among ${locations(result).join(", ")}`);
      assert.equal(result.kind, "result");
      assert.match(result.outcome === "violation" ? result.violations.message : "", new RegExp(`^Invalid ${method} result \\(`));
    });
  }

  test('a tool whose inputSchema is { type: "string" } (modern tools/list, official example altered)', () => {
    const message = example("ListToolsResultResponse/list-tools-result-response.json");
    ((message.result as JsonObject).tools as JsonObject[])[0]!.inputSchema = { type: "string" };
    assert.deepEqual(locations(validateMcpResponse(message, { era: "modern", method: "tools/list" })), [
      "/result/tools/0/inputSchema/type",
    ]);
  });
});

describe("validateMcpResponse: what each kind of message is judged as", () => {
  const cases: Array<
    [string, { era: Era; method?: string; message: unknown; want: Pick<OutboundResult, "outcome" | "kind" | "definition"> }]
  > = [
    [
      "an input_required result of tools/call → InputRequiredResult",
      {
        era: "modern",
        method: "tools/call",
        message: respond({ resultType: "input_required", requestState: "s" }),
        want: { outcome: "pass", kind: "result", definition: "InputRequiredResult" },
      },
    ],
    [
      "a result of an unknown method → the envelope alone",
      {
        era: "modern",
        method: "vendor/x",
        message: respond({ resultType: "complete", anything: 1 }),
        want: { outcome: "pass", kind: "result", definition: "JSONRPCResultResponse" },
      },
    ],
    [
      "a result with no method given → the envelope alone",
      {
        era: "legacy",
        message: respond({ whatever: true }),
        want: { outcome: "pass", kind: "result", definition: "JSONRPCResultResponse" },
      },
    ],
    [
      "a ping result (legacy, by the EmptyResult exception)",
      {
        era: "legacy",
        method: "ping",
        message: respond({}),
        want: { outcome: "pass", kind: "result", definition: "EmptyResult" },
      },
    ],
    [
      "a modern notification by its own method",
      {
        era: "modern",
        method: "tools/call",
        message: { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
        want: { outcome: "pass", kind: "notification", definition: "ToolListChangedNotification" },
      },
    ],
    [
      "a notification outside the server's vocabulary → framing only",
      {
        era: "modern",
        message: { jsonrpc: "2.0", method: "notifications/vendor", params: { x: 1 } },
        want: { outcome: "pass", kind: "notification", definition: "JSONRPCNotification" },
      },
    ],
    [
      "a legacy server request (roots/list)",
      {
        era: "legacy",
        message: { jsonrpc: "2.0", id: 5, method: "roots/list" },
        want: { outcome: "pass", kind: "request", definition: "ListRootsRequest" },
      },
    ],
    [
      "a legacy sampling request without maxTokens",
      {
        era: "legacy",
        message: { jsonrpc: "2.0", id: 5, method: "sampling/createMessage", params: { messages: [] } },
        want: { outcome: "violation", kind: "request", definition: "CreateMessageRequest" },
      },
    ],
    [
      "a modern server request: servers of the modern era send none",
      {
        era: "modern",
        message: { jsonrpc: "2.0", id: 5, method: "roots/list" },
        want: { outcome: "violation", kind: "request", definition: "JSONRPCRequest" },
      },
    ],
    [
      "an error response with a code the schema types (-32022 without data)",
      {
        era: "modern",
        message: { jsonrpc: "2.0", id: 1, error: { code: -32022, message: "unsupported" } },
        want: { outcome: "violation", kind: "error", definition: "UnsupportedProtocolVersionError" },
      },
    ],
    [
      "an error response with any other code",
      {
        era: "modern",
        message: { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "Method not found" } },
        want: { outcome: "pass", kind: "error", definition: "JSONRPCErrorResponse" },
      },
    ],
    ["an array", { era: "legacy", message: [], want: { outcome: "violation", kind: "other", definition: "JSONRPCMessage" } }],
    [
      "an object of no kind",
      { era: "modern", message: { jsonrpc: "2.0", id: 1 }, want: { outcome: "violation", kind: "other", definition: "JSONRPCMessage" } },
    ],
    [
      "an unknown era reads as legacy (a result without resultType passes)",
      {
        era: "future" as Era,
        method: "tools/call",
        message: respond({ content: [] }),
        want: { outcome: "pass", kind: "result", definition: "CallToolResult" },
      },
    ],
  ];
  for (const [name, { era, method, message, want }] of cases) {
    test(name, () => {
      const { outcome, kind, definition } = validateMcpResponse(message, { era, method });
      assert.deepEqual({ outcome, kind, definition }, want);
    });
  }

  test("every valid legacy message of the support set passes, judged by its most specific definition", () => {
    for (const { message, method } of LEGACY_SERVER_MESSAGES) {
      const result = validateMcpResponse(message, { era: "legacy", method });
      assert.equal(result.outcome, "pass", JSON.stringify(result));
    }
  });

  test("every official 2026-07-28 example of a server message or result passes in the modern era", () => {
    const byResult = new Map([...outbound.modern.results].map(([method, { definition }]) => [definition, method]));
    let checked = 0;
    for (const { definition, instance, name } of loadExamples()) {
      if (name === INCONSISTENT_EXAMPLE) continue;
      const own = byResult.get(definition) ?? byResult.get(definition.replace(/Response$/, ""));
      const message = byResult.has(definition) ? respond(instance) : instance;
      const server = own !== undefined || /Notification$|Error$/.test(definition);
      if (!server || typeof message !== "object" || message === null || !("jsonrpc" in message)) continue;
      const result = validateMcpResponse(message, { era: "modern", method: own });
      assert.equal(result.outcome, "pass", `${name}: ${JSON.stringify(result)}`);
      checked++;
    }
    assert.ok(checked >= 25, `only ${checked} examples checked`);
  });

  test("a message nested past the stack is a violation, not a throw", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    // ServerCapabilities.experimental holds the recursive JSONValue.
    const result = validateMcpResponse(respond({ resultType: "complete", capabilities: { experimental: { x: { y: deep } } } }), {
      era: "modern",
      method: "server/discover",
    });
    assert.equal(result.outcome, "violation");
    assert.match(result.outcome === "violation" ? result.violations.message : "", /nested too deeply/);
  });
});

/** The one official example that is valid only through the loose InputRequiredResult branch (pinned below). */
const INCONSISTENT_EXAMPLE = "ReadResourceResultResponse/read-resource-result-response.json";

describe("the discriminator is stricter than the bare schema, in each place it applies", () => {
  const modern = refs.modern;
  const discriminated = [...modern.results].filter(([, r]) => r.discriminated).map(([method]) => method);

  test("it applies exactly where the method's XResultResponse admits InputRequiredResult (tools/call, prompts/get, resources/read)", () => {
    assert.deepEqual([...discriminated].sort(), ["prompts/get", "resources/read", "tools/call"]);
    assert.deepEqual(
      [...outbound.modern.results]
        .filter(([, r]) => r.discriminated)
        .map(([m]) => m)
        .sort(),
      [...discriminated].sort(),
    );
  });

  test("the official CallToolResult example with content[0].type deleted: valid against the bare CallToolResultResponse, rejected by us", () => {
    const result = example("CallToolResult/result-with-unstructured-text.json");
    delete ((result.content as JsonObject[])[0] as JsonObject).type;
    const message = respond(result);
    assert.equal(modern.validator("CallToolResultResponse")(message), true, "the bare schema takes it as an InputRequiredResult");
    const ours = validateMcpResponse(message, { era: "modern", method: "tools/call" });
    assert.equal(ours.definition, "CallToolResult");
    assert.ok(locations(ours).includes("/result/content/0/type"));
  });

  test(`the official ${INCONSISTENT_EXAMPLE} lacks ReadResourceResult's cacheScope and ttlMs: the bare schema takes it as an InputRequiredResult, we report both`, () => {
    const message = example(INCONSISTENT_EXAMPLE);
    assert.equal(modern.validator("ReadResourceResultResponse")(message), true);
    assert.equal(modern.validator("ReadResourceResult")(message.result), false);
    assert.deepEqual(locations(validateMcpResponse(message, { era: "modern", method: "resources/read" })), [
      "/result/cacheScope",
      "/result/ttlMs",
    ]);
  });

  for (const method of discriminated) {
    const { definition } = modern.results.get(method)!;
    const required = (modern.defs[definition]!.required as string[]).filter((member) => member !== "resultType");
    for (const member of required) {
      test(`${method}: a ${definition} without ${member} passes the bare ${definition}Response but not us`, () => {
        const message = respond({ resultType: "complete" });
        assert.equal(modern.validator(`${definition}Response`)(message), true);
        const ours = validateMcpResponse(message, { era: "modern", method });
        assert.equal(ours.outcome, "violation");
        assert.ok(locations(ours).includes(`/result/${member}`));
      });
    }
  }

  test("every other modern method's XResultResponse is its XResult alone, so there the two agree", () => {
    for (const [method, { definition, discriminated: d }] of modern.results) {
      if (d) continue;
      const response = modern.defs[`${definition}Response`];
      assert.ok(response, `no ${definition}Response`);
      assert.deepEqual((response.properties as Record<string, JsonObject>).result, { $ref: `#/$defs/${definition}` }, method);
    }
  });

  test("input_required where the response does not admit it (tools/list): the bare schema and we reject it", () => {
    const message = respond({ resultType: "input_required", requestState: "s" });
    assert.equal(modern.validator("ListToolsResultResponse")(message), false);
    assert.equal(validateMcpResponse(message, { era: "modern", method: "tools/list" }).outcome, "violation");
  });

  test("a modern server's request: the bare JSONRPCRequest takes it, we do not", () => {
    const message = { jsonrpc: "2.0", id: 1, method: "ping" };
    assert.equal(modern.validator("JSONRPCRequest")(message), true);
    assert.equal(validateMcpResponse(message, { era: "modern" }).outcome, "violation");
  });
});

describe("the method → result table", () => {
  const manifest = JSON.parse(readFileSync(join(repoRoot, "generated", "manifest.json"), "utf8")) as {
    eras: Record<Era, { outbound: { results: Record<string, string>; resultExceptions: Record<string, string> } }>;
  };
  for (const era of ["legacy", "modern"] as const) {
    test(`${era}: generated results equal the request unions by the name rule plus the exceptions of schemas/outbound/${era}.json`, () => {
      const want = [...refs[era].results].map(([method, r]) => [method, r.definition, r.discriminated]);
      assert.deepEqual(
        [...outbound[era].results].map(([method, r]) => [method, r.definition, r.discriminated]),
        want,
      );
      assert.deepEqual(manifest.eras[era].outbound.results, Object.fromEntries(want.map(([m, d]) => [m, d])));
      assert.deepEqual(manifest.eras[era].outbound.resultExceptions, refs[era].config.resultExceptions);
    });
  }

  test("the exceptions are exactly the requests the name rule finds no result for (legacy: 4, modern: none)", () => {
    assert.deepEqual(Object.keys(refs.legacy.config.resultExceptions).sort(), [
      "logging/setLevel",
      "ping",
      "resources/subscribe",
      "resources/unsubscribe",
    ]);
    assert.deepEqual(refs.modern.config.resultExceptions, {});
  });

  test("legacy carries the server's requests and the client's results to them; modern carries no server request", () => {
    assert.deepEqual([...outbound.legacy.requests.keys()].filter((m) => !m.startsWith("tasks/")).sort(), [
      "elicitation/create",
      "ping",
      "roots/list",
      "sampling/createMessage",
    ]);
    for (const method of ["sampling/createMessage", "elicitation/create", "roots/list"])
      assert.ok(outbound.legacy.results.has(method), method);
    assert.equal(outbound.modern.requests.size, 0);
    assert.equal(outbound.legacy.discriminator, null);
  });

  test("a method the server chose, such as __proto__, finds nothing", () => {
    const result = validateMcpResponse(respond({ resultType: "complete" }), { era: "modern", method: "__proto__" });
    assert.equal(result.definition, "JSONRPCResultResponse");
  });
});

describe("errata (schemas/outbound/errata.json)", () => {
  const defs = (type: string) => ({ NumberSchema: { type: "object", properties: { minimum: { type } } } });
  const erratum = [{ definition: "NumberSchema", property: "minimum", type: "number" }];

  test("an integer-typed property is given the erratum's type, on a copy", () => {
    const given = defs("integer");
    const { defs: out, applied } = applyErrata(given, erratum, "r");
    assert.deepEqual(out, defs("number"));
    assert.deepEqual(given, defs("integer"));
    assert.deepEqual(
      applied.map((a) => a.outcome),
      ["applied"],
    );
  });

  test("a property already of that type is left and recorded as already so (this spec copy's 2025-11-25)", () => {
    assert.deepEqual(
      applyErrata(defs("number"), erratum, "r").applied.map((a) => a.outcome),
      ["already-so"],
    );
    const manifest = JSON.parse(readFileSync(join(repoRoot, "generated", "manifest.json"), "utf8")) as {
      eras: { legacy: { outbound: { errata: Array<{ property: string; outcome: string }> } } };
    };
    assert.deepEqual(
      manifest.eras.legacy.outbound.errata.map((e) => e.property),
      ["minimum", "maximum", "default", "id", "id"],
    );
  });

  test("a property of any other type stops codegen", () => {
    assert.throws(() => applyErrata(defs("string"), erratum, "r"), /erratum NumberSchema\.minimum of r finds type "string"/);
  });

  test("a legacy elicitation request with fractional NumberSchema bounds and default passes", () => {
    const message = LEGACY_SERVER_MESSAGES.find((m) => (m.message as { method?: string }).method === "elicitation/create")!.message;
    assert.equal(validateMcpResponse(message, { era: "legacy" }).outcome, "pass");
  });
});

describe("violations are bounded and reflect nothing of the message", () => {
  test("any broken tools/call result: at most 20 entries, within the inbound answer bound, no string value of the message", () => {
    const secret = fc.string({ minLength: 8, maxLength: 40 }).map((s) => `SECRET-${s}`);
    const item = fc.oneof(
      fc.record({ text: secret }),
      fc.record({ type: secret, text: secret }),
      fc.record({ type: fc.constant("image"), data: fc.integer(), mimeType: secret }),
      secret,
    );
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 300 }), fc.constantFrom<Era>("legacy", "modern"), (content, era) => {
        const message = respond({ content, structuredContent: 5 });
        const result = validateMcpResponse(message, { era, method: "tools/call" });
        assert.equal(result.outcome, "violation");
        const text = JSON.stringify(result.outcome === "violation" ? result.violations : null);
        assert.ok(result.outcome === "violation" && result.violations.errors.length <= 20);
        assert.ok(new TextEncoder().encode(text).length <= MAX_ANSWER_BYTES);
        assert.ok(!text.includes("SECRET-"), text);
      }),
      { numRuns: 200, seed: 11 },
    );
  });
});
