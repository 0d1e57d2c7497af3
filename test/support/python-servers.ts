/**
 * The Python peers of the reach tests: the servers of test/python/echo_servers.py and the official Python SDK client
 * of test/python/drive.py, run from the virtual environment test/support/python.ts prepares.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { HUNG_CHILD_MS } from "../../examples/hung-child.js";
import { pythonEnv } from "./python.js";
import { repoRoot } from "./spec.js";

export const ECHO_SERVERS = join(repoRoot, "test", "python", "echo_servers.py");
const DRIVE = join(repoRoot, "test", "python", "drive.py");

/** Python's own logging is quiet, and its output unbuffered, in every process the tests start. */
export const PYTHON_ENV = { ...process.env, PYTHONUNBUFFERED: "1", FASTMCP_LOG_LEVEL: "WARNING", FASTMCP_SHOW_CLI_BANNER: "false" };

export interface PythonHttpServer {
  url: URL;
  child: ChildProcess;
  stderr: () => string;
  stop: () => Promise<void>;
}

/**
 * The official SDK's `MCPServer` over Streamable HTTP on a free loopback port: the echo tools (with `header-http`, also a
 * tool whose argument carries `x-mcp-header`), or with `features-http` every feature of test/support/feature-server.ts,
 * or with `formats-http` the tools of test/python/format_tools.py.
 */
export async function startMcpServerHttp(
  mode: "mcpserver-http" | "features-http" | "header-http" | "formats-http" = "mcpserver-http",
): Promise<PythonHttpServer> {
  const python = await pythonEnv();
  const child = spawn(python, [ECHO_SERVERS, mode], { env: PYTHON_ENV, stdio: ["ignore", "pipe", "pipe"] });
  const guard = () => child.kill("SIGKILL");
  process.once("exit", guard);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      process.off("exit", guard);
      resolve();
    }),
  );
  let stdout = "";
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr = (stderr + text).slice(-65_536)));
  const url = await new Promise<URL>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1]) resolve(new URL(match[1]));
    });
    void exited.then(() => reject(new Error(`the Python server exited before listening: ${stderr}`)));
  });
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async () => {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The FastMCP stdio server's command line. */
export async function fastMcpStdio(): Promise<string[]> {
  return [await pythonEnv(), ECHO_SERVERS, "fastmcp-stdio"];
}

/** One session of the Python SDK's client: a name, a mode ("legacy" or a modern revision), a scenario, a target. */
export type PythonSession = { name: string; mode: string; scenario?: "echo" | "filesystem"; dir?: string } & (
  | { http: string }
  | { stdio: string[] }
);

/** Runs every session in one Python process (importing the SDK takes seconds); resolves to what each saw, by name. */
export async function drivePython(sessions: PythonSession[]): Promise<Record<string, unknown>> {
  const python = await pythonEnv();
  const { stdout } = await promisify(execFile)(python, [DRIVE, JSON.stringify(sessions)], {
    env: PYTHON_ENV,
    maxBuffer: 16 * 1024 * 1024,
    timeout: HUNG_CHILD_MS,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}
