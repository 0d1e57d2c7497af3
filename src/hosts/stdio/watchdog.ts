/**
 * @module stdio/watchdog: the server `wymcp stdio` starts must not outlive it, even when wymcp is killed with SIGKILL,
 * which no process can catch or outlive to clean up after itself. The server runs in a process group of its own, and a
 * shell watches that group: the shell reads a pipe whose only writer is wymcp, so when wymcp ends, however it ends, the
 * kernel closes that pipe, the shell reads the end of its input and kills the group. When the server exits first, wymcp
 * writes the shell one line and it exits without killing anything. POSIX only: Windows has no process groups to kill,
 * and there the server's standard input ending with wymcp is its cue to exit.
 */
import { type ChildProcess, spawn } from "node:child_process";

/** Whether servers are started in a group of their own and watched: wherever there are process groups (not Windows). */
export const WATCHED = process.platform !== "win32";

/** A line stands the shell down; the end of its input (wymcp gone) kills the group `$1` names. */
const SCRIPT = 'read _ || kill -s KILL -- "-$1"';

/** The shell watching one server. */
export interface Watchdog {
  /** The server has exited: the shell leaves without killing anything. */
  standDown(): void;
}

/**
 * Starts the shell that kills `server`'s process group once wymcp is gone; undefined where servers are not watched or
 * the shell cannot start (`failed` says why, and the server runs unwatched).
 */
export function watchServer(server: ChildProcess, failed: (reason: string) => void): Watchdog | undefined {
  if (!WATCHED || server.pid === undefined) return undefined;
  let shell: ChildProcess;
  try {
    // A group of its own too: whatever kills wymcp's group leaves the shell to do its work.
    shell = spawn("/bin/sh", ["-c", SCRIPT, "wymcp-stdio-watchdog", String(server.pid)], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    });
  } catch (error) {
    failed((error as Error).message);
    return undefined;
  }
  shell.once("error", (error: NodeJS.ErrnoException) => failed(error.code ?? error.message));
  const pipe = shell.stdin!;
  pipe.on("error", () => undefined);
  // Neither the shell nor its pipe keeps wymcp running.
  shell.unref();
  (pipe as unknown as { unref?(): void }).unref?.();
  return { standDown: () => void pipe.end("\n") };
}

/** Sends `signal` to the server's process group (the server and what it started in it), or to the server alone. */
export function signalServer(server: ChildProcess, signal: NodeJS.Signals): void {
  if (WATCHED && server.pid !== undefined) {
    try {
      process.kill(-server.pid, signal);
      return;
    } catch {
      // The group is gone (the server has exited): the server alone, as before.
    }
  }
  server.kill(signal);
}
