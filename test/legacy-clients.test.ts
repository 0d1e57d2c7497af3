/**
 * Real clients in legacy mode, through the gate in each state of the `params` rule and through the SDK alone: the official
 * TypeScript client v2, the official Python SDK's client (mcp 2.3.0), FastMCP's client (4.0.10) and the MCP
 * Inspector's command line. Every exchange must be the same gated and ungated, and the gate must refuse (or report)
 * nothing these clients send: that is what the `params` rule enforced by default rests on. A call that does fail
 * its params must reach each client's user as `-32602` with wymcp's located message (answered 200, see validation.md).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as z from "zod";
import { inspectorCli } from "./support/inspector.js";
import { pythonEnv } from "./support/python.js";
import { startLegacyServers, type Door, type LegacyServers } from "./support/legacy-servers.js";
import { repoRoot } from "./support/spec.js";

const run = promisify(execFile);
const COMPARED: Door[] = ["params", "report", "framing", "off"];
const BAD_NAME_MESSAGE =
  "Invalid tools/call request (CallToolRequest, revision 2025-11-25): 1 invalid location; first: /params/name must be string";

let servers: LegacyServers;
before(async () => {
  servers = await startLegacyServers();
});
after(() => servers?.stop());

/** Nothing refused, nothing reported, at any gated door. */
function assertNothingRefused(): void {
  assert.deepEqual(servers.rejected, { params: [], report: [], framing: [], off: [] });
  assert.deepEqual(servers.reported, []);
}

/** What each door saw, as distinct method names, for the diagnostics. */
function methodsSeen(door: Exclude<Door, "answer400" | "strict">): string[] {
  return [...new Set(servers.seen[door])].sort();
}

type Transcript = unknown[];

/** The official TypeScript client's legacy session: every method it sends on the way, each outcome recorded. */
async function tsSession(door: Door): Promise<Transcript> {
  const client = new Client({ name: "wymcp-legacy-clients", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(servers.url(door)));
  const out: Transcript = [client.getNegotiatedProtocolVersion()];
  const record = async (name: string, call: () => Promise<unknown>) => {
    try {
      out.push([name, "ok", await call()]);
    } catch (error) {
      out.push([name, "error", (error as { code?: unknown }).code, String((error as Error).message)]);
    }
  };
  try {
    await record("tools/list", () => client.listTools());
    await record("tools/call echo", () => client.callTool({ name: "echo", arguments: { text: "hi" } }));
    await record("tools/call add", () => client.callTool({ name: "add", arguments: { a: 1, b: 2 } }));
    const progress: unknown[] = [];
    await record("tools/call slow", () =>
      client.callTool({ name: "slow", arguments: { steps: 3 } }, { onprogress: (p) => progress.push(p) }),
    );
    out.push(["progress", progress]);
    // Cancellation: the client sends notifications/cancelled with the request's id and the reason. It gives up at the
    // first progress notification, which the server sends before its result, so the call is always cut short.
    const abort = new AbortController();
    await record("tools/call cancelled", () =>
      client.callTool(
        { name: "slow", arguments: { steps: 5 } },
        { signal: abort.signal, onprogress: () => abort.abort("the user went away") },
      ),
    );
    await record("tools/call unknown", () => client.callTool({ name: "nope", arguments: {} }));
    await record("prompts/list", () => client.listPrompts());
    await record("prompts/get", () => client.getPrompt({ name: "greet", arguments: { name: "Ada" } }));
    await record("completion/complete prompt", () =>
      client.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "A" } }),
    );
    await record("completion/complete template", () =>
      client.complete({ ref: { type: "ref/resource", uri: "note://{id}" }, argument: { name: "id", value: "1" } }),
    );
    await record("resources/list", () => client.listResources());
    await record("resources/templates/list", () => client.listResourceTemplates());
    await record("resources/read static", () => client.readResource({ uri: "file:///readme.txt" }));
    await record("resources/read template", () => client.readResource({ uri: "note://12" }));
    await record("logging/setLevel", () => client.setLoggingLevel("info"));
    await record("ping", () => client.ping());
  } finally {
    await client.close();
  }
  return out;
}

/** One Inspector CLI command against a door: `["ok", stdout]`, or `["exit", code, stdout, stderr]`. */
async function inspector(door: Door, call: string[], home: string): Promise<unknown[]> {
  const args = [
    await inspectorCli(),
    "--cli",
    "--transport",
    "http",
    "--server-url",
    servers.url(door).href,
    "--protocol-era",
    "legacy",
    "--format",
    "json",
    ...call,
  ];
  try {
    const { stdout } = await run(process.execPath, args, { env: { ...process.env, HOME: home } });
    return ["ok", stdout];
  } catch (error) {
    const { code, stdout, stderr } = error as { code: unknown; stdout: string; stderr: string };
    return ["exit", code, stdout, stderr];
  }
}

