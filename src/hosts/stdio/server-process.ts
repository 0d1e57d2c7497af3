/**
 * @module server-process: the stdio server as a process: spawned in a group of its own, its exit code, and the stop
 * signals a client sends passed on to it (killed past a bound).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";
import type { GateLog } from "../../log/gate-log.js";

import { signalServer, WATCHED } from "./watchdog.js";
import type { StdioOptions } from "./stdio-options.js";

/** Default wait for the server to exit after a stop signal before it is killed. */
export const DEFAULT_STOP_TIMEOUT_MS = 5_000;

/** Signals a client sends to stop its server: wymcp passes them on and exits when the server does. */
const FORWARDED_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

/** The server, started, and the exit code it will leave with; or the code to leave with when it cannot be started. */
export function spawnServer(options: StdioOptions, log: GateLog): { child: ChildProcess; exited: Promise<number> } | number {
  let child: ChildProcess;
  try {
    // A process group of its own, which the watchdog kills once wymcp is gone (watchdog.ts).
    child = spawn(options.command, options.args, { stdio: ["pipe", "pipe", "inherit"], detached: WATCHED });
  } catch (error) {
    log.line(
      "spawn-failed",
      { command: options.command, error: (error as Error).message },
      `cannot start ${JSON.stringify(options.command)}: ${(error as Error).message}`,
    );
    return 127;
  }
  const exited = new Promise<number>((resolve) => {
    child.once("error", (error: NodeJS.ErrnoException) => {
      log.line(
        "spawn-failed",
        { command: options.command, error: error.code ?? error.message },
        `cannot start ${JSON.stringify(options.command)}: ${error.code ?? error.message}`,
      );
      resolve(error.code === "EACCES" ? 126 : 127);
    });
    // `close`: the process has exited and its output has been read to the end.
    child.once("close", (code, signal) => resolve(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0)));
  });
  return { child, exited };
}

/**
 * A stop signal is passed on to the server's group; a server still running past the bound is killed. wymcp leaving by
 * any other way (an uncaught error, process.exit) takes the server with it. A SIGKILL of wymcp cannot be caught: the
 * watchdog kills the server's group then (watchdog.ts), and the server's stdin ends. Returns the undoing, for once the
 * server has exited.
 */
export function passStopSignals(child: ChildProcess, stopTimeoutMs: number): () => void {
  let killTimer: NodeJS.Timeout | undefined;
  const forwardSignal = (signal: NodeJS.Signals) => {
    signalServer(child, signal);
    killTimer ??= setTimeout(() => signalServer(child, "SIGKILL"), stopTimeoutMs);
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forwardSignal);
  const orphan = () => signalServer(child, "SIGKILL");
  process.once("exit", orphan);
  return () => {
    for (const signal of FORWARDED_SIGNALS) process.off(signal, forwardSignal);
    clearTimeout(killTimer);
    process.off("exit", orphan);
  };
}

/** Whether the server is still running. */
export function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}
