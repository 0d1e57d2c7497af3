/**
 * The MCP Inspector's command line, a real legacy client (test/legacy-clients.test.ts): its own folder and lockfile,
 * `tools/inspector/`, kept out of the project's dependencies. `npm ci` there on first use, reused while its lockfile is
 * unchanged (`install-once.ts`).
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { HUNG_CHILD_MS } from "../../examples/hung-child.js";
import { installOnce } from "./install-once.js";

const run = promisify(execFile);
const folder = join(import.meta.dirname, "..", "..", "tools", "inspector");
const launcher = join(folder, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js");

let ready: Promise<string> | undefined;

/** The path of the Inspector's launcher script (run it with `node`), installed. */
export function inspectorCli(): Promise<string> {
  ready ??= installOnce({
    what: "the MCP Inspector (tools/inspector/)",
    inputs: [join(folder, "package.json"), join(folder, "package-lock.json")],
    stamp: join(folder, "node_modules", ".wymcp-installed.sha256"),
    lock: join(folder, ".install.lock"),
    install: npmCi,
  }).then(() => launcher);
  return ready;
}

async function npmCi(): Promise<void> {
  // Under `npm test`, npm's own variables describe the root project; the folder's install must not inherit them.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("npm_") || (name.startsWith("npm_config_") && name !== "npm_config_local_prefix"),
    ),
  );
  const npm = process.env.npm_execpath;
  const [command, args] = npm?.endsWith(".js") ? [process.execPath, [npm]] : ["npm", []];
  await run(command, [...args, "ci", "--no-audit", "--no-fund", "--loglevel", "error"], {
    cwd: folder,
    env,
    maxBuffer: 16 * 1024 * 1024,
    timeout: HUNG_CHILD_MS,
  });
}
