import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { createMcpHandler } from "@modelcontextprotocol/server";
import express from "express";
import { gateNode, type McpFetchHandler, serveFetch, wymcpNode } from "../src/node-http.js";
import { gateFetch, wymcpFetch } from "../src/fetch.js";
import { createHash } from "node:crypto";
import { type CallerSource, ONE_CALLER } from "../src/tools/caller-key.js";
import { sha256Hex } from "../src/wire/sha256.js";
import { MAX_CALLERS, MAX_LEARNED_TOOLS, type ToolSchemaCompiler, ToolsAtEdge, type ToolsEvent } from "../src/tools/tools-at-edge.js";
import { edgeCompiler } from "../src/compile/at-edge.js";
import { assertFreshDist } from "./support/built.js";
import { asUser, callerToolsServer, USERS, type User, userOf } from "./support/caller-tools.js";
import { MODERN_META } from "./support/messages.js";
import { messageIn } from "./support/edge-tools.js";
import { listening, rawPost } from "./support/gate-fixtures.js";
import { startProxy, type RunningProxy } from "./support/proxy.js";

// The proxy under test is the built bin, dist/cli.js: it must be built from the current sources.
before(assertFreshDist);

let compile: ToolSchemaCompiler;
before(async () => {
  compile = (await edgeCompiler()) as ToolSchemaCompiler;
});

/** The SDK's handler, counting the tools/call bodies that reach it: a call the edge refused never does. */
function counted(handler: McpFetchHandler): McpFetchHandler & { calls: () => number } {
  let calls = 0;
  return {
    fetch(request: Request, options?: { parsedBody?: unknown }) {
      if ((options?.parsedBody as { method?: unknown } | undefined)?.method === "tools/call") calls++;
      else if (options?.parsedBody === undefined && request.method === "POST") {
        // Behind the proxy the body arrives unread: count it from a clone.
        return request
          .clone()
          .json()
          .then((body: unknown) => {
            if ((body as { method?: unknown }).method === "tools/call") calls++;
            return handler.fetch(request, options as never);
          });
      }
      return handler.fetch(request, options as never);
    },
    calls: () => calls,
  } as McpFetchHandler & { calls: () => number };
}

type Send = (
  user: User,
  method: string,
  params: Record<string, unknown>,
  era?: string,
) => Promise<{ status: number; message: ReturnType<typeof messageIn> }>;

const textOf = (message: { result?: Record<string, unknown> }) =>
  (message.result?.content as Array<{ text: string }> | undefined)?.[0]?.text;
const pick = (project: string) => ({ name: "pick", arguments: { project } });
const byEdge = /^Invalid arguments for tool pick: 1 invalid location: \/project must be one of the allowed values$/;
const byServer = /^Input validation error: Invalid arguments for tool pick/;

/**
 * Alice and Bob list different tools (each `pick` takes only the user's own projects): each one's calls are judged by
 * the tools listed to that user, never by the other's, and a caller who never listed is not judged at all.
 */
