/**
 * `npm run conformance:servers`: the official conformance suite's transport scenarios (and a sanity row), one scenario
 * per run, against five servers alone and behind wymcp: a bare node:http server that checks nothing of the transport
 * (test/support/bare-server.ts), tmcp and mcp-handler (test/support/frameworks.ts, with their `lookup` tool), the Python
 * SDK's `MCPServer` (test/python/echo_servers.py header-http) and the TypeScript SDK v2 (examples/conformance-server.ts,
 * ungated). Behind wymcp means `wymcp proxy` (from the source, its loopback defaults) for every server, and `gateFetch`
 * with `allow.hosts` naming the server's own address for the two Fetch frameworks.
 * Prints, per server, every check of every scenario, alone and behind, with the count passed; writes the tables into
 * docs/conformance.md; fails when behind wymcp loses a check the server alone passes.
 * `--server NAME` (repeatable) runs those servers only and writes nothing; `--proxy-arg ARG` (repeatable) adds an argument
 * to `wymcp proxy`; `--gate-options JSON` adds options to `gateFetch` (which gets the `tools` option, learning the tools,
 * in the builds whose gates take it).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gateFetch } from "../src/fetch.js";
import { HUNG_CHILD_MS } from "../examples/hung-child.js";
import { launchExample, launchProxy } from "../examples/launch.js";
import { serveFetch, startBareServer } from "./support/bare-server.js";
import { edgeToolsOption } from "./support/edge-tools-option.js";
import { mcpHandlerServer, tmcpServer } from "./support/frameworks.js";
import { startMcpServerHttp } from "./support/python-servers.js";
import { type Check, formatTable, counted, type Mode, passed, serverTable } from "../scripts/conformance-table.js";
import { provenance, writeDocSection } from "../scripts/doc-sections.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SUITE_DIR = join(ROOT, "conformance");
const NODE_22 = join(SUITE_DIR, "node_modules", ".bin", "node");
const SUITE_CLI = join(SUITE_DIR, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const CONFORMANCE_DOC = join(ROOT, "docs", "conformance.md");

/** The transport scenarios first, then the sanity row. */
export const SCENARIOS = [
  "http-header-validation",
  "http-custom-header-server-validation",
  "dns-rebinding-protection",
  "server-stateless",
  "tools-list",
  "tools-call-simple-text",
];

interface Running {
  url: URL;
  stop: () => Promise<unknown>;
}

interface Subject {
  name: string;
  /** What runs, in a few words, for the table's heading. */
  what: string;
  alone: () => Promise<Running>;
  /** The server behind `gateFetch` (Fetch frameworks only); `port` is the address it listens on. */
  gated?: (options: Record<string, unknown>) => Promise<Running>;
}

const argv = process.argv.slice(2);
const many = (name: string) => argv.flatMap((arg, i) => (arg === name && argv[i + 1] !== undefined ? [argv[i + 1]!] : []));
const ONLY = many("--server");
const PROXY_ARGS = many("--proxy-arg");
const GATE_OPTIONS = JSON.parse(many("--gate-options")[0] ?? "{}") as Record<string, unknown>;

const fetchFramework = (make: () => { handler: (request: Request) => Promise<Response> }): Pick<Subject, "alone" | "gated"> => ({
  alone: () => serveFetch(() => make().handler),
  gated: (options) =>
    serveFetch((port) => gateFetch(make().handler, { allow: { hosts: [`127.0.0.1:${port}`, `localhost:${port}`] }, ...options } as never)),
});

const SUBJECTS: Subject[] = [
  { name: "bare", what: "a node:http server that checks nothing of the transport", alone: startBareServer },
  { name: "tmcp", what: "tmcp 1.20.0 on @tmcp/transport-http", ...fetchFramework(() => tmcpServer({ lookup: true })) },
  { name: "mcp-handler", what: "mcp-handler 2.4.0", ...fetchFramework(() => mcpHandlerServer({ lookup: true })) },
  { name: "python", what: "the Python SDK's MCPServer (mcp 2.3.0), Streamable HTTP", alone: () => startMcpServerHttp("header-http") },
  {
    name: "ts-sdk-v2",
    what: "the TypeScript SDK v2 (examples/conformance-server.ts, its gate off)",
    alone: () => launchExample({ script: "examples/conformance-server.ts", env: { WYMCP_GATE: "off" } }),
  },
];

function runScenario(url: URL, scenario: string, outDir: string): Promise<Check[]> {
  const args = [SUITE_CLI, "server", "--url", url.href, "--scenario", scenario, "--spec-version", "2026-07-28", "-o", outDir];
  return new Promise((resolve, reject) => {
    const child = spawn(NODE_22, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (output = (output + text).slice(-8_000)));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (output = (output + text).slice(-8_000)));
    // The suite bounds each scenario (30 s); this ends a hung run.
    const timer = setTimeout(() => child.kill("SIGKILL"), HUNG_CHILD_MS);
    child.once("error", reject);
    child.once("exit", () => {
      clearTimeout(timer);
      const dir = readdirSync(outDir).find((entry) => entry.startsWith(`server-${scenario}-`));
      const file = dir && join(outDir, dir, "checks.json");
      if (!file || !existsSync(file)) reject(new Error(`the suite wrote no checks for ${scenario} at ${url.href}:\n${output}`));
      else resolve(JSON.parse(readFileSync(file, "utf8")) as Check[]);
    });
  });
}

