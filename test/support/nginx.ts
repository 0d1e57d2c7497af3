/**
 * Debian's nginx for test/deploy-nginx.test.ts: found where Debian puts it, installed with apt-get when it is missing
 * and this process is root (once, under a lock, since test files run in parallel processes), otherwise a failure that
 * says what to install. Then nginx run in the foreground on a config of the test's own, in a temporary prefix, on a
 * loopback port, and stopped by its PID.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where Debian's package puts the binary, then the usual alternatives. */
const BINARIES = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/usr/local/bin/nginx"];
const INSTALL = "apt-get update && apt-get install -y nginx";
/** One lock for every test process on the machine: apt-get must not run twice at once. */
const LOCK = join(tmpdir(), "wymcp-nginx-install.lock");
const LOCK_WAIT_MS = 600_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The nginx binary, or undefined when none is installed. */
export function findNginx(binaries = BINARIES): string | undefined {
  return binaries.find((path) => existsSync(path));
}

/** True while the process that wrote `pid` runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Takes the install lock (a directory, created atomically), clearing one left by a process that died holding it. */
async function lock(): Promise<() => void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, "pid"), String(process.pid));
      return () => rmSync(LOCK, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let owner = Number.NaN;
    try {
      owner = Number(readFileSync(join(LOCK, "pid"), "utf8"));
    } catch {
      // The owner has made the directory but not yet written its pid: wait for it.
    }
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) rmSync(LOCK, { recursive: true, force: true });
    else if (Date.now() > deadline) throw new Error(`nginx: another process has held ${LOCK} for ${LOCK_WAIT_MS} ms`);
    else await sleep(200);
  }
}

/** Runs one apt-get step; throws with the end of its output when it fails. */
function apt(args: string[]): void {
  const run = spawnSync("apt-get", args, {
    encoding: "utf8",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) {
    const output = `${run.stdout ?? ""}${run.stderr ?? ""}${run.error ? String(run.error) : ""}`.slice(-4_000);
    throw new Error(`nginx: \`apt-get ${args.join(" ")}\` failed (${run.status ?? run.signal}):\n${output}`);
  }
}

/**
 * The nginx binary, installed first when missing: `apt-get update` then `apt-get install -y nginx`, as root, under a
 * lock that a parallel test process waits on (and then finds nginx installed). Not root and not installed: throws,
 * saying what to install. `binaries` and `uid` are the places looked at and the user, for the test of that message.
 */
export async function ensureNginx({ binaries = BINARIES, uid = process.getuid?.() } = {}): Promise<string> {
  const found = findNginx(binaries);
  if (found) return found;
  if (uid !== 0) {
    throw new Error(`nginx is not installed, and this process is not root so the test cannot install it: run \`${INSTALL}\` as root`);
  }
  const release = await lock();
  try {
    // Another process may have installed it while this one waited for the lock.
    const now = findNginx(binaries);
    if (now) return now;
    apt(["update"]);
    apt(["install", "-y", "nginx"]);
    const installed = findNginx(binaries);
    if (!installed) throw new Error(`nginx: \`${INSTALL}\` succeeded but no binary is at ${binaries.join(", ")}`);
    return installed;
  } finally {
    release();
  }
}

/** A port that was free a moment ago: bound on loopback with port 0, then released. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RunningNginx {
  /** `http://127.0.0.1:PORT` */
  origin: URL;
  /** The master's PID, as nginx wrote it in its pid file. */
  pid: number;
  /** The temporary prefix: the config, the pid file, the logs. */
  dir: string;
  /** The access log so far, one line per request. */
  accessLog: () => string[];
  /** The error log so far. */
  errorLog: () => string;
  /** SIGQUIT (graceful) to the PID of the pid file, SIGKILL after 5 s; resolves once nginx has exited and its prefix is removed. */
  stop: () => Promise<void>;
}

export interface NginxConfig {
  /** The `http` block's own directives (logs, temp paths) for a prefix. */
  dir: string;
  port: number;
}

/**
 * Starts `nginx -p DIR -c DIR/nginx.conf -e DIR/error.log` in the foreground with the config `config({ dir, port })`
 * returns, on a port picked free; when nginx cannot bind it (another process took it between the pick and the bind),
 * picks another, up to `attempts` times. Resolves once nginx has written its pid file, which it does after binding.
 */
export async function startNginx(
  binary: string,
  config: (at: NginxConfig) => string,
  { attempts = 5, timeoutMs = 10_000 } = {},
): Promise<RunningNginx> {
  let last = "";
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), "wymcp-nginx-"));
    // nginx's workers run as an unprivileged user when the master is root: they must reach their temp folders.
    chmodSync(dir, 0o755);
    const port = await freePort();
    const conf = join(dir, "nginx.conf");
    writeFileSync(conf, config({ dir, port }));
    const errorLog = join(dir, "error.log");
    const child = spawn(binary, ["-p", `${dir}/`, "-c", conf, "-e", errorLog], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    const orphanGuard = () => child.kill("SIGKILL");
    process.once("exit", orphanGuard);
    const exited = new Promise<void>((resolve) =>
      child.once("exit", () => {
        process.off("exit", orphanGuard);
        resolve();
      }),
    );
    const pidFile = join(dir, "nginx.pid");
    const pid = await waitForPid(child, pidFile, timeoutMs);
    const log = () => `${stderr}${existsSync(errorLog) ? readFileSync(errorLog, "utf8") : ""}`;
    if (pid === undefined) {
      await exited;
      last = log();
      rmSync(dir, { recursive: true, force: true });
      if (/Address already in use/.test(last)) continue;
      throw new Error(`nginx did not start; its log:\n${last}`);
    }
    if (pid !== child.pid) {
      child.kill("SIGKILL");
      throw new Error(`nginx's pid file names ${pid}, not the master started (${child.pid})`);
    }
    const accessPath = join(dir, "access.log");
    return {
      origin: new URL(`http://127.0.0.1:${port}`),
      pid,
      dir,
      accessLog: () => (existsSync(accessPath) ? readFileSync(accessPath, "utf8").split("\n").filter(Boolean) : []),
      errorLog: log,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) process.kill(pid, "SIGQUIT");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  throw new Error(`nginx found no free port in ${attempts} attempts; last log:\n${last}`);
}

/** The PID nginx writes once it has bound its ports, or undefined when it exits first. */
async function waitForPid(child: ChildProcess, pidFile: string, timeoutMs: number): Promise<number | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0) return pid;
    }
    if (child.exitCode !== null || child.signalCode !== null) return undefined;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`nginx wrote no pid file within ${timeoutMs} ms`);
    }
    await sleep(20);
  }
}