/** The Python client (`sdk`: the official SDK's, `fastmcp`: FastMCP's) run by test/python/legacy_client.py. */
async function pythonSession(kind: "sdk" | "fastmcp", door: Door, bad?: "bad" | "bad-only"): Promise<unknown[][]> {
  const python = await pythonEnv();
  const args = [join(repoRoot, "test", "python", "legacy_client.py"), kind, servers.url(door).href, ...(bad ? [bad] : [])];
  const { stdout } = await run(python, args, { env: { ...process.env, PYTHONWARNINGS: "ignore" } });
  return JSON.parse(stdout) as unknown[][];
}

describe("real clients in legacy mode: every exchange the same gated (each mode) and ungated, nothing refused", () => {
  test("the official TypeScript client v2 (its default, legacy)", async (t) => {
    const transcripts = await Promise.all(COMPARED.map(tsSession));
    assert.equal(transcripts[0]![0], "2025-11-25");
    for (let i = 1; i < COMPARED.length; i++) assert.deepEqual(transcripts[i], transcripts[0], COMPARED[i]);
    assertNothingRefused();
    t.diagnostic(`TypeScript client: ${transcripts[0]!.length} entries per door; methods: ${methodsSeen("params").join(" ")}`);
  });

  for (const kind of ["sdk", "fastmcp"] as const) {
    test(`the Python ${kind === "sdk" ? "SDK's client (mcp 2.3.0, mode legacy)" : "FastMCP client (4.0.10, mode legacy)"}`, async (t) => {
      servers.seen.params.length = 0;
      const transcripts = await Promise.all(COMPARED.map((door) => pythonSession(kind, door)));
      for (let i = 1; i < COMPARED.length; i++) assert.deepEqual(transcripts[i], transcripts[0], COMPARED[i]);
      if (kind === "sdk") assert.deepEqual(transcripts[0]![0], ["negotiated", "ok", "2025-11-25"]);
      assert.ok(transcripts[0]!.length >= 14);
      assertNothingRefused();
      t.diagnostic(`Python ${kind}: ${transcripts[0]!.length} entries per door; methods: ${methodsSeen("params").join(" ")}`);
    });
  }

  test("the MCP Inspector's command line (--cli, --protocol-era legacy)", async (t) => {
    const home = mkdtempSync(join(tmpdir(), "wymcp-inspector-"));
    t.after(() => rmSync(home, { recursive: true, force: true }));
    const calls: string[][] = [
      ["--method", "tools/list"],
      ["--method", "tools/call", "--tool-name", "echo", "--tool-args-json", '{"text":"hi"}'],
      ["--method", "tools/call", "--tool-name", "add", "--tool-args-json", '{"a":1,"b":2}'],
      ["--method", "tools/call", "--tool-name", "nope", "--tool-args-json", "{}"],
      ["--method", "prompts/list"],
      ["--method", "prompts/get", "--prompt-name", "greet", "--prompt-args", "name=Ada"],
      ["--method", "resources/list"],
      ["--method", "resources/templates/list"],
      ["--method", "resources/read", "--uri", "note://12"],
      ["--method", "logging/setLevel", "--log-level", "info"],
    ];
    servers.seen.params.length = 0;
    const inspect = (door: Door, call: string[]) => inspector(door, call, home);
    const doors: Door[] = ["params", "framing", "off"];
    for (const call of calls) {
      const answers = await Promise.all(doors.map((door) => inspect(door, call)));
      for (let i = 1; i < doors.length; i++) assert.deepEqual(answers[i], answers[0], `${call.join(" ")} at ${doors[i]}`);
      assert.equal(answers[0]![0], call.includes("nope") ? "exit" : "ok", `${call.join(" ")}: ${JSON.stringify(answers[0])}`);
    }
    assertNothingRefused();
    t.diagnostic(`Inspector CLI: ${calls.length} commands per door; methods: ${methodsSeen("params").join(" ")}`);
  });
});

