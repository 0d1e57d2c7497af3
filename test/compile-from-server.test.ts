import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { HUNG_CHILD_MS } from "../examples/hung-child.js";
import { repoRoot } from "./support/spec.js";

const cli = join(repoRoot, "dist/cli.js");
const memory = join(repoRoot, "test/fixtures/tool-schemas/server-memory.json");
const refused = join(repoRoot, "test/fixtures/lint/refused-tools.json");
const server = join(repoRoot, "test/support/tools-server.ts");
const tsx = ["--import", "tsx"];
let tmp: string;

before(() => {
  tmp = mkdtempSync(join(tmpdir(), "wymcp-from-"));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

function wymcp(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, "compile", ...args], {
    encoding: "utf8",
    cwd: repoRoot,
    env: { ...process.env, ...env },
    timeout: HUNG_CHILD_MS,
  });
}

/** The SDK's own server over Streamable HTTP, listing `file`'s tools two to a page; its URL once it listens. */
async function httpServer(file: string, env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [...tsx, server, file, "--http"], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before it listened`)));
  });
  return { url, child };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

const toolsOf = (file: string) => (JSON.parse(readFileSync(file, "utf8")) as { tools: unknown[] }).tools;

describe("wymcp compile --from: the SDK's own server over Streamable HTTP", () => {
  let http: { url: string; child: ChildProcess };
  let bad: { url: string; child: ChildProcess };
  before(async () => {
    [http, bad] = await Promise.all([httpServer(memory), httpServer(refused)]);
  });
  after(async () => {
    await Promise.all([stop(http.child), stop(bad.child)]);
  });

  test("every page is asked for (9 tools, 5 pages), and --save keeps the list as the server sent it", () => {
    const saved = join(tmp, "listed.json");
    const run = wymcp(["--from", http.url, "--lint", "--save", saved]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, new RegExp(`9 tools in 5 pages from ${http.url.replace(/[.]/g, "\\.")}`));
    assert.match(run.stdout, /no findings in 18 schemas of 9 tools/);
    assert.deepEqual(toolsOf(saved), toolsOf(memory));
  });

  test("--out compiles what the server lists: the same validators as compiling its file", () => {
    const fromServer = join(tmp, "from-server");
    const fromFile = join(tmp, "from-file");
    assert.equal(wymcp(["--from", http.url, "--out", fromServer]).status, 0);
    assert.equal(wymcp([memory, "--out", fromFile]).status, 0);
    const body = (dir: string) =>
      readFileSync(join(dir, "index.js"), "utf8")
        .split("\n")
        .slice(1)
        .join("\n")
        .replace(/const COMPILED_FROM = .*;/, "");
    assert.equal(body(fromServer), body(fromFile));
    const manifest = JSON.parse(readFileSync(join(fromServer, "manifest.json"), "utf8")) as { inputs: Array<{ file: string }> };
    assert.deepEqual(
      manifest.inputs.map((i) => i.file),
      [http.url],
    );
  });

  test("--lint reports a server's refused tools as listed, including those the SDK's result check would refuse", () => {
    const run = wymcp(["--from", bad.url, "--lint"]);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /tool sendEmailTool {2}\/inputSchema {2}\[root-object\]/);
    assert.match(run.stdout, /tool knowledge_books {2}\/inputSchema {2}\[root-object\]/);
    assert.match(run.stdout, /11 findings in 10 of 11 schemas of 10 tools/);
  });

  test("a server that answers the same nextCursor forever: exit 2, said, not a hang", async () => {
    const loop = await httpServer(memory, { TOOLS_CURSOR_LOOP: "1" });
    try {
      const run = wymcp(["--from", loop.url, "--lint"]);
      assert.equal(run.status, 2);
      assert.match(run.stderr, /nextCursor it had answered before/);
    } finally {
      await stop(loop.child);
    }
  });

  test("nothing listening: exit 2 with the reason", () => {
    const run = wymcp(["--from", "http://127.0.0.1:9/mcp", "--lint"]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^wymcp compile: /m);
  });
});

describe("wymcp compile --from-stdio: the SDK's own server over stdio", () => {
  test("--lint and --out on what it lists, every page", () => {
    const out = join(tmp, "stdio");
    const run = wymcp(["--from-stdio", "--lint", "--out", out, "--", process.execPath, ...tsx, server, memory]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /9 tools in 5 pages from stdio: /);
    assert.match(run.stdout, /no findings in 18 schemas of 9 tools/);
    assert.match(run.stdout, /wymcp compile: 18 schemas; wrote 3 of 3 files/);
  });

  test("usage errors exit 2: no command after --, --from and --from-stdio together, a file and a server together", () => {
    for (const args of [
      ["--from-stdio", "--lint"],
      ["--from", "http://x/mcp", "--from-stdio", "--lint", "--", "x"],
      [memory, "--from", "http://x/mcp", "--lint"],
    ]) {
      const run = wymcp(args);
      assert.equal(run.status, 2, args.join(" "));
      assert.match(run.stderr, /^wymcp compile: /);
    }
  });
});
