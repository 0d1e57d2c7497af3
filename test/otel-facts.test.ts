import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  answerFacts,
  errorTypeOf,
  MAX_CONTEXT_UNITS,
  MAX_NAME_UNITS,
  MAX_TRACED_MESSAGES,
  MAX_URI_UNITS,
  messageFacts,
  sessionFact,
} from "../src/telemetry/telemetry.js";
import type { Admission } from "../src/core/admission.js";
import type { TransportFacts } from "../src/core/trace.js";
import { traceOf } from "../src/telemetry/traced.js";
import { isServerError, KNOWN_METHODS, KNOWN_REVISIONS } from "../src/otel/conventions.js";
import { mcpTelemetry } from "../src/otel/telemetry.js";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { TracerProvider } from "@opentelemetry/sdk-trace";
import { readSpecSchema, specRevisions } from "./support/spec.js";

const call = (params: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id: 7, method: "tools/call", params, ...extra });

describe("messageFacts: what of a body an observer may know", () => {
  test("a tools/call: method, id as sent and as text, the tool's name, the modern _meta claim, the trace context", () => {
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", traceparent: "tp", tracestate: "ts", baggage: "b", other: "x" };
    const [facts] = messageFacts(call({ name: "echo", arguments: { secret: "s" }, _meta: meta }), "modern", "2025-11-25", false);
    assert.deepEqual(facts, {
      method: "tools/call",
      id: 7,
      idText: "7",
      toolName: "echo",
      promptName: undefined,
      resourceUri: undefined,
      jsonrpcVersion: undefined,
      protocolVersion: "2026-07-28",
      traceContext: { traceparent: "tp", tracestate: "ts", baggage: "b" },
    });
  });

  const cases: Array<[string, { body: unknown; era?: "legacy" | "modern"; header?: string; want: Record<string, unknown> }]> = [
    [
      "a prompt's name only on prompts/get",
      {
        body: { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "greet" } },
        want: { promptName: "greet", toolName: undefined },
      },
    ],
    [
      "no tool name on a method that is not tools/call",
      { body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: { name: "echo" } }, want: { toolName: undefined } },
    ],
    [
      "a resource URI on resources/read",
      { body: { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "file:///a" } }, want: { resourceUri: "file:///a" } },
    ],
    [
      "a resource URI on resources/subscribe",
      { body: { jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri: "file:///a" } }, want: { resourceUri: "file:///a" } },
    ],
    [
      "no URI on other methods",
      { body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { uri: "file:///a" } }, want: { resourceUri: undefined } },
    ],
    ["a null id is no id", { body: { jsonrpc: "2.0", id: null, method: "ping" }, want: { id: undefined, idText: undefined } }],
    ["an object id is no id", { body: { jsonrpc: "2.0", id: {}, method: "ping" }, want: { id: undefined } }],
    ["a string id is kept as sent", { body: { jsonrpc: "2.0", id: "a-1", method: "ping" }, want: { id: "a-1", idText: "a-1" } }],
    ["a method that is no string is unknown", { body: { jsonrpc: "2.0", id: 1, method: 5 }, want: { method: undefined } }],
    ["a non-2.0 version number is kept", { body: { jsonrpc: "1.0", id: 1, method: "ping" }, want: { jsonrpcVersion: "1.0" } }],
    ["a version that is no number is not", { body: { jsonrpc: "two", id: 1, method: "ping" }, want: { jsonrpcVersion: undefined } }],
    [
      "legacy initialize: the revision it asks for",
      {
        body: { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } },
        era: "legacy",
        want: { protocolVersion: "2025-06-18" },
      },
    ],
    [
      "legacy: the header's revision",
      { body: { jsonrpc: "2.0", id: 1, method: "ping" }, era: "legacy", header: "2025-11-25", want: { protocolVersion: "2025-11-25" } },
    ],
    [
      "a header that is no revision is not recorded",
      { body: { jsonrpc: "2.0", id: 1, method: "ping" }, era: "legacy", header: "latest", want: { protocolVersion: undefined } },
    ],
    [
      "a modern _meta claim that is no revision falls back to the header",
      {
        body: call({ _meta: { "io.modelcontextprotocol/protocolVersion": 5 } }),
        era: "modern",
        header: "2026-07-28",
        want: { protocolVersion: "2026-07-28" },
      },
    ],
    [
      "a trace-context value longer than the bound is dropped",
      {
        body: call({ _meta: { traceparent: "x".repeat(MAX_CONTEXT_UNITS + 1), tracestate: "ok" } }),
        want: { traceContext: { tracestate: "ok" } },
      },
    ],
    [
      "a trace-context value that is no string is dropped",
      { body: call({ _meta: { traceparent: 5 } }), want: { traceContext: undefined } },
    ],
  ];
  for (const [name, { body, era = "modern", header, want }] of cases) {
    test(name, () => {
      const [facts] = messageFacts(body, era, header, false);
      for (const [key, value] of Object.entries(want)) assert.deepEqual(facts?.[key as keyof typeof facts], value, key);
    });
  }

  test("every recorded text is bounded and escaped as the answers' texts are", () => {
    const long = `a\u0000b\u202e${"x".repeat(1000)}`;
    const body = { jsonrpc: "2.0", id: long, method: long, params: { name: long, uri: long } };
    const [facts] = messageFacts({ ...body, method: "tools/call" }, "modern", undefined, false);
    const [resource] = messageFacts({ ...body, method: "resources/read" }, "modern", undefined, false);
    const [method] = messageFacts(body, "modern", undefined, false);
    for (const [text, max] of [
      [facts!.idText, MAX_NAME_UNITS],
      [facts!.toolName, MAX_NAME_UNITS],
      [method!.method, MAX_NAME_UNITS],
      [resource!.resourceUri, MAX_URI_UNITS],
    ] as const) {
      assert.ok(text!.startsWith("a\\u0000b\\u202e"), text);
      assert.ok(text!.length <= max + 1 && text!.endsWith("…"), `${text!.length}`);
    }
    assert.equal(facts!.id, long, "the raw id is kept, to match the answer; it is never recorded");
  });

  test("a batch: one entry per message up to the bound; the client's responses are left out unless refused", () => {
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 9, result: {} },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ];
    assert.deepEqual(
      messageFacts(batch, "legacy", undefined, false).map((f) => f.method),
      ["ping", "notifications/initialized"],
    );
    assert.equal(messageFacts(batch, "legacy", undefined, true).length, 3);
    const huge = Array.from({ length: 10_000 }, (_, id) => ({ jsonrpc: "2.0", id, method: "ping" }));
    assert.equal(messageFacts(huge, "legacy", undefined, false).length, MAX_TRACED_MESSAGES);
    assert.equal(messageFacts([], "legacy", undefined, true).length, 1, "a refused empty batch is still one answer");
    assert.deepEqual(
      messageFacts({ jsonrpc: "2.0", id: 1, result: {} }, "legacy", undefined, false),
      [],
      "a legacy response is no operation",
    );
  });

  test("a body refused before it was parsed is one message with nothing known", () => {
    const [facts] = messageFacts(undefined, undefined, undefined, true);
    assert.deepEqual(
      Object.values(facts!).filter((v) => v !== undefined),
      [],
    );
  });

  test("the session id only in the legacy era, bounded and escaped", () => {
    assert.equal(sessionFact("legacy", "abc"), "abc");
    assert.equal(sessionFact("modern", "abc"), undefined);
    assert.equal(sessionFact(undefined, "abc"), undefined);
    assert.equal(sessionFact("legacy", ""), undefined);
    assert.equal(sessionFact("legacy", "\u001b[31m"), "\\u001b[31m");
    assert.ok(sessionFact("legacy", "s".repeat(500))!.length <= MAX_NAME_UNITS + 1);
  });
});

