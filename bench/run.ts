/**
 * @module `npm run bench`: start-up, per-message throughput, the error path and generated size, in one run.
 * Prints the tables and writes the same figures to bench/results.json; the tables go into docs/performance.md and the
 * charts into docs/charts/ (bench/charts.ts: the full run draws per message, cold start and adversarial, `--proxy` the
 * proxy's, `--adversarial` the adversarial one). `--quick` (or BENCH_QUICK=1) runs one short round of everything; it
 * writes JSON only where BENCH_OUT points, and no table or chart. `--smoke` is `--quick` with the least work that still
 * runs every part and prints every section (a few locations, the smallest sizes, no warm-up round), on dist/ as built
 * (it fails when dist/ is stale, never rebuilds it): what the smoke tests run (test/bench-smoke.test.ts). `--cli` adds
 * `wymcp check` on a generated JSONL capture of 200 MB (throughput and peak RSS; about a minute more). `--adversarial`
 * runs only the adversarial section (bench/adversarial.ts; `--full` takes every location to the body limit) and the tools at the edge's
 * families (bench/adversarial-edge.ts), which the whole run ends with; `--adversarial-edge` runs only those families.
 * `--tools` runs only bench/tools.ts (precompiled tool schemas against the SDK's providers). `--compile-scale` runs only
 * bench/compile-scale.ts (`wymcp compile` at 1,000, 5,000 and 10,000 tools). `--body-memory` runs only
 * bench/body-memory.ts (the server's peak RSS for a 4 MiB body by chunk size, gated and ungated). `--soak` runs only
 * bench/soak.ts (the Fetch face behind @hono/node-server under 60 s of load, against handler.fetch alone). `--proxy` runs
 * only bench/proxy.ts (`wymcp proxy` and `wymcp stdio` against their pass-through mode and no wymcp, and their memory
 * over `--memory-seconds N`, default 60); `--proxy --only stdio` runs only its stdio rounds, and `--proxy --only tools`
 * only its proxy --tools rounds (`--rounds N` of them), `--proxy --only live` only its live-page table, `--proxy --only
 * listener` only its listener table (bench/listener.ts: what reading the live page's listener costs a proxy, a minute)
 * (bench/live.ts, a few minutes): each prints its rows and budget, with the load average, and writes nothing.
 * `--per-message` prints only the inbound per-message tables, both format modes, and writes nothing. `--header-cost`
 * runs only bench/header-cost.ts (the transport headers' cost on a face's admission, per way of holding them) and
 * writes its section. `--admission` prints where the time of admitting a request from its bytes goes
 * (bench/admission-parts.ts) and writes nothing. Both run bundled as the package ships (bench/bundled.ts), not as tsx
 * runs them.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, cpus, loadavg } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as zod from "@modelcontextprotocol/core";
import type { Validator } from "../generated/validator.js";
import { compileAtBoot, engine, enginePayload } from "./engine.js";
import { benchMessages } from "./messages.js";
import { errorCase, longErrorCase, messageCases, runCase, type Subjects, type Timing } from "./per-message.js";
import {
  caseTable,
  derive,
  headerCost,
  listenerTargets,
  proxyTargets,
  sizeTable,
  startupTable,
  stdioTarget,
  targets,
  targetsTable,
} from "./report.js";
import { measureSizes } from "./size.js";
import { bytesExceedDepth } from "./depth-scan.js";
import { DEFAULT_MAX_DEPTH, exceedsDepth } from "../src/core/depth.js";
import { measureBreaks, breaksTable } from "./nesting.js";
import { floodTable, runHttpFlood, telemetryTable, type HttpSettings } from "./http.js";
import { outboundCases, outboundMessages } from "./outbound.js";
import { runStartup } from "./startup.js";
import { PERFORMANCE_DOC, provenance, provenanceOf, textSection, writeBenchSection, writeDocSection } from "../scripts/doc-sections.js";
import { specDir as resolveSpecDir } from "../scripts/spec-dir.js";
import { generate } from "../scripts/codegen/generate.js";
import { launchExample } from "../examples/launch.js";
import { LOAD_CONCURRENCY, LOAD_MESSAGES, runLoad } from "./load.js";
import { runStdioMemory, STDIO_MEMORY_FULL, STDIO_MEMORY_QUICK } from "./stdio-memory.js";
import { cliLargeTable, cliStartupTable, runCliLarge, runCliStartup } from "./cli.js";
import { adversarialTable, runAdversarial, type AdversarialSettings } from "./adversarial.js";
import { adversarialEdgeTable, runAdversarialEdge, type EdgeSettings } from "./adversarial-edge.js";
import { runCompileScaleBench } from "./compile-scale.js";
import { runToolsBench } from "./tools.js";
import {
  proxyTables,
  proxyToolsTable,
  liveSettings,
  listenerSettings,
  roundsOf,
  runProxyBench,
  runProxyToolsBench,
  stdioRounds,
  stdioTable,
  type ProxyBenchSettings,
} from "./proxy.js";
import { liveTable, runLiveBench } from "./live.js";
import { listenerTable, runListenerBench } from "./listener.js";
import { NAME_SIZES, NAME_STYLES } from "./long-names.js";
import { bodyMemoryTable, bodyMemoryTarget, PIECES, runBodyMemory } from "./body-memory.js";
import { runSoak, soakTable } from "./soak.js";
import { runToolsAtEdgeBench, toolsAtEdgeTable, toolsAtEdgeTarget } from "./tools-at-edge.js";
import { DEFAULT_MAX_BODY_BYTES } from "../src/options/options.js";
import { headerCostTable, headerCostTargets } from "./header-cost.js";
import { spread } from "./measure.js";
import { importBundled } from "./bundled.js";
import { writeCharts, type ChartInputs } from "./charts.js";
import { assertFreshDist } from "../test/support/built.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const smoke = process.argv.includes("--smoke");
const quick = smoke || process.argv.includes("--quick") || process.env.BENCH_QUICK === "1";
/** What a quick run's first line says of its figures. */
const QUICK_NOTE = smoke ? " (smoke: the least work, figures are not meaningful)" : " (quick: one short round, figures are not meaningful)";
const httpMode = process.argv.includes("--http");
const withCli = process.argv.includes("--cli");
const adversarialOnly = process.argv.includes("--adversarial");
const adversarialEdgeOnly = process.argv.includes("--adversarial-edge");
const proxyMode = process.argv.includes("--proxy");
const bodyMemoryOnly = process.argv.includes("--body-memory");
const soakOnly = process.argv.includes("--soak");
const perMessageOnly = process.argv.includes("--per-message");
const headerCostOnly = process.argv.includes("--header-cost");
const admissionOnly = process.argv.includes("--admission");
const out =
  process.env.BENCH_OUT ||
  (quick
    ? ""
    : join(
        root,
        "bench",
        httpMode
          ? "results-http.json"
          : adversarialOnly
            ? "results-adversarial.json"
            : adversarialEdgeOnly
              ? "results-adversarial-edge.json"
              : bodyMemoryOnly
                ? "results-body-memory.json"
                : soakOnly
                  ? "results-soak.json"
                  : proxyMode
                    ? "results-proxy.json"
                    : "results.json",
      ));
