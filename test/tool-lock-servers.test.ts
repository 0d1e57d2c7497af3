import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { assertFreshDist } from "./support/built.js";
import { CLI, cleanEnv } from "./support/cli.js";
import { rawPost } from "./support/gate-fixtures.js";
import { MODERN_META } from "./support/messages.js";
import { startProxy, until } from "./support/proxy.js";
import { PYTHON_ENV } from "./support/python-servers.js";
import { pythonEnv } from "./support/python.js";
import { repoRoot } from "./support/spec.js";
import { transportHeaders } from "./support/transport-headers.js";
import { MODERN } from "./support/ts-sessions.js";

// The bin under test is dist/cli.js: it must be built from the current sources.
before(assertFreshDist);

// The official Python SDK's MCPServer (mcp 2.3.0), whose tool `drift` adds, removes and changes its other tools.
const SERVER = join(repoRoot, "test", "python", "drifting_server.py");
/** The drifts one call of `drift` makes, as the log names them (the changed fields checked apart). */
const DRIFTS = ["add changed", "echo changed", "exfiltrate added", "notes removed", "search changed"];

let python: string;
let dir: string;
let lockFile: string;

before(async () => {
  python = await pythonEnv();
  dir = mkdtempSync(join(tmpdir(), "wymcp-lock-"));
  lockFile = join(dir, "tools.lock.json");
  const run = compile(["--from-stdio", "--lock", lockFile, "--", python, SERVER, "stdio"]);
  assert.equal(run.status, 0, run.stderr);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function compile(args: string[]) {
  return spawnSync(process.execPath, [CLI, "compile", ...args], { env: cleanEnv(PYTHON_ENV as Record<string, string>), encoding: "utf8" });
}

/** The drifting server over Streamable HTTP on a free loopback port. */
async function startServer(): Promise<{ url: URL; stop: () => Promise<void> }> {
  const child = spawn(python, [SERVER, "http"], { env: PYTHON_ENV, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const url = await new Promise<URL>((resolve, reject) => {
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(new URL(match[1]));
    });
    void exited.then(() => reject(new Error(`the server exited before listening: ${stderr}`)));
  });
  return {
    url,
    stop: () => {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

async function connect(transport: StreamableHTTPClientTransport | StdioClientTransport, modern = false): Promise<Client> {
  const client = new Client({ name: "wymcp-lock-test", version: "0.0.0" }, modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
  await client.connect(transport);
  return client;
}

const sorted = <T extends { name: string }>(tools: T[]) => [...tools].sort((a, b) => (a.name < b.name ? -1 : 1));
const listed = async (client: Client) => sorted((await client.listTools()).tools);
const names = async (client: Client) => (await listed(client)).map((t) => t.name);

/** The lock's reports in a JSON log (one `report` line per drifted tool), as "tool change", and their fields by tool. */
function driftsIn(log: string): { drifts: string[]; fields: Record<string, string[]> } {
  const events = log
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { event: string; rule?: string; tool?: string; message?: string })
    .filter((event) => event.event === "report" && event.rule === "lock" && event.tool !== undefined)
    .map((event) => {
      const [, change, fields] =
        /^tool ".*" (added|removed|changed)(?: \(([^)]*)\))? against the tools lock/.exec(event.message ?? "") ?? [];
      return { tool: event.tool!, change, fields: fields?.split(", ") };
    });
  const fields: Record<string, string[]> = {};
  for (const event of events) if (event.fields) fields[event.tool] = event.fields;
  return { drifts: events.map((e) => `${e.tool} ${e.change}`).sort(), fields };
}

const refusedIn = (log: string) => log.match(/"event":"tool-call-refused"/g)?.length ?? 0;

function assertEachKind(log: string): void {
  const { drifts, fields } = driftsIn(log);
  assert.deepEqual(drifts, DRIFTS);
  assert.deepEqual(fields.echo, ["description"]);
  assert.ok(fields.add?.includes("inputSchema"), String(fields.add));
  assert.deepEqual(fields.search, ["annotations"]);
  // The log names tools and fields, never what the server wrote in them.
  assert.doesNotMatch(log, /id_rsa|Sends a file/);
}

async function refusedAsUnknown(client: Client, name: string): Promise<void> {
  await assert.rejects(client.callTool({ name, arguments: { text: "x", path: "/etc/passwd" } }), (error: unknown) => {
    assert.ok(error instanceof ProtocolError, String(error));
    assert.equal(error.code, -32602);
    assert.match(error.message, /Unknown tool/);
    return true;
  });
}

describe("wymcp compile --lock against a running server", () => {
  test("from a file: the same tools in another order, keys reversed, give the same bytes; --check fails on a changed one", () => {
    const tools = [
      { name: "b", description: "B.", inputSchema: { type: "object", properties: { y: { type: "string" }, x: { type: "number" } } } },
      { name: "a", annotations: { readOnlyHint: true }, inputSchema: { type: "object" } },
    ];
    const reversed = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reversed)
        : value !== null && typeof value === "object"
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([k, v]) => [k, reversed(v)]),
            )
          : value;
    const [one, two, out1, out2] = ["one.json", "two.json", "one.lock.json", "two.lock.json"].map((f) => join(dir, f)) as [
      string,
      string,
      string,
      string,
    ];
    writeFileSync(one, JSON.stringify({ tools }));
    writeFileSync(two, JSON.stringify(reversed([...tools].reverse())));
    for (const [input, output] of [
      [one, out1],
      [two, out2],
    ] as const) {
      const run = compile([input, "--lock", output]);
      assert.equal(run.status, 0, run.stderr);
    }
    assert.equal(readFileSync(out2, "utf8"), readFileSync(out1, "utf8"));
    writeFileSync(two, JSON.stringify({ tools: [{ ...tools[0], description: "B, changed." }, tools[1]] }));
    const check = compile([two, "--lock", out1, "--check"]);
    assert.equal(check.status, 1);
    assert.match(check.stderr, /one\.lock\.json is out of date/);
  });

  test("the lock written from the server over HTTP is byte for byte the one written over stdio, and --check passes", async () => {
    const server = await startServer();
    try {
      const other = join(dir, "from-http.json");
      const run = compile(["--from", server.url.href, "--lock", other]);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(readFileSync(other, "utf8"), readFileSync(lockFile, "utf8"));
      const check = compile(["--from", server.url.href, "--lock", lockFile, "--check"]);
      assert.equal(check.status, 0, check.stderr);
      const lock = JSON.parse(readFileSync(lockFile, "utf8")) as { tools: Array<{ name: string }> };
      assert.deepEqual(
        lock.tools.map((t) => t.name),
        ["add", "drift", "echo", "notes", "search"],
      );
    } finally {
      await server.stop();
    }
  });
});

describe("a drifting Python MCPServer behind wymcp proxy --tools-lock", () => {
  test("report: the client sees what the server lists, before and after; each kind of drift is logged once", async () => {
    const server = await startServer();
    const proxy = await startProxy(["--upstream", server.url.href, "--tools-lock", lockFile, "--log", "json"]);
    try {
      const gated = await connect(new StreamableHTTPClientTransport(new URL(server.url.pathname, proxy.url)));
      const alone = await connect(new StreamableHTTPClientTransport(server.url));
      assert.deepEqual(await listed(gated), await listed(alone));
      assert.deepEqual(driftsIn(proxy.stderr()).drifts, []);
      assert.deepEqual((await gated.callTool({ name: "drift", arguments: {} })).content, [{ type: "text", text: "drifted" }]);
      assert.deepEqual(await listed(gated), await listed(alone));
      await until(() => driftsIn(proxy.stderr()).drifts.length >= DRIFTS.length);
      // Listed again: nothing new to report.
      await gated.listTools();
      assertEachKind(proxy.stderr());
      assert.deepEqual((await gated.callTool({ name: "exfiltrate", arguments: { path: "x" } })).content, [
        { type: "text", text: "sent x" },
      ]);
      await Promise.all([gated.close(), alone.close()]);
    } finally {
      await proxy.stop();
      await server.stop();
    }
  });

  for (const modern of [false, true])
    test(`enforce (${modern ? "2026-07-28, JSON answers" : "legacy, event-stream answers"}): changed and new tools leave the client's list, and their calls never reach the server`, async () => {
      const server = await startServer();
      const proxy = await startProxy(["--upstream", server.url.href, "--tools-lock", lockFile, "--rule", "lock=enforce", "--log", "json"]);
      try {
        const gated = await connect(new StreamableHTTPClientTransport(new URL(server.url.pathname, proxy.url)), modern);
        const alone = await connect(new StreamableHTTPClientTransport(server.url), modern);
        assert.deepEqual(await listed(gated), await listed(alone));
        await gated.callTool({ name: "drift", arguments: {} });
        assert.deepEqual(await names(alone), ["add", "drift", "echo", "exfiltrate", "search"]);
        assert.deepEqual(await names(gated), ["drift"]);
        for (const name of ["exfiltrate", "echo", "add", "search"]) await refusedAsUnknown(gated, name);
        // The log comes on another pipe than the answers: wait for its lines.
        await until(() => refusedIn(proxy.stderr()) >= 4 && driftsIn(proxy.stderr()).drifts.length >= DRIFTS.length);
        assertEachKind(proxy.stderr());
        assert.match(proxy.stderr(), /"rule":"lock"[^\n]*tools left out of the list the client sees/);
        assert.equal(refusedIn(proxy.stderr()), 4);
        await Promise.all([gated.close(), alone.close()]);
      } finally {
        await proxy.stop();
        await server.stop();
      }
    });

  test("enforce, nothing drifted: the answer to tools/list is byte for byte the server's", async () => {
    const server = await startServer();
    const proxy = await startProxy(["--upstream", server.url.href, "--tools-lock", lockFile, "--rule", "lock=enforce"]);
    try {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } });
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", ...transportHeaders(body) };
      const [gated, alone] = [
        await rawPost(new URL(server.url.pathname, proxy.url).href, headers, body),
        await rawPost(server.url.href, headers, body),
      ];
      assert.equal(alone.status, 200, alone.text);
      assert.equal(gated.status, alone.status);
      assert.equal(gated.headers["content-type"], alone.headers["content-type"]);
      assert.equal(gated.text, alone.text);
    } finally {
      await proxy.stop();
      await server.stop();
    }
  });
});

