import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, test } from "node:test";
import fc from "fast-check";
import { MAX_ANSWER_BYTES, validateMcpRequest, type JsonRpcErrorResponse, type RejectInfo } from "wymcp";
import { wymcpFetch } from "wymcp/fetch";
import { wymcpNode } from "wymcp/node";
import type { ValidationError } from "../generated/validator.js";
import { distill, LIMITS } from "../src/core/distill.js";
import { answerId } from "../src/core/envelope.js";
import { hasUnsafeUnit, SEGMENT_LENGTH } from "../src/core/log-safe.js";
import { renderHuman } from "../src/check/render.js";
import { MODERN_META } from "./support/messages.js";

/** A key that would forge a log line: clear the screen, end the line, ring, and a Unicode line separator. */
const HOSTILE = "a\u001b[2J\r\nFAKE ok\u0007\u2028b";
const HOSTILE_ESCAPED = "a\\u001b[2J\\u000d\\u000aFAKE ok\\u0007\\u2028b";

/** A modern prompts/get whose argument values must be strings: each key becomes a located error. */
function promptsGet(keys: string[], id: unknown = 1) {
  return {
    jsonrpc: "2.0",
    id,
    method: "prompts/get",
    params: { _meta: MODERN_META, name: "p", arguments: Object.fromEntries(keys.map((k, i) => [k, i])) },
  };
}

/** Every string of an answer a host might log. */
function strings(response: JsonRpcErrorResponse): string[] {
  return [response.error.message, ...(response.error.data?.errors ?? []).flatMap((e) => [e.instancePath, ...e.messages])];
}

function assertEscaped(response: JsonRpcErrorResponse): void {
  assert.equal(response.error.data?.errors[0]?.instancePath, `/params/arguments/${HOSTILE_ESCAPED}`);
  assert.ok(response.error.message.includes(HOSTILE_ESCAPED), response.error.message);
  for (const text of strings(response)) assert.ok(!hasUnsafeUnit(text), JSON.stringify(text));
}

describe("answers carry client keys escaped and bounded", () => {
  test("a key with ESC, CR, LF, BEL and U+2028 is escaped in the message, the instancePath and onReject's info (Node adapter)", async () => {
    const rejects: RejectInfo[] = [];
    const guard = wymcpNode({ era: () => "modern", onReject: (info) => rejects.push(info) });
    const server = http.createServer((req, res) => void guard(req, res, () => res.end("handed on")));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(promptsGet([HOSTILE])),
      });
      assert.equal(res.status, 400);
      const text = await res.text();
      assertEscaped(JSON.parse(text) as JsonRpcErrorResponse);
      assert.equal(rejects.length, 1);
      assertEscaped(rejects[0]!.response as JsonRpcErrorResponse);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("a key with ESC, CR, LF, BEL and U+2028 is escaped in the message, the instancePath and onReject's info (Fetch adapter)", async () => {
    const rejects: RejectInfo[] = [];
    const guard = wymcpFetch({ era: () => "modern", onReject: (info) => rejects.push(info) });
    const res = await guard(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(promptsGet([HOSTILE])),
      }),
    );
    assert.equal(res?.status, 400);
    assertEscaped((await res!.json()) as JsonRpcErrorResponse);
    assert.equal(rejects.length, 1);
    assertEscaped(rejects[0]!.response as JsonRpcErrorResponse);
  });

  test("a 10,000-character key is cut to 64 characters and … in its segment, escapes never split", () => {
    const result = validateMcpRequest(promptsGet(["x".repeat(10_000), "\u0007".repeat(10_000)]), "modern");
    assert.equal(result.outcome, "reject");
    const paths = result.response.error.data!.errors.map((e) => e.instancePath);
    assert.deepEqual(paths, [`/params/arguments/${"\\u0007".repeat(10)}…`, `/params/arguments/${"x".repeat(SEGMENT_LENGTH)}…`]);
  });

  test("a backslash in a key is doubled, so every escape in a location is wymcp's own", () => {
    const result = validateMcpRequest(promptsGet(["\\u001b"]), "modern");
    assert.equal(result.outcome, "reject");
    assert.equal(result.response.error.data!.errors[0]!.instancePath, "/params/arguments/\\\\u001b");
  });

  test("a literal … in a key is escaped, so … in a location always marks a cut", () => {
    const result = validateMcpRequest(promptsGet(["more…"]), "modern");
    assert.equal(result.outcome, "reject");
    assert.equal(result.response.error.data!.errors[0]!.instancePath, "/params/arguments/more\\u2026");
  });

  test("a string id holding a control character, U+2028 or a lone surrogate is answered null; a plain one is echoed", () => {
    for (const id of ["a\u001bb", "line\nbreak", "a\u2028", "\ud800x", "x\udc00"]) assert.equal(answerId({ id }), null, JSON.stringify(id));
    assert.equal(answerId({ id: "req-1 \\ é 😀" }), "req-1 \\ é 😀");
  });

  test("a location of many long segments is cut at the whole-location bound, never inside an escape", () => {
    const segment = `${"\u001b".repeat(8)}${"y".repeat(60)}`;
    const instancePath = Array.from({ length: 6 }, () => `/${segment}`).join("");
    const { message, data } = distill(
      [{ keyword: "type", instancePath, schemaPath: "#", params: { type: "string" } } as ValidationError],
      "JSON-RPC message (X)",
    );
    const location = data.errors[0]!.instancePath;
    assert.ok(location.length <= LIMITS.locationLength + 1, String(location.length));
    assert.ok(location.endsWith("…"));
    assert.doesNotMatch(location, /\\u?[0-9a-f]{0,3}…$|\\…$/);
    assert.ok(!hasUnsafeUnit(message) && !hasUnsafeUnit(location));
  });

  test("the CLI prints an escaped location as it is, without escaping it twice", () => {
    const result = validateMcpRequest(promptsGet([HOSTILE]), "modern");
    assert.equal(result.outcome, "reject");
    const verdict = {
      source: "x",
      line: 1,
      direction: "in",
      era: "modern",
      eraSignal: "flag",
      outcome: "reject",
      kind: result.kind,
      definition: result.definition,
      reason: "invalid-message",
      status: 400,
      response: result.response,
    } as const;
    const text = renderHuman(verdict as Parameters<typeof renderHuman>[0], promptsGet([HOSTILE]), { paint: (_code, t) => t });
    assert.ok(text.includes(`/params/arguments/${HOSTILE_ESCAPED}`), text);
    assert.doesNotMatch(text.replace(/\n/g, ""), /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
  });
});

