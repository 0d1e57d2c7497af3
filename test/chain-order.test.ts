/**
 * The one chain after admission, on every face: `tools` and `toolsLock` (enforce) together. A server lists a changed
 * tool and a new one besides an approved one; the client sees neither; a call to them is the lock's to refuse (the
 * server's tools never judge it, the server never sees it); the learner learns only what the lock lets through, so a
 * call is judged by the approved tool's schema; the outbound report, telemetry and (proxy) the page's feed read the
 * list the client receives.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { after, describe, test } from "node:test";
import { gateFetch, wymcpFetch } from "wymcp/fetch";
import { gateNode, serveFetch, wymcpNode } from "wymcp/node";
import { validateMcpResponse } from "wymcp/outbound";
import { parseProxyArgs } from "../src/cli/proxy/proxy-command.js";
import { parseStdioArgs } from "../src/cli/stdio/stdio-command.js";
import { edgeCompiler } from "../src/compile/at-edge.js";
import type { ExchangeTrace } from "../src/core/trace.js";
import type { Telemetry } from "../src/telemetry/telemetry.js";
import { createProxy, listen as listenProxy } from "../src/hosts/proxy/proxy.js";
import { runStdioGate } from "../src/hosts/stdio/gate.js";
import { httpFeed } from "../src/inspect/live/http-tap.js";
import { stdioTap } from "../src/inspect/live/stdio-tap.js";
import { textOf } from "../src/inspect/live/held.js";
import { LOCKED_TOOL_MESSAGE, lockTools, type ToolsLockFile } from "../src/lock/tool-lock.js";
import { createLog } from "../src/log/gate-log.js";
import type { RejectInfo } from "../src/core/admission.js";
import type { Report } from "../src/core/rules.js";
import type { ToolSchemaCompiler, ToolsEvent } from "../src/tools/tools-at-edge.js";
import { listening } from "./support/gate-fixtures.js";
import { until } from "./support/proxy.js";

const object = (properties: Record<string, unknown>) => ({ type: "object", properties, required: Object.keys(properties) });
const ECHO = { name: "echo", inputSchema: object({ text: { type: "string" } }) };
const ADD = { name: "add", inputSchema: object({ a: { type: "number" }, b: { type: "number" } }) };
/** What the server lists: `echo` as approved, `add` changed (its arguments), `exfiltrate` new and not even a valid tool. */
const LISTED = [
  ECHO,
  { name: "add", inputSchema: object({ a: { type: "string" } }) },
  { name: "exfiltrate", inputSchema: { type: "array" } },
];
const LOCK: ToolsLockFile = lockTools([ECHO, ADD]);

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" };
const call = (id: number, name: string, args: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

/** The server: its list, and each tool call it was handed (by name). */
function server() {
  const called: string[] = [];
  const answer = (body: { id?: unknown; method?: unknown; params?: { name?: string } }): Response => {
    if (body.method === "tools/list") return Response.json({ jsonrpc: "2.0", id: body.id, result: { tools: LISTED } });
    if (body.method === "tools/call") {
      called.push(String(body.params?.name));
      return Response.json({ jsonrpc: "2.0", id: body.id, result: { content: [{ type: "text", text: "done" }] } });
    }
    return new Response(null, { status: 202 });
  };
  return {
    called,
    /** As the SDK's handler: the body wymcp parsed, when it hands one on. */
    handler: {
      fetch: async (request: Request, options?: { parsedBody?: unknown }) =>
        answer((options?.parsedBody ?? (await request.json())) as never),
    },
    plain: async (request: Request) => answer((await request.json()) as never),
  };
}

/** What every face tells: the tools events, its refusals and reports, the tools/list results telemetry saw. */
function observers() {
  const events: ToolsEvent[] = [];
  const rejected: RejectInfo[] = [];
  const reports: Report[] = [];
  const traced: unknown[] = [];
  const telemetry: Telemetry = {
    judged: (): ExchangeTrace => ({
      run: (fn) => fn(),
      answered: (message) => traced.push(message),
      session: () => undefined,
      end: () => undefined,
    }),
  };
  return {
    events,
    rejected,
    reports,
    traced,
    telemetry,
    /** The outbound check's violations: the reports of the `outbound` rule. */
    violations: () => reports.filter((report) => report.rule === "outbound"),
  };
}

type Observed = ReturnType<typeof observers>;
type Post = (body: unknown) => Promise<{ status: number; text: string }>;

async function compiler(): Promise<ToolSchemaCompiler> {
  const compile = await edgeCompiler();
  assert.equal(typeof compile, "function", "the edge compiler is installed");
  return compile as ToolSchemaCompiler;
}

/** A command-line face's log: its refusals after admission are log lines (`tool-call-refused`), which `seen` collects. */
function logOf(face: "proxy" | "stdio", seen: Observed) {
  return createLog(face, "json", (line) => {
    const event = JSON.parse(line) as { event: string; rule?: RejectInfo["rule"] };
    if (event.event === "tool-call-refused") seen.rejected.push({ rule: event.rule } as RejectInfo);
  });
}

/** The options of a library face: the lock enforced, the tools learned and judged, the outbound check, telemetry. */
async function faceOptions(seen: Observed) {
  return {
    tools: { lock: LOCK, compile: await compiler(), onEvent: (event: ToolsEvent) => seen.events.push(event) },
    rules: { lock: "enforce" as const },
    outbound: validateMcpResponse,
    onReject: (info: RejectInfo) => seen.rejected.push(info),
    onReport: (report: Report) => seen.reports.push(report),
    telemetry: seen.telemetry,
  };
}

const overHttp =
  (url: string): Post =>
  async (body) => {
    const got = await fetch(url, { method: "POST", headers: HEADERS, body: JSON.stringify(body) });
    return { status: got.status, text: await got.text() };
  };

const overFetch =
  (face: (request: Request) => Promise<Response>): Post =>
  async (body) => {
    const got = await face(new Request("http://gate.test/mcp", { method: "POST", headers: HEADERS, body: JSON.stringify(body) }));
    return { status: got.status, text: await got.text() };
  };

interface Face {
  post: Post;
  /** The tools the server was asked to call, by name. */
  called: () => string[];
  seen: Observed;
  /** The feed's captures of what the server sent back (the proxy's page), when the face has one. */
  fed?: () => string[];
  close: () => Promise<void>;
}

const FACES: Record<string, () => Promise<Face>> = {
  async gateNode() {
    const { handler, called } = server();
    const seen = observers();
    const up = await listening(http.createServer(gateNode(handler, await faceOptions(seen))));
    return { post: overHttp(up.url), called: () => called, seen, close: up.close };
  },
  async "wymcpNode + serveFetch"() {
    const { handler, called } = server();
    const seen = observers();
    const guard = wymcpNode(await faceOptions(seen));
    const up = await listening(http.createServer((req, res) => guard(req, res, () => void serveFetch(handler, req, res))));
    return { post: overHttp(up.url), called: () => called, seen, close: up.close };
  },
  async gateFetch() {
    const { handler, called } = server();
    const seen = observers();
    return { post: overFetch(gateFetch(handler, await faceOptions(seen))), called: () => called, seen, close: async () => undefined };
  },
  async wymcpFetch() {
    const { plain, called } = server();
    const seen = observers();
    const guard = wymcpFetch(await faceOptions(seen));
    const face = async (request: Request) => (await guard(request)) ?? guard.report(request, await plain(request));
    return { post: overFetch(face), called: () => called, seen, close: async () => undefined };
  },
  async proxy() {
    const { plain, called } = server();
    const seen = observers();
    const upstream = await listening(
      http.createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const got = await plain(new Request("http://upstream.test/mcp", { method: "POST", body: Buffer.concat(chunks) }));
        res.writeHead(got.status, Object.fromEntries(got.headers)).end(Buffer.from(await got.arrayBuffer()));
      }),
    );
    const fed: string[] = [];
    const feed = httpFeed((capture) => capture.from === "server" && fed.push(textOf(capture) ?? ""), { maxBytes: 1 << 20 });
    const { options } = parseProxyArgs(["--upstream", upstream.url]);
    const given = await faceOptions(seen);
    const proxy = createProxy(
      { ...options, rules: { ...options.rules, lock: "enforce", outbound: "report" }, tools: given.tools, telemetry: seen.telemetry },
      logOf("proxy", seen),
      { observer: { stage: feed.stage }, onReport: given.onReport },
    );
    const { server: listener, address } = await listenProxy(proxy, "127.0.0.1", 0);
    return {
      post: overHttp(`http://127.0.0.1:${address.port}/mcp`),
      called: () => called,
      seen,
      fed: () => fed,
      close: async () => {
        await proxy.drain(listener);
        await upstream.close();
      },
    };
  },
};