const specDir = resolveSpecDir();

const settings = quick
  ? { startupRounds: 1, timing: { warmupMs: 5, roundMs: 5, rounds: 1 } satisfies Timing }
  : { startupRounds: 9, timing: { warmupMs: 150, roundMs: 200, rounds: 7 } satisfies Timing };

const adversarialSettings: AdversarialSettings = quick
  ? {
      startN: 16,
      capN: 64,
      full: false,
      worstToLimit: false,
      budgetMs: 100,
      rounds: 1,
      longNames: { sizes: ["64 KiB"], styles: ["mixed"], rounds: 1, budgetMs: 100, minMs: 1 },
      locations: smoke ? "sample" : "all",
    }
  : {
      startN: 256,
      capN: 16384,
      full: process.argv.includes("--full"),
      worstToLimit: true,
      budgetMs: 1000,
      rounds: 5,
      longNames: { sizes: NAME_SIZES, styles: NAME_STYLES, rounds: 3, budgetMs: 1000, minMs: 8 },
      locations: "all",
    };

const edgeSettings: EdgeSettings = quick
  ? { rounds: 1, startN: 16, budgetMs: 50, ...(smoke && { maxN: 64 }) }
  : { rounds: 7, startN: 256, budgetMs: 1000 };

const log = (s: string) => process.stderr.write(`bench: ${s}\n`);

/**
 * The start-up children import dist/, which bundles src/ and generated/: build it afresh (a few seconds). The smoke
 * run only checks it is fresh: under `npm test`, other test files read dist/ meanwhile.
 */
