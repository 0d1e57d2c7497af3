import assert from "node:assert/strict";
import "./support/built.js";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import express from "express";
import { Hono } from "hono";
import * as z from "zod";
import { classifyEra } from "wymcp";
import { wymcpFetch } from "wymcp/fetch";
import { wymcpNode, type Report } from "wymcp/node";
import { validateMcpResponse } from "wymcp/outbound";
import { MODERN_META } from "./support/messages.js";
import { transportHeaders } from "./support/transport-headers.js";

type Seen = Report;
const MODERN = "2026-07-28";
const at = (info: Seen | undefined) => info?.errors?.map((e) => e.instancePath) ?? [];

const call = (id: number | string, method: string, params: Record<string, unknown> = {}, modern = true) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params: modern ? { _meta: MODERN_META, ...params } : params });

/** What the broken test server answers, by the request's method: the bytes exactly as written, in pieces. */
const BROKEN: Record<string, { type: string; pieces: string[] }> = {
  // SSE, split mid-line and mid-character: a valid progress notification, then a result whose content item lacks `type`.
  "tools/call": {
    type: "text/event-stream",
    pieces: [
      'event: message\nid: 1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}\n\n',
      'event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"text":"caf\u00e9',
      '"}]}}\r\n\r\n',
    ],
  },
  // JSON: a modern result without resultType.
  "prompts/list": {
    type: "application/json",
    pieces: ['{"jsonrpc":"2.0","id":"p","result":', '{"prompts":[],"ttlMs":0,"cacheScope":"public"}}'],
  },
  // JSON: a tool whose inputSchema is { "type": "string" }.
  "tools/list": {
    type: "application/json; charset=utf-8",
    pieces: ['{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"echo","inputSchema":{"type":"string"}}]}}'],
  },
};

interface Harness {
  url: string;
  seen: Seen[];
  close: () => Promise<void>;
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

function closer(server: http.Server) {
  return async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
}

/** The broken test server behind wymcpNode; `style` picks how headers are set, to cover both ways hosts do it. */
async function brokenServer(options: Parameters<typeof wymcpNode>[0], style: "writeHead" | "setHeader"): Promise<Harness> {
  const seen: Seen[] = [];
  const guard = wymcpNode({ era: (req, body) => classifyEra(req.headers, body).era, onReport: (i) => seen.push(i), ...options });
  const server = http.createServer((req, res) => {
    void guard(req, res, () => {
      if (req.method === "GET") {
        // A legacy standalone stream: a server request (sampling) without maxTokens.
        res.writeHead(200, { "Content-Type": "text/event-stream" });
        res.end('data: {"jsonrpc":"2.0","id":90,"method":"sampling/createMessage","params":{"messages":[]}}\n\n');
        return;
      }
      const method = (req as { body?: { method?: string } }).body?.method ?? "";
      const answer = BROKEN[method] ?? { type: "text/plain", pieces: ["not json at all"] };
      if (style === "writeHead") res.writeHead(200, ["Content-Type", answer.type]);
      else res.setHeader("Content-Type", answer.type);
      const bytes = answer.pieces.map((p) => Buffer.from(p));
      for (const piece of bytes.slice(0, -1)) {
        // The last byte apart: it cuts "é" in two, so the tap must decode across writes.
        res.write(piece.subarray(0, piece.length - 1));
        res.write(piece.subarray(piece.length - 1));
      }
      res.end(bytes.at(-1));
    });
  });
  const url = await listen(server);
  return { url, seen, close: closer(server) };
}

function post(url: string, body: string, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...transportHeaders(body), ...headers },
    body,
  });
}

