import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import diagnostics_channel from "node:diagnostics_channel";
import { once } from "node:events";
import http from "node:http";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import { gateNode } from "wymcp/node";
import { createLog } from "../src/log/gate-log.js";
import type { CompileOutcome } from "../src/tools/tools-at-edge.js";
import { originForm } from "../src/hosts/proxy/forward.js";
import { createProxy, listen } from "../src/hosts/proxy/proxy.js";
import { hostPort } from "../src/cli/args.js";
import { parseProxyArgs } from "../src/cli/proxy/proxy-command.js";
import { parseStdioArgs } from "../src/cli/stdio/stdio-command.js";
import { CLI } from "./support/cli.js";
import { listening, rawPost } from "./support/gate-fixtures.js";
import { assertFreshDist } from "./support/built.js";
import { MODERN_META } from "./support/messages.js";
import {
  assertNothingListens,
  echoResult,
  headerOf,
  NO_UPSTREAM,
  recordingUpstream,
  startProxy,
  until,
  type RunningProxy,
  type Upstream,
} from "./support/proxy.js";

// The bin under test is dist/cli.js: it must be built from the current sources.
before(assertFreshDist);

const MODERN = "2026-07-28";
/** The transport's headers of a modern tools/call of the echo tool, as the official client sends them. */
const ECHO_CALL = { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "echo" };
const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const modernCall = (id: unknown, name: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: MODERN_META, name, arguments: { text: "x" } } });
/** `text` as a regular expression that matches it literally. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A value that must never appear in a log line. */
const SECRET = "s3cr3t-value-from-the-body";

