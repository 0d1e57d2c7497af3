/**
 * @module `npm run test:runtimes`: the runtime matrix. Packs the package, installs the tarball into a fresh consumer,
 * runs runtimes/check/ on every runtime pinned in runtimes/package.json (workerd through Miniflare with default
 * compatibility flags), serves examples/workers on workerd the same way, and type-checks consumers against the packed types with and without @types/node.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { execFile } from "node:child_process";
import { build } from "esbuild";
import { specDir as resolveSpecDir } from "./spec-dir.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const runtimesDir = join(root, "runtimes");
const modules = join(runtimesDir, "node_modules");
const specDir = resolveSpecDir();
/** A date workerd of the pinned Miniflare supports; no compatibility flags are set beside it. */
const COMPATIBILITY_DATE = "2026-07-01";
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

const log = (line: string) => process.stderr.write(`runtimes: ${line}\n`);
const seconds = (since: number) => (performance.now() - since) / 1000;

/** Children get a plain environment: no tsx loader or Node option inherited from this process. */
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "NODE_OPTIONS" && !name.startsWith("TSX")));

function run(command: string, args: string[], cwd: string, timeout = 180_000): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env, encoding: "utf8", timeout, maxBuffer: 64 * 1024 * 1024 });
}

function must(what: string, result: SpawnSyncReturns<string>): string {
  if (result.status !== 0)
    throw new Error(`${what} failed (${result.status ?? result.signal}):\n${`${result.stdout}${result.stderr}`.trim().slice(-4000)}`);
  return result.stdout;
}

/** `npm ci` in runtimes/, skipped when node_modules was installed from this very lockfile. */
function installRuntimes(): string {
  const lock = createHash("sha256")
    .update(readFileSync(join(runtimesDir, "package-lock.json")))
    .digest("hex");
  const marker = join(modules, ".wymcp-lockfile-sha256");
  if (existsSync(marker) && readFileSync(marker, "utf8") === lock) return "cached (node_modules matches the lockfile)";
  const started = performance.now();
  // Scripts off: the binaries are read straight from the platform packages, so no postinstall is needed.
  must("npm ci in runtimes/", run("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], runtimesDir, 600_000));
  writeFileSync(marker, lock);
  return `installed in ${seconds(started).toFixed(1)} s`;
}

const ARCH: Record<string, string> = { x64: "x64", arm64: "aarch64" };
const binaries = {
  node22: join(modules, "node22", "bin", "node"),
  node24: join(modules, "node24", "bin", "node"),
  bun: join(modules, "@oven", `bun-${process.platform}-${ARCH[process.arch] ?? process.arch}`, "bin", "bun"),
  deno: join(modules, "@deno", `${process.platform}-${process.arch}-glibc`, "deno"),
};

function versionOf(pkg: string): string {
  return (JSON.parse(readFileSync(join(modules, pkg, "package.json"), "utf8")) as { version: string }).version;
}

interface Check {
  name: string;
  ok: boolean;
  detail?: unknown;
}

interface Row {
  runtime: string;
  version: string;
  checks: Check[];
  nodeHttp: boolean;
  seconds: number;
  failure?: string;
}

/** Runs one driver; its last stdout line is `{ nodeHttp, results }`. */
function runDriver(runtime: string, version: string, command: string, args: string[], cwd: string): Row {
  const started = performance.now();
  const out = run(command, args, cwd, 120_000);
  const elapsed = seconds(started);
  const last = out.stdout.trim().split("\n").pop() ?? "";
  try {
    const { nodeHttp, results } = JSON.parse(last) as { nodeHttp: boolean; results: Check[] };
    const failure = out.status === 0 ? undefined : `exit ${out.status ?? out.signal}: ${out.stderr.trim().slice(-2000)}`;
    return { runtime, version, checks: results, nodeHttp, seconds: elapsed, failure };
  } catch {
    return {
      runtime,
      version,
      checks: [],
      nodeHttp: false,
      seconds: elapsed,
      failure: `no result (exit ${out.status ?? out.signal}):\n${`${out.stdout}${out.stderr}`.trim().slice(-3000)}`,
    };
  }
}

function firstLine(command: string, args: string[]): string {
  return (run(command, args, root).stdout.trim().split("\n")[0] ?? "").trim();
}

interface TypeCheck {
  name: string;
  ok: boolean;
  seconds: number;
  detail?: string;
}

const tsc = join(root, "node_modules", "typescript", "bin", "tsc");

/** A consumer folder: its sources, a tsconfig, and links to the type packages it may see (and no others). */
async function typeCheck(
  name: string,
  dir: string,
  files: string[],
  compilerOptions: Record<string, unknown>,
  links: string[],
  expectFailure?: RegExp,
): Promise<TypeCheck> {
  mkdirSync(dir, { recursive: true });
  for (const file of files) copyFileSync(join(runtimesDir, "types", file), join(dir, file));
  for (const link of links) {
    mkdirSync(dirname(join(dir, "node_modules", link)), { recursive: true });
    if (!existsSync(join(dir, "node_modules", link))) symlinkSync(join(modules, link), join(dir, "node_modules", link), "dir");
  }
  const config = {
    compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, target: "ES2022", lib: ["ES2022"], ...compilerOptions },
    files,
  };
  const tsconfig = `tsconfig.${name.replace(/\W+/g, "-")}.json`;
  writeFileSync(join(dir, tsconfig), JSON.stringify(config, null, 2));
  const started = performance.now();
  const out = await promisify(execFile)(process.execPath, [tsc, "-p", tsconfig], { cwd: dir, env, timeout: 180_000 }).then(
    ({ stdout, stderr }) => ({ status: 0, text: `${stdout}${stderr}`.trim() }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      status: error.code ?? 1,
      text: `${error.stdout ?? ""}${error.stderr ?? ""}`.trim(),
    }),
  );
  const ok = expectFailure ? out.status !== 0 && expectFailure.test(out.text) : out.status === 0;
  return { name, ok, seconds: seconds(started), detail: ok ? undefined : out.text.slice(0, 3000) || `exit ${out.status}` };
}

