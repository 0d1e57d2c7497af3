/**
 * @module examples/launch: starts an example server (`examples/server.ts` unless told otherwise), or `wymcp proxy`, as a child
 * process on a free loopback port and resolves once it prints its listening line; used by the end-to-end
 * and load tests and by `npm run conformance`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { HUNG_CHILD_MS } from "./hung-child.js";

export interface LaunchedExample {
  /** The `/mcp` endpoint, as printed by the server. */
  url: URL;
  pid: number;
  /** What the server wrote to stderr so far (the last 64 KiB), for failure messages. */
  stderr: () => string;
  stop: () => Promise<void>;
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LISTENING = / listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/;

export interface LaunchOptions {
  /** The example to run, relative to the repository root. */
  script?: string;
  /** Extra environment variables for the server (e.g. `WYMCP_GATE`). */
  env?: Record<string, string>;
  /** Node options before the script (e.g. `--max-old-space-size=384`). */
  nodeArgs?: string[];
}

/** Spawns the example with `PORT=0` and waits until it listens (or exits first, which fails). */
export async function launchExample({
  script = "examples/server.ts",
  env = {},
  nodeArgs = [],
}: LaunchOptions = {}): Promise<LaunchedExample> {
  const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", script], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  // Both pipes are always drained: a full pipe would block the server's logging and so the server.
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr = (stderr + text).slice(-65_536);
  });
  // If the test process ends without calling stop() (a crash, a cancelled run), the server must not outlive it.
  const orphanGuard = () => child.kill("SIGKILL");
  process.once("exit", orphanGuard);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      process.off("exit", orphanGuard);
      resolve();
    }),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      child.stdout.setEncoding("utf8").on("data", (text: string) => {
        stdout = (stdout + text).slice(-65_536);
        const match = LISTENING.exec(stdout);
        if (match?.[1]) resolve(new URL(match[1]));
      });
      child.once("exit", (code, signal) => {
        reject(new Error(`example exited (${code ?? signal}) before listening; stderr: ${stderr}`));
      });
    });
    return { url, pid: child.pid ?? -1, stderr: () => stderr, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface LaunchedProxy {
  /** The proxied endpoint: the upstream's path on the proxy's address. */
  url: URL;
  child: ChildProcess;
  /** What the proxy wrote to stderr so far (its log). */
  stderr: () => string;
  /** Resolves to the exit code once the proxy has ended. */
  exited: Promise<number | null>;
  /** SIGTERM (the proxy drains, then exits 0), SIGKILL once it is hung (`HUNG_CHILD_MS`); resolves to the exit code. */
  stop: () => Promise<number | null>;
}

/**
 * Starts `wymcp proxy --upstream <upstream> --listen 127.0.0.1:0 <args>` as a child process (with `env` added to this
 * process's environment) and resolves once it listens.
 * `cli` is the bin to run: the built one (`dist/cli.js`, as installed) or the source through tsx.
 */
export async function launchProxy(
  upstream: URL,
  { args = [], cli = "dist", env = {} }: { args?: string[]; cli?: "dist" | "src"; env?: Record<string, string> } = {},
): Promise<LaunchedProxy> {
  const bin = cli === "dist" ? ["dist/cli.js"] : ["--import", "tsx", "src/cli/node-cli.ts"];
  const child = spawn(process.execPath, [...bin, "proxy", "--upstream", upstream.href, "--listen", "127.0.0.1:0", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const orphanGuard = () => child.kill("SIGKILL");
  process.once("exit", orphanGuard);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      process.off("exit", orphanGuard);
      resolve(code);
    }),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), HUNG_CHILD_MS);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  for (;;) {
    const match = /listening on (http:\/\/[^\s,]+)|"event":"listening","url":"(http:\/\/[^"]+)"/.exec(stderr);
    const url = match?.[1] ?? match?.[2];
    if (url) return { url: new URL(url), child, stderr: () => stderr, exited, stop };
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`wymcp proxy exited (${child.exitCode ?? child.signalCode}) before listening; stderr: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
