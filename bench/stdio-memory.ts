/**
 * @module `wymcp stdio`'s memory where a peer could make it pile bytes up: a line far past `--max-body-bytes`, a client
 * that does not read a flooding server, a server that does not read a writing client. The built bin
 * (`node dist/cli.js stdio`) in front of test/support/stdio-echo.mjs; the figure is the bin's peak RSS (VmHWM from
 * /proc). test/stdio.test.ts pins the behaviour (the long line refused and the next served, every byte delivered once
 * the peer reads); the bench judges the memory against its targets (bench/report.ts). Linux only (/proc).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const CLI = join(root, "dist", "cli.js");
const ECHO = join(root, "test", "support", "stdio-echo.mjs");

export interface StdioMemorySettings {
  /** Length of the line past the limit (1 KiB), in MiB. */
  longLineMiB: number;
  /** What the server would write to a client that does not read, in bytes. */
  floodBytes: number;
  /** How long a peer that does not read is left to fill every buffer before the peak is read, in ms. */
  holdMs: number;
}

export const STDIO_MEMORY_FULL: StdioMemorySettings = { longLineMiB: 192, floodBytes: 512 * 1024 * 1024, holdMs: 1_500 };
export const STDIO_MEMORY_QUICK: StdioMemorySettings = { longLineMiB: 16, floodBytes: 64 * 1024 * 1024, holdMs: 200 };

export interface StdioMemoryFigures {
  settings: StdioMemorySettings;
  /** The long line: RSS once ready, and the peak once the line after it is answered (KiB). */
  longLine: { baseKiB: number; peakKiB: number };
  /** A client that does not read a flooding server: the peak after `holdMs` (KiB), and what reached the client. */
  clientNotReading: { peakKiB: number; deliveredBytes: number };
  /** A server that does not read (SIGSTOP): the peak after `holdMs` (KiB), and what the client's pipe took first. */
  serverNotReading: { peakKiB: number; acceptedBytes: number };
}

const status = (pid: number, field: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);

async function until(condition: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`stdio memory: no ${what} within ${ms} ms`);
    await sleep(10);
  }
}

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  server: () => number;
}

function run(work: string, flags: string[], serverFlags: string[], encoding = true): Run {
  const record = join(work, `received-${Math.random().toString(36).slice(2)}`);
  writeFileSync(record, "");
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [CLI, "stdio", ...flags, "--", process.execPath, ECHO, record, ...serverFlags], {
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  if (encoding) child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  child.stdin!.on("error", () => undefined);
  const exited = new Promise<number | null>((done) => child.once("close", (code) => done(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    server: () => Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(/\s+/)[0]),
  };
}

const lines = (text: string) => text.split("\n").length - 1;
const REQUEST = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} })}\n`;

async function longLine(work: string, settings: StdioMemorySettings): Promise<StdioMemoryFigures["longLine"]> {
  const r = run(work, ["--max-body-bytes", "1024"], []);
  try {
    await until(() => r.stderr().includes("ready"), "ready");
    const baseKiB = status(r.child.pid!, "VmRSS");
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < settings.longLineMiB; i++)
      if (!r.child.stdin!.write(chunk)) await new Promise((done) => r.child.stdin!.once("drain", done));
    r.child.stdin!.write(`\n${REQUEST}`);
    await until(() => lines(r.stdout()) === 2, "answer to the long line and the one after it");
    return { baseKiB, peakKiB: status(r.child.pid!, "VmHWM") };
  } finally {
    r.child.stdin!.end();
    await r.exited;
  }
}

async function clientNotReading(work: string, settings: StdioMemorySettings): Promise<StdioMemoryFigures["clientNotReading"]> {
  const r = run(work, [], ["--flood", String(settings.floodBytes)], false);
  let delivered = 0;
  r.child.stdout!.on("data", (chunk: Buffer) => (delivered += chunk.length));
  r.child.stdout!.pause();
  await until(() => r.stderr().includes("ready") && r.child.stdout!.readableLength > 0, "first flooded bytes");
  // The bench's own wait: every buffer between the server and this process fills in it.
  await sleep(settings.holdMs);
  const peakKiB = status(r.child.pid!, "VmHWM");
  r.child.kill("SIGTERM");
  r.child.stdout!.resume();
  await r.exited;
  return { peakKiB, deliveredBytes: delivered };
}

async function serverNotReading(work: string, settings: StdioMemorySettings): Promise<StdioMemoryFigures["serverNotReading"]> {
  const r = run(work, [], []);
  await until(() => r.stderr().includes("ready"), "ready");
  const server = r.server();
  process.kill(server, "SIGSTOP");
  try {
    const line = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(1000) } })}\n`;
    let accepted = 0;
    // Written as fast as the pipe takes it, for as long as it does: each drain is a sign wymcp read more.
    const deadline = Date.now() + settings.holdMs;
    while (Date.now() < deadline && accepted < settings.floodBytes) {
      if (r.child.stdin!.write(line)) accepted += line.length;
      else {
        accepted += line.length;
        const drained = await Promise.race([
          new Promise<boolean>((done) => r.child.stdin!.once("drain", () => done(true))),
          sleep(Math.max(0, deadline - Date.now())).then(() => false),
        ]);
        if (!drained) break;
      }
    }
    return { peakKiB: status(r.child.pid!, "VmHWM"), acceptedBytes: accepted };
  } finally {
    process.kill(server, "SIGCONT");
    r.child.kill("SIGTERM");
    await r.exited;
  }
}

/** The three cases in turn, each on a fresh `wymcp stdio`; needs dist/ built. */
export async function runStdioMemory(settings: StdioMemorySettings): Promise<StdioMemoryFigures> {
  const work = mkdtempSync(join(tmpdir(), "wymcp-bench-stdio-"));
  try {
    return {
      settings,
      longLine: await longLine(work, settings),
      clientNotReading: await clientNotReading(work, settings),
      serverNotReading: await serverNotReading(work, settings),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
