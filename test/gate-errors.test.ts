/**
 * A handler's error is never silent: the gates call `onError(error, request)` once per error, or without it log the
 * error once with console.error; the answer stays the SDK's 500/-32603. Before, `gateNode(handler)` as a plain listener
 * answered 500 and dropped the error.
 */
import assert from "node:assert/strict";
import "./support/built.js";
import http from "node:http";
import { describe, test } from "node:test";
import express from "express";
import { gateFetch } from "wymcp/fetch";
import { gateNode, type McpFetchHandler } from "wymcp/node";
import { callSeen, listening, rawPost } from "./support/gate-fixtures.js";

const boom = new Error("boom");
const throwing: McpFetchHandler = {
  async fetch() {
    throw boom;
  },
};
const INTERNAL = { jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: 7 };

describe("gateNode: an error of the handler", () => {
  test("as a listener with onError: onError gets (error, req) once, the answer is 500/-32603 with the id, nothing is logged", async (t) => {
    const logged = t.mock.method(console, "error", () => undefined);
    const seen: Array<[unknown, unknown]> = [];
    const server = await listening(http.createServer(gateNode(throwing, { onError: (error, req) => seen.push([error, req.url]) })));
    try {
      const { headers, body } = callSeen("legacy");
      const answer = await rawPost(server.url, headers, body);
      assert.equal(answer.status, 500);
      assert.deepEqual(JSON.parse(answer.text), INTERNAL);
      assert.deepEqual(seen, [[boom, "/mcp"]]);
      assert.equal(logged.mock.callCount(), 0);
    } finally {
      await server.close();
    }
  });

  test("as a listener without onError: console.error once per error, the answer still 500/-32603", async (t) => {
    const logged = t.mock.method(console, "error", () => undefined);
    const server = await listening(http.createServer(gateNode(throwing)));
    try {
      const { headers, body } = callSeen("legacy");
      for (let i = 0; i < 2; i++) assert.equal((await rawPost(server.url, headers, body)).status, 500);
      assert.equal(logged.mock.callCount(), 2);
      assert.ok(logged.mock.calls.every((call) => (call.arguments as unknown[]).includes(boom)));
    } finally {
      await server.close();
    }
  });

  test("an onError that throws does not stop the 500", async (t) => {
    t.mock.method(console, "error", () => undefined);
    const onError = () => {
      throw new Error("the logger is down");
    };
    const server = await listening(http.createServer(gateNode(throwing, { onError })));
    try {
      const { headers, body } = callSeen("legacy");
      assert.equal((await rawPost(server.url, headers, body)).status, 500);
    } finally {
      await server.close();
    }
  });

  test("an era callback that throws is the same kind of error: onError, then 500", async () => {
    const seen: unknown[] = [];
    const era = () => {
      throw boom;
    };
    const server = await listening(http.createServer(gateNode(throwing, { era, onError: (error) => seen.push(error) })));
    try {
      const { headers, body } = callSeen("legacy");
      assert.equal((await rawPost(server.url, headers, body)).status, 500);
      assert.deepEqual(seen, [boom]);
    } finally {
      await server.close();
    }
  });

  test("as Express middleware: onError sees the error, then next(error) hands it to the app's error handler; nothing is logged", async (t) => {
    const logged = t.mock.method(console, "error", () => undefined);
    const order: string[] = [];
    const app = express()
      .all("/mcp", gateNode(throwing, { onError: () => order.push("onError") }))
      .use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        order.push("next(error)");
        res.status(599).end();
      });
    const server = await listening(http.createServer(app));
    try {
      const { headers, body } = callSeen("legacy");
      assert.equal((await rawPost(server.url, headers, body)).status, 599);
      assert.deepEqual(order, ["onError", "next(error)"]);
      assert.equal(logged.mock.callCount(), 0);
    } finally {
      await server.close();
    }
  });
});

describe("gateFetch: an error of the handler", () => {
  const post = () => {
    const { headers, body } = callSeen("legacy");
    return new Request("http://127.0.0.1/mcp", { method: "POST", headers, body });
  };

  test("with onError: onError gets (error, request) once; the answer is 500/-32603 with the id", async (t) => {
    const logged = t.mock.method(console, "error", () => undefined);
    const seen: Array<[unknown, unknown]> = [];
    const request = post();
    const response = await gateFetch(throwing, { onError: (error, req) => seen.push([error, req]) })(request);
    assert.equal(response.status, 500);
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.deepEqual(await response.json(), INTERNAL);
    assert.deepEqual(seen, [[boom, request]]);
    assert.equal(logged.mock.callCount(), 0);
  });

  test("without onError: console.error once per error; the answer is still 500/-32603", async (t) => {
    const logged = t.mock.method(console, "error", () => undefined);
    const gated = gateFetch(throwing);
    for (let i = 0; i < 2; i++) assert.equal((await gated(post())).status, 500);
    assert.equal(logged.mock.callCount(), 2);
  });

  test("a GET whose handler throws is answered 500 with id null", async (t) => {
    t.mock.method(console, "error", () => undefined);
    const response = await gateFetch(throwing)(new Request("http://127.0.0.1/mcp"));
    assert.equal(response.status, 500);
    assert.equal(((await response.json()) as { id: unknown }).id, null);
  });

  test("a plain (request) => Response handler's error is handled the same: onError once, 500/-32603 with the id", async (t) => {
    const logged = t.mock.method(console, "error", () => undefined);
    const seen: Array<[unknown, unknown]> = [];
    const request = post();
    const plain = async (_request: Request): Promise<Response> => {
      throw boom;
    };
    const response = await gateFetch(plain, { onError: (error, req) => seen.push([error, req]) })(request);
    assert.equal(response.status, 500);
    assert.deepEqual(await response.json(), INTERNAL);
    assert.deepEqual(seen, [[boom, request]]);
    assert.equal(logged.mock.callCount(), 0);
    const unobserved = await gateFetch(plain)(post());
    assert.equal(unobserved.status, 500);
    assert.equal(logged.mock.callCount(), 1);
  });
});
