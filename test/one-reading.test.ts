/**
 * The questions several faces ask of a message, each answered by one function of the core: whether a parsed message is
 * a response (`isResponse`: the stdio gate, the checker, telemetry, the inspector) and a Content-Type's media type
 * (`mediaType`: the admission stage, report mode's tap, the proxy's upstream side, the checker's HAR reader).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isResponse } from "../src/wire/is-response.js";
import { mediaType } from "../src/core/header-value.js";
import { isJsonMediaType } from "../src/core/admission.js";

describe("isResponse: an object with its own result or error and no method, whatever its id", () => {
  const cases: Array<[string, unknown, boolean]> = [
    ["a result", { jsonrpc: "2.0", id: 1, result: {} }, true],
    ["an error", { jsonrpc: "2.0", id: 1, error: { code: -32600, message: "x" } }, true],
    ["an error with no id", { jsonrpc: "2.0", error: { code: -32700, message: "x" } }, true],
    ["a result beside a method: a request, not an answer", { id: 1, method: "x", result: {} }, false],
    ["a method of another type still counts as a method", { id: 1, method: 5, result: {} }, false],
    ["a result lent by the prototype is not the message's", Object.create({ result: {} }), false],
    ["a batch is asked item by item, never as a whole", [{ id: 1, result: {} }], false],
    ["null", null, false],
    ["a string", "result", false],
  ];
  for (const [name, body, want] of cases) test(name, () => assert.equal(isResponse(body), want));
});

describe("mediaType: the type before any parameter, trimmed and lower-cased", () => {
  const cases: Array<[string | null | undefined, string]> = [
    ["application/json", "application/json"],
    ["Application/JSON; charset=utf-8", "application/json"],
    ["  text/event-stream ;charset=UTF-8", "text/event-stream"],
    ["text/event-streamx", "text/event-streamx"],
    ["", ""],
    [null, ""],
    [undefined, ""],
  ];
  for (const [value, want] of cases) test(JSON.stringify(value), () => assert.equal(mediaType(value), want));

  test("the admission stage's JSON test reads the media type so, and still refuses two types in one value", () => {
    assert.equal(isJsonMediaType(" APPLICATION/json ; charset=latin1"), true);
    assert.equal(isJsonMediaType("application/json, text/plain"), false);
    assert.equal(isJsonMediaType("application/jsonx"), false);
    assert.equal(isJsonMediaType(undefined), false);
  });
});
