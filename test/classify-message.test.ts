import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { classifyMessage, type MessageKind } from "wymcp";

// docs/validation.md#framing-by-kind, by members alone: what each member's presence makes of a parsed body.
const CASES: Array<[string, unknown, MessageKind]> = [
  ["method and id: a request", { jsonrpc: "2.0", id: 1, method: "ping" }, "request"],
  ["method and a null id: still a request (the id member is there)", { method: "ping", id: null }, "request"],
  ["method, no id: a notification", { jsonrpc: "2.0", method: "notifications/initialized" }, "notification"],
  ["method of any type counts: a notification", { method: 5 }, "notification"],
  ["id and result, no method: a response", { jsonrpc: "2.0", id: 1, result: {} }, "response"],
  ["id and error, no method: a response", { id: "a", error: { code: 1, message: "m" } }, "response"],
  ["id and a null result: a response (membership, not value)", { id: 1, result: null }, "response"],
  ["method beside result: a request, method wins", { id: 1, method: "x", result: {} }, "request"],
  ["result without id: other", { jsonrpc: "2.0", result: {} }, "other"],
  ["error without id: other", { error: { code: 1, message: "m" } }, "other"],
  ["id alone: other", { jsonrpc: "2.0", id: 1 }, "other"],
  ["an empty object: other", {}, "other"],
  ["an array (a batch is no single message): other", [{ jsonrpc: "2.0", id: 1, method: "ping" }], "other"],
  ["null: other", null, "other"],
  ["a string: other", "request", "other"],
  ["a number: other", 1, "other"],
  ["true: other", true, "other"],
  ["undefined: other", undefined, "other"],
];

describe("classifyMessage judges a parsed body by its members alone", () => {
  for (const [name, body, want] of CASES) test(name, () => assert.equal(classifyMessage(body), want));

  test("inherited members do not count: only own method, id, result and error do", () => {
    const inherited = Object.create({ method: "ping", id: 1, result: {} }) as object;
    assert.equal(classifyMessage(inherited), "other");
    const parsed = JSON.parse('{"__proto__":{"method":"ping"},"id":1}') as object;
    assert.equal(classifyMessage(parsed), "other");
  });

  test("a body whose prototype is not Object.prototype is classified by its own members", () => {
    const lender = { method: "ping", result: {} };
    assert.equal(classifyMessage(Object.assign(Object.create(lender) as object, { id: 1, error: {} })), "response");
    assert.equal(classifyMessage(Object.assign(Object.create(lender) as object, { id: 1 })), "other");
    assert.equal(classifyMessage(Object.assign(Object.create(lender) as object, { id: 1, method: "ping" })), "request");
  });

  test("a body with no prototype is classified by its members", () => {
    const body = Object.assign(Object.create(null) as object, { jsonrpc: "2.0", id: 1, method: "ping" });
    assert.equal(classifyMessage(body), "request");
    assert.equal(classifyMessage(Object.assign(Object.create(null) as object, { id: 1, error: {} })), "response");
  });

  for (const member of ["method", "id", "result", "error"]) {
    test(`a polluted Object.prototype.${member} lends nothing to a parsed body`, () => {
      const bodies: Array<[string, string]> = [
        ['{"jsonrpc":"2.0","method":"notifications/initialized"}', "notification"],
        ['{"jsonrpc":"2.0","id":1}', "other"],
        ['{"jsonrpc":"2.0","id":1,"result":{}}', "response"],
        ['{"jsonrpc":"2.0","id":1,"method":"ping"}', "request"],
      ];
      // Judged once before, so that the optimized path is the one met by the pollution.
      for (let i = 0; i < 20_000; i++) for (const [text] of bodies) classifyMessage(JSON.parse(text));
      Object.defineProperty(Object.prototype, member, { value: 1, configurable: true, writable: true });
      try {
        for (const [text, want] of bodies) assert.equal(classifyMessage(JSON.parse(text)), want, text);
      } finally {
        delete (Object.prototype as Record<string, unknown>)[member];
      }
      for (const [text, want] of bodies) assert.equal(classifyMessage(JSON.parse(text)), want, text);
    });
  }
});