function buildDist(): void {
  if (smoke) return assertFreshDist();
  log("building dist/ (npm run build)");
  const built = spawnSync("npm", ["run", "-s", "build"], { cwd: root, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`building dist/ failed:\n${`${built.stdout}${built.stderr}`.trim()}`);
}

async function main(): Promise<void> {
  // `--tools`: a server's own tool schemas precompiled by `wymcp compile` against the SDK's providers (bench/tools.ts).
  if (process.argv.includes("--tools")) return runToolsBench(root, quick);
  // `--compile-scale`: `wymcp compile` at 1,000, 5,000 and 10,000 tools (bench/compile-scale.ts).
  if (process.argv.includes("--compile-scale")) return runCompileScaleBench(root, quick);
  // `--admission`: bench/admission-parts.ts, bundled; it runs on import and prints its table (flags --face, --rounds, --only).
  if (admissionOnly) return void (await importBundled(root, "bench/admission-parts.ts"));
  const started = performance.now();
  buildDist();
  const messages = benchMessages(specDir);
  const eng = engine(join(root, "schemas"), specDir);
  if (perMessageOnly) return runPerMessageOnly(messages, eng);
  if (headerCostOnly) return runHeaderCostOnly(messages);
  const tmp = mkdtempSync(join(tmpdir(), "wymcp-bench-"));
  let startup;
  let cliStartup;
  try {
    const messageFile = join(tmp, "message.json");
    const engineFile = join(tmp, "engine.json");
    writeFileSync(messageFile, messages.toolsCall.text);
    writeFileSync(engineFile, enginePayload(eng));
    log(`start-up: ${settings.startupRounds} round(s) of fresh processes`);
    startup = runStartup({ rounds: settings.startupRounds, messageFile, engineFile, warmup: !smoke, log });
    cliStartup = runCliStartup({ rounds: settings.startupRounds, messageFile, tmp, log });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  const subjects = await perMessageSubjects(eng);

  const cases = messageCases(subjects, messages).map((c) => {
    log(`per message: ${c.message.label}`);
    return runCase(c, settings.timing);
  });
  log("error path");
  const errorPath = runCase(errorCase(subjects, messages), settings.timing);
  log("error path, long list");
  const longErrorPath = runCase(longErrorCase(subjects, messages), settings.timing);
  const cliLarge = withCli ? runCliLarge({ rounds: quick ? 1 : 3, bytes: quick ? 4 * 1024 * 1024 : 200e6, specDir, log }) : undefined;
  const sizes = await measureSizes(
    root,
    eng.eras.map((e) => e.era),
  );
  log("nesting: where re-serialization and cloning break");
  const breaks = await measureBreaks();
  const outboundRuntime = (await import(pathToFileURL(join(root, "dist", "outbound.js")).href)) as typeof import("../src/outbound.js");
  const outboundModule = async (era: string) =>
    (await import(pathToFileURL(join(root, "generated", era, "outbound.js")).href)) as Record<string, Validator>;
  const outboundSubjects = {
    validateMcpResponse: outboundRuntime.validateMcpResponse,
    generated: { legacy: await outboundModule("legacy"), modern: await outboundModule("modern") },
    zod,
  };
  const outbound = outboundCases(outboundSubjects, outboundMessages(specDir)).map((c) => {
    log(`outbound: ${c.message.label}`);
    return runCase(c, settings.timing);
  });
  const outboundSizes = await measureSizes(
    root,
    eng.eras.map((e) => e.era),
    "outbound",
  );
  const table = outboundTable(root);
  log("codegen");
  const codegenStarted = performance.now();
  await generate({ schemasDir: join(root, "schemas"), specDir });
  const codegenMs = performance.now() - codegenStarted;
  log("mixed load against examples/server.ts");
  const loadServer = await launchExample();
  const load = await runLoad(loadServer, quick ? 200 : LOAD_MESSAGES, LOAD_CONCURRENCY).finally(() => loadServer.stop());
  if (load.failures.length > 0) throw new Error(`mixed load: ${load.failures.length} failures, first: ${load.failures[0]}`);
  log("wymcp stdio: a long line, a client that does not read, a server that does not read");
  const stdioMemory = await runStdioMemory(quick ? STDIO_MEMORY_QUICK : STDIO_MEMORY_FULL);
  const judged = targets(cases, errorPath, startup, sizes, codegenMs, load, stdioMemory);
  const toolsAtEdge = await runToolsAtEdgeBench(settings.timing, log);
  judged.push(toolsAtEdgeTarget(toolsAtEdge));
  const headerCost = await (await headerCostBundle()).runHeaderCostBench(messages.toolsCall, headerCostTiming, log);
  judged.push(...headerCostTargets(headerCost));
  const adversarial = runAdversarial(adversarialSettings, log);
  const adversarialEdge = await runAdversarialEdge(edgeSettings, log);
  const seconds = (performance.now() - started) / 1000;

  const cpu = cpus()[0]?.model ?? "unknown CPU";
  const { warmupMs, roundMs, rounds } = settings.timing;
  const lines = [
    `wymcp benchmark${quick ? QUICK_NOTE : ""}`,
    `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpu}`,
    "",
    ...section("startup", `## Start-up (${startup.rounds} fresh node processes per variant, alternated)`, startupTable(startup)),
    "",
    ...section(
      "per-message",
      `## Per message (ops/s; in-process, ${warmupMs} ms warm-up, ${rounds} rounds × ${roundMs} ms per variant, interleaved; ratios per round)`,
      ...cases.flatMap((c) => [caseTable(c), ""]),
      "validateMcpRequest takes a parsed body; the JSON.parse + validateMcpRequest row is the end-to-end cost from the bytes.",
    ),
    "",
    ...section("error-path", "## Error path (same settings)", caseTable(errorPath), "", caseTable(longErrorPath)),
    "",
    ...section("size", "## Size (generated validator modules)", sizeTable(sizes)),
    "",
    ...section(
      "nesting",
      "## Nesting: the first depth at which each operation throws in this process (what maxDepth must stay under)",
      breaksTable(breaks),
    ),
    "",
    ...section(
      "outbound",
      "## Outbound (validateMcpResponse, wymcp/outbound; same settings)",
      ...outbound.flatMap((c) => [caseTable(c), ""]),
      "validateMcpResponse takes a parsed message; the JSON.parse + validateMcpResponse row is the cost of a check from the bytes.",
    ),
    "",
    ...section(
      "outbound-size",
      "### Outbound size (generated/<era>/outbound.js; never loaded by the inbound entry)",
      sizeTable(outboundSizes),
    ),
    "",
    ...section("outbound-table", "### Method → result table (generated/manifest.json)", ...table.lines),
    "",
    ...section(
      "tools-at-edge",
      "## Tools at the edge (a valid tools/call, from its bytes; the worst cases a schema or arguments can make)",
      toolsAtEdgeTable(toolsAtEdge),
    ),
    "",
    ...section("header-cost", HEADER_COST_HEADING, headerCostTable(headerCost)),
    "",
    ...section("targets", "## Targets", targetsTable(judged)),
    "",
    ...section("cli-startup", "## CLI start-up (wymcp check on the tools/call above)", cliStartupTable(cliStartup)),
    "",
    ...(cliLarge ? [...section("cli-large", "## CLI on a large JSONL capture", cliLargeTable(cliLarge)), ""] : []),
    ...section("adversarial", adversarialHeading(), adversarialTable(adversarial)),
    "",
    ...section("adversarial-edge", adversarialEdgeHeading(), adversarialEdgeTable(adversarialEdge)),
    "",
    `total ${seconds.toFixed(1)} s`,
  ];
  console.log(lines.join("\n"));
  const command = withCli ? "npm run bench -- --cli" : "npm run bench";
  writeSections(command, { perMessage: cases, startup, adversarial, targets: { of: "bench", list: judged } });

  if (out) {
    const results = {
      date: new Date().toISOString(),
      provenance: provenanceOf(command),
      quick,
      environment: { node: process.version, platform: process.platform, arch: process.arch, cpus: cpus().length, cpu },
      settings,
      startup: { ...startup, derived: derive(startup) },
      perMessage: cases,
      errorPath,
      longErrorPath,
      size: sizes,
      nestingBreaks: breaks,
      outbound: { perMessage: outbound, size: outboundSizes, table: table.data },
      targets: judged,
      toolsAtEdge,
      headerCost,
      stdioMemory,
      cli: { startup: cliStartup, large: cliLarge },
      adversarial,
      adversarialEdge,
      seconds,
    };
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    log(`wrote ${out}`);
  }
}

/** The inbound per-message subjects: the built runtime, the generated modules, Ajv at boot, the SDK's Zod schemas. */
async function perMessageSubjects(eng: ReturnType<typeof engine>): Promise<Subjects> {
  const runtime = (await import(pathToFileURL(join(root, "dist", "index.js")).href)) as typeof import("../src/index.js");
  const generatedModule = async (era: string) =>
    (await import(pathToFileURL(join(root, "generated", era, "validators.js")).href)) as Record<string, Validator>;
  return {
    validateMcpRequest: runtime.validateMcpRequest,
    depth: { parsed: exceedsDepth, bytes: bytesExceedDepth, max: DEFAULT_MAX_DEPTH },
    generated: { legacy: await generatedModule("legacy"), modern: await generatedModule("modern") },
    boot: compileAtBoot(eng),
    zod,
  };
}

/**
 * `--per-message`: only the inbound per-message tables (both format modes) and the ratios against JSON.parse, printed,
 * nothing written (about a minute; `--quick`: seconds).
 */
async function runPerMessageOnly(messages: ReturnType<typeof benchMessages>, eng: ReturnType<typeof engine>): Promise<void> {
  const subjects = await perMessageSubjects(eng);
  const cases = messageCases(subjects, messages).map((c) => {
    log(`per message: ${c.message.label}`);
    return runCase(c, settings.timing);
  });
  const ratio = (key: string, variant: string) => {
    const v = cases.find((c) => c.key === key)!.variants.find((x) => x.key === variant)!;
    return `${v.vsParse.median.toFixed(1)}× [${v.vsParse.min.toFixed(1)}–${v.vsParse.max.toFixed(1)}]`;
  };
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    [
      `wymcp benchmark, per message only${quick ? " (quick: one short round, figures are not meaningful)" : ""}`,
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpu}`,
      "",
      ...cases.flatMap((c) => [caseTable(c), ""]),
      "valid tools/call, validateMcpRequest ÷ JSON.parse of its bytes (median [min–max] of the rounds):",
      `  modern, formats annotation (default): ${ratio("tools-call", "vmr")}`,
      `  modern, formats strict:               ${ratio("tools-call", "vmr-strict")}`,
      `  legacy 2025-11-25, annotation:        ${ratio("legacy-tools-call", "vmr")}`,
      `  legacy 2025-11-25, strict:            ${ratio("legacy-tools-call", "vmr-strict")}`,
      "valid modern tools/call, validateMcpRequest without the transport headers ÷ with them (median [min–max] of the rounds):",
      ...(
        [
          ["Node's headers (the Node faces')", "vmr-headers"],
          ["a plain object", "vmr-headers-plain"],
          ["a Fetch Headers", "vmr-headers-fetch"],
        ] as const
      ).map(([label, key]) => {
        const cost = headerCost(cases, key);
        return `  ${`${label}:`.padEnd(37)}${cost.median.toFixed(3)}× [${cost.min.toFixed(3)}–${cost.max.toFixed(3)}]`;
      }),
      (() => {
        // headerCost is vmr ÷ variant in throughput: enforce's cost ÷ report's is the report mode's throughput ratio.
        const [enforce, report] = [headerCost(cases, "vmr-headers-enforce"), headerCost(cases, "vmr-headers-report")];
        const ratio = spread(enforce.samples.map((x, i) => x / report.samples[i]!));
        return `mode: "report" ÷ enforce, valid modern tools/call with Node's headers, throughput (≥ 0.98×): ${ratio.median.toFixed(3)}× [${ratio.min.toFixed(3)}–${ratio.max.toFixed(3)}]`;
      })(),
    ].join("\n"),
  );
}