describe("wymcp proxy in front of an upstream that records what reaches it", () => {
  let upstream: Upstream;
  let proxy: RunningProxy;
  before(async () => {
    upstream = await recordingUpstream();
    proxy = await startProxy([
      "--upstream",
      upstream.url.href,
      "--max-body-bytes",
      "4096",
      "--max-depth",
      "16",
      "--rule",
      "params=enforce",
    ]);
  });
  after(async () => {
    assert.equal(await proxy.stop(), 0);
    await upstream.close();
  });
  const at = (path = "/mcp") => new URL(path, proxy.url).href;

  test("a passing POST reaches the upstream byte for byte, with the client's headers but the hop-by-hop ones", async () => {
    upstream.handle(echoResult);
    upstream.received.length = 0;
    // Spacing, key order and an escape that any re-serialization would change.
    const body = `{ "id" : 41,"jsonrpc":"2.0", "method":"tools/call","params":{"name":"echo","_meta":${JSON.stringify(MODERN_META)},"arguments":{"text":"\\u00e9 \\/"}} }`;
    const answer = await rawPost(
      at("/mcp?x=1"),
      {
        ...JSON_HEADERS,
        ...ECHO_CALL,
        authorization: "Bearer abc",
        "mcp-session-id": "session-1",
        connection: "keep-alive, x-hop",
        "x-hop": "dropped",
        "keep-alive": "timeout=5",
        te: "trailers",
        "proxy-authorization": "Basic eA==",
        "x-kept": ["one", "two"],
      },
      body,
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.text), { jsonrpc: "2.0", id: 41, result: { ok: true } });
    const [seen] = upstream.received;
    assert.ok(seen);
    assert.equal(seen.body.toString("utf8"), body);
    assert.deepEqual([seen.method, seen.url], ["POST", "/mcp?x=1"]);
    for (const [name, value] of [
      ["authorization", "Bearer abc"],
      ["mcp-session-id", "session-1"],
      ["mcp-protocol-version", MODERN],
      ["content-length", String(Buffer.byteLength(body))],
      ["host", proxy.url.host],
      ["x-forwarded-for", "127.0.0.1"],
      ["x-forwarded-host", proxy.url.host],
      ["x-forwarded-proto", "http"],
    ] as const) {
      assert.equal(headerOf(seen, name), value, name);
    }
    assert.deepEqual(
      seen.headers.filter(([name]) => name === "x-kept").map(([, value]) => value),
      ["one", "two"],
    );
    for (const name of ["x-hop", "keep-alive", "te", "proxy-authorization"]) assert.equal(headerOf(seen, name), undefined, name);
  });

  test("a chunked body is judged whole and forwarded with its exact length", async () => {
    upstream.received.length = 0;
    const body = modernCall(5, "echo");
    const answer = await new Promise<number>((resolve, reject) => {
      const req = http.request(at(), { method: "POST", headers: { ...JSON_HEADERS, ...ECHO_CALL } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      // The rest once the first chunk is on the wire: two chunks.
      req.write(body.slice(0, 20), () => req.end(body.slice(20)));
    });
    assert.equal(answer, 200);
    assert.equal(upstream.received[0]?.body.toString("utf8"), body);
    assert.equal(headerOf(upstream.received[0]!, "transfer-encoding"), undefined);
    assert.equal(headerOf(upstream.received[0]!, "content-length"), String(Buffer.byteLength(body)));
  });

  test("a chunked body that grows past --max-body-bytes is refused 413 as it passes the limit, never held whole", async () => {
    upstream.received.length = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(at(), { method: "POST", headers: JSON_HEADERS }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      // 64 KiB against a limit of 4 KiB, in chunks, with no Content-Length to refuse it by.
      for (let i = 0; i < 64; i++) req.write(Buffer.alloc(1024, 0x20));
      req.end();
    });
    assert.equal(status, 413);
    assert.equal(upstream.received.length, 0);
  });

  test("a client that goes away in the middle of its body: nothing is forwarded, the proxy keeps serving", async () => {
    upstream.received.length = 0;
    const socket = net.connect(Number(proxy.url.port), "127.0.0.1");
    await once(socket, "connect");
    // Gone once the head and part of the body are on the wire; the proxy's exit code (after) says it did not fall over.
    socket.write(
      `POST /mcp HTTP/1.1\r\nHost: ${proxy.url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":"2.0",`,
      () => socket.destroy(),
    );
    await once(socket, "close");
    const answer = await rawPost(at(), { ...JSON_HEADERS, ...ECHO_CALL }, modernCall(6, "echo"));
    assert.equal(answer.status, 200);
    assert.equal(upstream.received.length, 1);
  });

  describe("refused as gateNode refuses, never forwarded, one log line each with nothing of the body", () => {
    let gated: Awaited<ReturnType<typeof listening>>;
    before(async () => {
      gated = await listening(
        http.createServer(
          gateNode({ fetch: async () => new Response("{}", { status: 200 }) }, { limits: { maxBodyBytes: 4096, maxDepth: 16 } }),
        ),
      );
    });
    after(() => gated.close());

    const deep = (n: number): string => `${"[".repeat(n)}${"]".repeat(n)}`;
    const cases: Array<[string, Record<string, string>, string, number]> = [
      ["a modern tools/call whose name is a number", { ...JSON_HEADERS, ...ECHO_CALL }, modernCall(7, 5), 400],
      [
        "a modern tools/call with no _meta",
        { ...JSON_HEADERS, ...ECHO_CALL },
        JSON.stringify({ jsonrpc: "2.0", id: "a", method: "tools/call", params: { name: "search", arguments: { q: SECRET } } }),
        400,
      ],
      [
        "a legacy request with a wrong jsonrpc",
        JSON_HEADERS,
        JSON.stringify({ jsonrpc: "1.0", id: 3, method: "ping", params: { note: SECRET } }),
        400,
      ],
      ["a body that is not JSON", JSON_HEADERS, `{"jsonrpc":"2.0","id":1,"method":"${SECRET}"`, 400],
      [
        "a body larger than --max-body-bytes",
        JSON_HEADERS,
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: SECRET.repeat(200) } }),
        413,
      ],
      [
        "a body nested deeper than --max-depth",
        JSON_HEADERS,
        JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { a: JSON.parse(deep(20)) } }),
        400,
      ],
      ["a text/plain body", { ...JSON_HEADERS, "content-type": "text/plain" }, modernCall(1, SECRET), 415],
      [
        "a batch under a revision that has no batches",
        { ...JSON_HEADERS, "mcp-protocol-version": "2025-11-25" },
        JSON.stringify([{ jsonrpc: "2.0", id: 4, method: "ping", params: { note: SECRET } }]),
        400,
      ],
    ];
    for (const [name, headers, body, status] of cases) {
      test(name, async () => {
        upstream.received.length = 0;
        const logged = proxy.stderr().length;
        const [p, g] = await Promise.all([rawPost(at(), headers, body), rawPost(gated.url, headers, body)]);
        assert.equal(p.status, status);
        assert.deepEqual([p.status, p.headers["content-type"], p.text], [g.status, g.headers["content-type"], g.text]);
        assert.equal(upstream.received.length, 0);
        // The whole line: written after the answer went out.
        await until(() => proxy.stderr().slice(logged).includes("\n"));
        const lines = proxy.stderr().slice(logged).trimEnd().split("\n");
        assert.equal(lines.length, 1, lines.join("\n"));
        assert.match(lines[0]!, new RegExp(`^wymcp proxy: refused ${status} -32\\d{3} `));
        assert.ok(!lines[0]!.includes(SECRET), lines[0]);
      });
    }
  });

  describe("a refused body that parsed: its line names the method, and a tool's or prompt's name, in both log formats", () => {
    // A params failure, a framing failure (a name that would drive a terminal), a batch whose second item fails.
    const bodies = [
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "search", arguments: 5 } },
      { jsonrpc: "1.0", id: 5, method: "prompts/get", params: { name: "greet\u001b[2J", arguments: { q: SECRET } } },
      [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: {}, method: "tools/call", params: { name: "search", arguments: { q: SECRET } } },
      ],
    ];
    for (const format of ["text", "json"] as const) {
      test(`--log ${format}`, async () => {
        const logging = await startProxy(["--upstream", upstream.url.href, "--log", format]);
        try {
          for (const [i, body] of bodies.entries()) {
            await rawPost(new URL("/mcp", logging.url).href, JSON_HEADERS, JSON.stringify(body));
            await until(() => logging.stderr().split("refused").length === i + 2);
          }
        } finally {
          assert.equal(await logging.stop(), 0);
        }
        const lines = logging
          .stderr()
          .split("\n")
          .filter((line) => line.includes("refused"));
        assert.ok(
          lines.every((line) => !line.includes(SECRET) && !line.includes("\u001b[")),
          lines.join("\n"),
        );
        if (format === "json") {
          const named = lines.map((line) => {
            const { code, method, name } = JSON.parse(line) as Record<string, unknown>;
            return [code, method, name];
          });
          assert.deepEqual(named, [
            [-32602, "tools/call", "search"],
            [-32600, "prompts/get", "greet\\u001b[2J"],
            [-32600, "tools/call", "search"],
          ]);
        } else {
          assert.match(
            lines[0]!,
            /^wymcp proxy: refused 200 -32602 invalid-message rule=params era=legacy kind=request method="tools\/call" name="search" id=4 /,
          );
          assert.match(
            lines[1]!,
            / -32600 invalid-message rule=framing era=\w+ kind=request method="prompts\/get" name="greet\\\\u001b\[2J" id=5 /,
          );
          assert.match(lines[2]!, / -32600 invalid-message rule=\w+ era=\w+ kind=batch method="tools\/call" name="search" id=null /);
        }
      });
    }
  });

  test("a 415 keeps the client's connection, as gateNode's does: the refused body is read and thrown away, the next request on it reaches the upstream", async () => {
    upstream.handle(echoResult);
    upstream.received.length = 0;
    const { port, hostname } = new URL(proxy.url);
    const post = (type: string, body: string) =>
      `POST /mcp HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: ${type}\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const socket = net.connect(Number(port), hostname);
    let text = "";
    socket.setEncoding("latin1").on("data", (data: string) => (text += data));
    socket.write(
      post("text/plain", `not JSON ${SECRET}`) + post("application/json", JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" })),
    );
    await until(() => /\r\n0\r\n\r\n$|"result":\{"ok":true\}\}$/.test(text));
    socket.destroy();
    const heads = text.split(/(?=HTTP\/1\.1 )/);
    assert.deepEqual(
      heads.map((answer) => answer.slice(9, 12)),
      ["415", "200"],
    );
    assert.doesNotMatch(heads[0]!.toLowerCase(), /\r\nconnection: close/);
    assert.deepEqual(
      upstream.received.map((r) => JSON.parse(r.body.toString("utf8")).id),
      [9],
    );
  });

  test("a modern notification is answered 202 by the proxy, whatever it holds, as gateNode answers it", async () => {
    upstream.received.length = 0;
    const answer = await rawPost(
      at(),
      { ...JSON_HEADERS, ...ECHO_CALL },
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/x", params: 5 }),
    );
    assert.deepEqual([answer.status, answer.text], [202, ""]);
    assert.equal(upstream.received.length, 0);
  });

  test("a legacy notification and a legacy client's response go on to the upstream", async () => {
    upstream.received.length = 0;
    upstream.handle(echoResult);
    const notification = await rawPost(at(), JSON_HEADERS, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const response = await rawPost(at(), { ...JSON_HEADERS, "mcp-session-id": "s" }, JSON.stringify({ jsonrpc: "2.0", id: 3, result: {} }));
    assert.deepEqual([notification.status, response.status], [202, 200]);
    assert.equal(upstream.received.length, 2);
  });

  test("GET (the server's stream) is streamed back event by event, and DELETE goes straight through", async () => {
    upstream.received.length = 0;
    let second!: () => void;
    const secondSent = new Promise<void>((resolve) => (second = resolve));
    let firstSeen!: () => void;
    const firstArrived = new Promise<void>((resolve) => (firstSeen = resolve));
    upstream.handle((req, res) => {
      if (req.method === "DELETE") return void res.writeHead(204).end();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/a"}\n\n');
      // The second event only once the client has the first: a proxy that held the stream back would never end it.
      void firstArrived.then(() => {
        res.end('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/b"}\n\n');
        second();
      });
    });
    const got: Array<{ text: string; beforeSecond: boolean }> = [];
    let secondDone = false;
    void secondSent.then(() => (secondDone = true));
    await new Promise<void>((resolve, reject) => {
      http
        .get(at(), { headers: { accept: "text/event-stream", "mcp-session-id": "s" } }, (res) => {
          assert.equal(res.headers["content-type"], "text/event-stream");
          res.setEncoding("utf8");
          res.on("data", (text: string) => {
            got.push({ text, beforeSecond: !secondDone });
            firstSeen();
          });
          res.on("end", resolve);
        })
        .on("error", reject);
    });
    assert.ok(got[0]?.beforeSecond, "the first event arrived before the upstream sent the second");
    assert.match(got.map((g) => g.text).join(""), /notifications\/a[\s\S]*notifications\/b/);
    const deleted = await new Promise<number>((resolve) =>
      http.request(at(), { method: "DELETE", headers: { "mcp-session-id": "s" } }, (res) => resolve(res.statusCode ?? 0)).end(),
    );
    assert.equal(deleted, 204);
    assert.deepEqual(
      upstream.received.map((r) => [r.method, headerOf(r, "mcp-session-id")]),
      [
        ["GET", "s"],
        ["DELETE", "s"],
      ],
    );
  });

  test("a body streamed with a method not judged (DELETE) keeps its framing: nothing in it reaches the upstream as a request", async () => {
    upstream.received.length = 0;
    upstream.handle((_req, res) => res.writeHead(204).end());
    const smuggled = `POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 14\r\n\r\n{"junk":"yes"}`;
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(at(), { method: "DELETE", headers: { "mcp-session-id": "s", "transfer-encoding": "chunked" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.write(smuggled.slice(0, 40));
      req.end(smuggled.slice(40));
    });
    assert.equal(status, 204);
    // A request after it: anything smuggled in the body would have reached the upstream before this one.
    const next = await new Promise<number>((resolve) =>
      http.request(at(), { method: "DELETE", headers: { "mcp-session-id": "after" } }, (res) => resolve(res.statusCode ?? 0)).end(),
    );
    assert.equal(next, 204);
    assert.deepEqual(
      upstream.received.map((r) => [r.method, r.body.toString("utf8")]),
      [
        ["DELETE", smuggled],
        ["DELETE", ""],
      ],
    );
  });

  test("backpressure: a client that does not read pauses the proxy's reading of the upstream's stream; every byte arrives once it reads", async () => {
    // The proxy in process, so that its own request to the upstream can be watched through Node's HTTP client channel.
    const { options } = parseProxyArgs(["--upstream", upstream.url.href]);
    const built = createProxy(
      options,
      createLog("proxy", "text", () => undefined),
    );
    const { server, address } = await listen(built, "127.0.0.1", 0);
    const total = 64 * 1024 * 1024;
    let accepted = 0;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const pump = () => {
        while (accepted < total) {
          accepted += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    let client: http.ClientRequest | undefined;
    let answer: http.IncomingMessage | undefined;
    const watch = (message: unknown) => {
      const { request, response } = message as { request: http.ClientRequest; response: http.IncomingMessage };
      if (request !== client) answer = response;
    };
    diagnostics_channel.subscribe("http.client.response.finish", watch);
    try {
      let clientAnswer: http.IncomingMessage | undefined;
      client = http.get(`http://127.0.0.1:${address.port}/mcp`, { headers: { accept: "text/event-stream" } }, (res) => {
        clientAnswer = res;
        // The client reads nothing: its socket's buffers fill, then the proxy's writes to it report full.
        res.pause();
      });
      // The proxy paused the upstream's answer: the one wait it has for a client that does not read.
      await until(() => clientAnswer !== undefined && answer?.isPaused() === true);
      assert.ok(accepted < total, "the upstream wrote its whole stream into a client that reads nothing");
      // How many bytes sit in the buffers meanwhile is the bench's to judge; here, nothing is lost once the client reads.
      let received = 0;
      clientAnswer!.on("data", (data: Buffer) => (received += data.length));
      clientAnswer!.resume();
      await once(clientAnswer!, "end");
      assert.equal(received, total);
    } finally {
      diagnostics_channel.unsubscribe("http.client.response.finish", watch);
      upstream.handle(echoResult);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("a client that goes away cancels its upstream request", async () => {
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((resolve) => (closed = resolve));
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(": open\n\n");
      res.once("close", closed);
    });
    const req = http.get(at(), { headers: { accept: "text/event-stream" } }, (res) => {
      res.once("data", () => req.destroy());
    });
    req.on("error", () => undefined);
    // Not cancelled: the runner's limit fails the test.
    await upstreamClosed;
  });

  test("--outbound is off here: what the upstream answers goes back unchanged and unjudged", async () => {
    upstream.handle((_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":1,"result":{"content":5}}'),
    );
    const answer = await rawPost(at(), { ...JSON_HEADERS, ...ECHO_CALL }, modernCall(1, "echo"));
    assert.equal(answer.text, '{"jsonrpc":"2.0","id":1,"result":{"content":5}}');
    assert.doesNotMatch(proxy.stderr(), /outbound/);
  });
});