describe("a legacy call whose params fail reaches each client's user as -32602 with wymcp's located message", () => {
  test("the TypeScript client v2: a ProtocolError -32602 (answered 200, application/json); the session goes on", async () => {
    const exchanges: Array<{ status: number; type: string | null }> = [];
    const observe: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (init?.method === "POST" && String(init.body).includes('"name":5'))
        exchanges.push({ status: response.status, type: response.headers.get("content-type") });
      return response;
    };
    const shown: Record<string, unknown[]> = {};
    for (const door of ["params", "off"] as const) {
      const client = new Client({ name: "wymcp-legacy-clients", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(servers.url(door), { fetch: observe }));
      try {
        await client.request({ method: "tools/call", params: { name: 5, arguments: {} } } as never, z.any());
        assert.fail("the call was served");
      } catch (error) {
        shown[door] = [(error as Error).constructor.name, (error as { code?: unknown }).code, (error as Error).message];
      }
      assert.deepEqual(await client.ping(), {});
      await client.close();
    }
    assert.deepEqual(shown.params, ["ProtocolError", -32602, BAD_NAME_MESSAGE]);
    // Ungated, the SDK's own answer: the same code, its Zod issues as text.
    assert.deepEqual(shown.off?.slice(0, 2), ["ProtocolError", -32602]);
    assert.match(String(shown.off?.[2]), /^Invalid tools\/call request: \[/);
    assert.deepEqual(exchanges[0], { status: 200, type: "application/json" });
    assert.equal(servers.rejected.params.at(-1)?.status, 200);
  });

  for (const kind of ["sdk", "fastmcp"] as const) {
    test(`the Python ${kind === "sdk" ? "SDK's client" : "FastMCP client"}: an MCPError -32602 with the message; the session goes on`, async () => {
      const [gated, alone] = await Promise.all([pythonSession(kind, "params", "bad"), pythonSession(kind, "off", "bad")]);
      const bad = (transcript: unknown[][]) => transcript.find((entry) => entry[0] === "tools/call bad name");
      assert.deepEqual(bad(gated), ["tools/call bad name", "error", "MCPError", -32602, BAD_NAME_MESSAGE]);
      assert.deepEqual(bad(alone)?.slice(0, 4), ["tools/call bad name", "error", "MCPError", -32602]);
      assert.match(String(bad(alone)?.[4]), /^Invalid tools\/call request: \[/);
      // Everything else is the same gated and ungated.
      const rest = (transcript: unknown[][]) => transcript.filter((entry) => entry[0] !== "tools/call bad name");
      assert.deepEqual(rest(gated), rest(alone));
    });
  }

  test("the Inspector CLI: exit 1 and wymcp's located message under formats strict (it prints an error's message, not its code)", async (t) => {
    const home = mkdtempSync(join(tmpdir(), "wymcp-inspector-"));
    t.after(() => rmSync(home, { recursive: true, force: true }));
    // A relative URI, as a user types it: the revision's ReadResourceRequest annotates its uri with format "uri".
    const call = ["--method", "resources/read", "--uri", "readme.txt"];
    const [strict, gated, alone] = await Promise.all([
      inspector("strict", call, home),
      inspector("params", call, home),
      inspector("off", call, home),
    ]);
    const shown = (answer: unknown[]) => (JSON.parse(String(answer[3])) as { error: { message: string } }).error.message;
    assert.deepEqual(strict.slice(0, 2), ["exit", 1]);
    assert.equal(
      shown(strict),
      'Invalid resources/read request (ReadResourceRequest, revision 2025-11-25): 1 invalid location; first: /params/uri must be a valid "uri" string',
    );
    // By default a format is an annotation: the server refuses the URI itself, in its own words, gated as alone.
    assert.deepEqual(gated.slice(0, 2), ["exit", 1]);
    assert.equal(shown(gated), "Resource URI readme.txt is invalid");
    assert.deepEqual(alone.slice(0, 2), ["exit", 1]);
    assert.equal(shown(alone), "Resource URI readme.txt is invalid");
  });

  test("why 200: answered 400 instead, the TypeScript client loses the code (a transport error); the Python clients keep it", async () => {
    const client = new Client({ name: "wymcp-legacy-clients", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(servers.url("answer400")));
    try {
      await client.request({ method: "tools/call", params: { name: 5, arguments: {} } } as never, z.any());
      assert.fail("the call was served");
    } catch (error) {
      const { code, message } = error as Error & { code?: unknown };
      assert.deepEqual([(error as Error).constructor.name, code], ["SdkHttpError", "CLIENT_HTTP_NOT_IMPLEMENTED"]);
      assert.ok(message.startsWith("Error POSTing to endpoint: {"), message);
    } finally {
      await client.close();
    }
    const home = mkdtempSync(join(tmpdir(), "wymcp-inspector-"));
    try {
      // The Inspector (the TypeScript SDK underneath) prints the transport error: the raw envelope, not its message.
      const answer = await inspector("answer400", ["--method", "resources/read", "--uri", "readme.txt"], home);
      const shown = JSON.parse(String(answer[3])) as { error: { message: string; status: number } };
      assert.deepEqual([answer[1], shown.error.status], [1, 400]);
      assert.ok(shown.error.message.startsWith('Error POSTing to endpoint: {"jsonrpc":"2.0"'), shown.error.message);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    for (const kind of ["sdk", "fastmcp"] as const) {
      const transcript = await pythonSession(kind, "answer400", "bad-only");
      assert.deepEqual(transcript[0], ["tools/call bad name", "error", "MCPError", -32602, BAD_NAME_MESSAGE], kind);
    }
  });
});