/**
 * `--header-cost`: only the transport headers' cost, admission and validateMcpRequest, on and off (bench/header-cost.ts);
 * writes its section of docs/performance.md (about a minute; `--quick`: seconds).
 */
async function runHeaderCostOnly(messages: ReturnType<typeof benchMessages>): Promise<void> {
  const figures = await (await headerCostBundle()).runHeaderCostBench(messages.toolsCall, headerCostTiming, log);
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    [
      `wymcp benchmark, the transport headers only${quick ? " (quick: one short round, figures are not meaningful)" : ""}`,
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpu}`,
      "",
      ...section("header-cost", HEADER_COST_HEADING, headerCostTable(figures), "", targetsTable(headerCostTargets(figures))),
    ].join("\n"),
  );
  writeSections("npm run bench -- --header-cost");
}

/** The header-cost bench as the package ships (bench/bundled.ts): its Node faces make closures per request. */
const headerCostBundle = () => importBundled<typeof import("./header-cost.js")>(root, "bench/header-cost.ts");

/** Ratios near 1 read against a 3 % budget: many short rounds, so that a burst of load falls on few of them. */
const headerCostTiming: Timing = quick ? settings.timing : { warmupMs: 100, roundMs: 20, rounds: 61 };

const HEADER_COST_HEADING =
  "## The transport headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name against the body): a valid modern tools/call admitted " +
  "from its bytes with the header rules on and off, three ways of holding the headers; in-process, interleaved rounds";

/** `--http`: only the flood: the example server gated (without and with telemetry), through the bare bridge, and the SDK alone (about 6 minutes; `--quick`: a few seconds). */
async function mainHttp(): Promise<void> {
  const started = performance.now();
  const quickOrFull: HttpSettings = quick
    ? { rounds: 1, roundMs: 300, warmupMs: 100, connections: 4 }
    : { rounds: 11, roundMs: 800, warmupMs: 500, connections: 8 };
  const settings: HttpSettings = smoke ? { ...quickOrFull, roundMs: 50, warmupMs: 20 } : quickOrFull;
  const results = await runHttpFlood(settings, log);
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    [
      `wymcp HTTP flood${quick ? " (quick: one short round, figures are not meaningful)" : ""}`,
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpu}`,
      "",
      ...section(
        "http",
        `## HTTP flood: examples/server.ts gated (gateNode), WYMCP_GATE=bridge (the same bridge, no validation) and WYMCP_GATE=off ` +
          `(the SDK alone, toNodeHandler); ${settings.connections} keep-alive connections, ${settings.rounds} interleaved rounds × ` +
          `${settings.roundMs} ms per variant per workload; ratios per round`,
        floodTable(results),
      ),
      "",
      ...section(
        "http-telemetry",
        `## Telemetry, in the same interleaved rounds: examples/server.ts with WYMCP_OTEL=noop serves gated on /mcp-untraced ` +
          `and gated with mcpTelemetry() and no SDK on /mcp (one process); with WYMCP_OTEL=sdk (the OpenTelemetry SDK: ` +
          `batch span processor, periodic metric reader, in-memory exporters) it records on /mcp, and /mcp-untraced is that ` +
          `process without telemetry; ratios per round`,
        telemetryTable(results),
      ),
      "",
      `total ${seconds.toFixed(1)} s`,
    ].join("\n"),
  );
  writeSections("npm run bench -- --http");
  // docs/observability.md carries the telemetry figures too, written by the same run.
  const telemetry = printed.find((p) => p.name === "http-telemetry");
  if (!quick && telemetry) {
    writeDocSection(
      join(root, "docs", "observability.md"),
      "bench:http-telemetry",
      `${provenance("npm run bench -- --http")}\n\n${textSection(telemetry.heading, ...telemetry.body)}`,
    );
  }
  if (out) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), quick, settings, http: results, seconds }, null, 2)}\n`);
}

function adversarialHeading(): string {
  const { startN, capN, full, worstToLimit, budgetMs, rounds } = adversarialSettings;
  return (
    `## Adversarial bodies (fuzz/adversarial: every array/map location, regex and batch; worst item kind per location; ` +
    `n ×4 from ${startN} to ${full ? "the body limit" : `${capN}${worstToLimit ? " (the body limit for the worst of each lane and shape)" : ""}`}, ` +
    `a step projected over ${budgetMs} ms not taken; ${rounds} interleaved rounds, ratios per round)`
  );
}

