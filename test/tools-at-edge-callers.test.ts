import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { gateNode, type McpFetchHandler, serveFetch } from "../src/node-http.js";
import { gateFetch } from "../src/fetch.js";
import type { ToolSchemaCompiler, ToolsEvent } from "../src/core/tools-at-edge.js";
import { edgeCompiler } from "../src/compile/at-edge.js";
import { assertFreshDist } from "./support/built.js";
import { asUser, callerToolsServer, USERS, type User } from "./support/caller-tools.js";
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

describe("gateNode learns the tools per caller (a server whose tools/list depends on the bearer token)", { timeout: 60_000 }, () => {
  test("no user's valid call refused, no user's invalid call judged by another's tools, no key in the events", async () => {
    const handler = counted(createMcpHandler(callerToolsServer));
    const events: ToolsEvent[] = [];
    const gated = await listening(
      http.createServer(gateNode(handler, { tools: { compile, onToolsEvent: (event) => events.push(event) } })),
    );
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

describe("gateFetch learns the tools per caller", { timeout: 60_000 }, () => {
  test("no user's valid call refused, no user's invalid call judged by another's tools, no key in the events", async () => {
    const handler = counted(createMcpHandler(callerToolsServer));
    const events: ToolsEvent[] = [];
    const gated = gateFetch(handler, { tools: { compile, onToolsEvent: (event) => events.push(event) } });
    const send: Send = async (user, method, params, era = "modern") => {
      const { headers, body } = asUser(user, era, method, params);
      const response = await gated(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body }));
      return { status: response.status, message: messageIn(await response.text()) };
    };
    await perCallerScenario(send, handler.calls);
    assertNoKeyIn(JSON.stringify(events));
  });
});

describe("wymcp proxy --learn-tools on learns the tools per caller", { timeout: 120_000 }, () => {
  let upstream: Awaited<ReturnType<typeof listening>>;
  let proxy: RunningProxy;
  const handler = counted(createMcpHandler(callerToolsServer));
  before(async () => {
    upstream = await listening(http.createServer((req, res) => void serveFetch(handler, req, res)));
    proxy = await startProxy(["--upstream", upstream.url, "--learn-tools", "on"]);
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
