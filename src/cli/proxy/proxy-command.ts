/**
 * @module proxy/proxy-command: `wymcp proxy`, the flags and the process: listen, log to stderr, drain on SIGTERM
 * (then export the last spans, with `--otel`).
 */
import { parseArgs } from "node:util";
import { createLog, type GateLog } from "../../log/gate-log.js";
import { hostPolicyOption, supportedVersionsOption } from "../../core/options.js";
import type { HttpGateFlags } from "../../hosts/shared/gate-flags.js";
import { hostPort, positiveInteger, UsageError } from "../args.js";
import { GATE_FLAG_SPECS, gateFlags } from "../gate-options.js";
import { type Live, startLive, takeLiveArgs } from "../live/live.js";
import { type CommandTelemetry, commandTelemetry } from "../otel/start.js";
import { createProxy, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MAX_ANSWER_BYTES, listen, type ProxyOptions } from "../../hosts/proxy/proxy.js";
import { PROXY_USAGE } from "./usage.js";
import { CALLER_HEADER_SPEC, TOOLS_FLAG_SPECS, type ToolsFlags, toolsFlags, toolsFromFlags } from "../tools-flags.js";

/** `parseArgs` declarations of the proxy's flags: the gates' shared ones, its own, and the tools'. */
export const PROXY_FLAG_SPECS = {
  ...GATE_FLAG_SPECS,
  upstream: { type: "string" },
  listen: { type: "string" },
  timeout: { type: "string" },
  "connect-timeout": { type: "string" },
  "drain-timeout": { type: "string" },
  "max-answer-bytes": { type: "string" },
  "rewrite-host": { type: "boolean", default: false },
  "trust-proxy": { type: "boolean", default: false },
  "allowed-host": { type: "string", multiple: true },
  "allowed-origin": { type: "string", multiple: true },
  "allow-any-host": { type: "boolean", default: false },
  "header-checks": { type: "string" },
  "supported-versions": { type: "string" },
  ...TOOLS_FLAG_SPECS,
  ...CALLER_HEADER_SPEC,
} as const;

