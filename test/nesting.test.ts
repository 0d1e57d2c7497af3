import assert from "node:assert/strict";
import "./support/built.js";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import express from "express";
import type { JsonRpcErrorResponse, RejectInfo } from "wymcp";
import { wymcpFetch } from "wymcp/fetch";
import { DEFAULT_MAX_DEPTH, wymcpNode } from "wymcp/node";

/** A tools/call whose arguments hold `levels` nested arrays: the whole body is `levels + 3` deep. */
function deepCall(levels: number): string {
  return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"d":${"[".repeat(levels)}${"]".repeat(levels)}}}}`;
}
const ENVELOPE = 3;

async function listen(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const post = (url: string, body: string) => fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body });

async function tooDeep(res: Response, limit: number): Promise<void> {
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("content-type"), "application/json");
  const answer = (await res.json()) as JsonRpcErrorResponse;
  assert.equal(answer.error.code, -32600);
  assert.equal(answer.id, 9);
  assert.match(answer.error.message, new RegExp(`limit of ${limit} levels`));
}

describe("maxDepth on Node http and Express", () => {
  const rejects: RejectInfo[] = [];
  const handedOn = (_req: unknown, res: http.ServerResponse) => res.writeHead(200).end("handed on");
  let raw: Awaited<ReturnType<typeof listen>>;
  let small: Awaited<ReturnType<typeof listen>>;
  let parsed: Awaited<ReturnType<typeof listen>>;
  before(async () => {
    const guard = wymcpNode({ onReject: (info) => rejects.push(info) });
    raw = await listen((req, res) => void guard(req, res, () => handedOn(req, res)));
    const guard5 = wymcpNode({ limits: { maxDepth: 5 } });
    small = await listen((req, res) => void guard5(req, res, () => handedOn(req, res)));
    const app = express()
      .use(express.json({ limit: "4mb" }))
      .post("/mcp", wymcpNode(), (_req, res) => void res.send("handed on"));
    parsed = await listen(app);
  });
  after(async () => {
    await Promise.all([raw.close(), small.close(), parsed.close()]);
  });

  test(`the default is ${DEFAULT_MAX_DEPTH}: a body exactly that deep is handed on, one level more is 400/-32600 naming the limit`, async () => {
    assert.equal(DEFAULT_MAX_DEPTH, 64);
    assert.equal((await post(raw.url, deepCall(DEFAULT_MAX_DEPTH - ENVELOPE))).status, 200);
    await tooDeep(await post(raw.url, deepCall(DEFAULT_MAX_DEPTH - ENVELOPE + 1)), DEFAULT_MAX_DEPTH);
  });

  test("onReject hears nested-too-deeply, with the answer and nothing of the body", async () => {
    rejects.length = 0;
    await (await post(raw.url, deepCall(5_000))).text();
    assert.equal(rejects.length, 1);
    assert.deepEqual([rejects[0]?.status, rejects[0]?.reason, rejects[0]?.era], [400, "nested-too-deeply", undefined]);
  });

  test("the option sets the limit", async () => {
    assert.equal((await post(small.url, deepCall(2))).status, 200);
    await tooDeep(await post(small.url, deepCall(3)), 5);
  });

  test("a body express.json() parsed is bounded too, and the next request is answered", async () => {
    await tooDeep(await post(parsed.url, deepCall(5_000)), DEFAULT_MAX_DEPTH);
    assert.equal((await post(parsed.url, deepCall(10))).status, 200);
  });

  test("a 2-million-level body (4 MiB of brackets) is refused and the server keeps serving", async () => {
    const levels = 2 * 1024 * 1024 - 64;
    const res = await post(raw.url, `${"[".repeat(levels)}${"]".repeat(levels)}`);
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as JsonRpcErrorResponse).id, null);
    assert.equal((await post(raw.url, deepCall(1))).status, 200);
  });

  test("a maxDepth that is not a positive integer or Infinity is refused when the middleware is built", () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(() => wymcpNode({ limits: { maxDepth: bad } }), /maxDepth/);
      assert.throws(() => wymcpFetch({ limits: { maxDepth: bad } }), /maxDepth/);
    }
    assert.doesNotThrow(() => wymcpNode({ limits: { maxDepth: Number.POSITIVE_INFINITY } }));
  });
});

describe("maxDepth on Fetch hosts", () => {
  test("a deeper body resolves to the 400 answer; one within the limit to undefined", async () => {
    const guard = wymcpFetch({ limits: { maxDepth: 10 } });
    const request = (body: string) =>
      new Request("http://127.0.0.1/mcp", { method: "POST", headers: { "Content-Type": "application/json" }, body });
    const refused = await guard(request(deepCall(8)));
    assert.ok(refused);
    await tooDeep(refused, 10);
    assert.equal(await guard(request(deepCall(7))), undefined);
  });
});
