import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import { assertFreshDist } from "./support/built.js";
import { CLI, cleanEnv } from "./support/cli.js";
import { rawPost } from "./support/gate-fixtures.js";
import { MODERN_META } from "./support/messages.js";
import { recordingUpstream, headerOf, startProxy, type Upstream } from "./support/proxy.js";
import { TRACEPARENT, TRACE_ID, PARENT_SPAN_ID, OPERATION_BUCKETS } from "./support/otel.js";
import { transportHeaders } from "./support/transport-headers.js";

// The bin under test is dist/cli.js: it must be built from the current sources.
before(assertFreshDist);

const MODERN = "2026-07-28";
const SPAN_KIND_SERVER = 2; // OTLP's enum

/** One OTLP/JSON attribute list as a plain object (`{ key, value: { stringValue | intValue | ... } }`). */
type OtlpAttributes = Array<{ key: string; value: Record<string, unknown> }>;
const flat = (attributes: OtlpAttributes = []) =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]])) as Record<string, unknown>;

interface Posted {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A loopback OTLP/HTTP receiver: accepts POST /v1/traces, /v1/metrics and /v1/logs (and /stdio/...) in JSON and records each body. */
async function otlpReceiver() {
  const posted: Posted[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let bytes = Buffer.concat(chunks);
    if (req.headers["content-encoding"] === "gzip") bytes = gunzipSync(bytes);
    if (req.method !== "POST" || !/^\/(?:v1|stdio)\/(traces|metrics|logs)$/.test(req.url ?? "")) return void res.writeHead(404).end();
    posted.push({ path: req.url!, headers: req.headers, body: JSON.parse(bytes.toString("utf8")) as Record<string, unknown> });
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: OtlpAttributes;
  status?: { code?: number };
}

function spansOf(posted: Posted[]): Array<OtlpSpan & { resource: Record<string, unknown>; scope: string }> {
  type Body = {
    resourceSpans: Array<{ resource: { attributes: OtlpAttributes }; scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }> }>;
  };
  return posted
    .filter((p) => p.path.endsWith("/traces"))
    .flatMap((p) =>
      (p.body as unknown as Body).resourceSpans.flatMap((r) =>
        r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ ...span, resource: flat(r.resource.attributes), scope: s.scope.name }))),
      ),
    );
}

interface OtlpMetric {
  name: string;
  unit?: string;
  histogram?: { dataPoints: Array<{ attributes: OtlpAttributes; count: string | number; explicitBounds: number[] }> };
  sum?: { dataPoints: Array<{ attributes: OtlpAttributes; asInt?: string | number; asDouble?: number }> };
}

function metricsOf(posted: Posted[]): OtlpMetric[] {
  type Body = { resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: OtlpMetric[] }> }> };
  return posted
    .filter((p) => p.path.endsWith("/metrics"))
    .flatMap((p) => (p.body as unknown as Body).resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics)));
}

