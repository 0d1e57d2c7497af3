import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { gateFetch, wymcpFetch, type McpFetchHandler, type RejectInfo, type Report } from "wymcp/fetch";
import { gateNode, wymcpNode } from "wymcp/node";

const BAD_CALL = { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: 5, arguments: {} } };
const BAD_NOTIFICATION = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: {} } };
const BAD_FRAMING = { jsonrpc: "1.0", id: 9, method: "tools/call", params: { name: 5 } };
const MODERN_BAD = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: 5 } };
const MESSAGE_2025_06_18 =
  "Invalid tools/call request (CallToolRequest, revision 2025-06-18): 1 invalid location; first: /params/name must be string";

/** A stand-in for the SDK's handler: answers every request with an empty result and counts them. */
function fakeHandler() {
  const calls: unknown[] = [];
  const handler: McpFetchHandler = {
    fetch: async (_request, options) => {
      calls.push(options?.parsedBody);
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }), { headers: { "content-type": "application/json" } });
    },
  };
  return { handler, calls };
}

const post = (body: unknown, protocolVersion = "2025-06-18", more: Record<string, string> = {}) =>
  new Request("http://localhost/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": protocolVersion,
      ...more,
    },
    body: JSON.stringify(body),
  });

describe("the params rule on gateFetch, on the legacy lane", () => {
  test('"enforce" (the default): a legacy call with bad params is answered 200, application/json, -32602, before the handler', async () => {
    const { handler, calls } = fakeHandler();
    const rejected: RejectInfo[] = [];
    const answer = await gateFetch(handler, { onReject: (info) => rejected.push(info) })(post(BAD_CALL));
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("content-type"), "application/json");
    const body = (await answer.json()) as { id: unknown; error: { code: number; message: string; data: unknown } };
    assert.deepEqual([body.id, body.error.code, body.error.message], [8, -32602, MESSAGE_2025_06_18]);
    assert.deepEqual(body.error.data, { errors: [{ instancePath: "/params/name", messages: ["must be string"] }] });
    assert.equal(calls.length, 0);
    assert.deepEqual(
      rejected.map((r) => [r.status, r.reason, r.era, r.kind]),
      [[200, "invalid-message", "legacy", "request"]],
    );
  });

  test('"report": the call reaches the handler, and onReport gets what onReject would have, by rule', async () => {
    const { handler, calls } = fakeHandler();
    const rejected: RejectInfo[] = [];
    const reported: Report[] = [];
    const options = {
      rules: { params: "report" },
      onReject: (i: RejectInfo) => rejected.push(i),
      onReport: (i: Report) => reported.push(i),
    } as const;
    const answer = await gateFetch(handler, options)(post(BAD_CALL));
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), { jsonrpc: "2.0", id: 1, result: {} });
    assert.deepEqual(calls, [BAD_CALL]);
    assert.deepEqual(rejected, []);
    assert.equal(reported.length, 1);
    assert.deepEqual(
      [reported[0]!.rule, reported[0]!.status, reported[0]!.code, reported[0]!.era, reported[0]!.method, reported[0]!.id],
      ["params", 200, -32602, "legacy", "tools/call", 8],
    );
    assert.equal(reported[0]!.message, MESSAGE_2025_06_18);
    // Nothing of the body: the id and the keys of locations only.
    assert.doesNotMatch(JSON.stringify(reported[0]), /"arguments"|:5\b/);
    // A throwing hook changes nothing.
    const throwing = gateFetch(handler, {
      ...options,
      onReport: () => {
        throw new Error("logger down");
      },
    });
    assert.equal((await throwing(post(BAD_CALL))).status, 200);
  });

  test('"off": the seed\'s rule (the framing alone), the call reaches the handler unjudged and unreported', async () => {
    const { handler, calls } = fakeHandler();
    const reported: Report[] = [];
    const answer = await gateFetch(handler, { rules: { params: "off" }, onReport: (i) => reported.push(i) })(post(BAD_CALL));
    assert.equal(answer.status, 200);
    assert.deepEqual([calls.length, reported.length], [1, 0]);
  });

  test("in every state a broken framing keeps its 400/-32600; a notification's and a modern call's params failure follow the rule", async () => {
    for (const state of ["enforce", "report", "off"] as const) {
      const { handler, calls } = fakeHandler();
      const gated = gateFetch(handler, { rules: { params: state } });
      const framing = await gated(post(BAD_FRAMING));
      assert.deepEqual([framing.status, ((await framing.json()) as { error: { code: number } }).error.code], [400, -32600], state);
      const modern = await gated(post(MODERN_BAD, "2026-07-28", { "mcp-method": "tools/call" }));
      const notification = await gated(post(BAD_NOTIFICATION));
      if (state === "enforce") {
        // The params rule judges both lanes: the modern call's -32602 is this rule's too.
        assert.deepEqual([modern.status, ((await modern.json()) as { error: { code: number } }).error.code], [400, -32602], state);
        assert.equal(notification.status, 400);
        assert.equal(((await notification.json()) as { id: unknown; error: { code: number } }).error.code, -32602);
        assert.equal(calls.length, 0);
      } else {
        assert.deepEqual([modern.status, notification.status], [200, 200], state);
        assert.equal(calls.length, 2, state);
      }
    }
  });

  test("a modern call the params rule lets through still meets the header rules: enforced, a missing Mcp-Method is refused -32020", async () => {
    for (const state of ["report", "off"] as const) {
      const { handler, calls } = fakeHandler();
      const reported: Report[] = [];
      const gated = gateFetch(handler, { rules: { params: state }, onReport: (r) => reported.push(r) });
      const answer = await gated(post(MODERN_BAD, "2026-07-28"));
      assert.deepEqual([answer.status, ((await answer.json()) as { error: { code: number } }).error.code], [400, -32020], state);
      assert.equal(calls.length, 0, state);
      const both = gateFetch(handler, { rules: { params: state, headers: "report" }, onReport: (r) => reported.push(r) });
      assert.equal((await both(post(MODERN_BAD, "2026-07-28"))).status, 200, state);
      assert.deepEqual(
        reported.map((r) => r.rule),
        state === "report" ? ["params", "headers"] : ["headers"],
        state,
      );
    }
  });

  test("a rule state that is none of the three throws when the gate is built, on every face, naming the nearest", () => {
    const { handler } = fakeHandler();
    const bad = { rules: { params: "reprot" } } as unknown as { rules: { params: "report" } };
    for (const build of [() => gateFetch(handler, bad), () => wymcpFetch(bad), () => gateNode(handler, bad), () => wymcpNode(bad)]) {
      assert.throws(build, {
        name: "WymcpOptionError",
        message: 'wymcp: rules.params must be "enforce", "report" or "off", not "reprot" (did you mean "report"?)',
      });
    }
  });
});

describe("the params rule on gateNode, on the legacy lane", () => {
  let server: http.Server;
  let url: string;
  const seen = { calls: 0, reported: [] as Report[] };
  before(async () => {
    const { handler, calls } = fakeHandler();
    const params = gateNode(handler);
    const report = gateNode(handler, { rules: { params: "report" }, onReport: (i) => seen.reported.push(i) });
    server = http.createServer((req, res) => {
      seen.calls = calls.length;
      (req.url === "/report" ? report : params)(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const send = (path: string, body: unknown) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify(body),
    });

  test("params: 200, application/json, -32602 with the revision", async () => {
    const answer = await send("/", BAD_CALL);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get("content-type"), "application/json");
    assert.equal(((await answer.json()) as { error: { message: string } }).error.message, MESSAGE_2025_06_18);
  });

  test("report: handed on, reported", async () => {
    const answer = await send("/report", BAD_CALL);
    assert.deepEqual(await answer.json(), { jsonrpc: "2.0", id: 1, result: {} });
    assert.equal(seen.reported.length, 1);
    assert.equal(seen.reported[0]!.status, 200);
  });
});
