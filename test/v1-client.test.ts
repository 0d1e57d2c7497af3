/**
 * The most used client, the official TypeScript SDK v1 (`@modelcontextprotocol/sdk` 1.32.2), through every face of
 * wymcp and without it: the SDK v2's server behind `gateNode` and alone over Streamable HTTP, and over stdio behind
 * `wymcp stdio` and alone; the Python SDK's `MCPServer` behind `wymcp proxy` and alone, and over stdio behind
 * `wymcp stdio` and alone. Every feature, with the resource URIs real clients use: each outcome, message by message,
 * must be the same gated and ungated, and wymcp must refuse nothing.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { dualEraHost } from "../examples/dual-era-host.js";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { gateNode, type RejectInfo } from "wymcp/node";
import { assertFreshDist } from "./support/built.js";
import { CLI } from "./support/cli.js";
import { buildFeatureServer, RESOURCE_URIS, TEMPLATE } from "./support/feature-server.js";
import { startProxy, type RunningProxy } from "./support/proxy.js";
import { PYTHON_ENV, startMcpServerHttp, type PythonHttpServer } from "./support/python-servers.js";
import { pythonEnv } from "./support/python.js";
import { repoRoot } from "./support/spec.js";

before(assertFreshDist);

/** The URIs read beyond the listed ones: the template's own characters, and one the template matches. */
const EXTRA_READS = [TEMPLATE, "test://items/zed"];
/** Roots are `file://` URIs (the spec's text says a root's URI must start with it), spaces and non-ASCII kept. */
const ROOTS = [
  { uri: "file:///Users/José/My Documents", name: "Documents" },
  { uri: "file:///C:/Users/Łukasz/Moje dokumenty", name: "dokumenty" },
];

type Outcome = [feature: string, ...outcome: unknown[]];
type Target = { http: URL } | { stdio: string[] };

/** One v1 client session over `target`: every feature, each outcome recorded in order. */
async function v1Session(target: Target): Promise<Outcome[]> {
  const client = new Client(
    { name: "wymcp-v1-client", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  const notes: unknown[] = [];
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: "café ✓" },
    model: "a-model",
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "José" } }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: ROOTS }));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void notes.push(["log", n.params.level, n.params.data]));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void notes.push(["updated", n.params.uri]));
  const transport =
    "http" in target
      ? new StreamableHTTPClientTransport(target.http)
      : new StdioClientTransport({ command: target.stdio[0]!, args: target.stdio.slice(1), stderr: "ignore", env: PYTHON_ENV as never });
  const out: Outcome[] = [];
  const record = async (feature: string, call: () => Promise<unknown>) => {
    try {
      out.push([feature, "ok", await call()]);
    } catch (error) {
      const { code, name, message } = error as { code?: unknown; name: string; message: string };
      out.push([feature, "error", code ?? name, message]);
    }
    // What arrived while the call ran (logs, resource updates) goes with it.
    if (notes.length > 0) out.push([`${feature}: notifications`, notes.splice(0)]);
  };
  await client.connect(transport);
  try {
    out.push(["initialize", "ok", client.getServerVersion()?.name, Object.keys(client.getServerCapabilities() ?? {}).sort()]);
    await record("ping", () => client.ping());
    await record("tools/list", async () => (await client.listTools()).tools.map((t) => t.name).sort());
    await record("tools/call text", () => client.callTool({ name: "echo", arguments: { text: "héllo wörld" } }));
    await record("tools/call structured", () => client.callTool({ name: "add", arguments: { a: 2, b: 3 } }));
    await record("tools/call error", () => client.callTool({ name: "fail", arguments: {} }));
    await record("tools/call unknown", () => client.callTool({ name: "nope", arguments: {} }));
    await record("tools/call wrong type", () => client.callTool({ name: "add", arguments: { a: "two", b: 3 } }));
    const progress: number[] = [];
    await record("tools/call progress", () =>
      client.callTool({ name: "slow", arguments: { steps: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) }),
    );
    out.push(["progress", progress]);
    // Cancellation, on the first progress the server reports: the client sends notifications/cancelled.
    const abort = new AbortController();
    await record("tools/call cancelled", () =>
      client.callTool({ name: "slow", arguments: { steps: 50 } }, undefined, {
        signal: abort.signal,
        onprogress: () => abort.abort("enough"),
      }),
    );
    await record("logging/setLevel", () => client.setLoggingLevel("info"));
    await record("tools/call logging", () => client.callTool({ name: "log", arguments: { text: "café ✓ 日本" } }));
    await record("sampling, elicitation, roots", () => client.callTool({ name: "ask", arguments: {} }));
    await record("resources/list, every page", async () => {
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listResources(cursor === undefined ? undefined : { cursor });
        pages.push(page.resources.map((r) => r.uri));
        cursor = page.nextCursor;
      } while (cursor !== undefined && pages.length < 10);
      return pages;
    });
    await record("resources/templates/list", () => client.listResourceTemplates());
    for (const uri of [...RESOURCE_URIS, ...EXTRA_READS]) await record(`resources/read ${uri}`, () => client.readResource({ uri }));
    for (const uri of [...RESOURCE_URIS, TEMPLATE]) {
      await record(`resources/subscribe ${uri}`, () => client.subscribeResource({ uri }));
      await record(`resources/unsubscribe ${uri}`, () => client.unsubscribeResource({ uri }));
    }
    await record("prompts/list", () => client.listPrompts());
    await record("prompts/get", () => client.getPrompt({ name: "greet", arguments: { name: "José" } }));
    await record("completion/complete prompt", () =>
      client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "J" } }),
    );
    await record("completion/complete template", () =>
      client.complete({ ref: { type: "ref/resource", uri: TEMPLATE }, argument: { name: "x", value: "a b" } }),
    );
    await record("ping again", () => client.ping());
  } finally {
    await client.close();
  }
  return out;
}

