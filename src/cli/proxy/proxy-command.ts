/**
 * @module proxy/proxy-command: `wymcp proxy`, the flags and the process: listen, log to stderr, drain on SIGTERM
 * (then export the last spans, with `--otel`).
 */
import type { GateLog } from "../../log/gate-log.js";
import { hostPolicyOption, versionsOption } from "../../options/options.js";
import type { GateFlags } from "../../hosts/shared/gate-flags.js";
import type { LiveArgs } from "../../inspect/live/start.js";
import { hostPort, LIST, positiveInteger, readArgs, SWITCH, UsageError, VALUE } from "../args.js";
import { commandArgs } from "../command-start.js";
import { startFace, type StartedFace } from "../face-start.js";
import { CALLER_FLAGS, GATE_FLAGS, sharedFlags, type ToolsFlags } from "../gate-options.js";
import { createProxy, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_MAX_ANSWER_BYTES, listen, type ProxyOptions } from "../../hosts/proxy/proxy.js";
import { PROXY_USAGE } from "./usage.js";

/** The proxy's flags: the faces' shared ones, and its own. */
export const PROXY_FLAGS = {
  ...GATE_FLAGS,
  ...CALLER_FLAGS,
  upstream: VALUE,
  listen: VALUE,
  timeout: VALUE,
  "connect-timeout": VALUE,
  "drain-timeout": VALUE,
  "max-answer-bytes": VALUE,
  "rewrite-host": SWITCH,
  "trust-proxy": SWITCH,
  "allowed-host": LIST,
  "allowed-origin": LIST,
  "allow-any-host": SWITCH,
  "supported-versions": VALUE,
} as const;

/** The proxy's options from its command line. */
export function parseProxyArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): { options: ProxyOptions; listen: { host: string; port: number }; help: boolean; toolFlags: ToolsFlags; live: LiveArgs } {
  const { values, positionals, tail } = readArgs(PROXY_FLAGS, argv);
  const extra = positionals[0] ?? (tail === undefined ? undefined : "--");
  if (values.help) return { help: true } as ReturnType<typeof parseProxyArgs>;
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  const { allow, allowAnyHost } = allowFlags(values);
  const shared = sharedFlags(values, { hosts: !allowAnyHost, allow, env });
  return {
    options: {
      ...shared.options,
      allowAnyHost,
      upstream: upstreamUrl(values.upstream),
      timeoutMs: positiveInteger("--timeout", values.timeout, 60_000),
      connectTimeoutMs: positiveInteger("--connect-timeout", values["connect-timeout"], DEFAULT_CONNECT_TIMEOUT_MS),
      drainTimeoutMs: positiveInteger("--drain-timeout", values["drain-timeout"], 10_000),
      maxAnswerBytes: positiveInteger("--max-answer-bytes", values["max-answer-bytes"], DEFAULT_MAX_ANSWER_BYTES, { infinity: true }),
      rewriteHost: values["rewrite-host"] === true,
      trustProxy: values["trust-proxy"] === true,
    },
    listen: hostPort("--listen", values.listen ?? "127.0.0.1:3000"),
    help: false,
    toolFlags: shared.tools,
    live: shared.live,
  };
}

/** The --upstream URL, required, http:// or https://. */
function upstreamUrl(value: string | undefined): URL {
  if (value === undefined) throw new UsageError("--upstream URL is required: the MCP server to forward to");
  const upstream = URL.canParse(value) ? new URL(value) : undefined;
  if (upstream?.protocol !== "http:" && upstream?.protocol !== "https:")
    throw new UsageError(`--upstream must be an http:// or https:// URL, not ${JSON.stringify(value)}`);
  return upstream;
}

/** `allow` from the proxy's flags (the hosts, the origins, the server's versions), checked as the gates check it. */
function allowFlags(values: {
  "allowed-host"?: string[];
  "allowed-origin"?: string[];
  "allow-any-host"?: boolean;
  "supported-versions"?: string;
}): { allow: NonNullable<GateFlags["allow"]>; allowAnyHost: boolean } {
  const allowAnyHost = values["allow-any-host"] === true;
  const hosts = values["allowed-host"];
  const origins = values["allowed-origin"];
  if (allowAnyHost && (hosts || origins))
    throw new UsageError("--allow-any-host turns the Host and Origin check off; --allowed-host and --allowed-origin need it on: use one");
  try {
    hostPolicyOption(hosts, origins);
  } catch {
    throw new UsageError("--allowed-host and --allowed-origin take a non-empty value each");
  }
  const listed = values["supported-versions"];
  let versions: readonly string[] | undefined;
  try {
    versions = listed === undefined ? undefined : versionsOption(listed.split(",").map((version) => version.trim()));
  } catch {
    throw new UsageError(`--supported-versions must list YYYY-MM-DD revisions, comma-separated, not ${JSON.stringify(listed)}`);
  }
  return { allow: { ...(hosts ? { hosts } : {}), ...(origins ? { origins } : {}), ...(versions ? { versions } : {}) }, allowAnyHost };
}

/** Runs `wymcp proxy <argv>`; resolves to the exit code once the proxy has drained (or could not start). */
export async function runProxyCommand(argv: string[]): Promise<number> {
  const read = commandArgs("proxy", argv, parseProxyArgs, PROXY_USAGE);
  if ("exit" in read) return read.exit;
  const parsed = read.args;
  const started = await startFace("proxy", { options: parsed.options, tools: parsed.toolFlags, live: parsed.live });
  if ("exit" in started) return started.exit === 2 ? 2 : 1;
  const { log, otel, tools, hooks } = started;
  const proxy = createProxy({ ...parsed.options, telemetry: otel?.telemetry, tools }, log, hooks);
  let listening;
  try {
    listening = await listen(proxy, parsed.listen.host, parsed.listen.port);
  } catch (error) {
    process.stderr.write(`wymcp proxy: cannot listen on ${parsed.listen.host}:${parsed.listen.port}: ${(error as Error).message}\n`);
    await started.close();
    return 1;
  }
  return serveUntilStopped({ proxy, listening, options: parsed.options, log, started });
}

/**
 * The proxy once it listens: says so, waits for SIGTERM or SIGINT, drains the requests in flight (a second signal
 * stops at once), then closes the live page and exports the last spans; resolves to the exit code.
 */
async function serveUntilStopped({
  proxy,
  listening: { server, address },
  options,
  log,
  started,
}: {
  proxy: ReturnType<typeof createProxy>;
  listening: Awaited<ReturnType<typeof listen>>;
  options: ProxyOptions;
  log: GateLog;
  started: StartedFace;
}): Promise<number> {
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
  // The live page closes, then the spans of the requests just drained, and the metrics, go out before the process does.
  const exported = await started.close();
  log.line(
    "stopped",
    { cut },
    cut > 0 ? `stopped; ${cut} request(s) still in flight at the deadline were cut off` : "stopped; every request in flight finished",
  );
  // An export still hanging at the bound would hold the process until its own timeout: the bound is the bound.
  if (exported === "late") process.exit(0);
  return 0;
}
