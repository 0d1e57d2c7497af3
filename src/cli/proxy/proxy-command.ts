/**
 * @module proxy/proxy-command: `wymcp proxy`, the flags and the process: listen, log to stderr, drain on SIGTERM.
 */
import { parseArgs } from "node:util";
import { createLog } from "../gate-log.js";
import { GATE_FLAG_SPECS, GATE_FLAGS_USAGE, gateFlags, positiveInteger, UsageError } from "../gate-options.js";
import { createProxy, listen, type ProxyOptions } from "./proxy.js";

export const PROXY_USAGE = `Usage: wymcp proxy --upstream URL [options]

A validating reverse proxy in front of an MCP server written in anything (Python, Go, C#, Java, ...). Every POST is
judged as the gates judge it and a bad one is answered, never forwarded; what passes goes upstream byte for byte with
the client's headers. GET (the server's stream) and DELETE go straight through; answers stream back as they come.

  --upstream URL      the server, e.g. http://127.0.0.1:8000/mcp; clients use the same path on the proxy
  --listen HOST:PORT  where to listen (default 127.0.0.1:3000; [::1]:3000 for IPv6; port 0 picks a free one)
  --timeout MS        longest wait for the upstream to start answering (default 60000); then 504
  --drain-timeout MS  on SIGTERM, longest wait for requests in flight to finish (default 10000)
  --rewrite-host      send the upstream's host in Host (default: the client's, as it sent it)
${GATE_FLAGS_USAGE}

An upstream that is down or refuses gets 502, one that does not answer in time 504, each with a JSON-RPC error; the
proxy keeps serving. SIGTERM or SIGINT drains: no new connection, server streams (GET) end, the rest finish; exit 0.
It keeps no state: run as many as needed behind a load balancer (legacy sessions need affinity on Mcp-Session-Id).
`;

/** The proxy's options from its command line. */
export function parseProxyArgs(argv: string[]): { options: ProxyOptions; listen: { host: string; port: number }; help: boolean } {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...GATE_FLAG_SPECS,
      upstream: { type: "string" },
      listen: { type: "string" },
      timeout: { type: "string" },
      "drain-timeout": { type: "string" },
      "rewrite-host": { type: "boolean", default: false },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const flags = gateFlags(values);
  const placeholder = new URL("http://127.0.0.1/");
  if (values.help)
    return {
      options: { ...flags, upstream: placeholder, timeoutMs: 0, drainTimeoutMs: 0, rewriteHost: false },
      listen: { host: "", port: 0 },
      help: true,
    };
  if (values.upstream === undefined) throw new UsageError("--upstream URL is required: the MCP server to forward to");
  let upstream: URL;
  try {
    upstream = new URL(values.upstream);
  } catch {
    throw new UsageError(`--upstream must be an http:// or https:// URL, not ${JSON.stringify(values.upstream)}`);
  }
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:")
    throw new UsageError(`--upstream must be an http:// or https:// URL, not ${JSON.stringify(values.upstream)}`);
  return {
    options: {
      ...flags,
      upstream,
      timeoutMs: positiveInteger("--timeout", values.timeout, 60_000),
      drainTimeoutMs: positiveInteger("--drain-timeout", values["drain-timeout"], 10_000),
      rewriteHost: values["rewrite-host"] === true,
    },
    listen: parseListen(values.listen ?? "127.0.0.1:3000"),
    help: false,
  };
}

/** `host:port`, `[v6]:port` or `:port` (loopback). Never all interfaces unless asked for by name (0.0.0.0, [::]). */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) throw new UsageError(`--listen must be HOST:PORT (e.g. 127.0.0.1:3000), not ${JSON.stringify(value)}`);
  return { host: match[1] ?? (match[2] || "127.0.0.1"), port };
}

/** Runs `wymcp proxy <argv>`; resolves to the exit code once the proxy has drained (or could not start). */
export async function runProxyCommand(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseProxyArgs>;
  try {
    parsed = parseProxyArgs(argv);
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
  const log = createLog("proxy", options.log, (line) => void process.stderr.write(line));
  const proxy = createProxy(options, log);
  let started;
  try {
    started = await listen(proxy, parsed.listen.host, parsed.listen.port);
  } catch (error) {
    process.stderr.write(`wymcp proxy: cannot listen on ${parsed.listen.host}:${parsed.listen.port}: ${(error as Error).message}\n`);
    return 1;
  }
  const { server, address } = started;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}${options.upstream.pathname}`;
  log.line(
    "listening",
    { url, upstream: options.upstream.href, passThrough: options.passThrough },
    `listening on ${url}, forwarding to ${options.upstream.href}${options.passThrough ? " (pass-through: nothing is judged)" : ""}`,
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  // A second signal while draining stops at once.
  const now = () => process.exit(1);
  process.once("SIGTERM", now);
  process.once("SIGINT", now);
  log.line("draining", { signal }, `${signal}: draining the requests in flight`);
  const cut = await proxy.drain(server);
  log.line(
    "stopped",
    { cut },
    cut > 0 ? `stopped; ${cut} request(s) still in flight at the deadline were cut off` : "stopped; every request in flight finished",
  );
  return 0;
}
