import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import express from "express";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { requireBearerAuth } from "@modelcontextprotocol/express";
import { validateMcpResponse } from "wymcp/outbound";
import { gateNode, type McpFetchHandler, type RejectInfo } from "wymcp/node";
import { callSeen, fakeVerifier, listening, rawPost, seenIn, seenServer, type EraName } from "./support/gate-fixtures.js";

const ERAS: EraName[] = ["modern", "legacy"];
const handler = createMcpHandler(seenServer);
type Listening = Awaited<ReturnType<typeof listening>>;

describe("gateNode on node:http, beside the SDK's own toNodeHandler", () => {
  let gated: Listening;
  let alone: Listening;
  before(async () => {
    gated = await listening(http.createServer(gateNode(handler)));
    alone = await listening(http.createServer(toNodeHandler(handler)));
  });
  after(async () => {
    await gated.close();
    await alone.close();
  });

  for (const era of ERAS) {
    test(`a ${era} tools/call reaches the tool, which sees what it sees without the gate`, async () => {
      const { headers, body } = callSeen(era);
      const [g, a] = await Promise.all([rawPost(gated.url, headers, body), rawPost(alone.url, headers, body)]);
      assert.equal(g.status, 200, g.text);
      assert.equal(g.status, a.status);
      assert.deepEqual(seenIn(g.text), seenIn(a.text));
      assert.equal(g.headers["content-type"], a.headers["content-type"]);
    });
  }

  test("an invalid modern tools/call is answered 400/-32602 by the gate, with the request's id", async () => {
    const { headers } = callSeen("modern");
    const body = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "seen", arguments: {} } });
    const g = await rawPost(gated.url, headers, body);
    assert.equal(g.status, 400);
    const answer = JSON.parse(g.text) as { id: unknown; error: { code: number } };
    assert.deepEqual([answer.id, answer.error.code], [9, -32602]);
  });

  test("a modern notification is answered 202 with no body and no Content-Type, as the SDK answers one it accepts", async () => {
    const headers = { ...callSeen("modern").headers, "mcp-method": "notifications/initialized" };
    const valid = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized", params: { _meta: callSeenMeta() } });
    const junk = JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: 5 });
    const [g, a, j] = await Promise.all([
      rawPost(gated.url, headers, valid),
      rawPost(alone.url, headers, valid),
      rawPost(gated.url, headers, junk),
    ]);
    for (const answer of [g, a, j]) {
      assert.equal(answer.status, 202);
      assert.equal(answer.text, "");
      assert.equal(answer.headers["content-type"], undefined);
    }
  });

  test("GET and DELETE go straight to the handler and get what the SDK alone answers", async () => {
    for (const method of ["GET", "DELETE"]) {
      const init = { method, headers: { accept: "application/json, text/event-stream" } };
      const [g, a] = await Promise.all([fetch(gated.url, init), fetch(alone.url, init)]);
      assert.equal(g.status, a.status, method);
      assert.equal(await g.text(), await a.text(), method);
    }
  });
});

/** The modern envelope the fixtures' calls carry, for a notification. */
function callSeenMeta(): unknown {
  return (JSON.parse(callSeen("modern").body) as { params: { _meta: unknown } }).params._meta;
}

describe("duplicate headers mean to the SDK behind the gate what they mean to the SDK alone", () => {
  let gated: Listening;
  let alone: Listening;
  before(async () => {
    gated = await listening(http.createServer(gateNode(handler)));
    alone = await listening(http.createServer(toNodeHandler(handler)));
  });
  after(async () => {
    await gated.close();
    await alone.close();
  });

  const twice: Record<string, (era: EraName) => string[]> = {
    "content-type": () => ["application/json", "text/plain"],
    accept: () => ["application/json", "text/event-stream"],
    "mcp-protocol-version": (era) => (era === "modern" ? ["2026-07-28", "2025-11-25"] : ["2025-11-25", "2025-06-18"]),
    "mcp-session-id": () => ["session-a", "session-b"],
    authorization: () => ["Bearer one", "Bearer two"],
  };
  for (const era of ERAS) {
    for (const [name, values] of Object.entries(twice)) {
      test(`${era}: two ${name} headers give the same status and the tool sees the same headers`, async () => {
        const { headers, body } = callSeen(era);
        const sent = { ...headers, [name]: values(era) };
        const [g, a] = await Promise.all([rawPost(gated.url, sent, body), rawPost(alone.url, sent, body)]);
        assert.equal(g.status, a.status, `${g.text}\n${a.text}`);
        assert.deepEqual(seenIn(g.text), seenIn(a.text));
        if (name === "content-type") {
          // Node keeps the first Content-Type: the SDK alone serves the call, and so must the gated server.
          assert.equal(g.status, 200, g.text);
          assert.equal(seenIn(g.text)?.headers["content-type"], "application/json");
        }
      });
    }
  }
});

