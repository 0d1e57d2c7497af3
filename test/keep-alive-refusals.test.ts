/**
 * A refusal that can keep the connection keeps it: the 415 (and a 413 for a small declared body) reads and
 * discards the rest of the body, then answers without `Connection: close`, as the SDK alone does (Node reads an
 * unread body after the answer and keeps the connection). Only a body over the bounds, or one that does not arrive
 * in time, closes the connection. Each test sends the same bytes to the gated server and to the SDK alone.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { gateNode } from "wymcp/node";
import { wymcpNode } from "wymcp/node";
import { callSeen, seenServer } from "./support/gate-fixtures.js";

const handler = createMcpHandler(() => seenServer());

function request(headers: Record<string, string>, body: string | Buffer, extra: string[] = []): Buffer {
  const bytes = typeof body === "string" ? Buffer.from(body) : body;
  const lines = ["POST /mcp HTTP/1.1", "Host: 127.0.0.1", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), ...extra];
  if (!extra.some((l) => /^transfer-encoding:/i.test(l))) lines.push(`Content-Length: ${bytes.length}`);
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`), bytes]);
}

const TEXT_PLAIN = request({ "content-type": "text/plain" }, "hello, this is not JSON at all");

function valid(): Buffer {
  const { headers, body } = callSeen("modern");
  return request(headers, body);
}

interface Exchange {
  /** The status of each answer, in order. */
  statuses: number[];
  /** The head of each answer, lower-cased. */
  heads: string[];
  closed: boolean;
}

/** Reads answers off a raw socket: heads and bodies by Content-Length or chunked framing. */
function reader(socket: net.Socket) {
  let buffer = Buffer.alloc(0);
  const exchange: Exchange = { statuses: [], heads: [], closed: false };
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  socket.on("data", (data: Buffer) => {
    buffer = Buffer.concat([buffer, data]);
    for (;;) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) break;
      const head = buffer.subarray(0, end).toString("latin1").toLowerCase();
      let rest = buffer.subarray(end + 4);
      const length = /\r\ncontent-length: (\d+)/.exec(head);
      if (length) {
        if (rest.length < Number(length[1])) break;
        rest = rest.subarray(Number(length[1]));
      } else if (/\r\ntransfer-encoding: chunked/.test(head)) {
        const last = rest.indexOf("0\r\n\r\n");
        if (last < 0) break;
        rest = rest.subarray(last + 5);
      }
      exchange.statuses.push(Number(head.slice(9, 12)));
      exchange.heads.push(head);
      buffer = rest;
    }
    wake();
  });
  socket.on("close", () => {
    exchange.closed = true;
    wake();
  });
  socket.on("error", () => undefined);
  /** Resolves when `done()` holds or the socket closed, looking again at each answer read and at the close. */
  const until = (done: () => boolean) =>
    new Promise<void>((resolve) => {
      const look = () => (done() || exchange.closed ? resolve() : void waiters.push(look));
      look();
    });
  return { exchange, until };
}

/**
 * A server on port 0; it emits `"answered"` with the client's port when a response of its own closes (sent, or the
 * socket gone).
 */