async function main(): Promise<void> {
  const started = performance.now();
  const install = installRuntimes();
  log(`runtimes ${install}`);
  // What prepack does on npm pack; run here so that pack's --json output carries no script output.
  must("npm run build", run("npm", ["run", "-s", "build"], root));

  const tmp = mkdtempSync(join(tmpdir(), "wymcp-matrix-"));
  try {
    const packed = JSON.parse(
      must("npm pack", run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", tmp], root)),
    ) as Array<{
      filename: string;
      size: number;
      unpackedSize: number;
      files: Array<{ path: string; size: number }>;
    }>;
    const tarball = packed[0]!;
    const problems: string[] = [];

    const consumer = join(tmp, "consumer");
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, "package.json"),
      JSON.stringify(
        { name: "matrix-consumer", private: true, type: "module", dependencies: { wymcp: `file:../${tarball.filename}` } },
        null,
        2,
      ),
    );
    must("npm install of the tarball", run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], consumer));
    const installed = JSON.parse(readFileSync(join(consumer, "node_modules", "wymcp", "package.json"), "utf8")) as {
      scripts?: Record<string, string>;
    };
    const scripts = INSTALL_SCRIPTS.filter((name) => installed.scripts?.[name] !== undefined);
    if (scripts.length > 0) problems.push(`the packed package.json has install scripts: ${scripts.join(", ")}`);

    for (const file of readdirSync(join(runtimesDir, "check"))) copyFileSync(join(runtimesDir, "check", file), join(consumer, file));
    const callTool = readFileSync(join(specDir, "schema", "2026-07-28", "examples", "CallToolRequest", "call-tool-request.json"), "utf8");
    writeFileSync(
      join(consumer, "official.mjs"),
      `// The spec's own tools/call example, copied in for this run only.\nexport const callTool = ${callTool.trim()};\n`,
    );
    symlinkSync(join(modules, "miniflare"), join(consumer, "node_modules", "miniflare"), "dir");

    // What a Workers build tool does: one module, resolved with the Worker conditions.
    const bundleWorker = (entry: string, outfile: string) =>
      build({
        absWorkingDir: consumer,
        entryPoints: [entry],
        outfile,
        bundle: true,
        format: "esm",
        platform: "neutral",
        conditions: ["workerd", "worker", "browser"],
        logLevel: "warning",
      });
    await bundleWorker("worker.mjs", "worker.bundle.mjs");
    // examples/workers as a user has it: its committed wymcp compile output, wymcp from the tarball, the SDK beside it.
    const example = join(consumer, "workers-example");
    cpSync(join(root, "examples", "workers"), example, { recursive: true });
    mkdirSync(join(consumer, "node_modules", "@modelcontextprotocol"), { recursive: true });
    symlinkSync(
      join(root, "node_modules", "@modelcontextprotocol", "server"),
      join(consumer, "node_modules", "@modelcontextprotocol", "server"),
      "dir",
    );
    await bundleWorker("workers-example/worker.ts", "workers-example.bundle.mjs");

    const node20 = process.version;
    const rows: Row[] = [
      runDriver("Node (project's)", node20, process.execPath, ["main.mjs"], consumer),
      runDriver(
        "Node (project's), --disallow-code-generation-from-strings",
        node20,
        process.execPath,
        ["--disallow-code-generation-from-strings", "main.mjs"],
        consumer,
      ),
      runDriver("Node 22", firstLine(binaries.node22, ["--version"]), binaries.node22, ["main.mjs"], consumer),
      runDriver("Node 24", firstLine(binaries.node24, ["--version"]), binaries.node24, ["main.mjs"], consumer),
      runDriver("Bun", firstLine(binaries.bun, ["--version"]), binaries.bun, ["main.mjs"], consumer),
      runDriver("Deno", firstLine(binaries.deno, ["--version"]), binaries.deno, ["run", "--allow-net=127.0.0.1", "main.mjs"], consumer),
      runDriver(
        "workerd via Miniflare, default flags",
        `workerd ${versionOf("workerd")}, Miniflare ${versionOf("miniflare")}, date ${COMPATIBILITY_DATE}`,
        binaries.node22,
        ["workerd-host.mjs", "worker.bundle.mjs", COMPATIBILITY_DATE],
        consumer,
      ),
      runDriver(
        "workerd via Miniflare, default flags: examples/workers (SDK + gateFetch + wymcp compile)",
        `workerd ${versionOf("workerd")}, @modelcontextprotocol/server ${(JSON.parse(readFileSync(join(root, "node_modules", "@modelcontextprotocol", "server", "package.json"), "utf8")) as { version: string }).version}`,
        binaries.node22,
        ["workers-example-host.mjs", "workers-example.bundle.mjs", COMPATIBILITY_DATE],
        consumer,
      ),
    ];

    const typed = join(consumer, "types");
    const withNode = join(typed, "node");
    const workers = join(typed, "workers");
    // Four independent tsc programs: run side by side, they take about half the time.
    const typeChecks: TypeCheck[] = await Promise.all([
      typeCheck(
        "@types/node, NodeNext, all three entries",
        withNode,
        ["node-consumer.ts"],
        { module: "NodeNext", moduleResolution: "NodeNext", types: ["node"] },
        ["@types/node"],
      ),
      typeCheck(
        "@types/node, node10 resolution (main/types/typesVersions)",
        withNode,
        ["node-consumer.ts"],
        { module: "ESNext", moduleResolution: "node10", esModuleInterop: true, types: ["node"], ignoreDeprecations: "5.0" },
        ["@types/node"],
      ),
      typeCheck(
        "Workers types only, no @types/node, skipLibCheck off: wymcp + wymcp/fetch",
        workers,
        ["workers-consumer.ts"],
        { module: "ESNext", moduleResolution: "Bundler", types: ["@cloudflare/workers-types"] },
        ["@cloudflare/workers-types"],
      ),
      // The control: the same setup does see a missing Node type, so the case above could have failed.
      typeCheck(
        "control: that Workers setup rejects wymcp/node (it needs node:http)",
        workers,
        ["workers-imports-node.ts"],
        { module: "ESNext", moduleResolution: "Bundler", types: ["@cloudflare/workers-types"] },
        ["@cloudflare/workers-types"],
        /node:http/,
      ),
    ]);

    const passed = rows.reduce((n, r) => n + r.checks.filter((c) => c.ok).length, 0) + typeChecks.filter((t) => t.ok).length;
    const failedChecks =
      rows.reduce((n, r) => n + r.checks.filter((c) => !c.ok).length + (r.failure ? 1 : 0), 0) +
      typeChecks.filter((t) => !t.ok).length +
      problems.length;

    const lines = [
      `## Tarball: ${tarball.filename}, ${tarball.size} B packed, ${tarball.unpackedSize} B unpacked, ${tarball.files.length} files`,
      ...tarball.files.map((f) => `  ${String(f.size).padStart(7)}  ${f.path}`),
      "",
      "## Runtimes",
      ...rows.map((r) => {
        const ok = r.checks.filter((c) => c.ok).length;
        const verdict = r.failure || ok !== r.checks.length ? "FAIL" : "pass";
        return `${verdict}  ${r.runtime} (${r.version}): ${ok}/${r.checks.length} checks${r.nodeHttp ? ", node:http adapter included" : ""} (${r.seconds.toFixed(1)} s)`;
      }),
      "",
      "## Types against the packed package",
      ...typeChecks.map((t) => `${t.ok ? "pass" : "FAIL"}  ${t.name} (${t.seconds.toFixed(1)} s)`),
      "",
      ...problems.map((p) => `FAIL  ${p}`),
      ...rows.flatMap((r) => [
        ...(r.failure ? [`FAIL  ${r.runtime}: ${r.failure}`] : []),
        ...r.checks.filter((c) => !c.ok).map((c) => `FAIL  ${r.runtime} / ${c.name}: ${JSON.stringify(c.detail)?.slice(0, 600)}`),
      ]),
      ...typeChecks.filter((t) => !t.ok).map((t) => `FAIL  ${t.name}:\n${t.detail}`),
      `runtimes ${install}; matrix total ${seconds(started).toFixed(1)} s`,
      `matrix: ${passed} passed, ${failedChecks} failed`,
    ];
    console.log(lines.join("\n"));
    if (failedChecks > 0) process.exitCode = 1;
  } finally {
    if (!process.env.KEEP_MATRIX) rmSync(tmp, { recursive: true, force: true });
    else log(`kept ${tmp}`);
  }
}

main().catch((error: unknown) => {
  console.error(`test:runtimes failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
});