const unsafeUnit = fc.constantFrom(
  "\u0000",
  "\u001b",
  "\r",
  "\n",
  "\u0007",
  "\u007f",
  "\u0085",
  "\u009b",
  "\u2028",
  "\u2029",
  "\u202e",
  "\ud800",
  "\udfff",
  "\\",
  "…",
  "~",
  "/",
);
const key = fc
  .array(fc.oneof(unsafeUnit, fc.string({ unit: "binary", maxLength: 8 }), fc.string({ maxLength: 80 })), { maxLength: 12 })
  .map((parts) => parts.join(""));

describe("properties: no answer string holds a control character, every answer stays under MAX_ANSWER_BYTES", () => {
  test("arbitrary keys and ids, modern and legacy", () => {
    fc.assert(
      fc.property(
        fc.array(key, { minLength: 1, maxLength: 40 }),
        fc.oneof(fc.string({ unit: "binary", maxLength: 30 }), fc.integer()),
        fc.constantFrom("modern", "legacy" as const),
        (keys, id, era) => {
          const body =
            era === "modern"
              ? promptsGet(keys, id)
              : {
                  jsonrpc: "2.0",
                  id,
                  method: "prompts/get",
                  params: { name: "p", arguments: Object.fromEntries(keys.map((k, i) => [k, { nested: { [k]: i } }])) },
                };
          const result = validateMcpRequest(body, era as "modern" | "legacy");
          if (result.outcome !== "reject") return;
          for (const text of strings(result.response)) assert.ok(!hasUnsafeUnit(text), JSON.stringify(text));
          if (typeof result.response.id === "string") assert.ok(!hasUnsafeUnit(result.response.id));
          assert.ok(new TextEncoder().encode(JSON.stringify(result.response)).byteLength <= MAX_ANSWER_BYTES);
        },
      ),
      { numRuns: 400, seed: 2028 },
    );
  });

  test("arbitrary pointers straight into the distiller (the outbound path shares it)", () => {
    const pointer = fc
      .array(key, { minLength: 1, maxLength: 10 })
      .map((segments) => segments.map((s) => `/${s.replace(/~/g, "~0").replace(/\//g, "~1")}`).join(""));
    fc.assert(
      fc.property(fc.array(pointer, { minLength: 1, maxLength: 60 }), (pointers) => {
        const errors = pointers.map(
          (instancePath) => ({ keyword: "type", instancePath, schemaPath: "#", params: { type: "string" } }) as ValidationError,
        );
        const { message, data } = distill(errors, "tools/call result (CallToolResult)");
        assert.ok(!hasUnsafeUnit(message), message);
        for (const { instancePath } of data.errors) {
          assert.ok(!hasUnsafeUnit(instancePath), instancePath);
          assert.ok(instancePath.length <= LIMITS.locationLength + 1);
        }
      }),
      { numRuns: 300, seed: 2029 },
    );
  });
});