describe("caller identity: Express with the SDK's requireBearerAuth, gated and ungated", () => {
  let gated: Listening;
  let alone: Listening;
  before(async () => {
    const auth = requireBearerAuth({ verifier: fakeVerifier });
    gated = await listening(http.createServer(express().all("/mcp", auth, gateNode(handler))));
    alone = await listening(http.createServer(express().all("/mcp", auth, toNodeHandler(handler))));
  });
  after(async () => {
    await gated.close();
    await alone.close();
  });

  for (const era of ERAS) {
    test(`${era}: the tool sees client-of-tok123 behind the gate, as without it`, async (t) => {
      const { headers, body } = callSeen(era);
      const sent = { ...headers, authorization: "Bearer tok123" };
      const [g, a] = await Promise.all([rawPost(gated.url, sent, body), rawPost(alone.url, sent, body)]);
      t.diagnostic(`${era}: gated ${seenIn(g.text)?.caller}, ungated ${seenIn(a.text)?.caller}`);
      assert.equal(seenIn(g.text)?.caller, "client-of-tok123", g.text);
      assert.equal(seenIn(a.text)?.caller, "client-of-tok123", a.text);
    });
  }

  test("without a token both answer the SDK's 401 challenge", async () => {
    const { headers, body } = callSeen("modern");
    const [g, a] = await Promise.all([rawPost(gated.url, headers, body), rawPost(alone.url, headers, body)]);
    assert.equal(g.status, 401);
    assert.equal(a.status, 401);
    assert.equal(g.headers["www-authenticate"], a.headers["www-authenticate"]);
  });
});

describe("gateNode's failures and options", () => {
  const throwing: McpFetchHandler = {
    async fetch() {
      throw new Error("boom");
    },
  };

  test("as a listener, a handler that throws is answered 500/-32603 as by the SDK's toNodeHandler, echoing the id the gate parsed", async () => {
    const gated = await listening(http.createServer(gateNode(throwing)));
    const alone = await listening(http.createServer(toNodeHandler(throwing as Parameters<typeof toNodeHandler>[0])));
    try {
      const { headers, body } = callSeen("legacy");
      const [g, a] = await Promise.all([rawPost(gated.url, headers, body), rawPost(alone.url, headers, body)]);
      assert.equal(g.status, 500);
      assert.equal(a.status, 500);
      // The SDK alone had parsed nothing when the handler threw, so it answers id null.
      assert.deepEqual(JSON.parse(a.text), { jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: null });
      assert.deepEqual(JSON.parse(g.text), { jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: 7 });
    } finally {
      await gated.close();
      await alone.close();
    }
  });

  test("as Express middleware, a handler that throws goes to next(error)", async () => {
    let seen: unknown;
    const app = express()
      .all("/mcp", gateNode(throwing))
      .use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        seen = error;
        res.status(599).end();
      });
    const server = await listening(http.createServer(app));
    try {
      const { headers, body } = callSeen("legacy");
      assert.equal((await rawPost(server.url, headers, body)).status, 599);
      assert.equal((seen as Error).message, "boom");
    } finally {
      await server.close();
    }
  });

  test("maxBodyBytes, maxDepth, onReject and a fixed era work on the wrapper", async () => {
    const rejected: RejectInfo[] = [];
    const server = await listening(
      http.createServer(
        gateNode(handler, { limits: { maxBodyBytes: 300, maxDepth: 8 }, era: "modern", onReject: (info) => rejected.push(info) }),
      ),
    );
    try {
      const { headers } = callSeen("modern");
      const legacyLooking = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      const deep = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "x", params: { a: [[[[[[[[1]]]]]]]] } });
      const answers = await Promise.all([
        rawPost(server.url, headers, "x".repeat(301)),
        rawPost(server.url, headers, deep),
        rawPost(server.url, headers, legacyLooking),
      ]);
      assert.deepEqual(
        answers.map((a) => a.status),
        [413, 400, 400],
      );
      assert.deepEqual(rejected.map((r) => r.reason).sort(), ["body-too-large", "invalid-message", "nested-too-deeply"]);
      assert.equal(rejected.find((r) => r.reason === "invalid-message")?.era, "modern");
    } finally {
      await server.close();
    }
  });

  test("outbound report mode checks what the handler sends back through the wrapper", async () => {
    const violations: string[] = [];
    const bad: McpFetchHandler = {
      async fetch() {
        return Response.json({ jsonrpc: "2.0", id: 7, result: { content: "not an array" } });
      },
    };
    const server = await listening(
      http.createServer(
        gateNode(bad, {
          outbound: validateMcpResponse,
          onReport: (v) => violations.push(`${v.method} ${v.errors?.[0]?.instancePath}`),
        }),
      ),
    );
    try {
      const { headers, body } = callSeen("legacy");
      assert.equal((await rawPost(server.url, headers, body)).status, 200);
      assert.deepEqual(violations, ["tools/call /result/content"]);
    } finally {
      await server.close();
    }
  });
});