describe("wymcp proxy when the upstream fails", () => {
  test("down: 502 with a JSON-RPC error and the request's id; the proxy keeps serving", async () => {
    await assertNothingListens();
    const proxy = await startProxy(["--upstream", NO_UPSTREAM.href]);
    try {
      for (const id of ["d", "e"]) {
        const down = await rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
        assert.equal(down.status, 502);
        assert.equal(down.headers["content-type"], "application/json");
        const answer = JSON.parse(down.text) as { id: unknown; error: { code: number; message: string } };
        assert.deepEqual([answer.id, answer.error.code], [id, -32603]);
        await until(() => new RegExp(`upstream unreachable \\(ECONNREFUSED\\): answered 502 to POST id="${id}"`).test(proxy.stderr()));
      }
    } finally {
      assert.equal(await proxy.stop(), 0);
    }
  });

  test("timing out: 504; the upstream answering again: served again, by the same proxy process", async () => {
    // One port for the whole test (never let go, so never taken by another test file): first a server that accepts
    // connections and never answers, then one that answers.
    const held: net.Socket[] = [];
    const back = http.createServer((req, res) => echoResult(req, res, Buffer.from('{"id":3}')));
    let answering = false;
    const door = net.createServer((socket) => (answering ? back.emit("connection", socket) : void held.push(socket)));
    await new Promise<void>((resolve) => door.listen(0, "127.0.0.1", resolve));
    // Long enough that the answering upstream's round trip below fits in it on a loaded machine.
    const proxy = await startProxy(["--upstream", `http://127.0.0.1:${(door.address() as net.AddressInfo).port}/mcp`, "--timeout", "5000"]);
    try {
      const slow = await rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }));
      assert.equal(slow.status, 504);
      assert.match(JSON.parse(slow.text).error.message, /did not answer within 5000 ms/);
      for (const socket of held) socket.destroy();
      answering = true;
      const ok = await rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }));
      assert.equal(ok.status, 200);
    } finally {
      assert.equal(await proxy.stop(), 0);
      back.closeAllConnections();
      door.close();
    }
  });

  test("a keep-alive socket the upstream closes as the next request arrives: an idempotent request is retried once on a new socket, a POST is not", async () => {
    // A raw upstream: on each connection it answers the first request, then resets the connection on the second, as a
    // server whose idle timeout fired just as the proxy reused the socket.
    let requests = 0;
    let connections = 0;
    const raw = net.createServer((socket) => {
      connections++;
      let seen = 0;
      socket.on("data", (data: Buffer) => {
        if (!data.includes("\r\n\r\n")) return;
        requests++;
        if (++seen > 1) return void socket.resetAndDestroy();
        const body = '{"jsonrpc":"2.0","id":1,"result":{}}';
        socket.write(
          `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`,
        );
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    const proxy = await startProxy(["--upstream", `http://127.0.0.1:${(raw.address() as net.AddressInfo).port}/mcp`]);
    try {
      const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
      const first = await rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, ping);
      // A POST may have had its effect before the reset: it is not sent again.
      const second = await rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, ping);
      assert.deepEqual([first.status, second.status], [200, 502]);
      assert.deepEqual([requests, connections], [2, 1]);
      const get = () =>
        new Promise<number>((resolve, reject) =>
          http.get(new URL("/mcp", proxy.url), { agent: false }, (res) => resolve(res.resume().statusCode ?? 0)).on("error", reject),
        );
      assert.equal(await get(), 200);
      // The GET reuses that connection, is reset, and is sent again on a third.
      assert.deepEqual([await get(), requests, connections], [200, 5, 3]);
    } finally {
      await proxy.stop();
      raw.close();
    }
  });

  test("an upstream that breaks off its answer mid-stream: the client's answer breaks off too, never looks complete", async () => {
    const upstream = await recordingUpstream();
    let firstSeen!: () => void;
    const firstArrived = new Promise<void>((resolve) => (firstSeen = resolve));
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: {}\n\n");
      // Broken off once the client has the first event.
      void firstArrived.then(() => res.destroy());
    });
    const proxy = await startProxy(["--upstream", upstream.url.href]);
    try {
      const outcome = await new Promise<string>((resolve) => {
        http
          .get(new URL("/mcp", proxy.url), (res) => {
            res.on("data", () => firstSeen());
            res.on("end", () => resolve("ended"));
            res.on("error", () => resolve("broke"));
            res.on("close", () => resolve(res.complete ? "ended" : "broke"));
          })
          .on("error", () => resolve("broke"));
      });
      assert.equal(outcome, "broke");
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });
});