async function perCallerScenario(send: Send, calls: () => number): Promise<void> {
  const list = async (user: User) => {
    const listed = await send(user, "tools/list", {});
    assert.equal((listed.message.result?.tools as unknown[] | undefined)?.length, 1, `${user}'s list`);
  };
  // Alice lists; Bob's valid call, which the server alone serves, is served.
  await list("alice");
  let before = calls();
  const bobValid = await send("bob", "tools/call", pick("mercury"));
  assert.equal(textOf(bobValid.message), "bob picked mercury", "Bob's valid call is not refused by Alice's tools");
  assert.equal(calls(), before + 1);
  // Bob has not listed: his invalid call is not judged at the edge (Alice's tools would pass it); the server answers it.
  before = calls();
  const bobUnjudged = await send("bob", "tools/call", pick("apollo"));
  assert.match(textOf(bobUnjudged.message)!, byServer);
  assert.equal(calls(), before + 1);
  // Bob lists, then Alice lists again: Bob's invalid call is judged by Bob's own tools, which refuse it.
  await list("bob");
  await list("alice");
  before = calls();
  const bobInvalid = await send("bob", "tools/call", pick("apollo"));
  assert.match(textOf(bobInvalid.message)!, byEdge, "Bob's invalid call is judged by Bob's tools, not Alice's later list");
  assert.equal(bobInvalid.message.result?.isError, true);
  assert.equal(calls(), before, "the server never saw it");
  // Alice's calls by Alice's tools.
  const aliceInvalid = await send("alice", "tools/call", pick("mercury"));
  assert.match(textOf(aliceInvalid.message)!, byEdge);
  const aliceValid = await send("alice", "tools/call", pick("gemini"));
  assert.equal(textOf(aliceValid.message), "alice picked gemini");
  // The anonymous caller (no Authorization) is one more caller: unjudged until it lists, then judged by its own tools.
  const anonymousValid = await send("anonymous", "tools/call", pick("public"));
  assert.equal(textOf(anonymousValid.message), "anonymous picked public");
  await list("anonymous");
  before = calls();
  const anonymousInvalid = await send("anonymous", "tools/call", pick("apollo"));
  assert.match(textOf(anonymousInvalid.message)!, byEdge);
  assert.equal(calls(), before);
  const bobStill = await send("bob", "tools/call", pick("mercury"));
  assert.equal(textOf(bobStill.message), "bob picked mercury");
  // A legacy revision, the same callers: Bob's valid call served, his invalid one refused as 2025-11-25 says.
  const legacyValid = await send("bob", "tools/call", pick("mercury"), "2025-11-25");
  assert.equal(textOf(legacyValid.message), "bob picked mercury");
  const legacyInvalid = await send("bob", "tools/call", pick("gemini"), "2025-11-25");
  assert.match(textOf(legacyInvalid.message)!, byEdge);
}

/** No token, nor anything that looks like a digest of one, in what a face reports. */
function assertNoKeyIn(text: string): void {
  for (const user of Object.values(USERS)) assert.ok(!text.includes(user.token), "a token in clear");
  assert.doesNotMatch(text, /[0-9a-f]{32}/, "a digest");
}

describe("gateNode learns the tools per caller (a server whose tools/list depends on the bearer token)", () => {
  test("no user's valid call refused, no user's invalid call judged by another's tools, no key in the events", async () => {
    const handler = counted(createMcpHandler(callerToolsServer));
    const events: ToolsEvent[] = [];
    const gated = await listening(http.createServer(gateNode(handler, { tools: { compile, onEvent: (event) => events.push(event) } })));
    try {
      const send: Send = async (user, method, params, era = "modern") => {
        const { headers, body } = asUser(user, era, method, params);
        const answer = await rawPost(gated.url, headers, body);
        return { status: answer.status, message: messageIn(answer.text) };
      };
      await perCallerScenario(send, handler.calls);
      assert.ok(events.some((event) => event.kind === "tools-learned"));
      assertNoKeyIn(JSON.stringify(events));
    } finally {
      await gated.close();
    }
  });
});

describe("gateFetch learns the tools per caller", () => {
  test("no user's valid call refused, no user's invalid call judged by another's tools, no key in the events", async () => {
    const handler = counted(createMcpHandler(callerToolsServer));
    const events: ToolsEvent[] = [];
    const gated = gateFetch(handler, { tools: { compile, onEvent: (event) => events.push(event) } });
    const send: Send = async (user, method, params, era = "modern") => {
      const { headers, body } = asUser(user, era, method, params);
      const response = await gated(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body }));
      return { status: response.status, message: messageIn(await response.text()) };
    };
    await perCallerScenario(send, handler.calls);
    assertNoKeyIn(JSON.stringify(events));
  });
});

