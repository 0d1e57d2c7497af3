/**
 * What the official clients show their application when wymcp refuses a request: the TypeScript SDK v1 (legacy, the
 * initialize handshake), the TypeScript SDK v2 (pinned to 2026-07-28) and the Python SDK (mcp 2.3.0, both eras), each
 * against tmcp behind `gateFetch` with `allow.hosts` and `allow.versions` set. Each refusal is provoked on one
 * tools/call by changing that request on its way out (a custom fetch, an httpx transport): a framing fault, a params
 * fault, a header that disagrees with the body, a revision the edge does not support, a foreign Origin; and, where the
 * gate knows the server's tools, arguments that fail the tool's inputSchema. Each client must surface an error naming
 * the code (or the HTTP status), or an `isError` result: never hang, never crash. The table of what each client
 * surfaces is docs/validation.md's "What the official clients show" section (UPDATE_GOLDEN=1 rewrites it).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { gateFetch } from "wymcp/fetch";
import { replaceSection } from "../scripts/doc-sections.js";
import { type ServedFetch, serveFetch } from "./support/bare-server.js";
import { edgeToolsOption } from "./support/edge-tools-option.js";
import { tmcpServer } from "./support/frameworks.js";
import { updatingGoldens } from "./support/golden.js";
import { pythonEnv } from "./support/python.js";
import { PYTHON_ENV } from "./support/python-servers.js";
import { repoRoot } from "./support/spec.js";

const MODERN = "2026-07-28";
const REVISIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN];
const DOC = join(repoRoot, "docs", "validation.md");
const PYTHON_SCRIPT = join(repoRoot, "test", "python", "client_views.py");

/** How a case changes the tools/call request on its way out. */
interface Tamper {
  jsonrpc?: string;
  paramsName?: unknown;
  metaVersion?: string;
  headers?: Record<string, string>;
}

interface Case {
  kind: string;
  /** What the gate answers: a JSON-RPC code, an HTTP status, or a tool execution error. */
  expect: { code: number } | { status: number } | { isError: true };
  tamper?: Tamper;
  arguments?: Record<string, unknown>;
  /** Only for clients of this era (a legacy client sends no Mcp-Method or Mcp-Name header to disagree with). */
  era?: "modern";
  /** What a legacy client meets instead, and why. */
  legacy?: { expect: Case["expect"]; why: string };
  /**
   * A client that surfaces the refusal without naming its code or status: what it shows instead (its error class and
   * code), pinned so that a change in the client is seen.
   */
  unnamedBy?: { client: string; class: string; code: number };
}

const CASES: Case[] = [
  { kind: 'framing (-32600): `jsonrpc` is "1.0"', expect: { code: -32600 }, tamper: { jsonrpc: "1.0" } },
  { kind: "params (-32602): the tool's name is a number", expect: { code: -32602 }, tamper: { paramsName: 5 } },
  {
    kind: "header mismatch (-32020): `Mcp-Name` names another tool",
    expect: { code: -32020 },
    tamper: { headers: { "mcp-name": "another_tool" } },
    era: "modern",
  },
  {
    kind: "unsupported version (-32022): header and `_meta` name 2099-01-01",
    expect: { code: -32022 },
    tamper: { headers: { "mcp-protocol-version": "2099-01-01" }, metaVersion: "2099-01-01" },
    // A revision wymcp does not know in the header puts the request on the modern lane, where a legacy body lacks `_meta`.
    legacy: { expect: { code: -32602 }, why: "a legacy body under an unknown revision's header is judged as a modern request: no `_meta`" },
  },
  {
    kind: "Host/Origin (403): a foreign `Origin`",
    expect: { status: 403 },
    tamper: { headers: { origin: "http://evil.example" } },
    // The Python client turns any HTTP error status into -32603 "Server returned an error response", without the status.
    unnamedBy: { client: "Python SDK", class: "MCPError", code: -32603 },
  },
  {
    kind: "tool arguments (isError): `region` is a number",
    expect: { isError: true },
    arguments: { region: 5 },
    // Invalid arguments are a tool execution error from 2025-11-25 on; the legacy clients settle on 2025-06-18 with tmcp.
    legacy: { expect: { code: -32602 }, why: "the revision settled with tmcp is 2025-06-18, where invalid arguments are -32602" },
  },
];

/** What a client showed its application for one case. */
interface Seen {
  stage: "call" | "session";
  class?: string;
  message?: string;
  code?: number | string;
  /** The HTTP status, where the error carries one. */
  status?: number;
  result?: { isError: boolean; text: string };
}