describe("wymcp proxy with the upstream's tools known", () => {
  test("a call that arrives while its tool's schema compiles waits for it and is judged; once compiled, each call is judged at once", async () => {
    const upstream = await recordingUpstream();
    // A compiler the test releases: the schema stays compiling until the first call has been admitted.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const compile = async (): Promise<CompileOutcome> => {
      await released;
      return {
        ok: true,
        validate: (input) =>
          typeof (input as { text?: unknown }).text === "string"
            ? { valid: true }
            : { valid: false, errorMessage: "text must be a string" },
      };
    };
    const schema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
    const { options } = parseProxyArgs(["--upstream", upstream.url.href]);
    const built = createProxy(
      { ...options, tools: { given: { tools: [{ name: "echo", inputSchema: schema }] }, learn: false, compile } },
      createLog("proxy", "text", () => undefined),
      // The admitted verdict comes just before the tools' check: the compiler is released only then.
      { onVerdict: (event) => void (event.outcome === "pass" && release()) },
    );
    const { server, address } = await listen(built, "127.0.0.1", 0);
    const url = `http://127.0.0.1:${address.port}/mcp`;
    const call = (id: number, args: unknown) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: MODERN_META, name: "echo", arguments: args } });
    try {
      const early = await rawPost(url, { ...JSON_HEADERS, ...ECHO_CALL }, call(1, { text: 5 }));
      assert.equal(early.status, 200);
      assert.deepEqual(JSON.parse(early.text), {
        jsonrpc: "2.0",
        id: 1,
        result: {
          content: [{ type: "text", text: "Invalid arguments for tool echo: text must be a string" }],
          isError: true,
          resultType: "complete",
        },
      });
      const refused = await rawPost(url, { ...JSON_HEADERS, ...ECHO_CALL }, call(2, { text: 6 }));
      assert.equal(JSON.parse(refused.text).result.isError, true);
      assert.equal(upstream.received.length, 0, "a refused call reached the upstream");
      const valid = call(3, { text: "hi" });
      const passed = await rawPost(url, { ...JSON_HEADERS, ...ECHO_CALL }, valid);
      assert.deepEqual([passed.status, JSON.parse(passed.text)], [200, { jsonrpc: "2.0", id: 3, result: { ok: true } }]);
      assert.deepEqual(
        upstream.received.map((r) => r.body.toString("utf8")),
        [valid],
      );
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await upstream.close();
    }
  });
});

