/**
 * `wymcp proxy` against peers that misbehave, behaviour the transport fuzz (fuzz/hostile.ts) found worse behind the
 * proxy than without it: each pinned here on its own, with raw sockets for the hostile side. The bin runs as
 * installed (dist/cli.js).
 */
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import { assertFreshDist } from "./support/built.js";
import { recordingUpstream, startProxy, type RunningProxy, type Upstream } from "./support/proxy.js";

before(assertFreshDist);

const ping = JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping" });
const request = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${ping.length}\r\n\r\n${ping}`;

/** Writes `bytes` on a new connection, then `then` (end: a FIN), and resolves to everything read until the close. */
function rawExchange(url: URL, bytes: string, then: "end" | "keep"): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(bytes);
      if (then === "end") socket.end();
    });
    let text = "";
    socket.setEncoding("latin1").on("data", (data: string) => {
      text += data;
      if (then === "keep" && /\r\n\r\n[\s\S]*\}$/.test(text)) socket.destroy();
    });
    socket.once("close", () => resolve(text));
    socket.once("error", reject);
  });
}

describe("a client that half-closes its connection after its request", () => {
  let upstream: Upstream;
  let proxy: RunningProxy;
  before(async () => {
    upstream = await recordingUpstream();
    // The upstream takes a moment, as a real one does: the client's FIN arrives before the answer.
    upstream.handle((_req, res, body) => {
      const { id } = JSON.parse(body.toString("utf8")) as { id: number };
      setTimeout(
        () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, result: {} })),
        100,
      );
    });
    proxy = await startProxy(["--upstream", upstream.url.href]);
  });
  after(async () => {
    assert.equal(await proxy.stop(), 0);
    await upstream.close();
  });

  test("still gets the upstream's answer, and then the connection closes", async () => {
    const text = await rawExchange(new URL("/mcp", proxy.url), request, "end");
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.match(text, /"id":5,"result":\{\}/);
    assert.equal(upstream.received.length, 1);
  });

  test("two requests pipelined before the FIN both get their answers, in order", async () => {
    const second = request.replace('"id":5', '"id":6');
    const text = await rawExchange(new URL("/mcp", proxy.url), request + second, "end");
    assert.deepEqual(
      [...text.matchAll(/"id":(\d+),"result"/g)].map((m) => m[1]),
      ["5", "6"],
    );
  });
});

describe("an upstream's reason phrase with a control character", () => {
  test("the answer is relayed with its status and body, under the status's standard phrase, not a 502", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 5, result: {} });
    const server = net.createServer((socket) => {
      socket.on("error", () => undefined);
      socket.once("data", () =>
        socket.write(`HTTP/1.1 200 O\x00K\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as net.AddressInfo;
    const proxy = await startProxy(["--upstream", `http://127.0.0.1:${port}/mcp`]);
    try {
      const text = await rawExchange(new URL("/mcp", proxy.url), request, "keep");
      assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
      assert.ok(text.endsWith(body), text);
    } finally {
      assert.equal(await proxy.stop(), 0);
      server.close();
    }
  });
});
