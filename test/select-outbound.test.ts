import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonSchema } from "../scripts/codegen/load-spec.js";
import type { Selection } from "../scripts/codegen/select-definitions.js";
import { selectOutbound, type OutboundConfig } from "../scripts/codegen/select-outbound.js";

const request = (method: string) => ({ type: "object", properties: { method: { const: method, type: "string" } } });
const union = (...names: string[]) => ({ anyOf: names.map((name) => ({ $ref: `#/$defs/${name}` })) });
const envelope = Object.fromEntries(
  ["JSONRPCMessage", "JSONRPCRequest", "JSONRPCNotification", "JSONRPCResultResponse", "JSONRPCErrorResponse"].map((n) => [
    n,
    { type: "object" },
  ]),
);

/** A small revision: two requests (one with a result by the name rule, one without), one notification. */
function selection(extra: Record<string, JsonSchema> = {}): Selection {
  const defs: Record<string, JsonSchema> = {
    ...envelope,
    Result: { type: "object" },
    EmptyResult: { $ref: "#/$defs/Result" },
    FooRequest: request("foo"),
    FooResult: { type: "object", required: ["foo"] },
    PingRequest: request("ping"),
    DoneNotification: request("notifications/done"),
    ClientRequest: union("FooRequest", "PingRequest"),
    ServerResult: union("Result", "FooResult"),
    ServerNotification: union("DoneNotification"),
    ...extra,
  };
  return {
    config: { era: "x", revision: "r", framing: [], requestUnion: null },
    spec: { revision: "r", file: "schema/r/schema.json", sha256: "0", schema: { $defs: defs } },
    defs,
    entries: [],
    methods: [],
  };
}

const config = (over: Partial<OutboundConfig> = {}): OutboundConfig => ({
  era: "x",
  requestUnions: ["ClientRequest"],
  resultUnions: ["ServerResult"],
  notificationUnions: ["ServerNotification"],
  serverRequestUnions: [],
  resultName: { request: "Request", result: "Result" },
  resultExceptions: { ping: "EmptyResult" },
  discriminator: null,
  ...over,
});

describe("selectOutbound (codegen's outbound stage)", () => {
  test("reads the table by the name rule and the exceptions, the notifications by their unions", () => {
    const out = selectOutbound(selection(), config(), {});
    assert.deepEqual(out.results, [
      { method: "foo", definition: "FooResult", source: "name-rule", discriminated: false },
      { method: "ping", definition: "EmptyResult", source: "exception", discriminated: false },
    ]);
    assert.deepEqual(out.notifications, [{ method: "notifications/done", definition: "DoneNotification" }]);
    assert.deepEqual(out.entries.slice(-3), ["FooResult", "EmptyResult", "DoneNotification"]);
  });

  test("stops when a request has neither a name-rule result nor an exception", () => {
    assert.throws(() => selectOutbound(selection(), config({ resultExceptions: {} }), {}), /no result for ping \(PingRequest\)/);
  });

  test("stops when an exception names a method the name rule already answers", () => {
    assert.throws(
      () => selectOutbound(selection(), config({ resultExceptions: { ping: "EmptyResult", foo: "EmptyResult" } }), {}),
      /already answers with FooResult/,
    );
  });

  test("stops when an exception names a method no request union has", () => {
    assert.throws(
      () => selectOutbound(selection(), config({ resultExceptions: { ping: "EmptyResult", gone: "EmptyResult" } }), {}),
      /no request union has: gone/,
    );
  });

  test("the discriminator applies only where <stem><allowedBy> admits its definition", () => {
    const extra = {
      InputRequiredResult: { type: "object" },
      FooResultResponse: { type: "object", properties: { result: union("InputRequiredResult", "FooResult") } },
    };
    const discriminator = { member: "resultType", value: "input_required", definition: "InputRequiredResult", allowedBy: "ResultResponse" };
    const out = selectOutbound(selection(extra), config({ discriminator }), {});
    assert.deepEqual(
      out.results.map((r) => [r.method, r.discriminated]),
      [
        ["foo", true],
        ["ping", false],
      ],
    );
    assert.ok(out.entries.includes("InputRequiredResult"));
  });

  test("typed errors are the definitions whose error pins a code constant", () => {
    const extra = {
      TeapotError: {
        type: "object",
        properties: { error: { allOf: [{ $ref: "#/$defs/Result" }, { properties: { code: { const: -32099 } } }] } },
      },
    };
    assert.deepEqual(selectOutbound(selection(extra), config(), {}).errors, [{ code: -32099, definition: "TeapotError" }]);
  });

  test("errata of the revision apply to a copy of its definitions", () => {
    const extra = { NumberSchema: { type: "object", properties: { minimum: { type: "integer" } } } };
    const given = selection(extra);
    const out = selectOutbound(given, config(), { r: [{ definition: "NumberSchema", property: "minimum", type: "number" }] });
    assert.deepEqual(out.defs.NumberSchema, { type: "object", properties: { minimum: { type: "number" } } });
    assert.deepEqual(given.defs.NumberSchema, extra.NumberSchema);
    assert.deepEqual(
      out.errata.map((e) => e.outcome),
      ["applied"],
    );
  });
});
