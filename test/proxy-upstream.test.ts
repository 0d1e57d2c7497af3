/**
 * `wymcp proxy`'s upstream side against upstreams that misbehave: raw `net` servers write exactly the bytes of a bad
 * answer (a status Node cannot write, an unasked-for 101, a reset under a reused socket, an answer too large), and an
 * https upstream with a certificate made for this run checks what TLS names. The bin runs as installed (dist/cli.js).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { TLSSocket } from "node:tls";
import { idleMs, MAX_FORWARDED_HOST } from "../src/hosts/proxy/forward.js";
import { assertFreshDist } from "./support/built.js";
import { rawPost } from "./support/gate-fixtures.js";
import { echoResult, headerOf, recordingUpstream, startProxy, until } from "./support/proxy.js";

before(assertFreshDist);

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const ping = (id: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

/** One request as a raw upstream read it: its head (request line and headers) and its body, by Content-Length. */
interface RawRequest {
  head: string;
  body: Buffer;
  /** 1 for the first request on its connection. */
  onConnection: number;
  socket: net.Socket;
}

/** A `net` server that parses requests just enough (Content-Length bodies) and lets the test write raw bytes back. */
async function rawUpstream(answer: (request: RawRequest) => void) {
  const requests: RawRequest[] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let buffered = Buffer.alloc(0);
    let onConnection = 0;
    socket.on("data", (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffered.subarray(0, end).toString("latin1");
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const request = { head, body: buffered.subarray(end + 4, end + 4 + length), onConnection: ++onConnection, socket };
        buffered = buffered.subarray(end + 4 + length);
        requests.push(request);
        answer(request);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A JSON-RPC result as raw HTTP/1.1 bytes, on a connection kept open. */
const okAnswer = (id: unknown = 1, extra = "") => {
  const body = JSON.stringify({ jsonrpc: "2.0", id, result: {} });
  return `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${extra}\r\n${body}`;
};
const idOf = (request: RawRequest) => (JSON.parse(request.body.toString("utf8") || "{}") as { id?: unknown }).id;

describe("an upstream's answer that is not valid HTTP is answered 502, and the proxy keeps serving", () => {
  for (const [name, statusLine] of [["a status below 100", "HTTP/1.1 042 Odd"]] as const) {
    test(`${name}: 502 with the request's id, logged; an exchange in flight on another socket is answered all the same`, async () => {
      let held: RawRequest | undefined;
      const upstream = await rawUpstream((request) => {
        if (idOf(request) === "slow") return void (held = request);
        const body = JSON.stringify({ jsonrpc: "2.0", id: idOf(request), result: {} });
        request.socket.write(`${statusLine}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      });
      const proxy = await startProxy(["--upstream", upstream.url.href]);
      try {
        const at = new URL("/mcp", proxy.url).href;
        const slow = rawPost(at, JSON_HEADERS, ping("slow"));
        await until(() => held !== undefined);
        const bad = await rawPost(at, JSON_HEADERS, ping("bad"));
        assert.equal(bad.status, 502);
        const error = JSON.parse(bad.text) as { id: unknown; error: { code: number; message: string } };
        assert.deepEqual([error.id, error.error.code], ["bad", -32603]);
        assert.match(error.error.message, /not valid HTTP/);
        await until(() => /upstream answer malformed .*: answered 502 to POST id="bad"/.test(proxy.stderr()));
        held!.socket.write(okAnswer("slow"));
        assert.equal((await slow).status, 200);
      } finally {
        assert.equal(await proxy.stop(), 0, "the proxy drained and exited 0: it never crashed");
        await upstream.close();
      }
    });
  }

  test("a header Node's parser refuses, or a broken framing: 502 as a malformed answer, not as an unreachable upstream", async () => {
    const upstream = await rawUpstream((request) =>
      request.socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: twelve\r\n\r\n{}"),
    );
    const proxy = await startProxy(["--upstream", upstream.url.href]);
    try {
      const bad = await rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, ping(7));
      assert.equal(bad.status, 502);
      assert.match(JSON.parse(bad.text).error.message, /not valid HTTP/);
      await until(() => /upstream answer malformed \(HPE_[A-Z_]+\): answered 502 to POST id=7/.test(proxy.stderr()));
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });

  test("an unasked-for 101 Switching Protocols: 502 at once, never a client left waiting", async () => {
    const upstream = await rawUpstream((request) =>
      request.socket.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"),
    );
    const proxy = await startProxy(["--upstream", upstream.url.href]);
    try {
      const answer = await rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, ping(9));
      assert.equal(answer.status, 502);
      assert.equal(JSON.parse(answer.text).id, 9);
      await until(() => /upstream answer malformed \(unsolicited 101 Switching Protocols\)/.test(proxy.stderr()));
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });
});

describe("a reused socket the upstream reset: retried only when nothing is replayed that should not be", () => {
  /** Answers the first request on each connection and resets the connection on the second, as a server whose idle timeout fired. */
  const resetting = () =>
    rawUpstream((request) => {
      if (request.onConnection > 1) return void request.socket.resetAndDestroy();
      request.socket.write(okAnswer(idOf(request) ?? null));
    });

  test("--pass-through: a POST whose streamed body is consumed is answered 502, never sent again with no body", async () => {
    const upstream = await resetting();
    const proxy = await startProxy(["--upstream", upstream.url.href, "--pass-through"]);
    try {
      const at = new URL("/mcp", proxy.url).href;
      assert.equal((await rawPost(at, JSON_HEADERS, ping(1))).status, 200);
      const second = await rawPost(at, JSON_HEADERS, ping(2));
      assert.equal(second.status, 502);
      assert.equal(upstream.connections(), 1, "no second connection: nothing was sent again");
      assert.deepEqual(
        upstream.requests.map((request) => request.body.toString("utf8")),
        [ping(1), ping(2)],
      );
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });

  test("a judged POST (not idempotent) is not sent again: 502; a GET (idempotent, no body) is sent again on a new socket", async () => {
    const upstream = await resetting();
    const proxy = await startProxy(["--upstream", upstream.url.href]);
    try {
      const at = new URL("/mcp", proxy.url).href;
      assert.equal((await rawPost(at, JSON_HEADERS, ping(1))).status, 200);
      assert.equal((await rawPost(at, JSON_HEADERS, ping(2))).status, 502);
      assert.equal(upstream.connections(), 1);
      assert.equal((await rawPost(at, JSON_HEADERS, ping(3))).status, 200, "a new connection for the next request");
      const get = await new Promise<number>((resolve, reject) =>
        http.get(at, { agent: false }, (res) => resolve(res.resume().statusCode ?? 0)).on("error", reject),
      );
      assert.equal(get, 200);
      assert.equal(upstream.connections(), 3, "the GET went again on a third connection");
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });
});

describe("an https upstream: TLS names the upstream, never the client's Host", () => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-tls-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("clients sending five other Host values are all served, over one pool: SNI and the certificate check say localhost", async () => {
    const key = join(dir, "key.pem");
    const cert = join(dir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost",
      ],
      { stdio: "ignore" },
    );
    const names: Array<string | false | null> = [];
    let handshakes = 0;
    const server = https.createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => echoResult(req, res, Buffer.concat(chunks)));
    });
    server.on("secureConnection", (socket: TLSSocket) => {
      handshakes++;
      names.push(socket.servername);
    });
    await new Promise<void>((resolve) => server.listen(0, "localhost", resolve));
    const { port } = server.address() as net.AddressInfo;
    // Hosts no loopback listener allows by default (DNS rebinding protection): named, so that the check lets them in.
    const hosts = ["mcp.example.test", "a.example.test", "b.example.test", "c.example.test", "d.example.test"];
    const proxy = await startProxy(["--upstream", `https://localhost:${port}/mcp`, ...hosts.flatMap((host) => ["--allowed-host", host])], {
      NODE_EXTRA_CA_CERTS: cert,
    });
    try {
      const at = new URL("/mcp", proxy.url).href;
      for (const [i, host] of hosts.entries()) {
        const answer = await rawPost(at, { ...JSON_HEADERS, host }, ping(i));
        assert.equal(answer.status, 200, `${host}: ${answer.text}`);
        assert.deepEqual(JSON.parse(answer.text), { jsonrpc: "2.0", id: i, result: { ok: true } });
      }
      assert.deepEqual(names, ["localhost"]);
      assert.equal(handshakes, 1, "one connection, reused: the pool is keyed by the upstream");
    } finally {
      assert.equal(await proxy.stop(), 0);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("--connect-timeout: an upstream that takes the TCP connection and never completes TLS is answered 502 past it", async () => {
    const held: net.Socket[] = [];
    const silent = net.createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const proxy = await startProxy(["--upstream", `https://127.0.0.1:${port}/mcp`, "--connect-timeout", "200", "--timeout", "30000"]);
    try {
      const answer = await rawPost(new URL("/mcp", proxy.url).href, JSON_HEADERS, ping(4));
      assert.equal(answer.status, 502);
      await until(() => /upstream unreachable \(ECONNECTTIMEOUT\): answered 502 to POST id=4/.test(proxy.stderr()));
    } finally {
      assert.equal(await proxy.stop(), 0);
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe("forwarding headers: what the proxy forwards is what it judged, and X-Forwarded-* are its own", () => {
  test("a header the client names in Connection is neither forwarded nor judged: the lane is the one the upstream sees", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href]);
    try {
      // No _meta: refused on the modern lane (its header says modern), a valid legacy tools/call otherwise.
      const body = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "echo", arguments: {} } });
      const at = new URL("/mcp", proxy.url).href;
      const modern = await rawPost(at, { ...JSON_HEADERS, "mcp-protocol-version": "2026-07-28" }, body);
      assert.equal(modern.status, 400, "judged on the modern lane when the header goes upstream");
      const hidden = await rawPost(
        at,
        { ...JSON_HEADERS, connection: "keep-alive, MCP-Protocol-Version", "mcp-protocol-version": "2026-07-28" },
        body,
      );
      assert.equal(hidden.status, 200, hidden.text);
      assert.equal(upstream.received.length, 1);
      assert.equal(headerOf(upstream.received[0]!, "mcp-protocol-version"), undefined);
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });

  const spoofed = {
    ...JSON_HEADERS,
    "x-forwarded-proto": "https",
    "x-forwarded-host": "elsewhere.example",
    "x-forwarded-for": "203.0.113.9",
    forwarded: "for=203.0.113.9;proto=https",
    "x-forwarded-port": "443",
    "x-real-ip": "203.0.113.9",
  };

  test("without --trust-proxy the client's X-Forwarded-*, Forwarded and X-Real-IP are dropped and the proxy's own sent", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href]);
    try {
      assert.equal((await rawPost(new URL("/mcp", proxy.url).href, spoofed, ping(1))).status, 200);
      const [seen] = upstream.received;
      assert.equal(headerOf(seen!, "x-forwarded-proto"), "http");
      assert.equal(headerOf(seen!, "x-forwarded-host"), proxy.url.host);
      assert.equal(headerOf(seen!, "x-forwarded-for"), "127.0.0.1");
      for (const name of ["forwarded", "x-forwarded-port", "x-real-ip"]) assert.equal(headerOf(seen!, name), undefined, name);
      assert.equal(seen!.headers.filter(([name]) => name.startsWith("x-forwarded-")).length, 3, "one of each");
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });

  test("with --trust-proxy they are kept, and X-Forwarded-For extended with the peer's address", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href, "--trust-proxy"]);
    try {
      assert.equal((await rawPost(new URL("/mcp", proxy.url).href, spoofed, ping(1))).status, 200);
      const [seen] = upstream.received;
      assert.equal(headerOf(seen!, "x-forwarded-proto"), "https");
      assert.equal(headerOf(seen!, "x-forwarded-host"), "elsewhere.example");
      assert.equal(headerOf(seen!, "x-forwarded-for"), "203.0.113.9, 127.0.0.1");
      assert.equal(headerOf(seen!, "forwarded"), "for=203.0.113.9;proto=https");
      assert.deepEqual([headerOf(seen!, "x-forwarded-port"), headerOf(seen!, "x-real-ip")], ["443", "203.0.113.9"]);
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });
});

/**
 * A POST written as raw bytes (so that the head is exactly what the test says), its answer's status; `head` is the
 * header fields in order, the body's `Content-Length` added last.
 */
function rawHeadPost(url: URL, head: Array<[string, string]>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const fields = [...head, ["content-length", String(Buffer.byteLength(body))]].map(([name, value]) => `${name}: ${value}\r\n`);
    socket.end(`POST ${url.pathname} HTTP/1.1\r\n${fields.join("")}\r\n${body}`);
    let answer = "";
    socket.setEncoding("latin1").on("data", (text: string) => (answer += text));
    socket.once("error", reject).once("close", () => resolve(Number(answer.split(" ")[1])));
  });
}

/** What Node's parser counts toward `maxHeaderSize`: the target, and each header's name and value. */
const headCount = (target: string, head: Array<[string, string]>, body: string) =>
  target.length +
  head.reduce((sum, [name, value]) => sum + name.length + value.length, 0) +
  "content-length".length +
  String(body.length).length;

describe("what the proxy adds never takes a request past the header bound the client's request was under", () => {
  const body = ping(1);
  const fields = (host: string): Array<[string, string]> => [
    ["host", host],
    ["content-type", "application/json"],
    ["accept", "application/json, text/event-stream"],
  ];

  test("a 9 KB Host, which an upstream with Node's 16 KiB bound answers alone: answered through the proxy too, with no X-Forwarded-Host copy of it", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href, "--allow-any-host"]);
    try {
      const head = fields(`${"h".repeat(9_000)}.example`);
      assert.equal(await rawHeadPost(upstream.url, head, body), 200, "the server alone");
      assert.equal(await rawHeadPost(new URL("/mcp", proxy.url), head, body), 200, "through the proxy");
      const seen = upstream.received[1]!;
      assert.equal(headerOf(seen, "host"), head[0]![1], "the client's Host, as it sent it");
      assert.equal(headerOf(seen, "x-forwarded-host"), undefined);
      assert.equal(headerOf(seen, "x-forwarded-for"), "127.0.0.1");
      assert.equal(headerOf(seen, "x-forwarded-proto"), "http");
      // A Host as long as a DNS name and a port is copied as before.
      const short = `${"h".repeat(MAX_FORWARDED_HOST - ".example:3000".length)}.example:3000`;
      assert.equal(await rawHeadPost(new URL("/mcp", proxy.url), fields(short), body), 200);
      assert.equal(headerOf(upstream.received[2]!, "x-forwarded-host"), short);
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });

  test("a head one unit under Node's bound, with no Connection header: the upstream answers it through the proxy, which adds nothing that does not fit", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href]);
    try {
      const head = fields(proxy.url.host);
      const filler = http.maxHeaderSize - 1 - headCount("/mcp", head, body) - "x-fill".length;
      head.push(["x-fill", "f".repeat(filler)]);
      assert.equal(headCount("/mcp", head, body), http.maxHeaderSize - 1);
      assert.equal(await rawHeadPost(upstream.url, head, body), 200, "the server alone");
      assert.equal(await rawHeadPost(new URL("/mcp", proxy.url), head, body), 200, "through the proxy");
      const seen = upstream.received[1]!;
      assert.deepEqual(
        seen.headers.filter(([name]) => name.startsWith("x-forwarded-") || name === "connection"),
        [],
        "no header of the proxy's own: none fits",
      );
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });
});