describe("wymcp proxy on SIGTERM", () => {
  test("drains: the request in flight is answered, a server stream ends, new connections are refused, exit 0", async () => {
    const upstream = await recordingUpstream();
    // The POST is answered once the test has seen the drain begin: in flight through SIGTERM.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    upstream.handle((req, res, body) => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        return void res.write(": open\n\n");
      }
      void released.then(() => echoResult(req, res, body));
    });
    const proxy = await startProxy(["--upstream", upstream.url.href, "--log", "json"]);
    try {
      const stream = new Promise<string>((resolve) => {
        http
          .get(new URL("/mcp", proxy.url), (res) => {
            res.resume();
            res.on("close", () => resolve("closed"));
          })
          .on("error", () => resolve("closed"));
      });
      const inFlight = rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
      await until(() => upstream.received.some((r) => r.method === "GET") && upstream.received.some((r) => r.method === "POST"));
      proxy.child.kill("SIGTERM");
      // The drain closes the listener, then the server's streams: once the stream is closed, so is the port.
      assert.equal(await stream, "closed");
      const refused = await new Promise<string>((resolve) => {
        const socket = net.connect(Number(proxy.url.port), "127.0.0.1");
        socket.once("connect", () => resolve("connected"));
        socket.once("error", () => resolve("refused"));
      });
      assert.equal(refused, "refused");
      release();
      const answer = await inFlight;
      assert.equal(answer.status, 200);
      assert.equal(JSON.parse(answer.text).id, 1);
      assert.equal(await proxy.exited, 0);
      const events = proxy
        .stderr()
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { event: string }).event);
      assert.deepEqual(events, ["listening", "draining", "stopped"]);
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });
});

