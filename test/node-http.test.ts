import assert from "node:assert/strict";
import "./support/built.js";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { classifyEra, type JsonRpcErrorResponse, type RejectInfo, type WymcpInfo } from "wymcp";
import { wymcpNode, type NodeOptions } from "wymcp/node";
import { MODERN_META } from "./support/messages.js";
import { transportHeaders } from "./support/transport-headers.js";

interface Harness {
  url: string;
  rejects: RejectInfo[];
  close: () => Promise<void>;
}

/** A Node `http` server: the middleware, then a handler that reports what it was handed (or echoes a raw body). */
async function serve(options: NodeOptions = {}): Promise<Harness> {
  const rejects: RejectInfo[] = [];
  const guard = wymcpNode({ ...options, onReject: options.onReject ?? ((info) => rejects.push(info)) });
  const server = http.createServer((req, res) => {
    void guard(req, res, async () => {
      const host = req as http.IncomingMessage & { body?: unknown };
      let raw = "";
      // For a pass-through request the body must still be unread: read it here to prove so.
      if (host.body === undefined) for await (const chunk of req) raw += chunk;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ handedOn: true, method: req.method, body: host.body ?? null, raw, wymcp: req.wymcp ?? null }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    rejects,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What the handler after the middleware reports. */
interface Seen {
  method: string;
  body: unknown;
  raw: string;
  wymcp: (WymcpInfo & { result: { definition?: string } }) | null;
}

async function seenOf(res: Response): Promise<Seen> {
  assert.equal(res.status, 200);
  return (await res.json()) as Seen;
}

function post(url: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...transportHeaders(body), ...headers },
    body,
  });
}

/** Streams a chunked body that never ends, until the answer arrives; resolves to its status. */
function endlessUpload(url: string): Promise<number> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const req = http.request(url, { method: "POST", headers: { "Content-Type": "application/json" } }, (res) => {
      req.destroy();
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => undefined);
    const pump = () => {
      while (!req.destroyed && req.write(chunk));
      if (!req.destroyed) req.once("drain", pump);
    };
    pump();
  });
}

const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