describe("what wymcp proxy --otel exports, seen by a local OTLP/HTTP receiver", () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let upstream: Upstream;
  before(async () => {
    receiver = await otlpReceiver();
    upstream = await recordingUpstream();
  });
  after(async () => {
    await receiver.close();
    await upstream.close();
  });

  test("a passing and a refused tools/call: their spans and the operation-duration metric, sent as OTLP/JSON with the headers asked for, the last ones on SIGTERM", async () => {
    const proxy = await startProxy(["--upstream", upstream.url.href, "--otel"], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-collector-token=t0k3n",
      OTEL_SERVICE_NAME: "weather-behind-wymcp",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment.name=test",
      // Nothing is exported before the proxy stops: what the receiver gets is the flush on SIGTERM.
      OTEL_METRIC_EXPORT_INTERVAL: "600000",
      OTEL_BSP_SCHEDULE_DELAY: "600000",
      OTEL_LOGS_EXPORTER: "none",
    });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN };
    const call = (id: number, args: unknown) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { _meta: { ...MODERN_META, traceparent: TRACEPARENT }, name: "get_weather", arguments: args },
      });
    assert.equal(
      (await rawPost(proxy.url.href, { ...headers, ...transportHeaders(call(1, { city: "Lisbon" })) }, call(1, { city: "Lisbon" }))).status,
      200,
    );
    assert.equal((await rawPost(proxy.url.href, { ...headers, ...transportHeaders(call(2, "Lisbon")) }, call(2, "Lisbon"))).status, 400);
    assert.equal(receiver.posted.length, 0, "nothing exported before the flush");
    assert.equal(await proxy.stop(), 0);
    assert.match(proxy.stderr(), /--otel: OpenTelemetry on/);

    const traces = receiver.posted.filter((p) => p.path === "/v1/traces");
    assert.ok(traces.length > 0, "spans were exported on SIGTERM");
    for (const p of receiver.posted) {
      assert.equal(p.headers["content-type"], "application/json", p.path);
      assert.equal(p.headers["x-collector-token"], "t0k3n", p.path);
    }
    const spans = spansOf(receiver.posted);
    assert.deepEqual(
      spans.map((s) => s.name),
      ["tools/call get_weather", "tools/call get_weather"],
    );
    const [passed, refused] = [...spans].sort((a, b) =>
      String(flat(a.attributes)["jsonrpc.request.id"]).localeCompare(String(flat(b.attributes)["jsonrpc.request.id"])),
    );
    for (const span of [passed!, refused!]) {
      assert.equal(span.kind, SPAN_KIND_SERVER);
      assert.equal(span.scope, "wymcp");
      assert.deepEqual([span.traceId, span.parentSpanId], [TRACE_ID, PARENT_SPAN_ID]);
      assert.equal(span.resource["service.name"], "weather-behind-wymcp");
      assert.equal(span.resource["deployment.environment.name"], "test");
      // No process detector by default: the command line (an upstream URL, a stdio server's arguments) stays home.
      assert.equal(span.resource["process.command_args"], undefined);
    }
    const pass = flat(passed!.attributes);
    assert.deepEqual(
      [
        pass["mcp.method.name"],
        pass["gen_ai.tool.name"],
        pass["jsonrpc.request.id"],
        pass["wymcp.verdict"],
        pass["network.transport"],
        pass["rpc.response.status_code"],
      ],
      ["tools/call", "get_weather", "1", "admitted", "tcp", undefined],
    );
    const refusal = flat(refused!.attributes);
    assert.deepEqual(
      [
        refusal["mcp.method.name"],
        refusal["rpc.response.status_code"],
        refusal["wymcp.verdict"],
        refusal["wymcp.reason"],
        refusal["error.type"],
      ],
      ["tools/call", "-32602", "refused", "invalid-message", undefined],
    );
    // The upstream saw the passing call only, with the proxy's span as its parent.
    assert.equal(upstream.received.length, 1);
    assert.equal(headerOf(upstream.received[0]!, "traceparent"), `00-${TRACE_ID}-${passed!.spanId}-01`);

    const metrics = metricsOf(receiver.posted);
    const duration = metrics.find((m) => m.name === "mcp.server.operation.duration");
    assert.ok(duration?.histogram, `the duration histogram among ${metrics.map((m) => m.name).join(", ")}`);
    assert.equal(duration.unit, "s");
    const points = duration.histogram.dataPoints;
    assert.deepEqual(
      points
        .map((p) => {
          const at = flat(p.attributes);
          return [at["mcp.method.name"], at["gen_ai.tool.name"], at["wymcp.verdict"], at["rpc.response.status_code"], Number(p.count)];
        })
        .sort(),
      [
        ["tools/call", "get_weather", "admitted", undefined, 1],
        ["tools/call", "get_weather", "refused", "-32602", 1],
      ],
    );
    for (const point of points) assert.deepEqual(point.explicitBounds, OPERATION_BUCKETS);
    const rejections = metrics.find((m) => m.name === "wymcp.rejections");
    assert.deepEqual(
      rejections?.sum?.dataPoints.map((p) => [flat(p.attributes)["wymcp.reason"], Number(p.asInt ?? p.asDouble)]),
      [["invalid-message", 1]],
    );
  });
});