describe("wymcp proxy on SIGTERM, its server streams", () => {
  test("each GET stream ends as a finished answer: headers out, the events so far and a clean end; none yet, 200 and an empty event stream; a call in flight is still answered", async () => {
    const upstream = await recordingUpstream();
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    upstream.handle((req, res, body) => {
      if (req.method === "GET" && req.headers["x-case"] === "open") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        return void res.write(": open\n\n");
      }
      // The server has not answered this stream yet, not even its headers.
      if (req.method === "GET") return;
      void released.then(() => echoResult(req, res, body));
    });
    const proxy = await startProxy(["--upstream", upstream.url.href, "--log", "json"]);
    const read = (kind: string, onData?: () => void) =>
      new Promise<{ status: number; type: string | undefined; body: string; complete: boolean }>((resolve, reject) => {
        http
          .get(new URL("/mcp", proxy.url), { headers: { accept: "text/event-stream", "x-case": kind } }, (res) => {
            let body = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => {
              body += chunk;
              onData?.();
            });
            res.on("close", () =>
              resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], body, complete: res.complete }),
            );
          })
          .on("error", reject);
      });
    try {
      let opened = false;
      const open = read("open", () => {
        opened = true;
      });
      const silent = read("silent");
      const call = rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }));
      await until(() => opened && upstream.received.length === 3);
      proxy.child.kill("SIGTERM");
      assert.deepEqual(await open, { status: 200, type: "text/event-stream", body: ": open\n\n", complete: true });
      assert.deepEqual(await silent, { status: 200, type: "text/event-stream", body: "", complete: true });
      release();
      const answer = await call;
      assert.deepEqual([answer.status, JSON.parse(answer.text).id], [200, 7]);
      assert.equal(await proxy.exited, 0);
      const lines = proxy
        .stderr()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { event: string; message?: string });
      assert.deepEqual(
        lines.map(({ event }) => event),
        ["listening", "draining", "stopped"],
      );
      assert.doesNotMatch(String(lines[2]?.message), /cut off/);
    } finally {
      release();
      await proxy.stop();
      await upstream.close();
    }
  });
});

describe("wymcp proxy on SIGTERM, when requests outlast the drain", () => {
  test("past --drain-timeout what is still in flight is cut off, and the exit is still 0; a second signal exits at once", async () => {
    const upstream = await recordingUpstream();
    upstream.handle(() => undefined);
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const slow = await startProxy(["--upstream", upstream.url.href, "--drain-timeout", "300"]);
    const impatient = await startProxy(["--upstream", upstream.url.href]);
    try {
      for (const proxy of [slow, impatient]) void rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, ping).catch(() => undefined);
      await until(() => upstream.received.length === 2);
      slow.child.kill("SIGTERM");
      impatient.child.kill("SIGTERM");
      await until(() => impatient.stderr().includes("draining"));
      impatient.child.kill("SIGTERM");
      assert.equal(await impatient.exited, 1);
      assert.equal(await slow.exited, 0);
      assert.match(slow.stderr(), /stopped; 1 request\(s\) still in flight at the deadline were cut off/);
    } finally {
      await slow.stop();
      await impatient.stop();
      await upstream.close();
    }
  });
});