/** A fetch that applies `tamper` to the tools/call request only, then sends it as usual. */
function tamperingFetch(tamper: Tamper): typeof fetch {
  return async (input, init) => {
    let body = init?.body;
    let headers = new Headers(init?.headers);
    if (typeof body === "string") {
      const message = JSON.parse(body) as { jsonrpc: string; method?: string; params?: Record<string, unknown> };
      if (message.method === "tools/call") {
        if (tamper.jsonrpc !== undefined) message.jsonrpc = tamper.jsonrpc;
        if ("paramsName" in tamper) message.params!.name = tamper.paramsName;
        const meta = message.params?._meta as Record<string, unknown> | undefined;
        if (tamper.metaVersion !== undefined && meta) meta["io.modelcontextprotocol/protocolVersion"] = tamper.metaVersion;
        body = JSON.stringify(message);
        headers = new Headers(headers);
        for (const [name, value] of Object.entries(tamper.headers ?? {})) headers.set(name, value);
      }
    }
    return fetch(input, { ...init, body, headers });
  };
}

function describeError(error: unknown): Omit<Seen, "stage"> {
  const e = error as { constructor?: { name?: string }; message?: string; code?: unknown; status?: unknown };
  return {
    class: e?.constructor?.name ?? typeof error,
    message: String(e?.message ?? error),
    ...((typeof e?.code === "number" || typeof e?.code === "string") && { code: e.code }),
    ...(typeof e?.status === "number" && { status: e.status }),
  };
}

/** One session of a TypeScript client: connect, list the tools, call `lookup`; what the application saw. */
async function tsSession(
  connect: (
    fetch: typeof globalThis.fetch,
  ) => Promise<{ call: (args: Record<string, unknown>) => Promise<unknown>; close: () => Promise<void> }>,
  c: Case,
): Promise<Seen> {
  let client: Awaited<ReturnType<typeof connect>>;
  try {
    client = await connect(tamperingFetch(c.tamper ?? {}));
  } catch (error) {
    return { stage: "session", ...describeError(error) };
  }
  try {
    const result = (await client.call(c.arguments ?? { region: "eu" })) as { isError?: boolean; content?: { text?: string }[] };
    return {
      stage: "call",
      result: { isError: result.isError === true, text: (result.content ?? []).map((x) => x.text ?? "").join(" ") },
    };
  } catch (error) {
    return { stage: "call", ...describeError(error) };
  } finally {
    await client.close().catch(() => {});
  }
}

const V1 = (url: URL) => async (fetch: typeof globalThis.fetch) => {
  const client = new ClientV1({ name: "wymcp-client-views", version: "0.0.0" });
  await client.connect(new TransportV1(url, { fetch }));
  await client.listTools();
  return { call: (args: Record<string, unknown>) => client.callTool({ name: "lookup", arguments: args }), close: () => client.close() };
};