function adversarialEdgeHeading(): string {
  const { rounds, startN, budgetMs } = edgeSettings;
  return (
    "## Adversarial header values and tool schemas at the edge (fuzz/adversarial/edge.ts: the path after the body and the header " +
    "lines are parsed, admission (the nesting bound, validateMcpRequest with the header rules) and the tool's Mcp-Param headers and arguments ÷ JSON.parse of " +
    "the body and the header lines as one JSON text; headers at Node's default 16 KiB and a quarter of it; schemas n ×4 from " +
    `${startN} to ${edgeSettings.maxN ?? "the body limit"}, a step projected over ${budgetMs} ms not taken; ${rounds} interleaved rounds, ratios per round)`
  );
}

/** `--adversarial-edge`: only the tools at the edge's families (about a minute). */
async function mainAdversarialEdge(): Promise<void> {
  const result = await runAdversarialEdge(edgeSettings, log);
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    [
      `wymcp adversarial edge benchmark${quick ? " (quick: one short round, figures are not meaningful)" : ""}`,
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpu}`,
      "",
      ...section("adversarial-edge", adversarialEdgeHeading(), adversarialEdgeTable(result)),
      "",
      `total ${result.seconds.toFixed(1)} s`,
    ].join("\n"),
  );
  writeSections("npm run bench -- --adversarial-edge");
  if (out) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), quick, adversarialEdge: result }, null, 2)}\n`);
}

