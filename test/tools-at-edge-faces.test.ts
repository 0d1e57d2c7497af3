import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { gateNode, type McpFetchHandler, serveFetch, wymcpNode } from "../src/node-http.js";
import { gateFetch, wymcpFetch } from "../src/fetch.js";
import type { ToolSchemaCompiler, ToolsEvent } from "../src/tools/tools-at-edge.js";
import { edgeCompiler } from "../src/compile/at-edge.js";
import { generate } from "../src/compile/generate.js";
import { assertFreshDist } from "./support/built.js";
import { CLI } from "./support/cli.js";
import { edgeRequest, edgeToolsServer, messageIn } from "./support/edge-tools.js";
import { listening, rawPost } from "./support/gate-fixtures.js";
import { startProxy, until, type RunningProxy } from "./support/proxy.js";
import { fastMcpStdio, PYTHON_ENV, startMcpServerHttp, type PythonHttpServer } from "./support/python-servers.js";

// The proxy and the stdio gate under test are the built bin, dist/cli.js: it must be built from the current sources.
before(assertFreshDist);

const BAD_ADD = { name: "add", arguments: { a: "x", b: 2 } };
const ours = /^Invalid arguments for tool add: 1 invalid location: \/a must be integer$/;

let compile: ToolSchemaCompiler;
before(async () => {
  compile = (await edgeCompiler()) as ToolSchemaCompiler;
});

/** The SDK's handler, counting the tools/call bodies that reach it: a refused call never does. */
function counted(handler: McpFetchHandler): McpFetchHandler & { calls: () => number } {
  let calls = 0;
  return {
    fetch(request: Request, options?: { parsedBody?: unknown }) {
      if ((options?.parsedBody as { method?: unknown } | undefined)?.method === "tools/call") calls++;
      return handler.fetch(request, options as never);
    },
    calls: () => calls,
  } as McpFetchHandler & { calls: () => number };
}

async function post(url: string, era: string, method: string, params: Record<string, unknown>, extra: Record<string, string> = {}) {
  const { headers, body } = edgeRequest(era, method, params, extra);
  const answer = await rawPost(url, headers, body);
  return { status: answer.status, message: messageIn(answer.text) };
}

const textOf = (message: { result?: Record<string, unknown> }) =>
  (message.result?.content as Array<{ text: string }> | undefined)?.[0]?.text;