describe("wymcp proxy options", () => {
  test("--log json: one JSON object per refusal, with the verdict and wymcp's answer, of the body only its method", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href, "--log", "json"]);
    try {
      await rawPost(
        new URL("/mcp", proxy.url).href,
        { ...JSON_HEADERS, ...ECHO_CALL },
        modernCall(9, 5).replace('"x"', JSON.stringify(SECRET)),
      );
      await until(() => proxy.stderr().includes('"refused"'));
      const refused = proxy
        .stderr()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((record) => record.event === "refused");
      assert.ok(refused);
      const { time, ...rest } = refused;
      assert.match(String(time), /^\d{4}-\d\d-\d\dT/);
      assert.deepEqual(rest, {
        face: "proxy",
        event: "refused",
        era: "modern",
        kind: "request",
        id: 9,
        method: "tools/call",
        reason: "invalid-message",
        rule: "params",
        status: 400,
        code: -32602,
        message: "Invalid tools/call request (CallToolRequest): 1 invalid location; first: /params/name must be string",
        remote: "127.0.0.1",
      });
      assert.ok(!proxy.stderr().includes(SECRET));
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });

  test("--rule outbound=report: what the upstream sends is checked and each violation is one report line; the answer is unchanged", async () => {
    const upstream = await recordingUpstream();
    upstream.handle((_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":1,"result":{"content":5}}'),
    );
    const proxy = await startProxy(["--upstream", upstream.url.href, "--rule", "outbound=report"]);
    try {
      const answer = await rawPost(new URL("/mcp", proxy.url).href, { ...JSON_HEADERS, ...ECHO_CALL }, modernCall(1, "echo"));
      assert.equal(answer.text, '{"jsonrpc":"2.0","id":1,"result":{"content":5}}');
      await until(() => proxy.stderr().includes("report rule=outbound"));
      assert.match(
        proxy.stderr(),
        /report rule=outbound \(the server's message\) era=modern method="tools\/call" id=1: .*\/result\/content/,
      );
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });

  test("--rule params: a bad legacy tools/call is answered 200/-32602 enforced (the default) and never reaches the upstream; report and off forward it, report logs one report line naming the rule", async () => {
    const upstream = await recordingUpstream();
    const headers = { ...JSON_HEADERS, "mcp-protocol-version": "2025-06-18" };
    const badCall = JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: 5, arguments: {} } });
    const summary =
      "Invalid tools/call request (CallToolRequest, revision 2025-06-18): 1 invalid location; first: /params/name must be string";
    for (const mode of [undefined, "enforce", "report", "off", "--report"] as const) {
      const flags = mode === undefined ? [] : mode === "--report" ? [mode] : ["--rule", `params=${mode}`];
      const proxy = await startProxy(["--upstream", upstream.url.href, ...flags]);
      upstream.received.length = 0;
      try {
        const answer = await rawPost(new URL("/mcp", proxy.url).href, headers, badCall);
        if (mode === undefined || mode === "enforce") {
          assert.equal(answer.status, 200, "a legacy params failure is answered 200, as legacy clients read it");
          assert.match(String(answer.headers["content-type"]), /^application\/json/);
          const { id, error } = JSON.parse(answer.text) as { id: unknown; error: { code: number; message: string } };
          assert.deepEqual([id, error.code, error.message], [8, -32602, summary]);
          assert.equal(upstream.received.length, 0, "refused: never forwarded");
          await until(() => proxy.stderr().includes("refused"));
          assert.match(
            proxy.stderr(),
            new RegExp(
              `refused 200 -32602 invalid-message rule=params era=legacy kind=request method="tools/call" id=8 from=127\\.0\\.0\\.1: ${literally(summary)}`,
            ),
          );
        } else {
          assert.deepEqual([answer.status, JSON.parse(answer.text)], [200, { jsonrpc: "2.0", id: 8, result: { ok: true } }], mode);
          assert.equal(upstream.received.length, 1, `${mode}: forwarded`);
          assert.equal(upstream.received[0]!.body.toString("utf8"), badCall, `${mode}: byte for byte`);
          if (mode === "report" || mode === "--report") {
            await until(() => proxy.stderr().includes("report rule=params"));
            const line = new RegExp(
              `report rule=params \\(handed on\\) 200 -32602 era=legacy method="tools/call" id=8[^\\n]*: ${literally(summary)}`,
            );
            assert.match(proxy.stderr(), line);
          } else assert.ok(!/refused|report rule/.test(proxy.stderr()), proxy.stderr());
        }
      } finally {
        assert.equal(await proxy.stop(), 0);
      }
    }
    await upstream.close();
  });

  test("--rewrite-host sends the upstream's host; with --trust-proxy a X-Forwarded-Proto set in front is kept", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href, "--rewrite-host", "--trust-proxy"]);
    try {
      await rawPost(
        new URL("/mcp", proxy.url).href,
        { ...JSON_HEADERS, "x-forwarded-proto": "https" },
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      );
      const [seen] = upstream.received;
      assert.equal(headerOf(seen!, "host"), upstream.url.host);
      assert.equal(headerOf(seen!, "x-forwarded-host"), proxy.url.host);
      assert.equal(headerOf(seen!, "x-forwarded-proto"), "https");
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });

  test("--pass-through judges nothing: a malformed body reaches the upstream as sent", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href, "--pass-through"]);
    try {
      const answer = await rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, "not json");
      assert.equal(answer.status, 202);
      assert.equal(upstream.received[0]?.body.toString("utf8"), "not json");
    } finally {
      await proxy.stop();
      await upstream.close();
    }
  });

  test("wymcp --help lists proxy and stdio; each has its own --help", () => {
    const run = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8" });
    const top = run(["--help"]);
    assert.equal(top.status, 0);
    assert.match(top.stdout, /^ {2}proxy {5}.+\n.+wymcp proxy --help for its options$/m);
    assert.match(top.stdout, /^ {2}stdio {5}.+\n.+wymcp stdio --help for its options$/m);
    assert.match(top.stdout, /^ {3}or: wymcp proxy --upstream URL/m);
    assert.match(top.stdout, /^ {3}or: wymcp stdio \[options\] -- command/m);
    const proxyHelp = run(["proxy", "--help"]).stdout;
    assert.match(proxyHelp, /^Usage: wymcp proxy --upstream URL/);
    // Balancing: an initialize carries no session id, so legacy clients are keyed by address, never by the header.
    assert.doesNotMatch(proxyHelp, /affinity on Mcp-Session-Id/);
    assert.match(proxyHelp, /key legacy clients by their address \(an\s+initialize has no Mcp-Session-Id yet\)/);
    assert.match(proxyHelp, /Modern\s+requests may go to any instance/);
    assert.match(run(["stdio", "--help"]).stdout, /^Usage: wymcp stdio \[options\] -- command/);
    const wrong = run(["proxy"]);
    assert.deepEqual(
      [wrong.status, wrong.stderr],
      [2, 'wymcp proxy: --upstream URL is required: the MCP server to forward to\nRun "wymcp proxy --help" for the options.\n'],
    );
  });

  test("flags: checked when the proxy starts; a wrong one is a usage error", () => {
    const base = ["--upstream", "http://127.0.0.1:8000/mcp"];
    const { options, listen } = parseProxyArgs(base);
    assert.deepEqual(listen, { host: "127.0.0.1", port: 3000 });
    assert.deepEqual(
      [options.limits, options.rules, options.mode, options.log],
      [{ maxBodyBytes: 4194304, maxDepth: 64 }, {}, "enforce", "text"],
    );
    assert.equal(parseProxyArgs([...base, "--max-depth", "Infinity"]).options.limits.maxDepth, Number.POSITIVE_INFINITY);
    assert.deepEqual(parseProxyArgs([...base, "--rule", "params=off", "--rule=headers=report"]).options.rules, {
      params: "off",
      headers: "report",
    });
    assert.equal(parseProxyArgs([...base, "--report"]).options.mode, "report");
    assert.deepEqual([options.connectTimeoutMs, options.maxAnswerBytes, options.trustProxy], [10_000, 64 * 1024 * 1024, false]);
    assert.equal(parseProxyArgs([...base, "--max-answer-bytes", "Infinity"]).options.maxAnswerBytes, Number.POSITIVE_INFINITY);
    assert.equal(parseProxyArgs([...base, "--trust-proxy"]).options.trustProxy, true);
    assert.deepEqual(hostPort("--listen", "[::1]:8080"), { host: "::1", port: 8080 });
    // The request target goes upstream as a path: an absolute form never names another host there.
    assert.deepEqual(["/mcp?a=1", "http://evil.example/mcp?a=1", "*", "", "::"].map(originForm), ["/mcp?a=1", "/mcp?a=1", "*", "/", "/"]);
    assert.deepEqual(hostPort("--listen", ":0"), { host: "127.0.0.1", port: 0 });
    for (const wrong of [
      [],
      ["--upstream", "ftp://x/"],
      ["--upstream", "nope"],
      [...base, "--max-body-bytes", "0"],
      [...base, "--max-body-bytes", "1e3"],
      [...base, "--max-depth=-1"],
      [...base, "--rule", "params=all"],
      [...base, "--rule", "Params=enforce"],
      [...base, "--rule", ""],
      [...base, "--rule", "params"],
      [...base, "--rule", "params=off", "--rule", "params=report"],
      [...base, "--report=on"],
      [...base, "--legacy-checks", "framing"],
      [...base, "--listen"],
      [...base, "--listen", "--report"],
      [...base, "--log", "xml"],
      [...base, "--connect-timeout", "0"],
      [...base, "--connect-timeout", "Infinity"],
      [...base, "--max-answer-bytes", "0"],
      [...base, "--max-answer-bytes", "64MB"],
      [...base, "--listen", "3000"],
      [...base, "--listen", "127.0.0.1:70000"],
      [...base, "extra"],
    ]) {
      assert.throws(() => parseProxyArgs(wrong), /must|takes|required|unexpected|unknown|no rule|state is|twice/, wrong.join(" "));
    }
  });
});

