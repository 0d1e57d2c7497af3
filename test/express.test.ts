import assert from "node:assert/strict";
import "./support/built.js";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import express, { type Express } from "express";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import * as z from "zod";
import { classifyEra, type JsonRpcErrorResponse } from "wymcp";
import { wymcpNode } from "wymcp/node";

const MODERN = "2026-07-28";

async function listen(app: Express): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const started = app.listen(0, "127.0.0.1", () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body,
  });
}

const guard = () => wymcpNode({ era: (req, body) => classifyEra(req.headers, body).era, limits: { maxBodyBytes: 2048 } });
const report = (req: express.Request, res: express.Response) => {
  res.json({ body: req.body ?? null, era: req.wymcp?.era ?? null });
};

describe("wymcpNode in Express 5", () => {
  let raw: Awaited<ReturnType<typeof listen>>;
  let parsed: Awaited<ReturnType<typeof listen>>;
  before(async () => {
    raw = await listen(express().post("/mcp", guard(), report));
    parsed = await listen(
      express()
        .use(express.json({ limit: "1mb" }))
        .post("/mcp", guard(), report),
    );
  });
  after(async () => {
    await raw.close();
    await parsed.close();
  });

  const body = { jsonrpc: "2.0", id: 1, method: "tools/list" };

  test("without a body parser, the middleware reads the stream and leaves the parsed body in req.body", async () => {
    const res = await post(raw.url, JSON.stringify(body));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { body, era: "legacy" });
  });

  test("after express.json(), the middleware judges the body already parsed and keeps it", async () => {
    const res = await post(parsed.url, JSON.stringify(body), { "MCP-Protocol-Version": MODERN });
    assert.equal(res.status, 400, "a modern tools/list without its _meta envelope is refused");
    const answer = (await res.json()) as JsonRpcErrorResponse;
    assert.equal(answer.error.code, -32602, "its framing holds, so its params are what fail");
    const ok = await post(parsed.url, JSON.stringify(body));
    assert.deepEqual(await ok.json(), { body, era: "legacy" });
  });

  test("an invalid message is answered 400 with a JSON-RPC envelope in either set-up", async () => {
    for (const { url } of [raw, parsed]) {
      const res = await post(url, JSON.stringify({ jsonrpc: "2.0", id: {}, method: "tools/list" }));
      assert.equal(res.status, 400);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      const answer = (await res.json()) as JsonRpcErrorResponse;
      assert.deepEqual([answer.id, answer.error.code], [null, -32600]);
      assert.ok(answer.error.data?.errors.some((e) => e.instancePath === "/id"));
    }
  });

  test("over a raw stream, bad JSON is -32700, a large body 413 and a text body 415, all as JSON-RPC", async () => {
    const cases: [string, Record<string, string>, number, number][] = [
      ["{", {}, 400, -32700],
      [" ".repeat(2049), {}, 413, -32600],
      ["{}", { "Content-Type": "text/plain" }, 415, -32600],
    ];
    for (const [text, headers, status, code] of cases) {
      const res = await post(raw.url, text, headers);
      assert.equal(res.status, status);
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.equal(((await res.json()) as JsonRpcErrorResponse).error.code, code);
    }
  });
});

test("an era callback that throws reaches Express's error handler instead of crashing the process", async () => {
  const app = express().post(
    "/mcp",
    wymcpNode({
      era: () => {
        throw new Error("era bug");
      },
    }),
    report,
  );
  app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ caught: error.message });
  });
  const site = await listen(app);
  try {
    const res = await post(site.url, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { caught: "era bug" });
  } finally {
    await site.close();
  }
});

describe("Express 5 with wymcp in front of the official SDK", () => {
  let app: Awaited<ReturnType<typeof listen>>;
  before(async () => {
    const mcp = toNodeHandler(
      createMcpHandler(() => {
        const server = new McpServer({ name: "express-test", version: "1.0.0" });
        server.registerTool("add", { inputSchema: z.object({ a: z.number(), b: z.number() }) }, async ({ a, b }) => ({
          content: [{ type: "text", text: String(a + b) }],
        }));
        return server;
      }),
    );
    const site = express();
    site.use(express.json());
    site.all("/mcp", guard(), (req, res) => mcp(req, res, req.body));
    app = await listen(site);
  });
  after(() => app.close());

  for (const modern of [true, false]) {
    test(`a ${modern ? "modern" : "legacy"} SDK client lists and calls tools through the middleware`, async () => {
      const client = new Client(
        { name: "express-test", version: "0.0.0" },
        modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(app.url)));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), modern ? MODERN : "2025-11-25");
        assert.deepEqual(
          (await client.listTools()).tools.map((tool) => tool.name),
          ["add"],
        );
        const result = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
        assert.deepEqual(result.content, [{ type: "text", text: "5" }]);
      } finally {
        await client.close();
      }
    });
  }
});