const V2 = (url: URL) => async (fetch: typeof globalThis.fetch) => {
  const client = new ClientV2({ name: "wymcp-client-views", version: "0.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new TransportV2(url, { fetch }));
  await client.listTools();
  return { call: (args: Record<string, unknown>) => client.callTool({ name: "lookup", arguments: args }), close: () => client.close() };
};

async function pythonSessions(url: URL, mode: string, cases: Case[]): Promise<Record<string, Seen>> {
  const job = {
    url: url.href,
    mode,
    cases: cases.map((c) => ({ name: c.kind, tamper: c.tamper ?? {}, arguments: c.arguments ?? { region: "eu" } })),
  };
  const { stdout } = await promisify(execFile)(await pythonEnv(), [PYTHON_SCRIPT, JSON.stringify(job)], {
    env: PYTHON_ENV,
    maxBuffer: 4 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Record<string, Seen>;
}

/** The code or status a case must be named by, as it appears in a message. */
const named = (expect: Case["expect"]) => ("code" in expect ? String(expect.code) : "status" in expect ? String(expect.status) : "isError");

/** One cell of the table: the class and the message (ports and ids taken out), or the result. */
function cell(seen: Seen): string {
  if (seen.result) return `result, isError: ${seen.result.isError}: "${shorten(seen.result.text)}"`;
  const where = seen.stage === "session" ? " (at connect)" : "";
  const fields = [seen.code !== undefined && `code ${seen.code}`, seen.status !== undefined && `status ${seen.status}`].filter(Boolean);
  return `${seen.class}${fields.length > 0 ? ` (${fields.join(", ")})` : ""}${where}: "${shorten(seen.message ?? "")}"`;
}

function shorten(text: string): string {
  const one = text
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")
    .replace(/\s+/g, " ")
    .replace(/\|/g, "\\|")
    .trim();
  return one.length > 160 ? `${one.slice(0, 157)}...` : one;
}

/** What a client must surface for a case: the legacy lane's answer for a legacy client, else the case's. */
const expectFor = (client: string, c: Case) => (c.legacy && client.includes("legacy") ? c.legacy.expect : c.expect);

/**
 * Whether what the client surfaced at the call names the expected code or status (or is the isError result); for a
 * client the case names as surfacing it unnamed, whether it is that error.
 */
function surfacesTheCode(seen: Seen, client: string, c: Case): boolean {
  const expect = expectFor(client, c);
  if (seen.stage !== "call") return false;
  if ("isError" in expect) return seen.result?.isError === true;
  if (seen.result) return false;
  if (c.unnamedBy && client.startsWith(c.unnamedBy.client)) return seen.class === c.unnamedBy.class && seen.code === c.unnamedBy.code;
  const number = "code" in expect ? expect.code : expect.status;
  return seen.code === number || seen.status === number || (seen.message ?? "").includes(String(number));
}

describe("what the official clients show when wymcp refuses a tools/call", () => {
  let served: ServedFetch;
  let tools: Record<string, unknown> | undefined;
  const clients = ["TS SDK v1 (legacy)", "TS SDK v2 (2026-07-28)", "Python SDK (legacy)", "Python SDK (2026-07-28)"] as const;
  const seen = new Map<string, Map<string, Seen>>(clients.map((client) => [client, new Map()]));
  const applicable = (client: string, c: Case) =>
    (c.era !== "modern" || client.includes(MODERN)) && ("isError" in c.expect ? tools !== undefined : true);

  before(async () => {
    tools = await edgeToolsOption();
    served = await serveFetch((port) =>
      gateFetch(tmcpServer({ lookup: true }).handler, {
        allow: { hosts: [`127.0.0.1:${port}`], versions: REVISIONS },
        ...(tools && { tools }),
      } as never),
    );
  });
  after(() => served?.stop());

  test("the TypeScript SDK v1 and v2 clients, each case in its own session", async () => {
    for (const c of CASES) {
      if (applicable(clients[0], c)) seen.get(clients[0])!.set(c.kind, await tsSession(V1(served.url), c));
      if (applicable(clients[1], c)) seen.get(clients[1])!.set(c.kind, await tsSession(V2(served.url), c));
    }
  });

  test("the Python SDK client, legacy and 2026-07-28", async () => {
    for (const [client, mode] of [
      [clients[2], "legacy"],
      [clients[3], MODERN],
    ] as const) {
      const out = await pythonSessions(
        served.url,
        mode,
        CASES.filter((c) => applicable(client, c)),
      );
      for (const [kind, value] of Object.entries(out)) seen.get(client)!.set(kind, value);
    }
  });

  test("every client surfaces an error naming the code or status (or the isError result): none hangs or crashes", () => {
    const misses: string[] = [];
    for (const client of clients)
      for (const c of CASES) {
        if (!applicable(client, c)) continue;
        const got = seen.get(client)!.get(c.kind);
        if (!got || !surfacesTheCode(got, client, c)) misses.push(`${client}, ${c.kind}: ${got ? cell(got) : "not run"}`);
      }
    assert.deepEqual(misses, []);
  });

  test("docs/validation.md's table is what this run saw (UPDATE_GOLDEN=1 rewrites it)", (t) => {
    if (tools === undefined)
      t.diagnostic("this build's faces take no `tools` option: the tool-arguments row is marked not run, not judged");
    const rows = CASES.map((c) => {
      const cells = clients.map((client) => {
        const got = seen.get(client)!.get(c.kind);
        if (got) return cell(got);
        if ("isError" in c.expect && tools === undefined) return "not run: this build's gate takes no `tools` option";
        return "n/a: a legacy client sends no `Mcp-Name` header";
      });
      return `| ${c.kind} | ${cells.join(" | ")} |`;
    });
    const table = [
      "Written by test/client-views.test.ts (`UPDATE_GOLDEN=1` rewrites it): tmcp behind `gateFetch`, one tools/call per session changed on its way out.",
      "",
      `| refusal | ${clients.join(" | ")} |`,
      `|---|${clients.map(() => "---").join("|")}|`,
      ...rows,
      "",
      ...CASES.flatMap((c) => [
        ...(c.legacy ? [`- ${c.kind}, legacy clients: ${c.legacy.why} (${named(c.legacy.expect)}).`] : []),
        ...(c.unnamedBy ? [`- ${c.kind}: the ${c.unnamedBy.client} client names neither the status nor the body's code.`] : []),
      ]),
    ].join("\n");
    const doc = readFileSync(DOC, "utf8");
    if (updatingGoldens()) return writeFileSync(DOC, replaceSection(doc, "clients:views", table));
    // Only the section is compared, so that a difference shows the table, not the whole document.
    const written = /<!-- clients:views -->\n([\s\S]*?)\n<!-- \/clients:views -->/.exec(doc)?.[1];
    assert.equal(written, table.trim(), "docs/validation.md's client table differs from this run: UPDATE_GOLDEN=1 rewrites it");
  });
});