describe("the guards learn the tools per caller: wymcpNode, and wymcpFetch from the responses handed to its report", () => {
  test("wymcpNode: no user's valid call refused, no user's invalid call judged by another's tools", async () => {
    const handler = counted(createMcpHandler(callerToolsServer));
    const guard = wymcpNode({ tools: { compile } });
    const guarded = await listening(http.createServer((req, res) => void guard(req, res, () => void serveFetch(handler, req, res))));
    try {
      const send: Send = async (user, method, params, era = "modern") => {
        const { headers, body } = asUser(user, era, method, params);
        const answer = await rawPost(guarded.url, headers, body);
        return { status: answer.status, message: messageIn(answer.text) };
      };
      await perCallerScenario(send, handler.calls);
    } finally {
      await guarded.close();
    }
  });

  test("wymcpFetch: no user's valid call refused, no user's invalid call judged by another's tools", async () => {
    const handler = counted(createMcpHandler(callerToolsServer));
    const guard = wymcpFetch({ tools: { compile } });
    const send: Send = async (user, method, params, era = "modern") => {
      const { headers, body } = asUser(user, era, method, params);
      const request = new Request("http://127.0.0.1/mcp", { method: "POST", headers, body });
      const response = (await guard(request)) ?? guard.report(request, await handler.fetch(request));
      return { status: response.status, message: messageIn(await response.text()) };
    };
    await perCallerScenario(send, handler.calls);
  });
});

describe("wymcp proxy learns the tools per caller (the default)", () => {
  let upstream: Awaited<ReturnType<typeof listening>>;
  let proxy: RunningProxy;
  const handler = counted(createMcpHandler(callerToolsServer));
  before(async () => {
    upstream = await listening(http.createServer((req, res) => void serveFetch(handler, req, res)));
    proxy = await startProxy(["--upstream", upstream.url]);
  });
  after(async () => {
    await proxy?.stop();
    await upstream?.close();
  });

  test("no user's valid call refused, no user's invalid call judged by another's tools, no key in its log", async () => {
    const url = new URL("/mcp", proxy.url).href;
    const send: Send = async (user, method, params, era = "modern") => {
      const { headers, body } = asUser(user, era, method, params);
      const answer = await rawPost(url, headers, body);
      return { status: answer.status, message: messageIn(answer.text) };
    };
    await perCallerScenario(send, handler.calls);
    assert.match(proxy.stderr(), /learned 1 tool\(s\) from tools\/list/);
    assertNoKeyIn(proxy.stderr());
  });
});

const ADD = {
  name: "add",
  inputSchema: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
};
const ADD_STRINGS = { name: "add", inputSchema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] } };
const listRequest = (id = 1) => ({ jsonrpc: "2.0", id, method: "tools/list", params: {} });
const addCall = (a: unknown) => ({
  jsonrpc: "2.0",
  id: 9,
  method: "tools/call",
  params: { _meta: MODERN_META, name: "add", arguments: { a, b: 1 } },
});

/** A request's caller as a Node face reads it: its headers by lower-case name, its Host and target. */
function source(headers: Record<string, string>, url = "127.0.0.1:3000/mcp", auth?: unknown): CallerSource {
  return { header: (name) => headers[name], url, auth };
}

/** Learns `tools` for `caller` as an HTTP face does, from the answer to its own tools/list. */
function learnFor(tools: ToolsAtEdge, caller: () => string, list: object[], id = 1): void {
  tools.watch(listRequest(id), caller)?.({ jsonrpc: "2.0", id, result: { tools: list } });
}