/** `--adversarial`: only the adversarial section (a minute or two; `--quick`: seconds). */
async function mainAdversarial(): Promise<void> {
  const result = runAdversarial(adversarialSettings, log);
  const edge = await runAdversarialEdge(edgeSettings, log);
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    [
      `wymcp adversarial benchmark${quick ? " (quick: one short round, figures are not meaningful)" : ""}`,
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpu}`,
      "",
      ...section("adversarial", adversarialHeading(), adversarialTable(result)),
      "",
      ...section("adversarial-edge", adversarialEdgeHeading(), adversarialEdgeTable(edge)),
      "",
      `total ${(result.seconds + edge.seconds).toFixed(1)} s`,
    ].join("\n"),
  );
  const command = "npm run bench -- --adversarial";
  writeSections(command, { adversarial: result });
  if (out)
    writeFileSync(
      out,
      `${JSON.stringify({ date: new Date().toISOString(), provenance: provenanceOf(command), quick, adversarial: result, adversarialEdge: edge }, null, 2)}\n`,
    );
}

/** The sections printed so far, by name: `writeSections` puts each into docs/performance.md. */
const printed: Array<{ name: string; heading: string; body: string[] }> = [];

/** Prints as before, and remembers the section for docs/performance.md under `<!-- bench:NAME -->`. */
function section(name: string, heading: string, ...body: string[]): string[] {
  printed.push({ name, heading, body });
  return [heading, ...body];
}

/**
 * A full run writes its tables into docs/performance.md and draws its charts, from the same figures, into docs/charts/
 * (bench/charts.ts); a quick run's figures mean nothing, so it writes none.
 */
function writeSections(command: string, charts?: ChartInputs): void {
  if (quick) return;
  for (const { name, heading, body } of printed) writeBenchSection(name, textSection(heading, ...body), command);
  log(`wrote ${printed.length} section(s) of ${PERFORMANCE_DOC}`);
  if (charts)
    log(
      `drew ${writeCharts(charts, provenanceOf(command))
        .map((f) => relative(root, f))
        .join(", ")}`,
    );
}

/** Per era: how many methods the table has, which come from exceptions, which the discriminator applies to. */
function outboundTable(root: string) {
  type Outbound = {
    results: Record<string, string>;
    resultExceptions: Record<string, string>;
    discriminator: { methods: string[] } | null;
  };
  const manifest = JSON.parse(readFileSync(join(root, "generated", "manifest.json"), "utf8")) as {
    eras: Record<string, { outbound: Outbound }>;
  };
  const data = Object.fromEntries(
    Object.entries(manifest.eras).map(([era, { outbound }]) => [
      era,
      {
        methods: Object.keys(outbound.results).length,
        exceptions: outbound.resultExceptions,
        discriminated: outbound.discriminator?.methods ?? [],
      },
    ]),
  );
  const lines = Object.entries(data).map(([era, d]) => {
    const exceptions =
      Object.entries(d.exceptions)
        .map(([m, def]) => `${m} → ${def}`)
        .join(", ") || "none";
    const discriminated = d.discriminated.length ? `; input_required discriminated on ${d.discriminated.join(", ")}` : "";
    return `- ${era}: ${d.methods} methods, ${Object.keys(d.exceptions).length} exceptions (${exceptions})${discriminated}`;
  });
  return { data, lines };
}

/** `--proxy --only tools`: only the proxy --tools rounds (`--rounds N`, 9 by default), printed; nothing written. */
async function mainProxyTools(settings: ProxyBenchSettings): Promise<void> {
  const at = process.argv.indexOf("--rounds");
  const rounds = at > 0 ? Number(process.argv[at + 1]) : settings.rounds;
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer");
  const started = performance.now();
  const results = await runProxyToolsBench({ ...settings, rounds }, log);
  console.log(
    [
      `wymcp proxy --pass-through, proxy, --tools and learning (the default)${quick ? " (quick: figures are not meaningful)" : ""}: ${settings.connections} keep-alive connections, at least ${rounds} rounds in a balanced order × ${settings.roundMs} ms per variant`,
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}`,
      "",
      proxyToolsTable(results),
      "",
      `total ${((performance.now() - started) / 1000).toFixed(1)} s`,
    ].join("\n"),
  );
}

