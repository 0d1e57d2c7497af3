/**
 * Runs a guide of docs/guides/ as its reader would: its files written into a folder of their own (beside the packed
 * package, as `npm i` would put it), then its ```sh blocks, each step in `bash`, with `npx wymcp` and `npx tsx` the
 * packed bin and the installed tsx, and `python` the test's virtual environment. A background step (`cmd &`) is where a
 * reader opens a second terminal: it is started listening on a free port instead of the one the guide names, the
 * address it prints replaces the guide's in the steps after it, and it is stopped when its block ends.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type GuideBlock, guideBlocks, type ShellStep, shellSteps } from "../../scripts/guide-blocks.js";
import { continues } from "../../scripts/check-docs.js";
import { pythonEnv } from "./python.js";
import { repoRoot } from "./spec.js";

/** What one ```sh block printed, with the guide's addresses put back, and the ```text block that follows it, if any. */
export interface BlockRun {
  block: GuideBlock;
  stdout: string;
  stderr: string;
  status: number | null;
  expected: string | undefined;
}

/** A background step, running: its process and everything it printed so far. */
interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<void>;
}

/**
 * Writes the guide's files into `dir` (a `// ...` ts block with a title is written after the block it continues, as
 * the docs check compiles it) and runs its ```sh blocks in order.
 * @example await runGuide(text, join(consumer, "guide-debug-client"), consumer)
 */
export async function runGuide(text: string, dir: string, consumer: string): Promise<BlockRun[]> {
  mkdirSync(dir, { recursive: true });
  const blocks = guideBlocks(text);
  let base: GuideBlock | undefined;
  for (const block of blocks) {
    const continued = block.lang === "ts" && continues({ doc: "", line: block.line, code: block.code });
    if (block.lang === "ts" && !continued) base = block;
    if (!block.title) continue;
    mkdirSync(dirname(join(dir, block.title)), { recursive: true });
    writeFileSync(join(dir, block.title), continued && base ? `${base.code}${block.code}` : block.code);
  }
  const env = await environment(dir, consumer, blocks);
  const runs: BlockRun[] = [];
  for (const [i, block] of blocks.entries()) {
    if (block.lang !== "sh") continue;
    const next = blocks[i + 1];
    const between = next ? text.split("\n").slice(block.line + block.code.split("\n").length, next.line - 1) : [];
    const expected = next?.lang === "text" && between.every((line) => line.trim() === "") ? next.code : undefined;
    runs.push({ block, expected, ...(await runBlock(block, dir, env)) });
  }
  return runs;
}

/** PATH with the `npx` and `wymcp` of the packed package first, and `python` the virtual environment's when a block runs it. */
async function environment(dir: string, consumer: string, blocks: GuideBlock[]): Promise<NodeJS.ProcessEnv> {
  const bin = join(dir, ".bin");
  mkdirSync(bin, { recursive: true });
  const cli = join(consumer, "node_modules", "wymcp", "dist", "cli.js");
  const tsx = join(repoRoot, "node_modules", ".bin", "tsx");
  const npx = [
    "#!/bin/sh",
    'case "$1" in',
    `  wymcp) shift; exec "${process.execPath}" "${cli}" "$@" ;;`,
    `  tsx) shift; exec "${tsx}" "$@" ;;`,
    '  *) echo "the guides are run with npx wymcp and npx tsx only, not npx $1" >&2; exit 127 ;;',
    "esac",
  ];
  writeFileSync(join(bin, "npx"), `${npx.join("\n")}\n`);
  writeFileSync(join(bin, "wymcp"), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
  chmodSync(join(bin, "npx"), 0o755);
  chmodSync(join(bin, "wymcp"), 0o755);
  const path = [bin];
  if (blocks.some((b) => b.lang === "sh" && /\bpython\b/.test(b.code))) path.push(dirname(await pythonEnv()));
  path.push(dirname(process.execPath), process.env.PATH ?? "");
  // Python's own banners and logs kept quiet, as in the test's other Python processes; nothing else of the user's.
  return { ...process.env, PATH: path.join(":"), PYTHONUNBUFFERED: "1", FASTMCP_SHOW_CLI_BANNER: "false", NO_COLOR: "1" };
}

async function runBlock(
  block: GuideBlock,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string; status: number | null }> {
  const ports = new Map<string, string>();
  const running: Running[] = [];
  let stdout = "";
  let stderr = "";
  let status: number | null = 0;
  try {
    for (const step of shellSteps(block.code)) {
      const text = [...ports].reduce((t, [from, to]) => t.replaceAll(from, to), step.text);
      if (step.background) {
        const { process: started, address } = await startListening(step, text, dir, env);
        running.push(started);
        if (step.address) ports.set(new URL(step.address).host, address);
        continue;
      }
      const result = await run(text, dir, env);
      stdout += result.stdout;
      stderr += result.stderr;
      status = result.status;
    }
  } finally {
    for (const { child, exited } of running.reverse()) {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGTERM");
      await exited;
    }
  }
  // What the reader sees is the guide's address, not the free port the test listened on.
  for (const [from, to] of ports) stdout = stdout.replaceAll(to, from);
  return { stdout, stderr, status };
}

function run(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => (stdout += t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => (stderr += t));
    child.once("error", reject);
    child.once("close", (status) => resolve({ stdout, stderr, status }));
  });
}

/**
 * Starts a background step on a free port: `wymcp proxy` with `--listen 127.0.0.1:0`, anything else with `PORT=0` in
 * its environment. Resolves once it prints where it listens (`listening on http://...`, uvicorn's `running on ...`).
 */
async function startListening(
  step: ShellStep,
  text: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ process: Running; address: string }> {
  const proxy = /\bwymcp proxy\b/.test(text);
  const command = proxy ? `${text.replace(/\s--listen\s+\S+/, "")} --listen 127.0.0.1:0` : text;
  const child = spawn("bash", ["-c", `exec ${command}`], {
    cwd,
    env: { ...env, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const address = await new Promise<string>((resolve, reject) => {
    const seen = (chunk: string) => {
      output += chunk;
      const match = /(?:listening on|running on) http:\/\/([^\s/]+)/i.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.setEncoding("utf8").on("data", seen);
    child.stderr.setEncoding("utf8").on("data", seen);
    void exited.then(() => {
      reject(new Error(`"${step.text}" exited before it listened:\n${output}`));
    });
  });
  return { process: { child, output: () => output, exited }, address };
}