describe("the caller's key", () => {
  const alice = {
    authorization: "Bearer alice-secret-7f3a9c",
    "mcp-method": "tools/list",
    traceparent: "00-aa-01",
    "content-length": "90",
  };

  test("Authorization, Cookie, Mcp-Session-Id, the URL and the face's authentication tell callers apart; per-request headers do not", async () => {
    const tools = new ToolsAtEdge({ compile });
    learnFor(tools, tools.callerOf(source(alice)), [ADD]);
    await tools.settled();
    const judgedFor = async (caller: CallerSource) =>
      (await tools.judge({
        body: addCall("x"),
        era: "modern",
        protocolVersion: undefined,
        headers: {},
        caller: tools.callerOf(caller),
      })) !== undefined;
    // The same caller, whatever changes from one request to the next (the method, a trace, the length).
    assert.equal(await judgedFor(source({ ...alice, "mcp-method": "tools/call", traceparent: "00-bb-01", "content-length": "120" })), true);
    const others: Array<[string, CallerSource]> = [
      ["another Authorization", source({ ...alice, authorization: "Bearer bob-secret-52e1d8" })],
      ["no Authorization", source({ ...alice, authorization: undefined as unknown as string })],
      ["a Cookie", source({ ...alice, cookie: "sid=1" })],
      ["a legacy session", source({ ...alice, "mcp-session-id": "s-1" })],
      ["another path", source(alice, "127.0.0.1:3000/mcp/x/copilot")],
      ["another query", source(alice, "127.0.0.1:3000/mcp?api_key=k2")],
      ["another host", source(alice, "tenant-b.example:3000/mcp")],
      ["the face's authentication", source(alice, undefined, { token: "t", clientId: "c", scopes: [] })],
    ];
    for (const [name, other] of others) assert.equal(await judgedFor(other), false, `${name}: another caller, not judged`);
  });

  test("callerHeaders adds the server's own headers to the key; a header name must be a token", async () => {
    const tools = new ToolsAtEdge({ compile, callerHeaders: ["X-Api-Key"] });
    learnFor(tools, tools.callerOf(source({ "x-api-key": "k1" })), [ADD]);
    await tools.settled();
    assert.ok(
      await tools.judge({
        body: addCall("x"),
        era: "modern",
        protocolVersion: undefined,
        headers: {},
        caller: tools.callerOf(source({ "x-api-key": "k1" })),
      }),
    );
    assert.equal(
      await tools.judge({
        body: addCall("x"),
        era: "modern",
        protocolVersion: undefined,
        headers: {},
        caller: tools.callerOf(source({ "x-api-key": "k2" })),
      }),
      undefined,
    );
    assert.throws(() => new ToolsAtEdge({ callerHeaders: ["X Api Key"] }), /tools.callerHeaders must be a list of header names/);
    assert.throws(() => new ToolsAtEdge({ callerHeaders: "x-api-key" as never }), /tools.callerHeaders must be a list of header names/);
  });

  test("the key is a digest salted per face: no token in it, and the same request has another key on another face", () => {
    const [one, two] = [new ToolsAtEdge({}), new ToolsAtEdge({})];
    const [a, b] = [one.callerOf(source(alice))(), two.callerOf(source(alice))()];
    assert.match(a, /^[0-9a-f]{64}$/);
    assert.notEqual(a, b);
    assert.equal(one.callerOf(source(alice))(), a, "stable on its face");
    assert.ok(!a.includes("alice"));
    // A face that learns nothing has one caller: given tools judge everyone, and no digest is ever taken.
    assert.equal(new ToolsAtEdge({ learn: false }).callerOf(source(alice)), ONE_CALLER);
  });
});

describe("the core's SHA-256, which keys the callers of the Fetch faces", () => {
  test("equals node:crypto's on each side of its scratch space, on lone surrogates, and after a long text", () => {
    const texts = ["x".repeat(4087), "x".repeat(4088), "é".repeat(1365), "😀".repeat(700), "\ud800a\udfff", "y".repeat(70_000), "abc"];
    for (const text of texts)
      assert.equal(sha256Hex(text), createHash("sha256").update(text, "utf8").digest("hex"), `length ${text.length}`);
  });
});