describe("gateNode: the tools learned from the SDK v2 server's own tools/list", () => {
  const handler = counted(createMcpHandler(edgeToolsServer));
  const events: ToolsEvent[] = [];
  let gated: Awaited<ReturnType<typeof listening>>;
  let alone: Awaited<ReturnType<typeof listening>>;
  before(async () => {
    gated = await listening(http.createServer(gateNode(handler, { tools: { compile, onEvent: (event) => events.push(event) } })));
    alone = await listening(http.createServer(toNodeHandler(createMcpHandler(edgeToolsServer))));
    const list = await post(gated.url, "modern", "tools/list", {});
    assert.equal((list.message.result!.tools as unknown[]).length, 3);
  });
  after(async () => {
    await gated.close();
    await alone.close();
  });

  test("a bad call is answered isError under 2026-07-28 and 2025-11-25, -32602 under 2025-06-18; the server never sees it", async () => {
    const before = handler.calls();
    const modern = await post(gated.url, "modern", "tools/call", BAD_ADD);
    assert.equal(modern.status, 200);
    assert.equal(modern.message.result?.isError, true);
    assert.equal(modern.message.result?.resultType, "complete");
    assert.match(textOf(modern.message)!, ours);
    const latest = await post(gated.url, "2025-11-25", "tools/call", BAD_ADD);
    assert.equal(latest.message.result?.isError, true);
    assert.match(textOf(latest.message)!, ours);
    const older = await post(gated.url, "2025-06-18", "tools/call", BAD_ADD);
    assert.equal(older.status, 200);
    assert.equal(older.message.error?.code, -32602);
    assert.equal(handler.calls(), before, "no refused call reached the server");
    // The server alone answers the same calls itself: isError with its own (Zod's) words, whatever the revision.
    for (const era of ["modern", "2025-11-25", "2025-06-18"]) {
      const own = await post(alone.url, era, "tools/call", BAD_ADD);
      assert.equal(own.message.result?.isError, true, era);
      assert.match(
        textOf(own.message)!,
        /^Input validation error: Invalid arguments for tool add: a: Invalid input: expected number, received string$/,
      );
    }
    const valid = await post(gated.url, "modern", "tools/call", { name: "add", arguments: { a: 1, b: 2 } });
    assert.equal(textOf(valid.message), 'saw {"a":1,"b":2}');
  });

  test("an Mcp-Param header that disagrees with its argument is 400/-32020; one that agrees (an integer by value) passes", async () => {
    const mismatch = await post(
      gated.url,
      "modern",
      "tools/call",
      { name: "weather", arguments: { region: "Paris" } },
      { "mcp-param-region": "Lyon" },
    );
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.message.error?.code, -32020);
    assert.match(
      mismatch.message.error!.message,
      /Mcp-Param-Region header does not match the argument \(the argument at \/params\/arguments\/region\)/,
    );
    assert.doesNotMatch(JSON.stringify(mismatch.message), /Lyon|Paris/);
    const agreeing = await post(
      gated.url,
      "modern",
      "tools/call",
      { name: "weather", arguments: { region: "Zürich", days: 3 } },
      { "mcp-param-region": "=?base64?WsO8cmljaA==?=", "mcp-param-days": "3.0" },
    );
    assert.equal(textOf(agreeing.message), 'saw {"region":"Zürich","days":3}');
    // The server alone refuses the mismatch too, with its own words (which name both values).
    const own = await post(
      alone.url,
      "modern",
      "tools/call",
      { name: "weather", arguments: { region: "Paris" } },
      { "mcp-param-region": "Lyon" },
    );
    assert.equal(own.status, 400);
    assert.equal(own.message.error?.code, -32020);
  });

  test("a schema the edge does not run (a backreference) is reported once, and its calls reach the server", async () => {
    const before = handler.calls();
    const odd = await post(gated.url, "modern", "tools/call", { name: "odd", arguments: { word: 5 } });
    assert.equal(handler.calls(), before + 1);
    assert.match(textOf(odd.message)!, /^Input validation error: Invalid arguments for tool odd/);
    await post(gated.url, "modern", "tools/list", {});
    const reports = events.filter((event) => event.kind === "schema-not-compiled");
    assert.deepEqual(reports, [
      {
        kind: "schema-not-compiled",
        tool: "odd",
        reason: "a pattern the linear-time engine cannot run (a backreference)",
      },
    ]);
  });

  test("an unknown tool passes on: the server answers it", async () => {
    const before = handler.calls();
    const unknown = await post(gated.url, "modern", "tools/call", { name: "nope", arguments: {} });
    assert.equal(handler.calls(), before + 1);
    assert.ok(unknown.message.error || unknown.message.result?.isError);
  });
});

describe("gateFetch: the tools given as an option (a tools/list result)", () => {
  test("a bad call is refused with isError before the handler, a good one reaches it, learning off", async () => {
    const alone = await listening(http.createServer(toNodeHandler(createMcpHandler(edgeToolsServer))));
    const list = (await post(alone.url, "modern", "tools/list", {})).message;
    await alone.close();
    const handler = counted(createMcpHandler(edgeToolsServer));
    const gated = gateFetch(handler, { tools: { given: list, compile, learn: false } });
    const ask = async (params: Record<string, unknown>) => {
      const { headers, body } = edgeRequest("modern", "tools/call", params);
      const response = await gated(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body }));
      return { status: response.status, message: messageIn(await response.text()) };
    };
    // The first call may find the schema still compiling: it waits for it rather than pass unjudged.
    const bad = await ask(BAD_ADD);
    assert.equal(bad.status, 200);
    assert.match(textOf(bad.message)!, ours);
    assert.equal(handler.calls(), 0);
    const good = await ask({ name: "add", arguments: { a: 1, b: 2 } });
    assert.equal(textOf(good.message), 'saw {"a":1,"b":2}');
    assert.equal(handler.calls(), 1);
  });
});