test("the limits' flags go through the gates' own checks: a wrong one names the flag and the value as typed, never turns a limit off", () => {
  const base = ["--upstream", "http://127.0.0.1:8000/mcp"];
  const message = (extra: string[]) => {
    try {
      parseProxyArgs([...base, ...extra]);
      return "accepted";
    } catch (error) {
      return (error as Error).message;
    }
  };
  assert.deepEqual(
    [
      ["--max-body-bytes", "Infinity"],
      ["--max-body-bytes", "99999999999999999999"],
      ["--max-body-bytes", "NaN"],
      ["--max-depth=-1"],
      ["--timeout", "0"],
      ["--rule", "params=strict"],
      ["--rule", "lock=enforce"],
      ["--legacy-checks", "report"],
    ].map(message),
    [
      '--max-body-bytes must be a positive integer, not "Infinity"',
      '--max-body-bytes must be a positive integer, not "99999999999999999999"',
      '--max-body-bytes must be a positive integer, not "NaN"',
      '--max-depth must be a positive integer or Infinity, not "-1"',
      '--timeout must be a positive integer, not "0"',
      "--rule params=strict: a rule's state is enforce, report or off",
      "--rule lock=enforce needs --tools-lock FILE",
      "unknown flag --legacy-checks",
    ],
  );
  for (const state of ["enforce", "report", "off"] as const)
    assert.deepEqual(parseProxyArgs([...base, "--rule", `params=${state}`]).options.rules, { params: state });
  assert.throws(() => parseStdioArgs(["--rule", "params=all", "--", "x"]), /^UsageError: --rule params=all: a rule's state is/);
  assert.equal(parseProxyArgs([...base, "--max-body-bytes", "1024"]).options.limits.maxBodyBytes, 1024);
  assert.throws(
    () => parseStdioArgs(["--max-body-bytes", "Infinity", "--", "x"]),
    /^UsageError: --max-body-bytes must be a positive integer/,
  );
});

test("the SIGTERM test's peer: once closed, the port refuses", async () => {
  // Guards the drain test's "refused" check: a closed listener on loopback refuses at once, it does not hang.
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, "close");
  const outcome = await new Promise<string>((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => resolve("connected"));
    socket.once("error", () => resolve("refused"));
  });
  assert.equal(outcome, "refused");
});