describe("the callers' tools, bounded", () => {
  test(`past ${MAX_CALLERS} callers the least recently used one's tools are dropped: its calls pass unjudged; a caller judged lately stays`, async () => {
    const tools = new ToolsAtEdge({ compile });
    const key = (i: number) => () => `caller-${i}`;
    for (let i = 0; i < MAX_CALLERS; i++) tools.learnList([ADD], false, key(i));
    await tools.settled();
    assert.equal(tools.callers, MAX_CALLERS);
    // Caller 0 calls: it becomes the most recent, and caller 1 the least.
    assert.ok(await tools.judge({ body: addCall("x"), era: "modern", protocolVersion: undefined, headers: {}, caller: key(0) }));
    tools.learnList([ADD], false, key(MAX_CALLERS));
    assert.equal(tools.callers, MAX_CALLERS);
    assert.equal(
      await tools.judge({ body: addCall("x"), era: "modern", protocolVersion: undefined, headers: {}, caller: key(1) }),
      undefined,
      "dropped: unjudged",
    );
    assert.ok(await tools.judge({ body: addCall("x"), era: "modern", protocolVersion: undefined, headers: {}, caller: key(0) }));
    assert.ok(await tools.judge({ body: addCall("x"), era: "modern", protocolVersion: undefined, headers: {}, caller: key(MAX_CALLERS) }));
  });

  test(`past ${MAX_LEARNED_TOOLS} learned tools in all, the least recently used callers are dropped; the caller just learned is kept`, () => {
    const tools = new ToolsAtEdge({});
    const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ name: `${prefix}-${i}` }));
    tools.learnList(many(MAX_LEARNED_TOOLS / 2, "a"), false, () => "a");
    tools.learnList(many(MAX_LEARNED_TOOLS / 2, "b"), false, () => "b");
    assert.equal(tools.callers, 2);
    tools.learnList(many(1, "c"), false, () => "c");
    assert.equal(tools.callers, 2, "a dropped");
    // One list larger than the bound is kept alone, as one caller's list always was.
    tools.learnList(many(MAX_LEARNED_TOOLS + 1, "d"), false, () => "d");
    assert.equal(tools.callers, 1);
  });

  test("callers listing the same schema share its reading: learning it for a thousand callers compiles it once", async () => {
    let compiled = 0;
    const counting = (schema: object) => (compiled++, compile(schema));
    const tools = new ToolsAtEdge({ compile: counting });
    for (let i = 0; i < 1000; i++) tools.learnList([structuredClone(ADD)], false, () => `caller-${i}`);
    await tools.settled();
    assert.equal(compiled, 1);
  });
});

describe("given and learned tools", () => {
  test("a given list judges every caller until that caller's own list is learned; then that caller's alone", async () => {
    const tools = new ToolsAtEdge({ given: { tools: [ADD] }, compile });
    const [alice, bob] = [() => "alice", () => "bob"];
    tools.learnList([ADD_STRINGS], false, alice);
    await tools.settled();
    assert.ok(
      await tools.judge({ body: addCall("x"), era: "modern", protocolVersion: undefined, headers: {}, caller: bob }),
      "Bob: by the given list",
    );
    assert.equal(
      await tools.judge({ body: addCall("x"), era: "modern", protocolVersion: undefined, headers: {}, caller: alice }),
      undefined,
      "Alice: by her own list",
    );
    assert.ok(await tools.judge({ body: addCall(1), era: "modern", protocolVersion: undefined, headers: {}, caller: alice }));
    // A further page for a caller with no first page adds to what judged it: the given list.
    tools.learnList([{ name: "other" }], true, bob);
    assert.ok(await tools.judge({ body: addCall("x"), era: "modern", protocolVersion: undefined, headers: {}, caller: bob }));
  });

  test("a stream face has one caller: what its server lists judges its client's calls, as before", async () => {
    const tools = new ToolsAtEdge({ given: { tools: [ADD_STRINGS] }, compile });
    tools.sent({ jsonrpc: "2.0", id: 4, method: "tools/list" });
    tools.received({ jsonrpc: "2.0", id: 4, result: { tools: [ADD] } });
    await tools.settled();
    assert.equal(tools.callers, 1);
    assert.equal(tools.size, 1);
    assert.ok(
      await tools.judge({ body: addCall("x"), era: "modern", protocolVersion: undefined, headers: {} }),
      "judged by the learned list, not the given one",
    );
    assert.equal(await tools.judge({ body: addCall(1), era: "modern", protocolVersion: undefined, headers: {} }), undefined);
  });
});