/**
 * `--proxy`: `wymcp proxy` and `wymcp stdio` (about 5 minutes with the 60 s memory runs; `--quick`: seconds); `--only stdio`:
 * the stdio rounds alone (about 25 s); `--only tools`: the proxy --tools rounds alone (about a minute).
 */

/**
 * `--proxy --only live`: the live page's table alone, with the load average before and after, for a change to `--ui`; the
 * whole `--proxy` run writes it into docs/performance.md with the rest.
 */
async function mainLive(settings: ProxyBenchSettings): Promise<void> {
  const before = loadavg()
    .map((n) => n.toFixed(2))
    .join(" / ");
  const upstream = await launchExample({ env: { WYMCP_GATE: "off" } });
  try {
    const r = await runLiveBench(upstream.url, liveSettings(settings), log);
    const after = loadavg()
      .map((n) => n.toFixed(2))
      .join(" / ");
    console.log([liveTable(r), "", `load average (1 / 5 / 15 min) ${before} before, ${after} after`].join("\n"));
  } finally {
    await upstream.stop();
  }
}

/**
 * `--proxy --only listener`: the live page's listener table alone (bench/listener.ts, about a minute), printed with its
 * budgets; the whole `--proxy` run writes it into docs/performance.md with the rest.
 */
async function mainListener(settings: ProxyBenchSettings): Promise<void> {
  const upstream = await launchExample({ env: { WYMCP_GATE: "off" } });
  try {
    const r = await runListenerBench(upstream.url, listenerSettings(settings), log);
    console.log([listenerTable(r), "", targetsTable(listenerTargets(r))].join("\n"));
  } finally {
    await upstream.stop();
  }
}

/** `--proxy`: `wymcp proxy` and `wymcp stdio` (about 5 minutes with the 60 s memory runs; `--quick`: seconds). */
async function mainProxy(): Promise<void> {
  const started = performance.now();
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  if (only !== undefined && only !== "stdio" && only !== "tools" && only !== "live" && only !== "listener")
    throw new Error(`--only takes stdio, tools, live or listener, not ${JSON.stringify(only)}`);
  buildDist();
  const at = process.argv.indexOf("--memory-seconds");
  const memorySeconds = at > 0 ? Number(process.argv[at + 1]) : smoke ? 1 : quick ? 2 : 60;
  if (!(memorySeconds > 0)) throw new Error("--memory-seconds must be a positive number");
  const quickOrFull: ProxyBenchSettings = quick
    ? {
        rounds: 1,
        roundMs: 300,
        warmupMs: 100,
        connections: 4,
        window: 16,
        memorySeconds,
        idleSockets: 100,
        liveMessages: 2_000,
        liveSettleMs: 3_000,
        pageRows: 1_000,
        liveRounds: 1,
        listenerReaders: 10,
        listenerFillCalls: 500,
      }
    : {
        rounds: 9,
        roundMs: 800,
        warmupMs: 500,
        connections: 8,
        window: 32,
        memorySeconds,
        idleSockets: 1000,
        liveMessages: 100_000,
        liveSettleMs: 60_000,
        pageRows: 10_000,
        liveRounds: 24,
        listenerReaders: 100,
        listenerFillCalls: 5_200,
      };
  const settings: ProxyBenchSettings = smoke
    ? { ...quickOrFull, roundMs: 50, warmupMs: 20, idleSockets: 20, liveMessages: 200, liveSettleMs: 1_000, pageRows: 100 }
    : quickOrFull;
  if (only === "tools") return mainProxyTools(settings);
  if (only === "live") return mainLive(settings);
  if (only === "listener") return mainListener(settings);
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  if (only === "stdio") {
    // A part of the section: printed, never written over the whole section in docs/performance.md.
    const stdio = await stdioRounds(root, settings, log);
    console.log(
      [
        `wymcp stdio${quick ? " (quick: one short round, figures are not meaningful)" : ""}`,
        `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpu}`,
        `${settings.window} requests in flight, ${roundsOf(settings).stdio} interleaved rounds (balanced order) × ${settings.roundMs} ms per variant; ratios per round`,
        "",
        stdioTable(stdio),
        "",
        targetsTable([stdioTarget(stdio)]),
        "",
        `total ${((performance.now() - started) / 1000).toFixed(1)} s`,
      ].join("\n"),
    );
    if (out) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), quick, settings, stdio }, null, 2)}\n`);
    return;
  }
  const results = await runProxyBench(root, settings, log);
  const judged = proxyTargets(results);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    [
      `wymcp proxy and stdio${quick ? " (quick: one short round, figures are not meaningful)" : ""}`,
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpu}`,
      "",
      ...section(
        "proxy",
        `## wymcp proxy and wymcp stdio: examples/server.ts (the SDK alone) behind the proxy, the proxy with --otel, its --pass-through, and direct; ` +
          `bench/stdio-server.mjs (the SDK's McpServer) behind wymcp stdio, its --pass-through, and direct; ${settings.connections} ` +
          `keep-alive connections, ${settings.window} stdio requests in flight, ${roundsOf(settings).http} (proxy) and ${roundsOf(settings).stdio} (stdio) ` +
          `interleaved rounds × ${settings.roundMs} ms per variant, in a balanced order (each variant follows each other equally often); ` +
          `ratios per round; memory over ${memorySeconds} s of mixed traffic`,
        proxyTables(results),
        "",
        "### Targets",
        "",
        targetsTable(judged),
      ),
      "",
      `total ${seconds.toFixed(1)} s`,
    ].join("\n"),
  );
  const command = memorySeconds >= 60 ? "npm run bench -- --proxy" : `npm run bench -- --proxy --memory-seconds ${memorySeconds}`;
  writeSections(command, { proxy: results, targets: { of: "proxy", list: judged } });
  if (out)
    writeFileSync(
      out,
      `${JSON.stringify({ date: new Date().toISOString(), provenance: provenanceOf(command), quick, settings, ...results, targets: judged, seconds }, null, 2)}\n`,
    );
}