/** The proxy's options from its command line. */
export function parseProxyArgs(argv: string[]): {
  options: ProxyOptions;
  listen: { host: string; port: number };
  help: boolean;
  toolFlags?: ToolsFlags;
} {
  const { values, positionals } = parseArgs({ args: argv, options: PROXY_FLAG_SPECS, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const { "allowed-host": _hosts, "allowed-origin": _origins, "caller-header": _callers, ...shared } = values;
  const toolFlags = toolsFlags(values);
  const flags = { ...gateFlags(shared), ...httpFlags(values) };
  const placeholder = new URL("http://127.0.0.1/");
  if (values.help)
    return {
      options: {
        ...flags,
        upstream: placeholder,
        timeoutMs: 0,
        connectTimeoutMs: 0,
        drainTimeoutMs: 0,
        maxAnswerBytes: 0,
        rewriteHost: false,
        trustProxy: false,
      },
      listen: { host: "", port: 0 },
      help: true,
    };
  const upstream = upstreamUrl(values.upstream);
  return {
    options: {
      ...flags,
      upstream,
      timeoutMs: positiveInteger("--timeout", values.timeout, 60_000),
      connectTimeoutMs: positiveInteger("--connect-timeout", values["connect-timeout"], DEFAULT_CONNECT_TIMEOUT_MS),
      drainTimeoutMs: positiveInteger("--drain-timeout", values["drain-timeout"], 10_000),
      maxAnswerBytes: positiveInteger("--max-answer-bytes", values["max-answer-bytes"], DEFAULT_MAX_ANSWER_BYTES, { infinity: true }),
      rewriteHost: values["rewrite-host"] === true,
      trustProxy: values["trust-proxy"] === true,
    },
    listen: hostPort("--listen", values.listen ?? "127.0.0.1:3000"),
    help: false,
    toolFlags,
  };
}

/** The --upstream URL, required, http:// or https://. */
function upstreamUrl(value: string | undefined): URL {
  if (value === undefined) throw new UsageError("--upstream URL is required: the MCP server to forward to");
  let upstream: URL;
  try {
    upstream = new URL(value);
  } catch {
    throw new UsageError(`--upstream must be an http:// or https:// URL, not ${JSON.stringify(value)}`);
  }
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:")
    throw new UsageError(`--upstream must be an http:// or https:// URL, not ${JSON.stringify(value)}`);
  return upstream;
}

/** The proxy's HTTP-only flags, checked as the gates check the options of the same names. */
function httpFlags(values: {
  "allowed-host"?: string[] | undefined;
  "allowed-origin"?: string[] | undefined;
  "allow-any-host"?: boolean | undefined;
  "header-checks"?: string | undefined;
  "supported-versions"?: string | undefined;
}): HttpGateFlags & { allowAnyHost: boolean } {
  const allowAnyHost = values["allow-any-host"] === true;
  const allowedHosts = values["allowed-host"];
  const allowedOrigins = values["allowed-origin"];
  if (allowAnyHost && (allowedHosts || allowedOrigins))
    throw new UsageError("--allow-any-host turns the Host and Origin check off; --allowed-host and --allowed-origin need it on: use one");
  try {
    hostPolicyOption(allowedHosts, allowedOrigins);
  } catch {
    throw new UsageError("--allowed-host and --allowed-origin take a non-empty value each");
  }
  const checks = values["header-checks"];
  if (checks !== undefined && checks !== "on" && checks !== "off")
    throw new UsageError(`--header-checks must be on or off, not ${JSON.stringify(checks)}`);
  const listed = values["supported-versions"];
  let supportedVersions: readonly string[] | undefined;
  if (listed !== undefined) {
    try {
      supportedVersions = supportedVersionsOption(listed.split(",").map((version) => version.trim()));
    } catch {
      throw new UsageError(`--supported-versions must list YYYY-MM-DD revisions, comma-separated, not ${JSON.stringify(listed)}`);
    }
  }
  return {
    allowAnyHost,
    allowedHosts,
    allowedOrigins,
    headerChecks: checks === undefined ? undefined : checks === "on",
    supportedVersions,
  };
}

/** Runs `wymcp proxy <argv>`; resolves to the exit code once the proxy has drained (or could not start). */
export async function runProxyCommand(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseProxyArgs>;
  let liveArgs: ReturnType<typeof takeLiveArgs>["live"];
  try {
    const split = takeLiveArgs(argv);
    liveArgs = split.live;
    parsed = parseProxyArgs(split.rest);
  } catch (error) {
    process.stderr.write(
      `wymcp proxy: ${error instanceof Error ? error.message : String(error)}\nRun "wymcp proxy --help" for the options.\n`,
    );
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(PROXY_USAGE);
    return 0;
  }
  const { options } = parsed;
  const log = createLog("proxy", options.log, process.stderr);
  const otel = options.otel ? await commandTelemetry("proxy", log) : undefined;
  if (options.otel && !otel) return 2;
  let tools;
  let live: Live | undefined;
  try {
    tools = parsed.toolFlags && !options.passThrough ? await toolsFromFlags(parsed.toolFlags, log, options.formats) : undefined;
  } catch (error) {
    process.stderr.write(`wymcp proxy: ${(error as Error).message}\n`);
    await otel?.shutdown();
    return 2;
  }
  try {
    live = await startLive("proxy", liveArgs, options, log);
  } catch (error) {
    process.stderr.write(`wymcp proxy: --ui or --record: ${(error as Error).message}\n`);
    await otel?.shutdown();
    return 1;
  }
  const proxy = createProxy({ ...options, telemetry: otel?.telemetry, tools }, log, live && { observer: live.observer });
  let started;
  try {
    started = await listen(proxy, parsed.listen.host, parsed.listen.port);
  } catch (error) {
    process.stderr.write(`wymcp proxy: cannot listen on ${parsed.listen.host}:${parsed.listen.port}: ${(error as Error).message}\n`);
    await live?.close();
    await otel?.shutdown();
    return 1;
  }
  return serveUntilStopped(proxy, started, options, log, live, otel);
}

/**
 * The proxy once it listens: says so, waits for SIGTERM or SIGINT, drains the requests in flight (a second signal
 * stops at once), then closes the live page and exports the last spans; resolves to the exit code.
 */
async function serveUntilStopped(
  proxy: ReturnType<typeof createProxy>,
  { server, address }: Awaited<ReturnType<typeof listen>>,
  options: ProxyOptions,
  log: GateLog,
  live: Live | undefined,
  otel: CommandTelemetry | undefined,
): Promise<number> {
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}${options.upstream.pathname}`;
  // Listened for before the line that says the proxy is ready: a signal sent as soon as it is read still drains.
  const stopping = new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  log.line(
    "listening",
    { url, upstream: options.upstream.href, passThrough: options.passThrough },
    `listening on ${url}, forwarding to ${options.upstream.href}${options.passThrough ? " (pass-through: nothing is judged)" : ""}`,
  );
  const signal = await stopping;
  // A second signal while draining stops at once.
  const now = () => process.exit(1);
  process.once("SIGTERM", now);
  process.once("SIGINT", now);
  log.line("draining", { signal }, `${signal}: draining the requests in flight`);
  const cut = await proxy.drain(server);
  await live?.close();
  // The spans of the requests just drained, and the metrics, go out before the process does.
  const exported = await otel?.shutdown();
  log.line(
    "stopped",
    { cut },
    cut > 0 ? `stopped; ${cut} request(s) still in flight at the deadline were cut off` : "stopped; every request in flight finished",
  );
  // An export still hanging at the bound would hold the process until its own timeout: the bound is the bound.
  if (exported === "late") process.exit(0);
  return 0;
}