describe("wymcp proxy --otel with a collector that never answers", () => {
  test("SIGTERM: the drain, then at most 5 s for the export, then exit 0, though the exporter would wait 30 s", async () => {
    // Accepts connections and reads, never answers.
    const sockets: Socket[] = [];
    const hole = net.createServer((socket) => void sockets.push(socket.on("data", () => undefined)));
    await new Promise<void>((resolve) => hole.listen(0, "127.0.0.1", resolve));
    const upstream = await recordingUpstream();
    try {
      const proxy = await startProxy(["--upstream", upstream.url.href, "--otel"], {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(hole.address() as AddressInfo).port}`,
        OTEL_EXPORTER_OTLP_TIMEOUT: "30000",
        OTEL_LOGS_EXPORTER: "none",
      });
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } });
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN };
      assert.equal((await rawPost(proxy.url.href, { ...headers, ...transportHeaders(body) }, body)).status, 200);
      // stop() kills the process 15 s after SIGTERM (exit code null): an exit of 0 came before it.
      assert.equal(await proxy.stop(), 0, proxy.stderr());
      assert.match(proxy.stderr(), /opentelemetry warn: the last export did not finish within 5000 ms; what it held is lost/);
      assert.match(proxy.stderr(), /stopped; every request in flight finished/);
    } finally {
      for (const socket of sockets) socket.destroy();
      hole.close();
      await upstream.close();
    }
  });
});

/** `wymcp stdio <flags> -- node stdio-echo.mjs RECORD` with `env` added; resolves once it exits. */
function stdioRun(flags: string[], env: Record<string, string>, lines: unknown[]) {
  const record = join(work, `received-${++runs}`);
  writeFileSync(record, "");
  const child = spawn(process.execPath, [CLI, "stdio", ...flags, "--", process.execPath, ECHO, record], {
    env: cleanEnv(env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  child.stdin.on("error", () => undefined);
  for (const line of lines) child.stdin.write(`${JSON.stringify(line)}\n`);
  child.stdin.end();
  return new Promise<{ code: number | null; stdout: string; stderr: string; received: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stdout, stderr, received: readFileSync(record, "utf8") })),
  );
}

const ECHO = join(import.meta.dirname, "support", "stdio-echo.mjs");
const work = mkdtempSync(join(tmpdir(), "wymcp-otel-export-"));
after(() => rmSync(work, { recursive: true, force: true }));
let runs = 0;

describe("what wymcp stdio --otel exports, and what it refuses to start with", () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  before(async () => {
    receiver = await otlpReceiver();
  });
  after(() => receiver.close());

  test("the server's exit flushes the spans: network.transport pipe, the answers on stdout untouched by the SDK", async () => {
    receiver.posted.length = 0;
    const meta = { ...MODERN_META, traceparent: TRACEPARENT };
    const run = await stdioRun(
      ["--otel"],
      {
        // A signal's own endpoint is used as it is written, no /v1/traces appended.
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/stdio/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "stdio-behind-wymcp",
        OTEL_LOGS_EXPORTER: "none",
        OTEL_METRICS_EXPORTER: "none",
        OTEL_BSP_SCHEDULE_DELAY: "600000",
      },
      [
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: meta, name: "echo", arguments: { text: "hi" } } },
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: meta, name: "echo", arguments: "hi" } },
      ],
    );
    assert.equal(run.code, 0, run.stderr);
    // Only the two answers: nothing of the SDK's on the client's channel.
    assert.deepEqual(
      run.stdout
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { id: number }).id)
        .sort(),
      [1, 2],
    );
    assert.deepEqual(
      receiver.posted.map((p) => p.path),
      ["/stdio/traces"],
    );
    const spans = spansOf(receiver.posted);
    assert.deepEqual(
      spans
        .map((s) => [
          s.name,
          flat(s.attributes)["jsonrpc.request.id"],
          flat(s.attributes)["wymcp.verdict"],
          flat(s.attributes)["network.transport"],
        ])
        .sort(),
      [
        ["tools/call echo", "1", "admitted", "pipe"],
        ["tools/call echo", "2", "refused", "pipe"],
      ],
    );
    for (const span of spans) {
      assert.deepEqual([span.traceId, span.parentSpanId, span.resource["service.name"]], [TRACE_ID, PARENT_SPAN_ID, "stdio-behind-wymcp"]);
      assert.equal(span.resource["process.command_args"], undefined);
    }
    assert.equal(metricsOf(receiver.posted).length, 0, "OTEL_METRICS_EXPORTER=none");
  });

  test("a console exporter would print on the client's channel: refused at start in one line, exit 2, the server never started", async () => {
    for (const name of ["OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_LOGS_EXPORTER"]) {
      const run = await stdioRun(["--otel"], { [name]: "otlp, console" }, []);
      assert.equal(run.code, 2, name);
      assert.equal(
        run.stderr,
        `wymcp stdio: --otel: ${name}=console would print on standard output, which carries the MCP messages; use otlp\n`,
      );
      assert.equal(run.stdout, "");
    }
  });

  test("OTEL_SDK_DISABLED=true: the gate runs as without --otel, says so, and exports nothing", async () => {
    receiver.posted.length = 0;
    const run = await stdioRun(["--otel"], { OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }, [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /--otel: OTEL_SDK_DISABLED is true, nothing is recorded/);
    assert.equal(JSON.parse(run.stdout).id, 1);
    assert.deepEqual(receiver.posted, []);
  });

  test("flags and settings checked at start: --otel with --pass-through, an unknown OTEL_LOG_LEVEL", async () => {
    for (const face of [["stdio"], ["proxy", "--upstream", "http://127.0.0.1:9/mcp"]]) {
      const both = spawnSync(process.execPath, [CLI, ...face, "--otel", "--pass-through", ...(face[0] === "stdio" ? ["--", "true"] : [])], {
        env: cleanEnv(),
        encoding: "utf8",
      });
      assert.equal(both.status, 2);
      assert.match(both.stderr, /--otel records what the gate judges, and --pass-through judges nothing: use one/);
    }
    const level = await stdioRun(["--otel"], { OTEL_LOG_LEVEL: "loud" }, []);
    assert.equal(level.code, 2);
    assert.equal(level.stderr, "wymcp stdio: --otel: OTEL_LOG_LEVEL must be one of NONE, ERROR, WARN, INFO, DEBUG, VERBOSE, ALL\n");
  });
});