/** `--body-memory`: a fresh server per case, gated and ungated back to back (about 3 minutes; `--quick`: a 64 KiB body, seconds). */
async function mainBodyMemory(): Promise<void> {
  const started = performance.now();
  const bytes = quick ? 64 * 1024 : DEFAULT_MAX_BODY_BYTES;
  const rows = await runBodyMemory(
    { bytes, pieces: quick ? [4, 64 * 1024] : PIECES, framings: quick ? ["chunked"] : ["chunked", "declared"] },
    log,
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    [
      `wymcp body memory${quick ? " (quick: a small body, figures are not meaningful)" : ""}`,
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpu}`,
      "",
      ...section(
        "body-memory",
        `## Body memory: examples/server.ts gated (gateNode) and ungated (WYMCP_GATE=off, the SDK's toNodeHandler), a fresh ` +
          `process per case; one valid ${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 0)} MiB tools/call, chunked ` +
          `(one HTTP chunk per piece) or declared (Content-Length, written piece by piece); the server's peak RSS over the request ` +
          `less its RSS before (VmHWM)`,
        bodyMemoryTable(rows),
        "",
        bodyMemoryTarget(rows),
      ),
      "",
      `total ${seconds.toFixed(1)} s`,
    ].join("\n"),
  );
  writeSections("npm run bench -- --body-memory");
  if (out) writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), quick, bytes, rows, seconds }, null, 2)}\n`);
}

/** `--soak`: handler.fetch alone and gateFetch behind @hono/node-server, 60 s each, then the three ways of reading (about 3.5 minutes; `--quick`: seconds). */
async function mainSoak(): Promise<void> {
  const started = performance.now();
  const seconds = smoke ? 1 : quick ? 3 : 60;
  const probeSeconds = smoke ? 1 : quick ? 2 : 20;
  const concurrency = 32;
  const main = await runSoak({ seconds, concurrency, modes: ["sdk", "gated"] }, log);
  const probes = await runSoak({ seconds: probeSeconds, concurrency, modes: ["reader", "arrayBuffer", "text"] }, log);
  const total = (performance.now() - started) / 1000;
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    [
      `wymcp soak${quick ? " (quick: seconds, figures are not meaningful)" : ""}`,
      `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} × ${cpu}`,
      "",
      ...section(
        "soak",
        `## Soak: the Fetch face behind @hono/node-server, ${concurrency} requests in flight on keep-alive connections, one in twenty ` +
          `with Content-Type text/plain; ${seconds} s per server (the probes ${probeSeconds} s), each a fresh process`,
        soakTable([...main, ...probes]),
      ),
      "",
      `total ${total.toFixed(1)} s`,
    ].join("\n"),
  );
  writeSections("npm run bench -- --soak");
  if (out)
    writeFileSync(
      out,
      `${JSON.stringify({ date: new Date().toISOString(), quick, rows: [...main, ...probes], seconds: total }, null, 2)}\n`,
    );
}

(httpMode
  ? mainHttp()
  : adversarialOnly
    ? mainAdversarial()
    : adversarialEdgeOnly
      ? mainAdversarialEdge()
      : bodyMemoryOnly
        ? mainBodyMemory()
        : soakOnly
          ? mainSoak()
          : proxyMode
            ? mainProxy()
            : main()
).catch((error: unknown) => {
  console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
