/**
 * docs/deploy.md's nginx configuration, run as written: Debian's nginx on a loopback port in front of two `wymcp proxy`
 * processes (the built bin), both forwarding to one dual-era server that has a door per proxy, so that each request
 * shows which proxy forwarded it. The official client v2 drives it in both eras. The config block is read from the
 * document, and only the listen line, the certificate lines and the two instance addresses are replaced.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { assertFreshDist } from "./support/built.js";
import { fetchFrom } from "./support/fetch-from.js";
import { startDualEraDoors, type Arrival, type DualEraDoors } from "./support/deploy-upstream.js";
import { MODERN_META } from "./support/messages.js";
import { ensureNginx, startNginx, type RunningNginx } from "./support/nginx.js";
import { startProxy, until, type RunningProxy } from "./support/proxy.js";
import { repoRoot } from "./support/spec.js";

const MODERN = "2026-07-28";
const DOC = join(repoRoot, "docs", "deploy.md");
/** The most legacy clients (loopback addresses) the affinity test opens sessions from. */
const CLIENTS = 17;

/** The one `nginx` block of docs/deploy.md. */
function docNginxBlock(doc = readFileSync(DOC, "utf8")): string {
  const blocks = [...doc.matchAll(/^```nginx\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  assert.equal(blocks.length, 1, "docs/deploy.md must hold exactly one ```nginx block");
  return blocks[0]!;
}

/** `text` with `pattern` replaced, which must match exactly `times` times, so that a changed document fails here. */
function replaceExactly(text: string, pattern: RegExp, by: string, times: number): string {
  const found = text.match(new RegExp(pattern.source, "gm"))?.length ?? 0;
  assert.equal(found, times, `docs/deploy.md's nginx block: ${pattern} matched ${found} times, not ${times}`);
  return text.replace(new RegExp(pattern.source, "gm"), by);
}

/**
 * The document's block for this machine: listening on a loopback port in plain HTTP (no certificate here), the two
 * instances at the proxies' addresses. Everything else runs as written.
 */
function deployBlock(port: number, instances: [string, string]): string {
  let block = docNginxBlock();
  block = replaceExactly(block, /^(\s*)listen 443 ssl;/, `$1listen 127.0.0.1:${port};`, 1);
  block = replaceExactly(block, /^\s*ssl_certificate(_key)? .*\n/, "", 2);
  block = replaceExactly(block, /10\.0\.0\.11:3000/, instances[0], 2);
  block = replaceExactly(block, /10\.0\.0\.12:3000/, instances[1], 2);
  return block;
}

/** The whole nginx.conf: the prefix's own pid, logs and temp folders around the document's block. */
function nginxConf(dir: string, port: number, instances: [string, string]): string {
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 256; }
http {
    log_format deploy '$request_method $status upstream=$upstream_addr session="$http_mcp_session_id" version="$http_mcp_protocol_version" time=$request_time';
    access_log ${dir}/access.log deploy;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;

${deployBlock(port, instances)}
}
`;
}

/** The refusals a proxy has logged (`--log json`), in order. */
function refusals(proxy: RunningProxy): Array<{ status?: number; code?: number; id?: unknown }> {
  return proxy
    .stderr()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { event: string; status?: number; code?: number; id?: unknown })
    .filter((record) => record.event === "refused");
}

/** Resolves when `check` holds; `what` says what a wait that never ends (cut by the runner's limit) was waiting for. */
function eventually(check: () => boolean, _what: string): Promise<void> {
  return until(check);
}

test("without nginx, a set-up that is not root fails saying what to install", async () => {
  await assert.rejects(
    ensureNginx({ binaries: ["/nonexistent/sbin/nginx"], uid: 1000 }),
    /nginx is not installed, and this process is not root so the test cannot install it: run `apt-get update && apt-get install -y nginx` as root/,
  );
});

describe("nginx as docs/deploy.md configures it, in front of two wymcp proxies", () => {
  let doors: DualEraDoors;
  const proxies: RunningProxy[] = [];
  let nginx: RunningNginx;
  let endpoint: URL;
  let binary: string;

  before(async () => {
    assertFreshDist();
    binary = await ensureNginx();
    doors = await startDualEraDoors(2);
    for (const url of doors.urls) proxies.push(await startProxy(["--upstream", url.href, "--trust-proxy", "--log", "json"]));
    const instances = proxies.map((proxy) => proxy.url.host) as [string, string];
    nginx = await startNginx(binary, ({ dir, port }) => nginxConf(dir, port, instances));
    endpoint = new URL("/mcp", nginx.origin);
  });
  after(async () => {
    await nginx?.stop();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
    await doors?.stop();
  });

  /** Which proxy forwarded each arrival, counted. */
  const perProxy = (arrivals: Arrival[]) => [0, 1].map((door) => arrivals.filter((a) => a.door === door).length);

  test("legacy: each client's sessions go through one proxy, every request of a session included; clients spread", async (t) => {
    const from = doors.arrivals.length;
    /** The sessions each client address opened. */
    const byClient = new Map<string, string[]>();
    const sessionsOn = () => {
      const seen = doors.arrivals.slice(from);
      return [0, 1].map((door) => new Set(seen.filter((a) => a.door === door && a.method === "initialize").map((a) => a.session)).size);
    };
    // Clients from 127.0.0.2 on, two sessions each, until both proxies hold two sessions: which proxy an address
    // hashes to depends on the proxies' ports, so how many clients that takes varies from run to run.
    for (let host = 2; host <= CLIENTS && !sessionsOn().every((n) => n >= 2); host++) {
      const address = `127.0.0.${host}`;
      const connections = fetchFrom(address);
      const sessions: string[] = [];
      try {
        for (let i = 0; i < 2; i++) {
          const client = new Client({ name: "wymcp-deploy-legacy", version: "1.0.0" });
          const transport = new StreamableHTTPClientTransport(endpoint, { fetch: connections.fetch });
          await client.connect(transport);
          assert.notEqual(client.getNegotiatedProtocolVersion(), MODERN);
          assert.ok(transport.sessionId, "the server gave the legacy session an Mcp-Session-Id");
          sessions.push(transport.sessionId);
          assert.equal((await client.listTools()).tools.length, 3);
          const echoed = await client.callTool({ name: "echo", arguments: { text: `${address} ${i}` } });
          assert.deepEqual(echoed.content, [{ type: "text", text: `${address} ${i}` }]);
          await transport.terminateSession();
          await client.close();
        }
      } finally {
        connections.close();
      }
      byClient.set(address, sessions);
    }
    const seen = doors.arrivals.slice(from);
    const lines: string[] = [];
    for (const [address, sessions] of byClient) {
      const mine = seen.filter((a) => a.session !== undefined && sessions.includes(a.session));
      for (const session of sessions) {
        const verbs = mine.filter((a) => a.session === session).map((a) => a.method ?? a.verb);
        assert.ok(verbs.includes("initialize") && verbs.includes("DELETE"), `session ${session}: ${verbs.join(", ")}`);
      }
      const through = [...new Set(mine.map((a) => a.door))];
      assert.equal(through.length, 1, `the sessions of ${address} went through proxies ${through.join(" and ")}: ${JSON.stringify(mine)}`);
      lines.push(`${address} ${mine.length} requests via proxy ${through[0]}`);
    }
    t.diagnostic(`legacy: ${lines.join("; ")}`);
    t.diagnostic(`legacy sessions per proxy ${sessionsOn().join(" / ")}, requests per proxy ${perProxy(seen).join(" / ")}`);
    assert.ok(
      sessionsOn().every((n) => n > 0),
      `both proxies hold sessions: ${sessionsOn().join(" / ")}`,
    );
  });

  test("2026-07-28: one client's requests are spread over both proxies", async (t) => {
    const from = doors.arrivals.length;
    const client = new Client({ name: "wymcp-deploy-modern", version: "1.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new StreamableHTTPClientTransport(endpoint));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      for (let i = 0; i < 10; i++) {
        const echoed = await client.callTool({ name: "echo", arguments: { text: `call ${i}` } });
        assert.deepEqual(echoed.content, [{ type: "text", text: `call ${i}` }]);
      }
    } finally {
      await client.close();
    }
    const calls = doors.arrivals.slice(from).filter((a) => a.tool === "echo");
    assert.equal(calls.length, 10);
    assert.ok(calls.every((a) => a.protocolVersion === MODERN));
    const counts = perProxy(calls);
    t.diagnostic(`2026-07-28 tools/call per proxy: ${counts.join(" / ")}`);
    assert.ok(
      counts.every((n) => n > 0),
      `both proxies forward modern requests: ${counts.join(" / ")}`,
    );
  });

  for (const era of ["legacy", MODERN] as const) {
    test(`${era}: a streamed answer crosses nginx event by event, each before the server sends the next`, async (t) => {
      const client = new Client(
        { name: "wymcp-deploy-stream", version: "1.0.0" },
        era === MODERN ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
      );
      await client.connect(new StreamableHTTPClientTransport(endpoint));
      const steps = 4;
      const sent: number[] = [];
      const arrived: number[] = [];
      // The server sends step n, then waits until the client has it: if nginx (or the proxy) held the stream back,
      // the client would see nothing until the answer ends, and the wait would never end.
      doors.hooks.afterStep = async (step) => {
        sent[step] = performance.now();
        await eventually(
          () => arrived[step] !== undefined,
          `progress ${step} of ${steps} was sent but never reaches the client: the stream is buffered`,
        );
      };
      try {
        const result = await client.callTool(
          { name: "stream", arguments: { steps } },
          {
            onprogress: ({ progress }) => {
              arrived[progress] = performance.now();
            },
          },
        );
        const done = performance.now();
        assert.deepEqual(result.content, [{ type: "text", text: `streamed ${steps}` }]);
        const got = arrived.map((_, step) => step).filter((step) => step > 0);
        assert.deepEqual(got, [1, 2, 3, 4]);
        for (let step = 2; step <= steps; step++) assert.ok(arrived[step]! > arrived[step - 1]!, `progress ${step} after ${step - 1}`);
        assert.ok(done > arrived[steps]!);
        const latency = got.map((step) => (arrived[step]! - sent[step]!).toFixed(1));
        t.diagnostic(
          `${era}: ${steps} progress events, each on the client before the next was sent; sent→received ms ${latency.join(", ")}`,
        );
      } finally {
        doors.hooks.afterStep = async () => undefined;
        await client.close();
      }
    });
  }

  test("a refused message is answered by the proxy through nginx, and never reaches the server", async (t) => {
    const from = doors.arrivals.length;
    const logged = proxies.map((proxy) => refusals(proxy).length);
    const post = (body: unknown) =>
      fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": MODERN },
        body: JSON.stringify(body),
      });
    const badParams = await post({ jsonrpc: "2.0", id: 11, method: "tools/call", params: { _meta: MODERN_META, name: 5 } });
    assert.equal(badParams.status, 400);
    assert.deepEqual(await badParams.json(), {
      jsonrpc: "2.0",
      id: 11,
      error: {
        code: -32602,
        message: "Invalid tools/call request (CallToolRequest): 1 invalid location; first: /params/name must be string",
        data: { errors: [{ instancePath: "/params/name", messages: ["must be string"] }] },
      },
    });
    const badFraming = await post({ jsonrpc: "1.0", id: 12, method: "tools/list", params: { _meta: MODERN_META } });
    assert.equal(badFraming.status, 400);
    const framing = (await badFraming.json()) as { id: unknown; error: { code: number } };
    assert.equal(framing.error.code, -32600);
    assert.deepEqual(doors.arrivals.slice(from), [], "nothing refused reaches the server");
    // Each refusal is in the log of the proxy that answered it, with the answer's status and code.
    const fresh = () =>
      proxies.flatMap((proxy, i) =>
        refusals(proxy)
          .slice(logged[i])
          .map((event) => ({ proxy: i, ...event })),
      );
    await until(() => fresh().length === 2);
    assert.deepEqual(
      fresh()
        .map(({ status, code, id }) => [status, code, id])
        .sort(),
      [
        [400, -32600, 12],
        [400, -32602, 11],
      ],
    );
    const by = fresh().map(({ proxy, code }) => `${code} by proxy ${proxy}`);
    t.diagnostic(`refused through nginx: 400/-32602 and 400/-32600 (${by.join(", ")}); nothing reached the server`);
  });

  test("SIGTERM to one proxy loses none of the requests it has in flight", async (t) => {
    const inFlight = 6;
    let held = 0;
    let open!: () => void;
    const released = new Promise<void>((resolve) => {
      open = resolve;
    });
    doors.hooks.held = (count) => {
      held = count;
    };
    doors.hooks.release = () => released;
    const client = new Client({ name: "wymcp-deploy-drain", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(endpoint);
    await client.connect(transport);
    const from = doors.arrivals.length;
    const calls = Array.from({ length: inFlight }, () => client.callTool({ name: "hold", arguments: {} }));
    try {
      await eventually(() => held === inFlight, `${held} of ${inFlight} calls reached the server`);
      const through = new Set(
        doors.arrivals
          .slice(from)
          .filter((a) => a.tool === "hold")
          .map((a) => a.door),
      );
      assert.equal(through.size, 1, "one session's calls go through one proxy");
      const door = [...through][0]!;
      const proxy = proxies[door]!;
      proxy.child.kill("SIGTERM");
      await eventually(() => proxy.stderr().includes('"event":"draining"'), "the proxy did not start draining");
      open();
      const results = await Promise.allSettled(calls);
      const failed = results.filter((r) => r.status === "rejected");
      assert.deepEqual(failed, [], "every call in flight is answered");
      for (const result of results) {
        assert.deepEqual((result as PromiseFulfilledResult<{ content: unknown }>).value.content, [{ type: "text", text: "released" }]);
      }
      assert.equal(await proxy.exited, 0);
      // nginx saw nothing cut short: no POST, and no GET either (the drain ends the session's event stream as a
      // finished answer, an empty one when its server had not sent even the headers), so no 502 and no proxy down.
      const log = nginx.errorLog().split("\n");
      assert.deepEqual(
        log.filter((line) => line.includes("[error]") && /request: "(POST|GET)/.test(line)),
        [],
      );
      const gets502 = nginx.accessLog().filter((line) => line.startsWith("GET 502")).length;
      assert.equal(gets502, 0, "no GET stream reaches the client as nginx's 502");
      const statuses = new Map<string, number>();
      for (const line of nginx.accessLog()) {
        const key = line.split(" ").slice(0, 2).join(" ");
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
      t.diagnostic(`nginx's access log over the whole suite: ${[...statuses].map(([key, n]) => `${key} ×${n}`).join(", ")}`);
      t.diagnostic(
        `SIGTERM to proxy ${door} with ${inFlight} tools/call in flight: ${inFlight} answered, exit 0; GET streams answered 502: ${gets502}`,
      );
    } finally {
      open();
      doors.hooks.release = async () => undefined;
      await client.close();
    }
  });
});