describe("answerFacts: what an answer says", () => {
  const cases: Array<[string, unknown, unknown]> = [
    ["a result", { jsonrpc: "2.0", id: 1, result: {} }, { id: 1, code: undefined, message: undefined, toolError: false }],
    [
      "a tool's failure",
      { jsonrpc: "2.0", id: "a", result: { isError: true } },
      { id: "a", code: undefined, message: undefined, toolError: true },
    ],
    [
      "an error",
      { jsonrpc: "2.0", id: 2, error: { code: -32603, message: "x\ny" } },
      { id: 2, code: -32603, message: "x\\u000ay", toolError: false },
    ],
    [
      "an error naming no request",
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "m" } },
      { id: null, code: -32600, message: "m", toolError: false },
    ],
    [
      "a code that is no integer",
      { jsonrpc: "2.0", id: 2, error: { code: "x" } },
      { id: 2, code: undefined, message: undefined, toolError: false },
    ],
    ["a notification", { jsonrpc: "2.0", method: "notifications/progress" }, undefined],
    ["a server request", { jsonrpc: "2.0", id: 3, method: "sampling/createMessage" }, undefined],
    ["a result with a null id", { jsonrpc: "2.0", id: null, result: {} }, undefined],
    ["not an object", "text", undefined],
  ];
  for (const [name, message, want] of cases) test(name, () => assert.deepEqual(answerFacts(message), want));
});

