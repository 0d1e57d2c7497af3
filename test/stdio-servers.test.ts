import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { CLI, cleanEnv } from "./support/cli.js";
import { assertFreshDist } from "./support/built.js";
import { MODERN_META } from "./support/messages.js";
import { drivePython, fastMcpStdio, PYTHON_ENV } from "./support/python-servers.js";
import { MODERN, tsSession } from "./support/ts-sessions.js";

// The bin under test is dist/cli.js: it must be built from the current sources.
before(assertFreshDist);

// The servers nobody here wrote: @modelcontextprotocol/server-filesystem (the official TypeScript SDK v1, legacy only)
// and a FastMCP server (Python, both eras), each launched as a client launches it, with and without wymcp in front.
const FILESYSTEM = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const RECORD = join(import.meta.dirname, "support", "record-stdin.mjs");
// The gate's admission alone, as the servers' own answers are compared: learning (on by default) answers a tool's
// wrong arguments itself, which test/tools-at-edge-faces.test.ts holds against a FastMCP server.
const gated = (command: string[]) => [process.execPath, CLI, "stdio", "--no-learn-tools", "--", ...command];

let dir: string;
let fastmcp: string[];
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "wymcp-stdio-servers-"));
  writeFileSync(join(dir, "hello.txt"), "hello from a file\n");
  fastmcp = await fastMcpStdio();
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe("real stdio servers behind wymcp stdio, each with and without it", () => {
  test("server-filesystem: the official TypeScript client's stdio transport sees the same, gated and ungated", async () => {
    const filesystem = [process.execPath, FILESYSTEM, dir];
    const [through, alone] = await Promise.all([
      tsSession({ stdio: gated(filesystem) }, "legacy", "filesystem", dir),
      tsSession({ stdio: filesystem }, "legacy", "filesystem", dir),
    ]);
    assert.deepEqual(through, alone);
    assert.deepEqual(through.read, { isError: false, content: [{ type: "text", text: "hello from a file\n" }] });
    assert.equal((through.outside as { isError: boolean }).isError, true);
  });

  test("FastMCP: the official TypeScript client's stdio transport sees the same, gated and ungated, legacy and 2026-07-28", async () => {
    const modes = ["legacy", MODERN] as const;
    // Every session at once: each starts its own Python process, which takes seconds to import its SDK.
    const seen = await Promise.all(
      modes.flatMap((mode) => [tsSession({ stdio: gated(fastmcp) }, mode), tsSession({ stdio: fastmcp }, mode)]),
    );
    for (const [i, mode] of modes.entries()) {
      const [through, alone] = [seen[2 * i]!, seen[2 * i + 1]!];
      assert.deepEqual(through, alone, mode);
      assert.equal(through.version, mode === MODERN ? MODERN : "2025-11-25");
      assert.deepEqual(through.echo, { isError: false, content: [{ type: "text", text: "echo: héllo" }] });
    }
  });

  test("the Python SDK client sees the same, gated and ungated: server-filesystem (legacy) and FastMCP (legacy and 2026-07-28)", async () => {
    const filesystem = [process.execPath, FILESYSTEM, dir];
    const seen = await drivePython([
      { name: "filesystem ungated", mode: "legacy", scenario: "filesystem", dir, stdio: filesystem },
      { name: "filesystem gated", mode: "legacy", scenario: "filesystem", dir, stdio: gated(filesystem) },
      { name: "fastmcp legacy ungated", mode: "legacy", stdio: fastmcp },
      { name: "fastmcp legacy gated", mode: "legacy", stdio: gated(fastmcp) },
      { name: "fastmcp modern ungated", mode: MODERN, stdio: fastmcp },
      { name: "fastmcp modern gated", mode: MODERN, stdio: gated(fastmcp) },
    ]);
    for (const name of ["filesystem", "fastmcp legacy", "fastmcp modern"]) {
      const through = seen[`${name} gated`] as Record<string, unknown>;
      assert.equal(through.error, undefined, String(through.error));
      assert.deepEqual(through, seen[`${name} ungated`], name);
    }
    assert.equal((seen["fastmcp modern gated"] as { version: string }).version, MODERN);
  });
});

/** What a driver writing lines by hand gets back, and what reached the server behind the recorder. */
async function drive(command: string[], lines: string[], wantAnswers: number) {
  const record = join(dir, `record-${Math.random().toString(36).slice(2)}`);
  const child = spawn(process.execPath, [CLI, "stdio", "--", process.execPath, RECORD, record, "--", ...command], {
    env: { ...cleanEnv(), ...PYTHON_ENV },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const answers = () =>
    stdout
      .split("\n")
      .slice(0, -1)
      .map(
        (line) =>
          JSON.parse(line) as {
            id: unknown;
            result?: unknown;
            error?: { code: number; data?: { errors: Array<{ instancePath: string }> } };
          },
      );
  const done = new Promise<void>((resolve) => {
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
      if (answers().length >= wantAnswers) resolve();
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  for (const line of lines) child.stdin.write(`${line}\n`);
  await done;
  child.stdin.end();
  await exited;
  return { answers: answers(), received: readFileSync(record, "utf8"), stderr };
}

describe("a driver writing malformed lines to real stdio servers through wymcp stdio", () => {
  const initialize = (version: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
  const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
  const malformed = [
    "this is not JSON",
    JSON.stringify({ jsonrpc: "2.0", id: 77, method: "tools/call", params: "read everything" }),
    JSON.stringify({ jsonrpc: "2.0", id: 78, method: "tools/call", params: { _meta: MODERN_META, name: 5, arguments: {} } }),
    JSON.stringify({ jsonrpc: "2.0", method: 5 }),
    JSON.stringify({ jsonrpc: "2.0", error: { code: 1, message: "junk answered with junk" } }),
  ];
  const list = JSON.stringify({ jsonrpc: "2.0", id: 79, method: "tools/list" });

  for (const [name, command, version] of [
    ["server-filesystem", () => [process.execPath, FILESYSTEM, dir], "2025-11-25"],
    ["FastMCP", () => fastmcp, "2025-11-25"],
  ] as const) {
    test(`${name}: the malformed lines get wymcp's errors, and the server provably never received them`, async () => {
      const { answers, received, stderr } = await drive(command(), [initialize(version), initialized, ...malformed, list], 5);
      const byId = new Map(answers.map((a) => [JSON.stringify(a.id), a]));
      assert.ok(byId.get("1")?.result, "initialize answered by the server");
      assert.equal(byId.get("null")?.error?.code, -32700);
      assert.equal(byId.get("77")?.error?.code, -32600);
      assert.equal(byId.get("78")?.error?.code, -32602);
      assert.ok(byId.get("78")?.error?.data?.errors.some((e) => e.instancePath === "/params/name"));
      assert.ok(
        ((byId.get("79")?.result as { tools?: unknown[] } | undefined)?.tools?.length ?? 0) > 0,
        "tools/list answered by the server",
      );
      assert.equal(answers.length, 5, JSON.stringify(answers));
      // The recorder in front of the server saw the three good lines, in order, and nothing else.
      assert.equal(received, `${initialize(version)}\n${initialized}\n${list}\n`);
      assert.equal(stderr.match(/^wymcp stdio: (refused|dropped)/gm)?.length, malformed.length);
    });
  }
});
