/**
 * `wymcp stdio` toward its two peers: a client that does not read wymcp's answers holds wymcp's reading back (the gate
 * run in process, on a real server process, with a client whose output pipe we fill), and the server it started does
 * not outlive it (the bin as installed, stopped by signals).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import net from "node:net";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { createLog } from "../src/log/gate-log.js";
import { runStdioGate } from "../src/hosts/stdio/gate.js";
import { parseStdioArgs } from "../src/cli/stdio/stdio-command.js";
import { assertFreshDist } from "./support/built.js";
import { CLI, cleanEnv } from "./support/cli.js";
import { until } from "./support/proxy.js";

const ECHO = join(import.meta.dirname, "support", "stdio-echo.mjs");
const work = mkdtempSync(join(tmpdir(), "wymcp-stdio-life-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** Whether a process of this id still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("a client that does not read wymcp's answers", () => {
  test("holds wymcp's reading back: no more lines are judged than fit while its output is full; all are answered once it reads", async () => {
    const record = join(work, "received-backpressure");
    writeFileSync(record, "");
    const { options } = parseStdioArgs(["--", process.execPath, ECHO, record]);
    const input = new PassThrough();
    const held: Array<() => void> = [];
    let reading = false;
    let answers = 0;
    // A client's pipe that takes 1 KiB and then nothing until the client reads.
    const output = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        answers += chunk.toString("utf8").split("\n").length - 1;
        if (reading) callback();
        else held.push(callback);
      },
    });
    const logged: string[] = [];
    const log = createLog("stdio", "text", (line) => void logged.push(line));
    const exit = runStdioGate(options, { input, output }, log);
    const lines = 2_000;
    // Each a request wymcp refuses and answers itself (JSON-RPC 1.0 framing), never the server.
    for (let id = 0; id < lines; id++) input.write(`${JSON.stringify({ jsonrpc: "1.0", id, method: "ping" })}\n`);
    await until(() => output.writableNeedDrain && output.listenerCount("drain") > 0);
    const before = answers + output.writableLength;
    assert.ok(answers < 100, `${answers} answers written into a client that reads nothing`);
    assert.ok(logged.length < 100, `${logged.length} lines judged while the client reads nothing`);
    reading = true;
    for (const callback of held.splice(0)) callback();
    await until(() => answers === lines);
    assert.ok(before < lines);
    assert.equal(logged.length, lines);
    input.end();
    assert.equal(await exit, 0);
  });
});

describe("a stderr nobody reads", () => {
  test("never holds the gate back: every refused request is answered while the log, full, drops its lines and counts them", async () => {
    const record = join(work, "received-log-full");
    writeFileSync(record, "");
    const { options } = parseStdioArgs(["--", process.execPath, ECHO, record]);
    const input = new PassThrough();
    let answers = 0;
    const output = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        answers += chunk.toString("utf8").split("\n").length - 1;
        callback();
      },
    });
    // A stderr pipe that takes 1 KiB and is never read.
    let logged = 0;
    const stderr = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, _callback) {
        logged += chunk.toString("utf8").split("\n").length - 1;
      },
    });
    const exit = runStdioGate(options, { input, output }, createLog("stdio", "text", stderr));
    const lines = 2_000;
    // Each a request wymcp refuses and answers itself, with a log line of its own.
    for (let id = 0; id < lines; id++) input.write(`${JSON.stringify({ jsonrpc: "1.0", id, method: "ping" })}\n`);
    await until(() => answers === lines);
    // Two thousand lines of log would be some 200 KB; the stream holds its buffer and one line.
    assert.ok(stderr.writableLength <= 1024 + 512, `${stderr.writableLength} bytes of log held`);
    assert.equal(logged, 1, "the pipe took one write and never finished it");
    input.end();
    assert.equal(await exit, 0);
  });
});

describe("a client on a real socket that stops reading", () => {
  test("wymcp stops judging its lines once the socket is full, and answers every one once it reads again", async () => {
    const record = join(work, "received-socket");
    writeFileSync(record, "");
    const { options } = parseStdioArgs(["--", process.execPath, ECHO, record]);
    // The client's end reads nothing until told: the kernel's buffers fill, then wymcp's writes report it.
    let clientEnd: net.Socket | undefined;
    const server = net.createServer((socket) => {
      clientEnd = socket;
      socket.pause();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const output = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
    await new Promise((resolve) => output.once("connect", resolve));
    await until(() => clientEnd !== undefined);
    const input = new PassThrough();
    const logged: string[] = [];
    const exit = runStdioGate(
      options,
      { input, output },
      createLog("stdio", "text", (line) => void logged.push(line)),
    );
    // Far more answers than a loopback socket buffers (each answer is about 150 bytes).
    const lines = 60_000;
    const more = () => {
      for (let id = 0; id < lines; id++) input.write(`${JSON.stringify({ jsonrpc: "1.0", id, method: "ping" })}\n`);
    };
    more();
    await until(() => output.writableNeedDrain && output.listenerCount("drain") > 0);
    assert.ok(logged.length < lines, `all ${lines} lines judged into a socket nobody reads`);
    let answers = 0;
    clientEnd!.setEncoding("utf8").on("data", (text: string) => {
      for (const char of text) if (char === "\n") answers++;
    });
    clientEnd!.resume();
    await until(() => answers === lines);
    assert.equal(logged.length, lines);
    input.end();
    assert.equal(await exit, 0);
    output.destroy();
    clientEnd!.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
});

describe("the server does not outlive wymcp stdio", () => {
  before(assertFreshDist);

  /** `wymcp stdio <flags> -- node -e <script>`; resolves once the server has printed its pid on the shared stderr. */
  async function start(flags: string[], script: string) {
    const child = spawn(process.execPath, [CLI, "stdio", ...flags, "--", process.execPath, "-e", script], {
      env: cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
    child.stdout.resume();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    await until(() => /server pid=\d+/.test(stderr));
    const pid = Number(/server pid=(\d+)/.exec(stderr)![1]);
    return { child, pid, exited, stderr: () => stderr };
  }
  const PRINT_PID = 'process.stderr.write("server pid=" + process.pid + "\\n");';

  test("wymcp killed with SIGKILL: the server's stdin ends, and a server that exits on that is gone", async () => {
    const { child, pid, exited } = await start([], `${PRINT_PID} process.stdin.resume(); process.stdin.on("end", () => process.exit(0));`);
    assert.ok(alive(pid));
    child.kill("SIGKILL");
    assert.equal((await exited).signal, "SIGKILL");
    await until(() => !alive(pid));
  });

  test("wymcp killed with SIGKILL: a server that ignores the end of its input, and the process it started, are killed by the watchdog", async (t) => {
    const { child, pid, exited, stderr } = await start(
      [],
      `${PRINT_PID} const kid = require("node:child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" }); process.stderr.write("child pid=" + kid.pid + "\\n"); process.stdin.resume(); setInterval(() => {}, 1000);`,
    );
    await until(() => /child pid=\d+/.test(stderr()));
    const kid = Number(/child pid=(\d+)/.exec(stderr())![1]);
    assert.ok(alive(pid) && alive(kid));
    child.kill("SIGKILL");
    assert.equal((await exited).signal, "SIGKILL");
    // Waits for the event, with the runner's limit as the only bound (its cancellation ends the wait).
    while (alive(pid) || alive(kid)) {
      assert.ok(!t.signal.aborted, `still running: ${[pid, kid].filter(alive).join(", ")}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  test("SIGTERM to wymcp with a server that ignores it: passed on, then the server is killed past --stop-timeout", async () => {
    const { child, pid, exited, stderr } = await start(
      ["--stop-timeout", "300"],
      // The pid is printed once the handler is in place: a signal sent on seeing it must find it.
      `process.on("SIGTERM", () => process.stderr.write("server got SIGTERM\\n")); ${PRINT_PID} process.stdin.resume(); setInterval(() => {}, 1000);`,
    );
    child.kill("SIGTERM");
    const ended = await exited;
    assert.match(stderr(), /server got SIGTERM/);
    assert.equal(ended.code, 128 + 9, "the server's end (SIGKILL) is wymcp's exit code");
    assert.ok(!alive(pid));
  });
});