describe("wymcpNode report mode on a server with deliberately broken results", () => {
  for (const style of ["writeHead", "setHeader"] as const) {
    describe(`headers by ${style}`, () => {
      let h: Harness;
      before(async () => {
        h = await brokenServer({ outbound: validateMcpResponse }, style);
      });
      after(() => h.close());

      test("SSE: the result's content item without type is reported under its request's method and id; the valid notification is not; the bytes arrive unchanged", async () => {
        h.seen.length = 0;
        const res = await post(h.url, call(7, "tools/call", { name: "echo" }));
        assert.equal(await res.text(), BROKEN["tools/call"]!.pieces.join(""));
        assert.equal(h.seen.length, 1, JSON.stringify(h.seen));
        const [info] = h.seen;
        assert.deepEqual({ era: info?.era, method: info?.method, id: info?.id }, { era: "modern", method: "tools/call", id: 7 });
        assert.ok(at(info).includes("/result/content/0/type"), at(info).join());
      });

      test("JSON: a modern result without resultType is reported at /result/resultType", async () => {
        h.seen.length = 0;
        const res = await post(h.url, call("p", "prompts/list"));
        assert.equal(await res.text(), BROKEN["prompts/list"]!.pieces.join(""));
        assert.equal(h.seen.length, 1);
        assert.deepEqual({ method: h.seen[0]?.method, id: h.seen[0]?.id }, { method: "prompts/list", id: "p" });
        assert.deepEqual(at(h.seen[0]), ["/result/resultType"]);
      });

      test('JSON: a legacy tool whose inputSchema is { type: "string" } is reported at /result/tools/0/inputSchema/type', async () => {
        h.seen.length = 0;
        await (await post(h.url, call(3, "tools/list", {}, false))).text();
        assert.equal(h.seen.length, 1);
        assert.equal(h.seen[0]?.era, "legacy");
        assert.deepEqual(at(h.seen[0]), ["/result/tools/0/inputSchema/type"]);
      });

      test("a GET stream's legacy server request is checked by its own method", async () => {
        h.seen.length = 0;
        await (await fetch(h.url, { headers: { Accept: "text/event-stream" } })).text();
        assert.equal(h.seen.length, 1);
        assert.deepEqual(
          { era: h.seen[0]?.era, method: h.seen[0]?.method, id: h.seen[0]?.id },
          { era: "legacy", method: "sampling/createMessage", id: 90 },
        );
        assert.ok(at(h.seen[0]).includes("/params/maxTokens"));
      });

      test("a body that is neither JSON nor SSE is not looked at", async () => {
        h.seen.length = 0;
        assert.equal(await (await post(h.url, call(9, "vendor/other"))).text(), "not json at all");
        assert.deepEqual(h.seen, []);
      });
    });
  }

  test("off by default: the same broken results reach no hook", async () => {
    const h = await brokenServer({}, "setHeader");
    try {
      await (await post(h.url, call(7, "tools/call", { name: "echo" }))).text();
      await (await post(h.url, call("p", "prompts/list"))).text();
      assert.deepEqual(h.seen, []);
    } finally {
      await h.close();
    }
  });

  test("a hook that throws leaves the response whole", async () => {
    const h = await brokenServer(
      {
        outbound: validateMcpResponse,
        onReport: () => {
          throw new Error("logger down");
        },
      },
      "writeHead",
    );
    try {
      const res = await post(h.url, call(7, "tools/call", { name: "echo" }));
      assert.equal(res.status, 200);
      assert.equal(await res.text(), BROKEN["tools/call"]!.pieces.join(""));
    } finally {
      await h.close();
    }
  });

  test("Express: res.json's body is checked (express.json() in front, so the gate judges the parsed body)", async () => {
    const seen: Seen[] = [];
    const app = express();
    app.use(express.json());
    app.post("/mcp", wymcpNode({ era: () => "modern", outbound: validateMcpResponse, onReport: (i) => seen.push(i) }), (_req, res) => {
      res.json({ jsonrpc: "2.0", id: "p", result: { prompts: [], ttlMs: 0, cacheScope: "public" } });
    });
    const server = http.createServer(app);
    const url = await listen(server);
    try {
      await (await post(url, call("p", "prompts/list"))).text();
    } finally {
      await closer(server)();
    }
    assert.deepEqual(
      seen.map((v) => [v.method, v.id, at(v)]),
      [["prompts/list", "p", ["/result/resultType"]]],
    );
  });

  test("the outbound rule switched on without a check, or an outbound that is no check, throws when the adapter is built", () => {
    assert.throws(() => wymcpNode({ rules: { outbound: "report" } }), {
      name: "WymcpOptionError",
      message: /rules\.outbound: "report" needs outbound/,
    });
    assert.throws(() => wymcpFetch({ outbound: "report" as unknown as typeof validateMcpResponse }), { name: "WymcpOptionError" });
  });
});

function buildSdk() {
  return createMcpHandler(() => {
    const server = new McpServer({ name: "outbound-test", version: "1.0.0" });
    server.registerTool("upper", { inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
      content: [{ type: "text", text: text.toUpperCase() }],
    }));
    server.registerPrompt("greet", { argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }],
    }));
    server.registerResource("readme", "file:///readme.txt", { mimeType: "text/plain" }, async (uri) => ({
      contents: [{ uri: uri.href, text: "hi" }],
    }));
    return server;
  });
}