describe("what identifies the caller beside its headers: the face's authentication", () => {
  /** A server that reads an X-Api-Key of its own; the faces are told who asks by what they hand the server. */
  const apiKeyOf = (user: "alice" | "bob") => ({ "x-api-key": USERS[user].token });
  const call = (project: string) => asUser("anonymous", "modern", "tools/call", pick(project));
  const list = () => asUser("anonymous", "modern", "tools/list", {});

  test("gateNode: req.auth, set by the middleware before it, tells Alice from Bob", async () => {
    const gate = gateNode(createMcpHandler(callerToolsServer), { tools: { compile } });
    const server = http.createServer((req, res) => {
      const user = userOf(new Headers({ "x-api-key": String(req.headers["x-api-key"] ?? "") }));
      (req as { auth?: unknown }).auth = { token: String(req.headers["x-api-key"]), clientId: user, scopes: [] };
      gate(req, res);
    });
    const gated = await listening(server);
    try {
      const send = async (request: { headers: Record<string, string>; body: string }, user: "alice" | "bob") =>
        messageIn((await rawPost(gated.url, { ...request.headers, ...apiKeyOf(user) }, request.body)).text);
      await send(list(), "alice");
      assert.equal(textOf(await send(call("mercury"), "bob")), "bob picked mercury");
      await send(list(), "bob");
      assert.match(textOf(await send(call("apollo"), "bob"))!, byEdge);
      assert.equal(textOf(await send(call("apollo"), "alice")), "alice picked apollo");
    } finally {
      await gated.close();
    }
  });

  test("gateFetch: the authInfo option's result tells Alice from Bob", async () => {
    const gated = gateFetch(createMcpHandler(callerToolsServer), {
      tools: { compile },
      authInfo: (request) => ({ token: request.headers.get("x-api-key") ?? "", clientId: "c", scopes: [] }),
    });
    const send = async (request: { headers: Record<string, string>; body: string }, user: "alice" | "bob") => {
      const response = await gated(
        new Request("http://127.0.0.1/mcp", { method: "POST", headers: { ...request.headers, ...apiKeyOf(user) }, body: request.body }),
      );
      return messageIn(await response.text());
    };
    await send(list(), "alice");
    assert.equal(textOf(await send(call("mercury"), "bob")), "bob picked mercury");
    await send(list(), "bob");
    assert.match(textOf(await send(call("apollo"), "bob"))!, byEdge);
  });
});

describe("gateNode mounted by Express under a path of its own", () => {
  test("the whole path tells callers apart, where Express strips the mount path from req.url", async () => {
    const handler = counted(createMcpHandler(callerToolsServer));
    const router = express.Router().all("/mcp", gateNode(handler, { tools: { compile } }));
    const mounted = await listening(http.createServer(express().use("/t/:tenant", router)));
    const at = (tenant: string) => mounted.url.replace(/\/mcp$/, `/t/${tenant}/mcp`);
    try {
      const send = async (tenant: string, method: string, params: Record<string, unknown>) => {
        const { headers, body } = asUser("alice", "modern", method, params);
        return messageIn((await rawPost(at(tenant), headers, body)).text);
      };
      await send("a", "tools/list", {});
      assert.match(textOf(await send("a", "tools/call", pick("mercury")))!, byEdge, "tenant a: judged by its own list");
      const before = handler.calls();
      assert.match(textOf(await send("b", "tools/call", pick("mercury")))!, byServer, "tenant b: not judged by tenant a's list");
      assert.equal(handler.calls(), before + 1);
    } finally {
      await mounted.close();
    }
  });
});

describe("wymcp proxy --caller-header: a server's own header tells callers apart", () => {
  test("Alice and Bob, told apart by X-Api-Key alone: each judged by the tools listed to them", async () => {
    const upstream = await listening(http.createServer((req, res) => void serveFetch(createMcpHandler(callerToolsServer), req, res)));
    const proxy = await startProxy(["--upstream", upstream.url, "--caller-header", "X-Api-Key"]);
    try {
      const url = new URL("/mcp", proxy.url).href;
      const send = async (method: string, params: Record<string, unknown>, user: "alice" | "bob") => {
        const { headers, body } = asUser("anonymous", "modern", method, params, { "x-api-key": USERS[user].token });
        return messageIn((await rawPost(url, headers, body)).text);
      };
      await send("tools/list", {}, "alice");
      assert.equal(textOf(await send("tools/call", pick("mercury"), "bob")), "bob picked mercury");
      await send("tools/list", {}, "bob");
      assert.match(textOf(await send("tools/call", pick("apollo"), "bob"))!, byEdge);
      assertNoKeyIn(proxy.stderr());
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });

  test("a header name that is no token is a usage error", async () => {
    const { parseProxyArgs } = await import("../src/cli/proxy/proxy-command.js");
    assert.throws(
      () => parseProxyArgs(["--upstream", "http://127.0.0.1:9/mcp", "--caller-header", "X Api"]),
      /--caller-header takes a header name/,
    );
  });
});