const work = mkdtempSync(join(tmpdir(), "wymcp-chain-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** A stdio server: the list above, each tool call answered, and its name appended to the file its argument names. */
const STDIO_SERVER = `
const { appendFileSync } = require("node:fs");
const LISTED = ${JSON.stringify(LISTED)};
let rest = "";
process.stdin.on("data", (chunk) => {
  rest += chunk;
  for (let nl = rest.indexOf("\\n"); nl >= 0; nl = rest.indexOf("\\n")) {
    const body = JSON.parse(rest.slice(0, nl));
    rest = rest.slice(nl + 1);
    if (body.method === "tools/list") process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { tools: LISTED } }) + "\\n");
    else if (body.method === "tools/call") {
      appendFileSync(process.argv[1], body.params.name + "\\n");
      process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { content: [{ type: "text", text: "done" }] } }) + "\\n");
    }
  }
});
`;

FACES.stdio = async () => {
  const seen = observers();
  const record = join(work, `called-${Math.random().toString(36).slice(2)}`);
  writeFileSync(record, "");
  const { options } = parseStdioArgs(["--", process.execPath, "-e", STDIO_SERVER, record]);
  const input = new PassThrough();
  const output = new PassThrough().setEncoding("utf8");
  let stdout = "";
  output.on("data", (text: string) => (stdout += text));
  const fed: string[] = [];
  const chunk = stdioTap((capture) => capture.from === "server" && fed.push(textOf(capture) ?? ""), { maxBytes: 1 << 20 });
  const given = await faceOptions(seen);
  const exit = runStdioGate(
    { ...options, rules: { ...options.rules, lock: "enforce", outbound: "report" }, tools: given.tools, telemetry: seen.telemetry },
    { input, output },
    logOf("stdio", seen),
    { observer: { chunk }, onReport: given.onReport },
  );
  const answerTo = (id: unknown) =>
    stdout
      .split("\n")
      .slice(0, -1)
      .find((line) => (JSON.parse(line) as { id?: unknown }).id === id);
  return {
    post: async (body) => {
      input.write(`${JSON.stringify(body)}\n`);
      const id = (body as { id: unknown }).id;
      await until(() => answerTo(id) !== undefined);
      return { status: 200, text: answerTo(id)! };
    },
    called: () => readFileSync(record, "utf8").split("\n").slice(0, -1),
    seen,
    fed: () => fed,
    close: async () => {
      input.end();
      assert.equal(await exit, 0);
    },
  };
};

const listOf = (text: string) => (JSON.parse(text) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
/** The tool names of every tools/list result among `messages`. */
const listsIn = (messages: unknown[]) =>
  messages.flatMap((m) => {
    const tools = (m as { result?: { tools?: Array<{ name: string }> } })?.result?.tools;
    return tools ? [tools.map((t) => t.name)] : [];
  });

describe("every face with tools and toolsLock together: the lock first, the learner after it", () => {
  for (const [name, start] of Object.entries(FACES))
    test(`${name}: the client, the learner, the outbound check and telemetry see the locked list; a locked call is the lock's`, async () => {
      const face = await start();
      try {
        const listed = await face.post({ jsonrpc: "2.0", id: 1, method: "tools/list" });
        assert.equal(listed.status, 200);
        assert.deepEqual(listOf(listed.text), ["echo"], "the changed and the new tool left the list");

        // Only what the lock let through was learned.
        assert.deepEqual(
          face.seen.events.filter((e) => e.kind === "tools-learned").map((e) => (e as { tools: number }).tools),
          [1],
        );
        // A call to a tool the lock keeps out is the lock's: its answer, no tool's check, and the server never sees it.
        for (const [id, tool, args] of [
          [2, "exfiltrate", { path: 5 }],
          [3, "add", { a: "x" }],
        ] as const) {
          const refused = await face.post(call(id, tool, args));
          assert.deepEqual(JSON.parse(refused.text), { jsonrpc: "2.0", id, error: { code: -32602, message: LOCKED_TOOL_MESSAGE } });
        }
        // The approved tool's schema judges its calls: a wrong argument is refused here, a right one goes on.
        const wrong = JSON.parse((await face.post(call(4, "echo", { text: 42 }))).text) as { error?: { code: number; message: string } };
        assert.equal(wrong.error?.code, -32602);
        assert.match(wrong.error?.message ?? "", /arguments of tool echo do not match its inputSchema/);
        const right = JSON.parse((await face.post(call(5, "echo", { text: "hi" }))).text) as { result?: unknown };
        assert.deepEqual(right.result, { content: [{ type: "text", text: "done" }] });
        assert.deepEqual(face.called(), ["echo"]);
        // Refused: the two locked calls by the lock, the wrong argument by the tool's schema.
        assert.deepEqual(
          face.seen.rejected.map((info) => info.rule),
          ["lock", "lock", "toolArguments"],
        );

        // The outbound check judged what the client received: the invalid new tool never reached it.
        assert.deepEqual(face.seen.violations(), []);
        assert.deepEqual(listsIn(face.seen.traced), [["echo"]]);
        if (face.fed) assert.deepEqual(listsIn(face.fed().map((text) => JSON.parse(text))), [["echo"]]);
      } finally {
        await face.close();
      }
    });

  test("without the lock, the same server's list is judged and learned whole (the checks above can fail)", async () => {
    const { handler } = server();
    const seen = observers();
    const { tools, rules: _lock, ...options } = await faceOptions(seen);
    const f = gateFetch(handler, { ...options, tools: { ...tools, lock: undefined } });
    const listed = await overFetch(f)({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    assert.deepEqual(listOf(listed.text), ["echo", "add", "exfiltrate"]);
    assert.equal(seen.violations().length, 1, "the invalid new tool is an outbound violation");
    assert.deepEqual(listsIn(seen.traced), [["echo", "add", "exfiltrate"]]);
    assert.equal(seen.events.filter((e) => e.kind === "tools-learned").length, 1);
  });
});