test("errorTypeOf: the class of what was thrown, bounded; _OTHER for anything that is no object", () => {
  assert.equal(errorTypeOf(new TypeError("x")), "TypeError");
  class Custom extends Error {}
  assert.equal(errorTypeOf(new Custom()), "Custom");
  assert.equal(errorTypeOf("a string"), "_OTHER");
  assert.equal(errorTypeOf(Object.create(null)), "_OTHER");
});

test("server-side error classification: the five caller codes are no error, every other code is one", () => {
  for (const code of [-32700, -32600, -32601, -32602, -32002]) assert.equal(isServerError(code), false, String(code));
  for (const code of [-32603, -32000, -32001, -32099, -1, 0, 1]) assert.equal(isServerError(code), true, String(code));
});

test("every client request and notification method of every MCP revision is a known method (recorded as itself on metrics)", () => {
  let seen = 0;
  for (const revision of specRevisions()) {
    const schema = readSpecSchema(revision);
    // The older revisions keep their definitions under `definitions`, the newer under `$defs`.
    const definitions = (schema.$defs ?? schema.definitions) as Record<string, Definition>;
    for (const union of ["ClientRequest", "ClientNotification"]) {
      for (const ref of definitions[union]?.anyOf ?? []) {
        const method = definitions[ref.$ref.split("/").pop()!]?.properties?.method?.const;
        assert.equal(typeof method, "string", `${revision} ${ref.$ref}`);
        assert.ok(KNOWN_METHODS.has(method!), `${revision}: ${method}`);
        seen++;
      }
    }
  }
  assert.ok(seen > 50, `${seen} methods checked`);
});

test("the revisions recorded as themselves on metrics are the MCP revisions of the spec, each a dated one", () => {
  const dated = specRevisions().filter((revision) => /^\d{4}-\d{2}-\d{2}$/.test(revision));
  assert.deepEqual([...KNOWN_REVISIONS].sort(), dated);
});

interface Definition {
  anyOf?: Array<{ $ref: string }>;
  properties?: { method?: { const?: string } };
}

describe("no SDK, no facts: a telemetry that records nothing is never shown the exchange", () => {
  /** A verdict whose body counts every read of it: the facts are read from the body alone. */
  const counted = () => {
    let reads = 0;
    const body = new Proxy(call({ name: "echo", arguments: {} }), {
      get(target, key, receiver) {
        reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const verdict: Admission = {
      ok: true,
      body,
      era: "modern",
      result: { outcome: "pass", kind: "request", definition: "CallToolRequest" },
    };
    return { verdict, reads: () => reads };
  };
  const pipe: TransportFacts = { network: "pipe", protocol: undefined, client: undefined, header: undefined };
  const headers = { protocolVersion: undefined, sessionId: undefined };

  test("recording() false: traceOf reads nothing of the body and never calls judged", () => {
    const { verdict, reads } = counted();
    let judged = 0;
    const trace = traceOf({ recording: () => false, judged: () => void judged++ }, { verdict, startTime: 0, transport: pipe, headers });
    assert.deepEqual([trace, judged, reads()], [undefined, 0, 0]);
  });

  test("recording() true, or no recording() at all: the facts are read and judged is called once", () => {
    for (const recording of [() => true, undefined]) {
      const { verdict, reads } = counted();
      let judged = 0;
      traceOf({ recording, judged: () => void judged++ }, { verdict, startTime: 0, transport: pipe, headers });
      assert.equal(judged, 1);
      assert.ok(reads() > 0);
    }
  });

  test("mcpTelemetry() says so up front: false with the API's no-op providers, true with a real tracer or meter provider", () => {
    assert.equal(mcpTelemetry().recording?.(), false);
    assert.equal(mcpTelemetry({ meterProvider: new MeterProvider() }).recording?.(), true);
    assert.equal(mcpTelemetry({ tracerProvider: new TracerProvider() }).recording?.(), true);
  });

  test("a recording() that throws is a failing observer: nothing is traced, nothing breaks", () => {
    const { verdict } = counted();
    const failing = {
      recording(): boolean {
        throw new Error("observer down");
      },
      judged: () => assert.fail("judged after a failing recording()"),
    };
    assert.equal(traceOf(failing, { verdict, startTime: 0, transport: pipe, headers }), undefined);
  });
});