/** One line per feature: its outcome on each face, gated / ungated. */
function outcomeTable(faces: Record<string, [Outcome[], Outcome[]]>): string[] {
  const names = Object.keys(faces);
  const features = faces[names[0]!]![0].map((o) => o[0]);
  const brief = (o: Outcome | undefined) => {
    if (o === undefined) return "-";
    if (o[1] === "error") return `error ${String(o[2])}`;
    return (o[2] as { isError?: boolean } | undefined)?.isError === true ? "isError" : "ok";
  };
  const width = Math.max(...features.map((f) => f.length));
  const lines = [`${"feature".padEnd(width)}  ${names.map((n) => n.padEnd(24)).join("  ")}`];
  for (const [i, feature] of features.entries()) {
    const cells = names.map((n) => {
      const [gated, ungated] = faces[n]!;
      return `${brief(gated[i])} / ${brief(ungated[i])}${JSON.stringify(gated[i]) === JSON.stringify(ungated[i]) ? "" : " DIFFERS"}`.padEnd(
        24,
      );
    });
    lines.push(`${feature.padEnd(width)}  ${cells.join("  ")}`);
  }
  return lines;
}

const faces: Record<string, [Outcome[], Outcome[]]> = {};
const FEATURE_SERVER = join(repoRoot, "test", "support", "feature-server.ts");
const ECHO_SERVERS = join(repoRoot, "test", "python", "echo_servers.py");
// Byte for byte against the server alone: without learning, which answers a call with wrong arguments in wymcp's words
// where the server answers in its own (docs/decisions/learning-on-by-default.md); learning is tested on its own.
const gatedStdio = (command: string[]) => [process.execPath, CLI, "stdio", "--no-learn-tools", "--", ...command];

describe("the TypeScript SDK v1 client: every feature the same through each face of wymcp as without it, nothing refused", () => {
  let server: http.Server;
  let base: URL;
  const rejected: RejectInfo[] = [];
  // Legacy sessions (the v1 client speaks 2025-11-25), so that the server can ask the client for a sample and its roots.
  const handler = dualEraHost(buildFeatureServer, createMcpHandler(buildFeatureServer));
  before(async () => {
    const gate = gateNode(handler, { onReject: (info) => rejected.push(info) });
    const alone = toNodeHandler(handler) as http.RequestListener;
    server = http.createServer((req, res) => (req.url?.startsWith("/gated") ? gate(req, res) : alone(req, res)));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await handler.close();
    for (const line of outcomeTable(faces)) process.stdout.write(`# ${line}\n`);
  });

  test("the SDK v2 server over Streamable HTTP: gateNode and the SDK alone", async (t) => {
    const [gated, ungated] = await Promise.all([
      v1Session({ http: new URL("/gated/mcp", base) }),
      v1Session({ http: new URL("/mcp", base) }),
    ]);
    faces["v2 http (gateNode)"] = [gated, ungated];
    assert.deepEqual(gated, ungated);
    assert.deepEqual(rejected, []);
    assertServed(gated);
    t.diagnostic(`${gated.length} outcomes`);
  });

  test("the SDK v2 server over stdio: wymcp stdio and the server alone", async () => {
    const command = [process.execPath, "--import", "tsx", FEATURE_SERVER];
    const [gated, ungated] = await Promise.all([v1Session({ stdio: gatedStdio(command) }), v1Session({ stdio: command })]);
    faces["v2 stdio (wymcp stdio)"] = [gated, ungated];
    assert.deepEqual(gated, ungated);
    assertServed(gated);
  });

  describe("the Python SDK's MCPServer", () => {
    let python: PythonHttpServer;
    let proxy: RunningProxy;
    before(async () => {
      python = await startMcpServerHttp("features-http");
      proxy = await startProxy(["--upstream", python.url.href, "--no-learn-tools"]);
    });
    after(async () => {
      await proxy?.stop();
      await python?.stop();
    });

    test("over Streamable HTTP: wymcp proxy and the server alone", async () => {
      const [gated, ungated] = await Promise.all([
        v1Session({ http: new URL(python.url.pathname, proxy.url) }),
        v1Session({ http: python.url }),
      ]);
      faces["python http (wymcp proxy)"] = [gated, ungated];
      assert.deepEqual(gated, ungated);
      assert.doesNotMatch(proxy.stderr(), /refused|reported|unreachable/);
      assertServed(gated);
    });

    test("over stdio: wymcp stdio and the server alone", async () => {
      const command = [await pythonEnv(), ECHO_SERVERS, "features-stdio"];
      const [gated, ungated] = await Promise.all([v1Session({ stdio: gatedStdio(command) }), v1Session({ stdio: command })]);
      faces["python stdio (wymcp stdio)"] = [gated, ungated];
      assert.deepEqual(gated, ungated);
      assertServed(gated);
    });
  });
});

/** The session reached the server: the features every server here serves came back served. */
function assertServed(outcomes: Outcome[]): void {
  const served = (feature: string) => outcomes.find((o) => o[0] === feature)?.[1];
  for (const feature of ["ping", "tools/call text", "tools/call structured", "sampling, elicitation, roots", "prompts/get", "ping again"])
    assert.equal(served(feature), "ok", `${feature}: ${JSON.stringify(outcomes.find((o) => o[0] === feature))}`);
  const roots = JSON.stringify(outcomes.find((o) => o[0] === "sampling, elicitation, roots"));
  // The Python SDK hands its tools a root's URI percent-encoded (`Jos%C3%A9/My%20Documents`), the TypeScript SDK as sent.
  assert.match(roots, /Jos(é|%C3%A9)\/My( |%20)Documents/);
}