async function listen(listener: http.RequestListener): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer((req, res) => {
    const client = req.socket.remotePort;
    res.on("close", () => server.emit("answered", client));
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe("keep-alive survives the refusals that can keep it", () => {
  const servers: Record<"gated" | "sdk", { server: http.Server; port: number }> = {} as never;
  before(async () => {
    servers.gated = await listen(gateNode(handler));
    const sdk = toNodeHandler(handler);
    servers.sdk = await listen((req, res) => void sdk(req, res));
  });
  after(() => {
    for (const { server } of Object.values(servers)) {
      server.closeAllConnections();
      server.close();
    }
  });

  for (const side of ["gated", "sdk"] as const) {
    test(`${side}: 100 requests pipelined after a 415 on one connection get 100 answers`, async () => {
      const socket = net.connect(servers[side].port, "127.0.0.1");
      const { exchange, until } = reader(socket);
      socket.write(Buffer.concat([TEXT_PLAIN, ...Array.from({ length: 100 }, valid)]));
      await until(() => exchange.statuses.length >= 101);
      socket.destroy();
      assert.equal(exchange.statuses[0], 415);
      assert.equal(exchange.statuses.length, 101, `${exchange.statuses.length} answers; closed: ${exchange.closed}`);
      assert.deepEqual(new Set(exchange.statuses.slice(1)), new Set([200]));
      assert.doesNotMatch(exchange.heads[0]!, /\r\nconnection: close/);
    });

    test(`${side}: a valid request sent once the server is done with a 415 on the same connection gets its 200`, async () => {
      const socket = net.connect(servers[side].port, "127.0.0.1");
      const { exchange, until } = reader(socket);
      await once(socket, "connect");
      // The server's end of this connection's 415, not of another test's.
      const done = new Promise<void>((resolve) => {
        const mine = (client: number) => client === socket.localPort && (servers[side].server.off("answered", mine), resolve());
        servers[side].server.on("answered", mine);
      });
      socket.write(TEXT_PLAIN);
      await until(() => exchange.statuses.length >= 1);
      await done;
      socket.write(valid());
      await until(() => exchange.statuses.length >= 2);
      socket.destroy();
      assert.deepEqual(exchange.statuses, [415, 200]);
    });

    test(`${side}: a 415 for a chunked body is answered on a connection that stays open`, async () => {
      const socket = net.connect(servers[side].port, "127.0.0.1");
      const { exchange, until } = reader(socket);
      const chunked = request({ "content-type": "text/plain" }, "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", ["Transfer-Encoding: chunked"]);
      socket.write(Buffer.concat([chunked, valid()]));
      await until(() => exchange.statuses.length >= 2);
      socket.destroy();
      assert.deepEqual(exchange.statuses, [415, 200]);
    });
  }

  test("a 413 for a small declared body keeps the connection; one over the bound, or one that never arrives, closes it", async () => {
    const { server, port } = await listen(
      (() => {
        const guard = wymcpNode({ limits: { maxBodyBytes: 100, discardTimeoutMs: 300 } });
        return (req: http.IncomingMessage, res: http.ServerResponse) => void guard(req, res, () => res.end("{}"));
      })(),
    );
    try {
      const json = { "content-type": "application/json" };
      // 200 bytes over a limit of 100: read, thrown away, answered, and the connection serves the next request.
      let socket = net.connect(port, "127.0.0.1");
      let r = reader(socket);
      socket.write(Buffer.concat([request(json, "x".repeat(200)), request(json, '{"jsonrpc":"2.0","id":1,"method":"ping"}')]));
      await r.until(() => r.exchange.statuses.length >= 2);
      socket.destroy();
      assert.deepEqual(r.exchange.statuses, [413, 200]);
      assert.doesNotMatch(r.exchange.heads[0]!, /\r\nconnection: close/);
      // A declared body far over every bound: answered at once, and the connection closes.
      socket = net.connect(port, "127.0.0.1");
      r = reader(socket);
      socket.write(
        request(json, "")
          .toString()
          .replace("Content-Length: 0", `Content-Length: ${64 * 1024 * 1024}`),
      );
      await r.until(() => r.exchange.statuses.length >= 1 && r.exchange.closed);
      assert.deepEqual(r.exchange.statuses, [413]);
      assert.match(r.exchange.heads[0]!, /\r\nconnection: close/);
      // A 415 whose declared body never comes: answered after the discard deadline, closing.
      socket = net.connect(port, "127.0.0.1");
      r = reader(socket);
      socket.write(request({ "content-type": "text/plain" }, "").toString().replace("Content-Length: 0", "Content-Length: 50"));
      await r.until(() => r.exchange.statuses.length >= 1);
      socket.destroy();
      assert.deepEqual(r.exchange.statuses, [415]);
      assert.match(r.exchange.heads[0]!, /\r\nconnection: close/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