describe("--max-answer-bytes bounds an answer once its headers have come", () => {
  test("declared too large: 502 before any header goes out; streamed past it: the answer is cut; both logged; an event stream is not bounded", async () => {
    const big = "x".repeat(3000);
    const upstream = await rawUpstream((request) => {
      const id = idOf(request);
      if (id === "declared") {
        request.socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${big.length + 2}\r\n\r\n"${big}"`);
      } else if (id === "chunked") {
        request.socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
        for (let i = 0; i < 3; i++) request.socket.write(`3e8\r\n${"y".repeat(1000)}\r\n`);
        request.socket.write("0\r\n\r\n");
      } else {
        request.socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
        const event = `data: ${JSON.stringify({ jsonrpc: "2.0", id, result: { big } })}\n\n`;
        request.socket.write(`${Buffer.byteLength(event).toString(16)}\r\n${event}\r\n0\r\n\r\n`);
      }
    });
    const proxy = await startProxy(["--upstream", upstream.url.href, "--max-answer-bytes", "1500"]);
    try {
      const at = new URL("/mcp", proxy.url).href;
      const declared = await rawPost(at, JSON_HEADERS, ping("declared"));
      assert.equal(declared.status, 502);
      assert.match(JSON.parse(declared.text).error.message, /larger than 1500 bytes/);
      await until(() => /upstream answer too large \(content-length 3002\): answered 502 to POST id="declared"/.test(proxy.stderr()));

      const cut = await new Promise<string>((resolve) => {
        const req = http.request(at, { method: "POST", headers: JSON_HEADERS, agent: false }, (res) => {
          res.resume();
          res.once("end", () => resolve("complete"));
          res.once("error", () => resolve("cut"));
          res.once("close", () => resolve(res.complete ? "complete" : "cut"));
        });
        req.on("error", () => resolve("cut"));
        req.end(ping("chunked"));
      });
      assert.equal(cut, "cut");
      await until(() => /upstream answer cut off \(more than 1500 bytes\) to POST id="chunked"/.test(proxy.stderr()));

      const stream = await rawPost(at, JSON_HEADERS, ping("stream"));
      assert.equal(stream.status, 200);
      assert.ok(stream.text.includes(big));
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });
});

// That the reader keeps no chunk (what made a body's memory grow with its chunk count) is pinned in
// body-reader.test.ts; what it costs in memory is measured by `npm run bench -- --body-memory`.
describe("a valid body in 1-byte chunks", () => {
  test("four at once over real sockets, each HTTP chunk one byte: judged, answered 200 and forwarded byte for byte", async () => {
    const upstream = await recordingUpstream();
    const proxy = await startProxy(["--upstream", upstream.url.href]);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "p".repeat(256 * 1024) } });
    const framed = Buffer.from(`${Array.from(body, (char) => `1\r\n${char}\r\n`).join("")}0\r\n\r\n`, "latin1");
    const send = () =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(proxy.url.port), "127.0.0.1");
        let text = "";
        socket.setEncoding("latin1");
        socket.on("data", (chunk: string) => {
          text += chunk;
          if (/\r\n\r\n[\s\S]*"result"/.test(text)) socket.end();
        });
        socket.once("close", () => resolve(text));
        socket.once("error", reject);
        socket.write(
          `POST /mcp HTTP/1.1\r\nHost: ${proxy.url.host}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
        );
        socket.write(framed);
      });
    try {
      const answers = await Promise.all([send(), send(), send(), send()]);
      for (const answer of answers) assert.match(answer, /^HTTP\/1\.1 200 /);
      assert.equal(upstream.received.length, 4);
      for (const seen of upstream.received) assert.equal(seen.body.toString("utf8"), body);
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.close();
    }
  });
});

test("idleMs: a pooled socket idles a second less than the upstream's Keep-Alive timeout names, 4 s when it names none", () => {
  assert.equal(idleMs(undefined), 4_000);
  assert.equal(idleMs("timeout=30"), 29_000);
  assert.equal(idleMs("max=100, timeout=15"), 14_000);
  assert.equal(idleMs("timeout=1"), 0, "no time to reuse it safely: not kept");
  assert.equal(idleMs("timeout=86400"), 60_000, "bounded");
  assert.equal(idleMs("max=5"), 4_000);
});