async function main(): Promise<number> {
  if (!existsSync(NODE_22) || !existsSync(SUITE_CLI)) {
    console.error("conformance:servers: the suite is not installed; run `npm ci` in conformance/ first");
    return 2;
  }
  const unknown = ONLY.filter((name) => !SUBJECTS.some((subject) => subject.name === name));
  if (unknown.length > 0) {
    console.error(`conformance:servers: --server must be one of ${SUBJECTS.map((s) => s.name).join(", ")}, not ${unknown.join(", ")}`);
    return 2;
  }
  // Where the gates know the server's tools (learned from tools/list), gateFetch gets them as `wymcp proxy` has them.
  const tools = await edgeToolsOption();
  const toolsLine = tools
    ? `gateFetch takes the \`tools\` option${"compile" in tools ? ", with the command line's compiler" : ""}`
    : "this build's gateFetch takes no `tools` option";
  console.error(`conformance:servers: ${toolsLine}`);
  const gateOptions = { ...(tools && { tools }), ...GATE_OPTIONS };
  const started = performance.now();
  const work = mkdtempSync(join(tmpdir(), "wymcp-conformance-servers-"));
  const problems: string[] = [];
  const sections: string[] = [];
  const overview: string[][] = [];
  let run = 0;
  try {
    for (const subject of SUBJECTS.filter((s) => ONLY.length === 0 || ONLY.includes(s.name))) {
      const modes: Mode[] = subject.gated ? ["alone", "proxy", "gateFetch"] : ["alone", "proxy"];
      const results = new Map<string, Map<Mode, Check[]>>(SCENARIOS.map((scenario) => [scenario, new Map()]));
      for (const mode of modes) {
        // One server (and proxy) per mode: what one scenario leaves behind is the next one's starting point, as a client's would be.
        const server = mode === "gateFetch" ? await subject.gated!(gateOptions) : await subject.alone();
        // The proxy learns the server's tools from its tools/list answers, as gateFetch does with the tools option.
        const args = ["--log", "json", ...PROXY_ARGS];
        const proxy = mode === "proxy" ? await launchProxy(server.url, { cli: "src", args }) : undefined;
        try {
          for (const scenario of SCENARIOS) {
            const outDir = join(work, String(run++));
            const checks = await runScenario(proxy?.url ?? server.url, scenario, outDir);
            results.get(scenario)!.set(mode, checks);
            console.error(`${subject.name} ${mode} ${scenario}: ${passed(checks)}/${counted(checks)} passed`);
          }
        } finally {
          const code = await proxy?.stop();
          await server.stop();
          if (proxy && code !== 0) problems.push(`${subject.name}: wymcp proxy exited ${code}, not 0 (drained)`);
        }
      }
      const { table, summary, lost, gained } = serverTable(modes, results);
      // What wymcp adds: the checks passed behind it that the server alone does not pass, by mode.
      const gains = [...gained].map(
        ([mode, checks]) =>
          `- passed behind ${mode === "proxy" ? "`wymcp proxy`" : "`gateFetch`"} only: ${checks.length}${checks.length > 0 ? ` (${checks.map((c) => `\`${c}\``).join(", ")})` : ""}.`,
      );
      console.log(`\n## ${subject.name}: ${subject.what}\n\n${table}\n\n${gains.join("\n")}`);
      problems.push(...lost.map((check) => `${subject.name}: lost behind wymcp: ${check}`));
      for (const row of summary) overview.push([subject.name, ...row, ...(subject.gated ? [] : ["n/a"])]);
      sections.push(`#### ${subject.name}: ${subject.what}\n\n${gains.join("\n")}\n\n${table}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const overviewTable = formatTable([["server", "scenario", "alone", "behind wymcp proxy", "behind gateFetch"], ...overview]);
  console.log(`\n## Checks passed of those counted, alone and behind wymcp\n\n${overviewTable}`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (problems.length > 0) {
    console.error(`\nconformance:servers: FAILED (${seconds} s)\n- ${problems.join("\n- ")}`);
    return 1;
  }
  const verdict = `no check a server passes alone is lost behind wymcp (${seconds} s)`;
  console.log(`\nconformance:servers: ${verdict}`);
  if (ONLY.length > 0 || PROXY_ARGS.length > 0 || many("--gate-options").length > 0) {
    console.log("conformance:servers: a run with --server, --proxy-arg or --gate-options writes nothing into docs/conformance.md");
    return 0;
  }
  const suite = JSON.parse(
    readFileSync(join(SUITE_DIR, "node_modules", "@modelcontextprotocol", "conformance", "package.json"), "utf8"),
  ) as { version: string };
  writeDocSection(
    CONFORMANCE_DOC,
    "conformance:servers",
    [
      `${provenance("npm run conformance:servers")} Suite \`@modelcontextprotocol/conformance\` ${suite.version}, each scenario run alone with \`--spec-version 2026-07-28\`; ${toolsLine}. Verdict: ${verdict}.`,
      "",
      "A count is the checks passed of those counted: passed, failed or warned (a warning is a SHOULD the server misses); an info or a skip is not counted. A check passed alone and not behind wymcp fails the run.",
      "",
      overviewTable,
      "",
      ...sections.flatMap((section) => [section, ""]),
    ].join("\n"),
  );
  console.log(`conformance:servers: wrote the servers section of ${CONFORMANCE_DOC}`);
  return 0;
}

process.exitCode = await main();