describe("wymcpNode over a raw node:http request stream", () => {
  let h: Harness;
  before(async () => {
    h = await serve({ era: (req, body) => classifyEra(req.headers, body).era, limits: { maxBodyBytes: 1024 } });
  });
  after(() => h.close());

  test("a valid POST is handed on with the parsed body as req.body and the era as req.wymcp", async () => {
    const res = await post(h.url, toolsList);
    assert.equal(res.status, 200);
    const seen = await seenOf(res);
    assert.deepEqual(seen.body, JSON.parse(toolsList));
    assert.deepEqual(seen.wymcp, {
      era: "legacy",
      result: { outcome: "pass", kind: "request", definition: "ListToolsRequest", revision: "2025-03-26" },
    });
  });

  test("the era option decides the lane: a modern body is judged against its method's definition", async () => {
    const body = { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: MODERN_META } };
    const seen = await seenOf(await post(h.url, JSON.stringify(body)));
    assert.equal(seen.wymcp?.era, "modern");
    assert.equal(seen.wymcp?.result.definition, "ListToolsRequest");
  });

  test("a modern notification with a junk body is handed on as a bypass, not answered", async () => {
    const res = await post(h.url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: 5 }), {
      "MCP-Protocol-Version": "2026-07-28",
    });
    const seen = await seenOf(res);
    assert.deepEqual(seen.wymcp?.result, { outcome: "bypass", kind: "notification", reason: "modern-notification" });
  });

  test("GET and DELETE pass through untouched, their bodies unread", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(h.url, { method });
      const seen = await seenOf(res);
      assert.equal(seen.method, method);
      assert.equal(seen.wymcp, null);
    }
    const res = await fetch(h.url, { method: "PUT", body: "not json" });
    assert.equal((await seenOf(res)).raw, "not json");
  });

  test("an invalid message is answered 400/-32600 with located errors and is not handed on", async () => {
    const res = await post(h.url, JSON.stringify({ jsonrpc: "1.0", id: 3, method: "tools/list" }));
    assert.equal(res.status, 400);
    assert.equal(res.headers.get("content-type"), "application/json");
    const answer = (await res.json()) as JsonRpcErrorResponse & { handedOn?: boolean };
    assert.equal(answer.handedOn, undefined);
    assert.equal(answer.id, 3);
    assert.equal(answer.error.code, -32600);
    assert.equal(answer.error.data?.errors[0]?.instancePath, "/jsonrpc");
  });

  test("invalid JSON and invalid UTF-8 are answered 400/-32700 with id null and none of the body", async () => {
    for (const body of ['{"id": 4, "method": "leak-me"', new Uint8Array([0x22, 0xff, 0x22]), ""]) {
      const res = await post(h.url, body);
      assert.equal(res.status, 400);
      const text = await res.text();
      assert.doesNotMatch(text, /leak-me/);
      const answer = JSON.parse(text) as JsonRpcErrorResponse;
      assert.deepEqual([answer.id, answer.error.code], [null, -32700]);
    }
  });

  test("JSON media types with parameters are accepted, others and a missing Content-Type get 415", async () => {
    for (const type of [
      "application/json; charset=utf-8",
      "Application/JSON",
      'application/json;charset="UTF-8"',
      "application/json; charset=iso-8859-1",
    ]) {
      assert.equal((await post(h.url, toolsList, { "Content-Type": type })).status, 200, type);
    }
    for (const type of ["text/plain", "text/plain; charset=utf-8", "application/jsonx", "application/json, text/plain"]) {
      const res = await post(h.url, toolsList, { "Content-Type": type });
      assert.equal(res.status, 415, type);
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.equal(((await res.json()) as JsonRpcErrorResponse).error.code, -32600);
    }
    const bare = await fetch(h.url, { method: "POST", body: new Uint8Array(Buffer.from(toolsList)) });
    assert.equal(bare.status, 415);
  });

  test("a body over the limit is answered 413, whether its length is declared or streamed", async () => {
    const declared = await post(h.url, new Uint8Array(1025).fill(0x20));
    assert.equal(declared.status, 413);
    assert.match(((await declared.json()) as JsonRpcErrorResponse).error.message, /1024 bytes/);
    assert.equal(await endlessUpload(h.url), 413);
  });

  test("onReject gets status, answer, reason, the rule, era and kind, and nothing of the body", async () => {
    h.rejects.length = 0;
    await (await post(h.url, JSON.stringify({ jsonrpc: "1.0", id: 5, method: "top-secret" }))).text();
    await (await post(h.url, "{top-secret")).text();
    assert.equal(h.rejects.length, 2);
    const [invalid, parse] = h.rejects;
    assert.deepEqual(Object.keys(invalid ?? {}).sort(), ["era", "kind", "reason", "response", "rule", "status"]);
    assert.deepEqual([invalid?.rule, parse?.rule], ["framing", "limits"]);
    // jsonrpc "1.0" is no JSON-RPC message to the SDK's router, which sends it to its modern path.
    assert.deepEqual([invalid?.status, invalid?.reason, invalid?.era, invalid?.kind], [400, "invalid-message", "modern", "request"]);
    assert.deepEqual([parse?.status, parse?.reason, parse?.era], [400, "parse-error", undefined]);
    assert.doesNotMatch(JSON.stringify(h.rejects), /top-secret/);
  });

  test("the server keeps serving on the same connections after every kind of refusal", async () => {
    const results = await Promise.all([
      post(h.url, "nope"),
      post(h.url, "{}", { "Content-Type": "text/plain" }),
      post(h.url, new Uint8Array(4096)),
      post(h.url, toolsList),
    ]);
    assert.deepEqual(
      results.map((res) => res.status),
      [400, 415, 413, 200],
    );
    await Promise.all(results.map((res) => res.text()));
    assert.equal((await post(h.url, toolsList)).status, 200);
  });
});

describe("wymcpNode defaults", () => {
  let h: Harness;
  before(async () => {
    h = await serve({
      onReject: () => {
        throw new Error("a broken logger");
      },
    });
  });
  after(() => h.close());

  test("with no era option the lane is the SDK's routing (classifyEra): modern signals read modern, no signal legacy", async () => {
    const body = { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: MODERN_META } };
    const seen = await seenOf(await post(h.url, JSON.stringify(body), { "MCP-Protocol-Version": "2026-07-28" }));
    assert.equal(seen.wymcp?.era, "modern");
    const plain = await seenOf(await post(h.url, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" })));
    assert.equal(plain.wymcp?.era, "legacy");
  });

  test("the default limit is 4 MiB: exactly 4 MiB is read, one byte more is 413", async () => {
    const padded = toolsList.padEnd(4 * 1024 * 1024, " ");
    assert.equal((await post(h.url, padded)).status, 200);
    assert.equal((await post(h.url, `${padded} `)).status, 413);
  });

  test("an onReject hook that throws does not stop the answer", async () => {
    const res = await post(h.url, "not json");
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as JsonRpcErrorResponse).error.code, -32700);
  });
});