/** Everything an SDK client does through the gate, in one era. */
async function exercise(transport: StreamableHTTPClientTransport, modern: boolean) {
  const client = new Client({ name: "outbound-test", version: "0.0.0" }, modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
  await client.connect(transport);
  try {
    await client.listTools();
    assert.deepEqual((await client.callTool({ name: "upper", arguments: { text: "x" } })).content, [{ type: "text", text: "X" }]);
    await client.listPrompts();
    await client.getPrompt({ name: "greet", arguments: { name: "y" } });
    await client.listResources();
    await client.readResource({ uri: "file:///readme.txt" });
  } finally {
    await client.close();
  }
}

/** A check that counts what it sees, so a run with no violations is shown not to be a run with no checks. */
function counting() {
  const counts = { checked: 0, violations: [] as Seen[] };
  return {
    counts,
    options: {
      outbound: ((message, context) => (counts.checked++, validateMcpResponse(message, context))) as typeof validateMcpResponse,
      onReport: (info: Seen) => void (info.rule === "outbound" && counts.violations.push(info)),
    },
  };
}

// The SDK's stateless legacy leg answers the legacy client's GET with 405 and "id": null; the erratum on error ids accepts it.
describe("report mode in front of the official SDK: a conforming server reports nothing, its null-id 405 included", () => {
  const sdk = buildSdk();
  after(() => sdk.close());

  for (const modern of [true, false]) {
    test(`Node adapter, ${modern ? "modern" : "legacy"} SDK client: every message checked, 0 violations`, async () => {
      const { counts, options } = counting();
      const guard = wymcpNode({ era: (req, body) => classifyEra(req.headers, body).era, ...options });
      const mcp = toNodeHandler(sdk);
      const server = http.createServer((req, res) => {
        void guard(req, res, () => {
          const result = req.wymcp?.result;
          if (result?.outcome === "bypass" && result.reason === "modern-notification") return void res.writeHead(202).end();
          void mcp(req, res, (req as { body?: unknown }).body);
        });
      });
      const url = await listen(server);
      try {
        await exercise(new StreamableHTTPClientTransport(new URL(url)), modern);
      } finally {
        await closer(server)();
      }
      assert.deepEqual(counts.violations, []);
      assert.ok(counts.checked >= 6, `only ${counts.checked} messages checked`);
    });

    test(`Fetch adapter (Hono, guard.report), ${modern ? "modern" : "legacy"} SDK client: every message checked, 0 violations`, async () => {
      const { counts, options } = counting();
      const guard = wymcpFetch({ era: (req, body) => classifyEra(req.headers, body).era, ...options });
      const app = new Hono();
      app.use("/mcp", async (c, next) => {
        const refused = await guard(c.req.raw);
        if (refused) return refused;
        await next();
        c.res = guard.report(c.req.raw, c.res);
      });
      app.all("/mcp", (c) => sdk.fetch(c.req.raw));
      const viaApp = (input: string | URL | Request, init?: RequestInit) => Promise.resolve(app.request(input, init));
      await exercise(new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), { fetch: viaApp }), modern);
      assert.deepEqual(counts.violations, []);
      assert.ok(counts.checked >= 6, `only ${counts.checked} messages checked`);
    });
  }
});

describe("wymcpFetch guard.report on plain Responses", () => {
  const seen: Seen[] = [];
  const guard = wymcpFetch({
    era: (req, body) => classifyEra(req.headers, body).era,
    outbound: validateMcpResponse,
    onReport: (i) => seen.push(i),
  });

  async function exchange(body: string, answer: { type: string; pieces: string[] }) {
    const request = new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...transportHeaders(body) },
      body,
    });
    assert.equal(await guard(request), undefined);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of answer.pieces) controller.enqueue(new TextEncoder().encode(piece));
        controller.close();
      },
    });
    const original = new Response(stream, { status: 200, statusText: "OK", headers: { "Content-Type": answer.type, "X-Kept": "yes" } });
    const sent = guard.report(request, original);
    assert.equal(sent.status, 200);
    assert.equal(sent.headers.get("x-kept"), "yes");
    return sent.text();
  }

  test("the SSE result without a content type is reported after the stream is read; bytes unchanged", async () => {
    seen.length = 0;
    assert.equal(await exchange(call(7, "tools/call", { name: "echo" }), BROKEN["tools/call"]!), BROKEN["tools/call"]!.pieces.join(""));
    assert.equal(seen.length, 1);
    assert.deepEqual({ method: seen[0]?.method, id: seen[0]?.id }, { method: "tools/call", id: 7 });
    assert.ok(at(seen[0]).includes("/result/content/0/type"));
  });

  test("the JSON result without resultType is reported", async () => {
    seen.length = 0;
    await exchange(call("p", "prompts/list"), BROKEN["prompts/list"]!);
    assert.deepEqual(at(seen[0]), ["/result/resultType"]);
  });

  test("a compressed body is not looked at (its bytes are not the JSON the check reads)", async () => {
    seen.length = 0;
    const request = new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...transportHeaders(call("p", "prompts/list")) },
      body: call("p", "prompts/list"),
    });
    assert.equal(await guard(request), undefined);
    const original = new Response(BROKEN["prompts/list"]!.pieces.join(""), {
      headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" },
    });
    await guard.report(request, original).arrayBuffer();
    assert.deepEqual(seen, []);
  });

  test("off: report hands back the very same Response", () => {
    const plain = wymcpFetch();
    const response = new Response("{}", { headers: { "Content-Type": "application/json" } });
    assert.equal(plain.report(new Request("http://127.0.0.1/mcp"), response), response);
  });
});