describe("the guards: wymcpNode and wymcpFetch take the same tools option", () => {
  test("a bad call is answered by the guard and the next handler never runs; a good one goes on", async () => {
    const alone = await listening(http.createServer(toNodeHandler(createMcpHandler(edgeToolsServer))));
    const list = (await post(alone.url, "modern", "tools/list", {})).message;
    await alone.close();
    const handler = counted(createMcpHandler(edgeToolsServer));
    const nodeGuard = wymcpNode({ tools: { given: list, compile } });
    const guarded = await listening(http.createServer((req, res) => void nodeGuard(req, res, () => void serveFetch(handler, req, res))));
    try {
      const bad = await post(guarded.url, "2025-06-18", "tools/call", BAD_ADD);
      assert.equal(bad.message.error?.code, -32602);
      assert.equal(handler.calls(), 0);
      const good = await post(guarded.url, "modern", "tools/call", { name: "add", arguments: { a: 1, b: 2 } });
      assert.equal(textOf(good.message), 'saw {"a":1,"b":2}');
    } finally {
      await guarded.close();
    }
    const fetchGuard = wymcpFetch({ tools: { given: list, compile } });
    const { headers, body } = edgeRequest("modern", "tools/call", BAD_ADD);
    const refused = await fetchGuard(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body }));
    assert.match(textOf(messageIn(await refused!.text()))!, ours);
    const passed = edgeRequest("modern", "tools/call", { name: "add", arguments: { a: 1, b: 2 } });
    assert.equal(await fetchGuard(new Request("http://127.0.0.1/mcp", { method: "POST", ...passed })), undefined);
  });
});

/** A legacy session through `url`: initialize at `version`, initialized, tools/list, then `call`; the call's answer. */
async function legacySession(url: string, version: string, call: Record<string, unknown>) {
  const common = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const init = await rawPost(
    url,
    common,
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    }),
  );
  assert.equal(init.status, 200, init.text);
  const headers = { ...common, "mcp-session-id": String(init.headers["mcp-session-id"]), "mcp-protocol-version": version };
  await rawPost(url, headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const list = await rawPost(url, headers, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }));
  assert.equal(list.status, 200, list.text);
  const answer = await rawPost(url, headers, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: call }));
  return { status: answer.status, message: messageIn(answer.text) };
}

describe("wymcp proxy, learning (the default): the tools learned from a Python MCPServer (mcp 2.3.0), no file", () => {
  let server: PythonHttpServer;
  let proxy: RunningProxy;
  let proxied: string;
  before(async () => {
    server = await startMcpServerHttp();
    proxy = await startProxy(["--upstream", server.url.href]);
    proxied = new URL(server.url.pathname, proxy.url).href;
  });
  after(async () => {
    await proxy?.stop();
    await server?.stop();
  });

  test("2026-07-28: after the list went through, a bad call is isError from the proxy; the server alone says it in its words", async () => {
    await post(proxied, "modern", "tools/list", {});
    await until(() => /learned 2 tool\(s\) from tools\/list/.test(proxy.stderr()));
    const gated = await post(proxied, "modern", "tools/call", BAD_ADD);
    assert.equal(gated.message.result?.isError, true);
    assert.match(textOf(gated.message)!, ours);
    const alone = await post(server.url.href, "modern", "tools/call", BAD_ADD);
    assert.equal(alone.message.result?.isError, true);
    assert.match(textOf(alone.message)!, /validation error/i);
    await until(() => /refused tools\/call \(toolArguments\) id=7: Invalid arguments for tool add/.test(proxy.stderr()));
  });

  test("legacy sessions: -32602 under 2025-06-18, isError under 2025-11-25; the server alone answers isError under both", async () => {
    const older = await legacySession(proxied, "2025-06-18", BAD_ADD);
    assert.equal(older.message.error?.code, -32602);
    assert.match(older.message.error!.message, /^Invalid params: the arguments of tool add do not match its inputSchema/);
    const latest = await legacySession(proxied, "2025-11-25", BAD_ADD);
    assert.match(textOf(latest.message)!, ours);
    for (const version of ["2025-06-18", "2025-11-25"]) {
      const alone = await legacySession(server.url.href, version, BAD_ADD);
      assert.equal(alone.message.result?.isError, true, version);
    }
    const good = await legacySession(proxied, "2025-06-18", { name: "add", arguments: { a: 2, b: 3 } });
    assert.equal(textOf(good.message), "5");
  });
});

