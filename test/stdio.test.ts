import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { PassThrough, Writable } from "node:stream";
import { parseStdioArgs } from "../src/cli/stdio/stdio-command.js";
import { isResponseLike, NULL_ID_ANSWER_INTERVAL_MS, runStdioGate } from "../src/hosts/stdio/gate.js";
import { createLog } from "../src/log/gate-log.js";
import { CLI, cleanEnv } from "./support/cli.js";
import { assertFreshDist } from "./support/built.js";
import { MODERN_META } from "./support/messages.js";
import { until } from "./support/proxy.js";

// The bin under test is dist/cli.js: it must be built from the current sources.
before(assertFreshDist);

const ECHO = join(import.meta.dirname, "support", "stdio-echo.mjs");
const work = mkdtempSync(join(tmpdir(), "wymcp-stdio-"));
after(() => rmSync(work, { recursive: true, force: true }));
let runs = 0;

interface Gate {
  child: ChildProcess;
  /** What the server received, as the server recorded it. */
  received: () => string;
  stdout: () => string;
  stderr: () => string;
  /** The client's side lines written so far, parsed. */
  answers: () => Array<Record<string, unknown>>;
  write: (text: string | Buffer) => boolean;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `wymcp stdio <flags> -- node stdio-echo.mjs RECORD <server flags>`, as a client launches it. */
function gate(flags: string[] = [], serverFlags: string[] = []): Gate {
  const record = join(work, `received-${++runs}`);
  writeFileSync(record, "");
  const child = spawn(process.execPath, [CLI, "stdio", ...flags, "--", process.execPath, ECHO, record, ...serverFlags], {
    env: cleanEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  child.stdin!.on("error", () => undefined);
  const guard = () => child.kill("SIGKILL");
  process.once("exit", guard);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => {
      process.off("exit", guard);
      resolve({ code, signal });
    }),
  );
  return {
    child,
    received: () => readFileSync(record, "utf8"),
    stdout: () => stdout,
    stderr: () => stderr,
    // Whole lines only: the last piece may be a line the server has not finished.
    answers: () =>
      stdout
        .split("\n")
        .slice(0, -1)
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    write: (text) => child.stdin!.write(text),
    exited,
  };
}

const request = (id: unknown, method = "tools/list", params?: unknown) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined && { params }) })}\n`;
const SECRET = "s3cr3t-from-a-line";

describe("wymcp stdio in front of a stdio server that records what reaches it", () => {
  test("passing lines reach the server byte for byte and its answers come back unchanged; it exits with the server", async () => {
    const g = gate();
    const odd = `{ "id":1, "method":"initialize","jsonrpc":"2.0","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"\\u00e9"}} }\r\n`;
    const lines = [
      odd,
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
      request(2),
      request("three", "tools/call", { name: "x", arguments: {} }),
    ];
    g.write(lines.join(""));
    await until(() => g.answers().length === 3);
    g.child.stdin!.end();
    assert.deepEqual(await g.exited, { code: 0, signal: null });
    assert.equal(g.received(), lines.join(""));
    assert.deepEqual(
      g.answers().map((a) => [a.id, a.result]),
      [
        [1, { echo: "initialize" }],
        [2, { echo: "tools/list" }],
        ["three", { echo: "tools/call" }],
      ],
    );
    assert.match(g.stderr(), /^stdio-echo: ready$/m);
  });

  test("a passing line longer than a pipe's read (several chunks) reaches the server whole, byte for byte, with its newline", async () => {
    const g = gate();
    // 300 KiB of arguments: a pipe hands wymcp at most 64 KiB per read, so the line is joined from several chunks.
    const long = request(7, "tools/call", { name: "x", arguments: { text: "é".repeat(150_000) } });
    const lines = [long, request(8)];
    g.write(lines.join(""));
    await until(() => g.answers().length === 2);
    g.child.stdin!.end();
    assert.deepEqual(await g.exited, { code: 0, signal: null });
    assert.equal(g.received(), lines.join(""));
    assert.deepEqual(
      g.answers().map((a) => a.id),
      [7, 8],
    );
  });

  test("a refused request is answered with its id and a located error, and never reaches the server", async () => {
    const g = gate();
    const bad = request(7, "tools/call", { _meta: MODERN_META, name: 5, arguments: { note: SECRET } });
    g.write(bad + request(8));
    await until(() => g.answers().length === 2);
    g.child.stdin!.end();
    await g.exited;
    const [refusal, next] = g.answers();
    assert.equal(refusal?.id, 7);
    const error = refusal?.error as { code: number; data: unknown } | undefined;
    assert.equal(error?.code, -32602);
    assert.deepEqual(error?.data, {
      errors: [{ instancePath: "/params/name", messages: ["must be string"] }],
    });
    assert.equal(next?.id, 8);
    assert.equal(g.received(), request(8));
    assert.match(
      g.stderr(),
      /^wymcp stdio: refused -32602 invalid-message rule=params era=modern kind=request method="tools\/call" id=7: /m,
    );
    assert.ok(!g.stderr().includes(SECRET));
  });

  test("--report: a modern notification that is not JSON-RPC goes on to the server as sent, and is reported once (rule framing)", async () => {
    const g = gate(["--report"]);
    const bad = `${JSON.stringify({ jsonrpc: "2.0", method: 5, params: { note: SECRET } })}\n`;
    g.write(`${bad}${request(1)}`);
    await until(() => g.answers().length === 1);
    g.child.stdin!.end();
    await g.exited;
    assert.equal(g.received(), bad + request(1));
    assert.equal(g.stderr().split("report rule=framing").length, 2, g.stderr());
    assert.doesNotMatch(g.stderr(), /dropped/);
    assert.ok(!g.stderr().includes(SECRET));
  });

  test("a refused notification is dropped and logged, never answered and never forwarded", async () => {
    const g = gate();
    // A method that is no string: the modern lane's notification (no legacy signal), whose framing still fails.
    const cancelled = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { _meta: MODERN_META, requestId: 1 } })}\n`;
    g.write(`${JSON.stringify({ jsonrpc: "2.0", method: 5, params: { note: SECRET } })}\n${cancelled}${request(1)}`);
    await until(() => g.answers().length === 1);
    g.child.stdin!.end();
    await g.exited;
    assert.deepEqual(
      g.answers().map((a) => a.id),
      [1],
    );
    // A well-framed modern notification (a cancellation) goes on: over stdio the server needs it.
    assert.equal(g.received(), cancelled + request(1));
    assert.match(g.stderr(), /dropped \(not answered\) -32600 invalid-message rule=framing era=modern kind=notification: /);
    assert.ok(!g.stderr().includes(SECRET));
  });

  test("nothing is ever answered to a line that is itself a response or an error, valid or not", async () => {
    const g = gate();
    const refusedAnswers = [
      { jsonrpc: "2.0", error: { code: -32600, message: "no id" } },
      { jsonrpc: "1.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: { x: 1 }, result: {} },
      { jsonrpc: "2.0", id: 2, error: "not an object" },
      [
        { jsonrpc: "2.0", id: 3, result: {} },
        { jsonrpc: "2.0", error: { code: 1 } },
      ],
    ];
    g.write(refusedAnswers.map((m) => `${JSON.stringify(m)}\n`).join(""));
    // A legacy client's answer to a server request goes on unjudged (the legacy lane's bypass).
    const legacyAnswer = `${JSON.stringify({ jsonrpc: "2.0", id: 4, result: {} })}\n`;
    g.write(legacyAnswer + request(5));
    await until(() => g.answers().length >= 1);
    // wymcp exits after the end of its input, every line judged: what it answered is all there is.
    g.child.stdin!.end();
    await g.exited;
    assert.deepEqual(
      g.answers().map((a) => a.id),
      [5],
    );
    assert.equal(g.received(), legacyAnswer + request(5));
    // Dropped within a second of each other: the first logged in full, the others counted in one line.
    assert.equal(g.stderr().match(/dropped \(not answered\) -32600 invalid-message/g)?.length, 1);
    assert.match(g.stderr(), new RegExp(`dropped \\(not answered\\) ${refusedAnswers.length - 1} more messages within a second`));
    for (const message of refusedAnswers) assert.equal(isResponseLike(message), true, JSON.stringify(message));
    assert.equal(isResponseLike({ jsonrpc: "2.0", id: 1, method: "x", result: {} }), false);
    assert.equal(isResponseLike([]), false);
  });

  test("lines that are not JSON: 500 at once get one -32700 with id null; each is judged, and logged or counted", async () => {
    const g = gate();
    g.write("junk\n".repeat(500));
    await until(() => g.answers().length >= 1);
    g.child.stdin!.end();
    await g.exited;
    // Every line judged: logged in full (the answered one, the first dropped) or counted in its burst's line.
    const logged = g
      .stderr()
      .split("\n")
      .filter((line) => line.includes("parse-error"));
    const judged = logged.reduce((sum, line) => sum + Number(/ (\d+) more messages /.exec(line)?.[1] ?? 1), 0);
    assert.equal(judged, 500, logged.join("\n"));
    assert.ok(logged.length <= 3, logged.join("\n"));
    assert.equal(g.answers().length, 1);
    assert.deepEqual(g.answers()[0], {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: the body is not valid JSON" },
    });
    assert.equal(g.received(), "");
  });

  test("answers with id null are spaced by NULL_ID_ANSWER_INTERVAL_MS on the gate's clock: junk 999 ms after an answer is dropped, at 1000 ms answered", async () => {
    const record = join(work, `received-${++runs}`);
    writeFileSync(record, "");
    const { options } = parseStdioArgs(["--", process.execPath, ECHO, record]);
    // The gate run in process on a clock the test moves: the window is judged by the clock, never by waiting.
    let clock = 5_000;
    const input = new PassThrough();
    let stdout = "";
    const output = new PassThrough().setEncoding("utf8");
    output.on("data", (text: string) => (stdout += text));
    let judgedLines = 0;
    const exit = runStdioGate(
      { ...options, clock: () => clock },
      { input, output },
      createLog("stdio", "text", () => undefined),
      { onVerdict: (event) => void (event.reason === "parse-error" && judgedLines++) },
    );
    const answers = () => stdout.split("\n").length - 1;
    const judged = () => judgedLines;
    try {
      input.write("junk\n".repeat(3));
      await until(() => judged() === 3);
      assert.equal(answers(), 1);
      clock += NULL_ID_ANSWER_INTERVAL_MS - 1;
      input.write("junk\n");
      await until(() => judged() === 4);
      assert.equal(answers(), 1);
      clock += 1;
      input.write("junk\n");
      await until(() => judged() === 5);
      assert.equal(answers(), 2);
      // The window starts again at the second answer.
      clock += NULL_ID_ANSWER_INTERVAL_MS - 1;
      input.write("junk\n");
      await until(() => judged() === 6);
    } finally {
      // The server exits at the end of its input, and the gate with it, whatever failed above.
      input.end();
    }
    assert.equal(await exit, 0);
    assert.equal(answers(), 2);
    assert.equal(NULL_ID_ANSWER_INTERVAL_MS, 1_000);
    assert.equal(readFileSync(record, "utf8"), "");
  });

  test("junk past the once-a-second answer costs the log one line per burst with a count, never a line per message", async () => {
    const record = join(work, `received-${++runs}`);
    writeFileSync(record, "");
    const { options } = parseStdioArgs(["--", process.execPath, ECHO, record]);
    // A clock that never moves: every line falls within the second of the first answer.
    const input = new PassThrough();
    const output = new PassThrough();
    output.resume();
    const logged: string[] = [];
    let judged = 0;
    const exit = runStdioGate(
      { ...options, clock: () => 5_000 },
      { input, output },
      createLog("stdio", "text", (line) => void logged.push(line)),
      { onVerdict: () => void judged++ },
    );
    const junk = 10_000;
    try {
      input.write("junk\n".repeat(junk));
      await until(() => judged === junk);
    } finally {
      input.end();
    }
    assert.equal(await exit, 0);
    assert.deepEqual(logged, [
      "wymcp stdio: refused -32700 parse-error rule=limits id=null: Parse error: the body is not valid JSON\n",
      "wymcp stdio: dropped (not answered) -32700 parse-error rule=limits id=null: Parse error: the body is not valid JSON\n",
      `wymcp stdio: dropped (not answered) ${junk - 2} more messages within a second of the last one logged: -32700 parse-error ×${junk - 2}\n`,
    ]);
  });

  test("a line longer than --max-body-bytes is refused with -32600 and id null and never reaches the server; the next line goes through", async () => {
    const g = gate(["--max-body-bytes", "1024"]);
    await until(() => g.stderr().includes("ready"));
    // Many pipe-sized reads long: how little of it wymcp holds is a target of `npm run bench` (bench/stdio-memory.ts).
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 8; i++) if (!g.write(chunk)) await new Promise((resolve) => g.child.stdin!.once("drain", resolve));
    g.write(`\n${request(1)}`);
    await until(() => g.answers().length === 2);
    g.child.stdin!.end();
    await g.exited;
    const [tooLarge, next] = g.answers();
    assert.deepEqual(tooLarge, {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Payload Too Large: the body exceeds the limit of 1024 bytes" },
    });
    assert.equal(next?.id, 1);
    assert.equal(g.received(), request(1));
  });

  test("blank lines are no messages: neither forwarded, answered nor logged", async () => {
    const g = gate();
    g.write(`\n  \r\n${request(1)}\n`);
    await until(() => g.answers().length === 1);
    g.child.stdin!.end();
    await g.exited;
    assert.equal(g.received(), request(1));
    assert.doesNotMatch(g.stderr(), /wymcp stdio/);
  });

  test("wymcp's answer waits for the end of the server's line: it never lands inside one of the server's messages", async () => {
    const g = gate([], ["--half"]);
    g.write(request(1));
    // The server has written the first half of its answer and holds the rest until SIGUSR1.
    await until(() => g.stdout().length > 0);
    g.write("junk\n");
    // wymcp has judged the junk (it logs each refusal) while the server's line is still open; then the line ends.
    await until(() => g.stderr().includes("parse-error"));
    const server = Number(readFileSync(`/proc/${g.child.pid}/task/${g.child.pid}/children`, "utf8").trim().split(/\s+/)[0]);
    process.kill(server, "SIGUSR1");
    await until(() => g.answers().length === 2);
    g.child.stdin!.end();
    await g.exited;
    assert.deepEqual(
      g.answers().map((a) => a.id),
      [1, null],
    );
  });

  test("the server's exit code becomes wymcp's; a command that cannot start exits 127", async () => {
    const g = gate([], ["--exit", "3"]);
    g.child.stdin!.end();
    assert.deepEqual(await g.exited, { code: 3, signal: null });
    const missing = spawn(process.execPath, [CLI, "stdio", "--", "/nonexistent/wymcp-server"], {
      env: cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    missing.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    const code = await new Promise<number | null>((resolve) => missing.once("close", (status) => resolve(status)));
    assert.equal(code, 127);
    assert.match(stderr, /cannot start "\/nonexistent\/wymcp-server": ENOENT/);
  });

  test("signals are passed on: SIGTERM reaches the server, and its exit code (42) is wymcp's", async () => {
    const g = gate();
    await until(() => g.stderr().includes("ready"));
    g.child.kill("SIGTERM");
    assert.deepEqual(await g.exited, { code: 42, signal: null });
    assert.equal(g.received(), "<SIGTERM>");
  });

  test("backpressure: a client that does not read stops wymcp reading the server; every byte the server wrote arrives once it reads", async () => {
    const record = join(work, `received-${++runs}`);
    writeFileSync(record, "");
    const flood = 32 * 1024 * 1024;
    const { options } = parseStdioArgs(["--", process.execPath, ECHO, record, "--flood", String(flood)]);
    const input = new PassThrough();
    const held: Array<() => void> = [];
    let reading = false;
    let taken = 0;
    // A client's pipe that takes 64 KiB and then nothing until the client reads.
    const output = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _encoding, callback) {
        taken += chunk.length;
        if (reading) callback();
        else held.push(callback);
      },
    });
    const exit = runStdioGate(
      options,
      { input, output },
      createLog("stdio", "text", () => undefined),
    );
    const read = () => {
      reading = true;
      for (const callback of held.splice(0)) callback();
    };
    try {
      // wymcp waits for the client's drain: it has paused its reading of the server (its only wait on the client's side).
      await until(() => output.writableNeedDrain && output.listenerCount("drain") > 0);
      assert.ok(taken < flood, `the whole flood (${taken} bytes) was written into a client that reads nothing`);
      // How much memory that leaves wymcp is a target of `npm run bench` (bench/stdio-memory.ts).
      read();
      const line = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x".repeat(1000) } })}\n`;
      await until(() => taken === Math.ceil(flood / line.length) * line.length);
    } finally {
      // The server exits at the end of its input, and the gate with it, whatever failed above.
      read();
      input.end();
    }
    assert.equal(await exit, 0);
  });

  test("a client that reads late: what the server wrote before SIGTERM is delivered, then wymcp exits with the server's code", async () => {
    const g = gate([], ["--flood", String(64 * 1024 * 1024)]);
    g.child.stdout!.pause();
    // The server is up (its SIGTERM handler set) and flooding: the first bytes have come through.
    await until(() => g.stderr().includes("ready") && g.child.stdout!.readableLength > 0);
    g.child.kill("SIGTERM");
    // What the server wrote before it exited is still delivered: wymcp ends once the client has read it.
    g.child.stdout!.resume();
    assert.equal((await g.exited).code, 42);
  });

  test("backpressure: a server that does not read fills the client's pipe; every line reaches it and is answered once it reads", async () => {
    const g = gate([], []);
    // The echo server reads; SIGSTOP makes it a server that does not.
    await until(() => g.stderr().includes("ready"));
    const pids = readFileSync(`/proc/${g.child.pid}/task/${g.child.pid}/children`, "utf8").trim().split(/\s+/).map(Number);
    const server = pids[0]!;
    process.kill(server, "SIGSTOP");
    let lines = 0;
    try {
      const line = request(1, "tools/list", { pad: "x".repeat(1000) });
      let open = true;
      // Until the client's pipe reports full: wymcp stopped reading it (past a bound, it never did).
      while (open && lines * line.length < 64 * 1024 * 1024) {
        open = g.write(line);
        lines++;
      }
      assert.equal(open, false, `${lines} lines taken without the pipe filling`);
      // How much wymcp holds meanwhile is a target of `npm run bench` (bench/stdio-memory.ts).
    } finally {
      process.kill(server, "SIGCONT");
    }
    await until(() => g.answers().length === lines);
    g.child.stdin!.end();
    assert.equal((await g.exited).code, 0);
    assert.equal(g.received().split("\n").length - 1, lines);
    assert.ok(g.answers().every((a) => a.id === 1));
  });

  test("a client that closes its end while the server floods it: wymcp still sees the server exit, and exits with it", async () => {
    const g = gate([], ["--flood", String(64 * 1024 * 1024)]);
    await until(() => g.stderr().includes("ready") && g.stdout().length > 0);
    g.child.stdout!.destroy();
    g.child.stdin!.end();
    // Still running: the runner's limit fails the test.
    assert.deepEqual(await g.exited, { code: 0, signal: null });
  });

  test("--rule outbound=report: a server message that breaks its method's result is one report line; the bytes go back unchanged", async () => {
    const g = gate(["--rule", "outbound=report", "--log", "json"], ["--bad-result"]);
    g.write(request(1, "tools/call", { name: "x", arguments: {} }));
    await until(() => g.stderr().includes('"rule":"outbound"'));
    g.child.stdin!.end();
    await g.exited;
    assert.deepEqual(g.answers()[0], { jsonrpc: "2.0", id: 1, result: { content: 5 } });
    const violation = g
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((r) => r.event === "report" && r.rule === "outbound");
    assert.equal(violation?.direction, "out");
    assert.equal(violation?.method, "tools/call");
    assert.equal(violation?.id, 1);
    assert.match(String(violation?.message), /content/);
  });

  test("--rule params: a bad legacy tools/call is answered -32602 with its id enforced (the default), never forwarded; report and off forward it, report logs one report line", async () => {
    const bad = request(8, "tools/call", { name: 5, arguments: { note: SECRET } });
    for (const mode of [undefined, "enforce", "report", "off", "--report"] as const) {
      const g = gate(mode === undefined ? [] : mode === "--report" ? [mode] : ["--rule", `params=${mode}`]);
      g.write(bad + request(9));
      await until(() => g.answers().length === 2);
      g.child.stdin!.end();
      await g.exited;
      const [first, next] = g.answers();
      assert.equal(next?.id, 9);
      if (mode === undefined || mode === "enforce") {
        // No header and no initialize: the revision a server assumes without one.
        const error = first?.error as { code: number; message: string } | undefined;
        assert.deepEqual(
          [first?.id, error?.code, error?.message],
          [
            8,
            -32602,
            "Invalid tools/call request (CallToolRequest, revision 2025-03-26): 1 invalid location; first: /params/name must be string",
          ],
        );
        assert.equal(g.received(), request(9), "refused: never reaches the server");
        assert.match(
          g.stderr(),
          /^wymcp stdio: refused -32602 invalid-message rule=params era=legacy kind=request method="tools\/call" id=8: /m,
        );
      } else {
        assert.deepEqual([first?.id, first?.result], [8, { echo: "tools/call" }], mode);
        assert.equal(g.received(), bad + request(9), `${mode}: forwarded unchanged`);
        if (mode === "report" || mode === "--report")
          assert.match(g.stderr(), /^wymcp stdio: report rule=params \(handed on\) 200 -32602 era=legacy method="tools\/call" id=8: /m);
        else assert.ok(!/refused|reported/.test(g.stderr()), g.stderr());
      }
      assert.ok(!g.stderr().includes(SECRET));
    }
  });

  test("a legacy session's lines are judged by the revision the server's initialize answer negotiated (no header on stdio)", async () => {
    const initialize = request(1, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    });
    // Valid in 2025-11-25 (requestId became optional), not in 2025-03-26, the revision assumed with no signal.
    const cancelled = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { reason: "user" } })}\n`;
    const badCall = request(2, "tools/call", { name: 5, arguments: {} });
    for (const negotiated of ["2025-11-25", undefined]) {
      const g = gate([], negotiated ? ["--negotiate", negotiated] : []);
      g.write(initialize);
      await until(() => g.answers().length === 1);
      g.write(cancelled + badCall + request(3));
      await until(() => g.answers().length === 3);
      g.child.stdin!.end();
      await g.exited;
      const error = g.answers()[1]?.error as { code: number; message: string } | undefined;
      const revision = negotiated ?? "2025-03-26";
      assert.equal(error?.code, -32602);
      assert.match(error?.message ?? "", new RegExp(`^Invalid tools/call request \\(CallToolRequest, revision ${revision}\\)`));
      if (negotiated) assert.equal(g.received(), initialize + cancelled + request(3), "the cancellation goes on");
      else {
        assert.equal(g.received(), initialize + request(3), "judged by 2025-03-26, the cancellation is dropped");
        assert.match(
          g.stderr(),
          /dropped \(not answered\) -32602 invalid-message rule=params era=legacy kind=notification method="notifications\/cancelled"/,
        );
      }
    }
  });

  test("a line the server had started when lines stopped being read is not glued to a later initialize answer", async () => {
    // The first answer comes in one write with the start of a notification; its rest is written while the gate reads
    // no server line (nothing awaited). The second initialize negotiates 2025-11-25, where a cancellation needs no
    // requestId: judged by it, the cancellation goes on; by the first answer's 2025-03-26, it would be dropped.
    const init = (id: number) =>
      request(id, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } });
    const initialized = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`;
    const cancelled = `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { reason: "user" } })}\n`;
    const g = gate([], ["--negotiate", "2025-03-26,2025-11-25", "--trail"]);
    g.write(init(1));
    await until(() => g.answers().length === 1);
    g.write(initialized);
    await until(() => g.answers().length === 2);
    g.write(init(2));
    await until(() => g.answers().length === 3);
    g.write(cancelled + request(3));
    await until(() => g.answers().length === 4);
    g.child.stdin!.end();
    await g.exited;
    assert.deepEqual(
      g.answers().map((a) => a.id ?? a.method),
      [1, "notifications/message", 2, 3],
    );
    assert.equal(g.received(), init(1) + initialized + init(2) + cancelled + request(3), "the cancellation goes on");
    assert.ok(!/dropped|refused/.test(g.stderr()), g.stderr());
  });

  test("--rule outbound=report judges the server's lines by the revision the session negotiated, as wymcp check does", async () => {
    // A resource_link in a tool's content: defined from 2025-06-18 on, a violation of 2025-03-26's CallToolResult.
    const result = { content: [{ type: "resource_link", uri: "file:///a.txt", name: "a" }] };
    const logged: Record<string, string | undefined> = {};
    for (const negotiated of ["2025-03-26", "2025-06-18"]) {
      const g = gate(["--rule", "outbound=report", "--log", "json"], ["--negotiate", negotiated, "--result", JSON.stringify(result)]);
      g.write(request(1, "initialize", { protocolVersion: negotiated, capabilities: {}, clientInfo: { name: "c", version: "1" } }));
      await until(() => g.answers().length === 1);
      g.write(request(2, "tools/call", { name: "x", arguments: {} }));
      await until(() => g.answers().length === 2);
      g.child.stdin!.end();
      await g.exited;
      assert.deepEqual(g.answers()[1], { jsonrpc: "2.0", id: 2, result }, "the bytes go back unchanged");
      const violation = g
        .stderr()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((r) => r.event === "report" && r.rule === "outbound");
      logged[negotiated] = violation === undefined ? undefined : `${violation.method} id=${violation.id}: ${violation.message}`;
    }
    assert.match(String(logged["2025-03-26"]), /^tools\/call id=2: Invalid tools\/call result \(CallToolResult, revision 2025-03-26\)/);
    assert.equal(logged["2025-06-18"], undefined);
  });

  test("a refused line that parsed names its method, and a tool's or prompt's name, in both log formats; never an argument", async () => {
    // A params failure, a framing failure (a name that would drive a terminal), a batch whose second item fails.
    const lines = [
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "search", arguments: 5 } },
      { jsonrpc: "1.0", id: 5, method: "prompts/get", params: { name: "greet\u001b[2J", arguments: { q: SECRET } } },
      [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: {}, method: "tools/call", params: { name: "search", arguments: { q: SECRET } } },
      ],
    ]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join("");
    for (const format of ["text", "json"] as const) {
      const g = gate(["--log", format]);
      g.write(lines);
      await until(() => g.stderr().split("refused").length === 4);
      g.child.stdin!.end();
      await g.exited;
      assert.equal(g.received(), "", "nothing reaches the server");
      const logged = g
        .stderr()
        .split("\n")
        .filter((line) => line.includes("refused"));
      assert.ok(
        logged.every((line) => !line.includes(SECRET) && !line.includes("\u001b[")),
        logged.join("\n"),
      );
      if (format === "json")
        assert.deepEqual(
          logged.map((line) => {
            const { code, method, name } = JSON.parse(line) as Record<string, unknown>;
            return [code, method, name];
          }),
          [
            [-32602, "tools/call", "search"],
            [-32600, "prompts/get", "greet\\u001b[2J"],
            [-32600, "tools/call", "search"],
          ],
        );
      else {
        assert.match(
          logged[0]!,
          /^wymcp stdio: refused -32602 invalid-message rule=params era=legacy kind=request method="tools\/call" name="search" id=4: /,
        );
        assert.match(
          logged[1]!,
          / -32600 invalid-message rule=framing era=\w+ kind=request method="prompts\/get" name="greet\\\\u001b\[2J" id=5: /,
        );
        assert.match(logged[2]!, / -32600 invalid-message rule=\w+ era=\w+ kind=batch method="tools\/call" name="search" id=null: /);
      }
    }
  });

  test("learning the tools (the default): a tools/list answer after many lines nobody awaited is learned, and a call that breaks it is answered here", async () => {
    const tools = { tools: [{ name: "add", inputSchema: { type: "object", properties: { a: { type: "number" } }, required: ["a"] } }] };
    // 200 KB of notifications first (lines of 1 KB, some across two reads): none is a tools/list answer.
    const g = gate([], ["--flood", "200000", "--result", JSON.stringify(tools)]);
    await until(() => g.stdout().length >= 200_000);
    g.write(request(1, "tools/list"));
    await until(() => g.answers().some((answer) => answer.id === 1));
    const bad = request(2, "tools/call", { name: "add", arguments: { a: "one" } });
    const good = request(3, "tools/call", { name: "add", arguments: { a: 1 } });
    g.write(bad + good);
    await until(() => g.answers().some((answer) => answer.id === 3));
    g.child.stdin!.end();
    await g.exited;
    const refused = g.answers().find((answer) => answer.id === 2) as { error?: { code: number; message: string } } | undefined;
    assert.equal(refused?.error?.code, -32602);
    assert.match(refused?.error?.message ?? "", /^Invalid params: the arguments of tool add do not match its inputSchema/);
    assert.equal(g.received(), request(1, "tools/list") + good, "the refused call never reached the server");
    assert.match(g.stderr(), /learned 1 tool\(s\) from tools\/list/);
  });

  test("--pass-through judges nothing: junk reaches the server as sent", async () => {
    const g = gate(["--pass-through"]);
    g.write("junk\n");
    await until(() => g.received() === "junk\n");
    g.child.stdin!.end();
    await g.exited;
    assert.equal(g.stdout(), "");
  });

  test("flags: the server's command after --, the gate's flags before it", () => {
    const { options } = parseStdioArgs([
      "--max-depth",
      "8",
      "--",
      "npx",
      "@modelcontextprotocol/server-filesystem",
      "--max-depth",
      "/data",
    ]);
    assert.deepEqual(
      [options.command, options.args, options.limits.maxDepth],
      ["npx", ["@modelcontextprotocol/server-filesystem", "--max-depth", "/data"], 8],
    );
    assert.equal(options.stopTimeoutMs, 5_000);
    assert.equal(parseStdioArgs(["--stop-timeout", "250", "--", "x"]).options.stopTimeoutMs, 250);
    for (const wrong of [
      [],
      ["npx", "server"],
      ["--"],
      ["--max-body-bytes", "0", "--", "x"],
      ["--bogus", "--", "x"],
      ["--stop-timeout", "0", "--", "x"],
      ["--stop-timeout", "Infinity", "--", "x"],
      ["--rule", "origin=enforce", "--", "x"],
      ["--allowed-host", "localhost", "--", "x"],
    ]) {
      assert.throws(() => parseStdioArgs(wrong), /command|must|unknown|origin/, wrong.join(" "));
    }
  });
});