describe("a drifting Python MCPServer behind wymcp stdio --tools-lock", () => {
  function gatedStdio(mode: "report" | "enforce"): { transport: StdioClientTransport; log: () => string } {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "stdio", "--tools-lock", lockFile, "--rule", `lock=${mode}`, "--log", "json", "--", python, SERVER, "stdio"],
      env: PYTHON_ENV as Record<string, string>,
      stderr: "pipe",
    });
    let log = "";
    (transport.stderr as Readable | null)?.setEncoding("utf8").on("data", (text: string) => (log += text));
    return { transport, log: () => log };
  }
  const alone = () => new StdioClientTransport({ command: python, args: [SERVER, "stdio"], env: PYTHON_ENV as Record<string, string> });

  test("report: the client sees what the server alone lists, before and after; each kind of drift is logged", async () => {
    const { transport, log } = gatedStdio("report");
    const [gated, ungated] = [await connect(transport), await connect(alone())];
    try {
      assert.deepEqual(await listed(gated), await listed(ungated));
      await Promise.all([gated.callTool({ name: "drift", arguments: {} }), ungated.callTool({ name: "drift", arguments: {} })]);
      assert.deepEqual(await listed(gated), await listed(ungated));
      await until(() => driftsIn(log()).drifts.length >= DRIFTS.length);
      assertEachKind(log());
    } finally {
      await Promise.all([gated.close(), ungated.close()]);
    }
  });

  test("enforce: changed and new tools leave the client's list, and their calls are answered as unknown tools", async () => {
    const { transport, log } = gatedStdio("enforce");
    const gated = await connect(transport);
    try {
      await gated.callTool({ name: "drift", arguments: {} });
      assert.deepEqual(await names(gated), ["drift"]);
      for (const name of ["exfiltrate", "echo", "add", "search"]) await refusedAsUnknown(gated, name);
      await until(() => refusedIn(log()) >= 4 && driftsIn(log()).drifts.length >= DRIFTS.length);
      assertEachKind(log());
      assert.equal(refusedIn(log()), 4);
    } finally {
      await gated.close();
    }
  });
});