describe("wymcp proxy --tools FILE in front of the SDK v2 server", () => {
  let dir: string;
  let upstream: Awaited<ReturnType<typeof listening>>;
  let listed: RunningProxy;
  let compiled: RunningProxy;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "wymcp-tools-file-"));
    upstream = await listening(http.createServer(toNodeHandler(createMcpHandler(edgeToolsServer))));
    // What the server lists, as a JSON-RPC response, and what wymcp compile writes from it.
    const answer = await rawPost(
      upstream.url,
      ...(Object.values(edgeRequest("modern", "tools/list", {})) as [Record<string, string>, string]),
    );
    writeFileSync(join(dir, "response.json"), JSON.stringify(messageIn(answer.text)));
    writeFileSync(join(dir, "tools.json"), JSON.stringify(messageIn(answer.text).result));
    const out = join(dir, "compiled");
    mkdirSync(out);
    for (const [name, text] of await generate([join(dir, "tools.json")], out)) writeFileSync(join(out, name), text);
    [listed, compiled] = await Promise.all([
      startProxy(["--upstream", upstream.url, "--tools", join(dir, "response.json"), "--no-learn-tools"]),
      startProxy(["--upstream", upstream.url, "--tools", out, "--no-learn-tools"]),
    ]);
  });
  after(async () => {
    await listed?.stop();
    await compiled?.stop();
    await upstream?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a tools/list answer in a file: a bad call is refused with no list ever relayed, a mismatched Mcp-Param is -32020, the risky schema is reported", async () => {
    const url = new URL("/mcp", listed.url).href;
    const bad = await post(url, "modern", "tools/call", BAD_ADD);
    assert.match(textOf(bad.message)!, ours);
    const mismatch = await post(
      url,
      "modern",
      "tools/call",
      { name: "weather", arguments: { region: "Paris" } },
      { "mcp-param-region": "Lyon" },
    );
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.message.error?.code, -32020);
    const odd = await post(url, "modern", "tools/call", { name: "odd", arguments: { word: 5 } });
    assert.match(textOf(odd.message)!, /^Input validation error/, "the server answered it");
    assert.match(
      listed.stderr(),
      /the inputSchema of tool "odd" is not compiled \(a pattern the linear-time engine cannot run \(a backreference\)\): its calls pass unjudged/,
    );
  });

  test("what wymcp compile wrote: its validators judge the call, its input's annotations the headers", async () => {
    const url = new URL("/mcp", compiled.url).href;
    const bad = await post(url, "2025-06-18", "tools/call", BAD_ADD);
    assert.equal(bad.message.error?.code, -32602);
    const mismatch = await post(
      url,
      "modern",
      "tools/call",
      { name: "weather", arguments: { region: "Paris" } },
      { "mcp-param-region": "Lyon" },
    );
    assert.equal(mismatch.message.error?.code, -32020);
    const good = await post(url, "modern", "tools/call", { name: "add", arguments: { a: 1, b: 2 } });
    assert.equal(textOf(good.message), 'saw {"a":1,"b":2}');
  });
});

