import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { impliesFraming } from "../scripts/codegen/implies-framing.js";

const ref = (name: string) => ({ $ref: `#/$defs/${name}` });
const FRAMING = {
  type: "object",
  required: ["id", "jsonrpc", "method"],
  properties: {
    id: ref("RequestId"),
    jsonrpc: { const: "2.0", type: "string" },
    method: { type: "string" },
    params: { additionalProperties: {}, type: "object" },
  },
};
const CALL = {
  type: "object",
  required: ["id", "jsonrpc", "method", "params"],
  properties: {
    id: ref("RequestId"),
    jsonrpc: { type: "string", const: "2.0" },
    method: { const: "tools/call", type: "string" },
    params: ref("CallParams"),
  },
};
const defs = (definition: unknown, framing: unknown = FRAMING) => ({
  RequestId: { type: ["string", "integer"] },
  CallParams: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
  Loose: {},
  Framing: framing as Record<string, unknown>,
  Definition: definition as Record<string, unknown>,
});
const proves = (definition: unknown, framing?: unknown) => impliesFraming(defs(definition, framing), "Definition", "Framing");

describe("impliesFraming: a definition whose every value passes the framing, proved or refused", () => {
  test("a 2025-11-25-shaped request definition implies JSONRPCRequest (keys in any order, params by $ref)", () => {
    assert.equal(proves(CALL), true);
  });

  const refused: Array<[string, unknown, unknown?]> = [
    ["a framing member the definition does not require (id optional)", { ...CALL, required: ["jsonrpc", "method", "params"] }],
    [
      "a framing member the definition leaves unconstrained (no id property)",
      { ...CALL, properties: { ...CALL.properties, id: undefined } },
    ],
    ["params that may be other than an object", { ...CALL, properties: { ...CALL.properties, params: ref("Loose") } }],
    ["a definition that also admits null", { ...CALL, type: ["object", "null"] }],
    ["a method with no type of its own", { ...CALL, properties: { ...CALL.properties, method: { const: "tools/call" } } }],
    [
      "a $ref with sibling keywords (read differently by the drafts)",
      { ...CALL, properties: { ...CALL.properties, id: { ...ref("RequestId"), title: "x" } } },
    ],
    ["a framing with a keyword the proof does not handle", CALL, { ...FRAMING, additionalProperties: false }],
    [
      "a definition made of method and params only (revisions before 2025-11-25)",
      { type: "object", required: ["method"], properties: { method: CALL.properties.method } },
    ],
  ];
  for (const [name, definition, framing] of refused)
    test(`not proved: ${name}`, () => assert.equal(proves(JSON.parse(JSON.stringify(definition)), framing), false));
});
