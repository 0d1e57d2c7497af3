/**
 * Debian's nginx for test/deploy-nginx.test.ts: found where Debian puts it, installed with apt-get when it is missing
 * and this process is root (once, under a lock, since test files run in parallel processes), otherwise a failure that
 * says what to install. Then nginx run in the foreground on a config of the test's own, in a temporary prefix, on a
 * loopback port, and stopped by its PID.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureAptBinary, findBinary } from "./apt.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where Debian's package puts the binary, then the usual alternatives. */
const BINARIES = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/usr/local/bin/nginx"];
/** The nginx binary, or undefined when none is installed. */
export function findNginx(binaries = BINARIES): string | undefined {
  return findBinary(binaries);
}

/**
 * The nginx binary, installed first when missing (apt.ts: as root, under a lock a parallel test process waits on). Not
 * root and not installed: throws, saying what to install. `binaries` and `uid` are the places looked at and the user,
 * for the test of that message.
 */
export async function ensureNginx({ binaries = BINARIES, uid = process.getuid?.() } = {}): Promise<string> {
  return ensureAptBinary({ pkg: "nginx", binaries, uid });
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
export async function startNginx(binary: string, config: (at: NginxConfig) => string, { attempts = 5 } = {}): Promise<RunningNginx> {
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
    const pid = await waitForPid(child, pidFile);
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
async function waitForPid(child: ChildProcess, pidFile: string): Promise<number | undefined> {
  for (;;) {
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0) return pid;
    }
    if (child.exitCode !== null || child.signalCode !== null) return undefined;
    await sleep(20);
  }
}