/** Lines to a stdio server (each request waits for its answer); the answers to `tools/call`, by id. */
async function stdioSession(
  command: string[],
  version: string,
  calls: Array<Record<string, unknown>>,
  listed?: (answer: unknown) => void,
): Promise<unknown[]> {
  const child = spawn(command[0]!, command.slice(1), { env: PYTHON_ENV, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const waiting = new Map<number, (message: unknown) => void>();
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const message = JSON.parse(line) as { id?: number };
    if (typeof message.id === "number") waiting.get(message.id)?.(message);
  });
  const ask = (message: Record<string, unknown>) =>
    new Promise<unknown>((resolve, reject) => {
      waiting.set(message.id as number, resolve);
      child.once("exit", () => reject(new Error(`the server exited: ${stderr}`)));
      child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    });
  try {
    await ask({
      id: 1,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    // Asked whether or not the caller wants it (an optional call would skip evaluating its argument).
    const list = await ask({ id: 2, method: "tools/list", params: {} });
    listed?.(list);
    const answers: unknown[] = [];
    for (const [i, params] of calls.entries()) answers.push(await ask({ id: 10 + i, method: "tools/call", params }));
    return answers;
  } finally {
    child.stdin!.end();
    child.kill("SIGTERM");
  }
}

describe("wymcp stdio, learning (the default): the tools learned from a FastMCP server's own lines", () => {
  let fastmcp: string[];
  before(async () => {
    fastmcp = await fastMcpStdio();
  });
  const gated = (command: string[]) => [process.execPath, CLI, "stdio", "--", ...command];

  test("-32602 under 2025-06-18 and isError under 2025-11-25 from wymcp; FastMCP alone answers isError under both", async () => {
    const good = { name: "add", arguments: { a: 2, b: 3 } };
    const [older, latest, aloneOlder, aloneLatest] = (await Promise.all([
      stdioSession(gated(fastmcp), "2025-06-18", [BAD_ADD, good]),
      stdioSession(gated(fastmcp), "2025-11-25", [BAD_ADD]),
      stdioSession(fastmcp, "2025-06-18", [BAD_ADD]),
      stdioSession(fastmcp, "2025-11-25", [BAD_ADD]),
    ])) as Array<Array<{ error?: { code: number }; result?: Record<string, unknown> }>>;
    assert.equal(older![0]!.error?.code, -32602);
    assert.equal(textOf(older![1]!), "5");
    assert.match(textOf(latest![0]!)!, ours);
    for (const alone of [aloneOlder!, aloneLatest!]) {
      assert.equal(alone[0]!.result?.isError, true);
      assert.match(textOf(alone[0]!)!, /validation error/i);
    }
  });

  test("--tools FILE (the server's own list, saved, or compiled): judged from the first line, even where code from strings is forbidden", async () => {
    let list: unknown;
    await stdioSession(fastmcp, "2025-11-25", [], (answer) => (list = answer));
    const dir = mkdtempSync(join(tmpdir(), "wymcp-stdio-tools-"));
    try {
      writeFileSync(join(dir, "tools.json"), JSON.stringify(list));
      const command = [process.execPath, CLI, "stdio", "--tools", join(dir, "tools.json"), "--", ...fastmcp];
      const [answer] = (await stdioSession(command, "2025-06-18", [BAD_ADD])) as Array<{ error?: { code: number; message: string } }>;
      assert.equal(answer!.error?.code, -32602);
      assert.match(
        answer!.error!.message,
        /^Invalid params: the arguments of tool add do not match its inputSchema: 1 invalid location: \/a must be integer$/,
      );
      // What wymcp compile wrote from the same list judges in a process that forbids code from strings; learning there
      // compiles nothing (Ajv makes code to compile) and the call goes to the server.
      const out = join(dir, "compiled");
      mkdirSync(out);
      writeFileSync(join(dir, "result.json"), JSON.stringify((list as { result: unknown }).result));
      for (const [name, text] of await generate([join(dir, "result.json")], out)) writeFileSync(join(out, name), text);
      const strict = [process.execPath, "--disallow-code-generation-from-strings", CLI, "stdio"];
      const [compiled] = (await stdioSession([...strict, "--tools", out, "--", ...fastmcp], "2025-11-25", [BAD_ADD])) as Array<{
        result?: Record<string, unknown>;
      }>;
      assert.match(textOf(compiled!)!, ours);
      const [learned] = (await stdioSession([...strict, "--", ...fastmcp], "2025-11-25", [BAD_ADD])) as Array<{
        result?: Record<string, unknown>;
      }>;
      assert.match(textOf(learned!)!, /validation error/i, "the server answered it");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
