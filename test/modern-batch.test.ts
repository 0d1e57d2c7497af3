/**
 * A batch the SDK's router sends to the modern lane (an item that is no JSON-RPC message, or one carrying a modern
 * `_meta` claim) is refused there, since 2026-07-28 has no batches, and the answer says "batch" and locates the first
 * invalid item. Before, the modern lane judged every array as a message of no kind: "(the message) must be object".
 */
import assert from "node:assert/strict";
import "./support/built.js";
import { describe, test } from "node:test";
import { classifyEra, validateMcpRequest } from "wymcp";
import { wymcpFetch } from "wymcp/fetch";
import { MODERN_META } from "./support/messages.js";

const ISSUE_BATCH = '[{"jsonrpc":"2.0","id":73,"method":"tools/list"},{"jsonrpc":"1.0","id":74,"method":"ping"}]';

function rejected(body: unknown) {
  const result = validateMcpRequest(body, "modern");
  assert.equal(result.outcome, "reject");
  if (result.outcome !== "reject") throw new Error("unreachable");
  return result;
}

describe("a batch on the modern lane", () => {
  test("the SDK routes the batch with a jsonrpc 1.0 item to the modern lane", () => {
    assert.deepEqual(classifyEra({}, JSON.parse(ISSUE_BATCH)), { era: "modern", signal: "batch" });
  });

  test("is answered 400/-32600 as a batch, locating the bad item at /1/jsonrpc", () => {
    const result = rejected(JSON.parse(ISSUE_BATCH));
    assert.equal(result.kind, "batch");
    assert.equal(result.status, 400);
    assert.equal(result.response.id, null);
    assert.equal(result.response.error.code, -32600);
    assert.equal(
      result.response.error.message,
      'Invalid JSON-RPC batch (revision 2026-07-28 takes none: one message per request): 1 invalid location; first: /1/jsonrpc must equal "2.0"',
    );
    assert.deepEqual(result.response.error.data, { errors: [{ instancePath: "/1/jsonrpc", messages: ['must equal "2.0"'] }] });
  });

  test("a batch of valid modern messages is refused too, with an answer at the batch itself", () => {
    const item = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } };
    for (const body of [[item], [item, { ...item, id: 2 }]]) {
      const result = rejected(body);
      assert.equal(result.kind, "batch");
      assert.equal(result.response.error.message, "Invalid JSON-RPC batch (revision 2026-07-28 takes none: one message per request)");
      assert.deepEqual(result.response.error.data, { errors: [{ instancePath: "", messages: ["must be a single message, not a batch"] }] });
    }
    const empty = rejected([]);
    assert.match(
      empty.response.error.message,
      /^Invalid JSON-RPC batch \(revision 2026-07-28 takes none: one message per request\): it is empty$/,
    );
  });

  test("each item the modern lane judges is located by its index: a request, a response (as the request a client must send), an item of no kind", () => {
    const body = [{ jsonrpc: "2.0", id: 1, method: 5 }, { jsonrpc: "2.0", id: 3, result: {} }, { nothing: true }];
    const paths = rejected(body).response.error.data!.errors.map((e) => e.instancePath);
    for (const path of ["/0/method", "/1/method", "/2/method"]) assert.ok(paths.includes(path), `${path} in ${paths.join(" ")}`);
    // A notification, which the modern lane does not validate, is not judged inside a batch either.
    const notification = rejected([
      { jsonrpc: "2.0", method: 5 },
      { jsonrpc: "1.0", id: 2, method: "ping" },
    ]);
    assert.deepEqual(
      notification.response.error.data!.errors.map((e) => e.instancePath),
      ["/1/jsonrpc"],
    );
  });

  test("no answer to a modern-lane batch says the batch itself 'must be object' (an item may be told so, at its index)", () => {
    for (const body of [JSON.parse(ISSUE_BATCH), [], [1, 2], [{}], [[]]]) {
      const { response } = rejected(body);
      assert.doesNotMatch(response.error.message, /\(the message\) must be object/);
      assert.match(response.error.message, /batch/);
      for (const entry of response.error.data!.errors) if (entry.instancePath === "") assert.ok(!entry.messages.includes("must be object"));
    }
    assert.deepEqual(
      rejected([1, 2]).response.error.data!.errors.map((e) => e.instancePath),
      ["/0", "/1"],
    );
  });

  test("through a guard with no header, the issue's batch gets 400 with /1/jsonrpc", async () => {
    const request = new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: ISSUE_BATCH,
    });
    const answer = await wymcpFetch()(request);
    assert.equal(answer?.status, 400);
    const json = (await answer!.json()) as { error: { message: string; data: { errors: Array<{ instancePath: string }> } } };
    assert.match(json.error.message, /batch/);
    assert.deepEqual(
      json.error.data.errors.map((e) => e.instancePath),
      ["/1/jsonrpc"],
    );
  });

  test("a legacy batch under no header is still judged item by item, as before", () => {
    const body = [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ];
    assert.equal(classifyEra({}, body).era, "legacy");
    assert.deepEqual(validateMcpRequest(body, "legacy"), { outcome: "pass", kind: "batch", definition: "JSONRPCBatchRequest" });
  });
});
