import assert from "node:assert/strict";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { wymcpNode } from "wymcp/node";

const LIMIT = 1024;
/** Short, so the test is quick; the assertions below allow several times as much. */
const DEADLINE_MS = 300;

interface Slow {
  /** Everything the server sent back. */
  received: string;
  /** Milliseconds from the first byte sent to the socket's close. */
  closedAfter: number;
  /** Bytes of body the client managed to send before the close. */
  sent: number;
}

/**
 * A client on a raw socket that sends `head` and `first`, then `drip` every 50 ms (the slow sender of the issue,
 * twenty times faster) whatever it receives; resolves when the server closes the connection.
 */
function slowSender(port: number, head: string, first: string, drip: string): Promise<Slow> {
  return new Promise((resolve) => {
    // Half-open allowed: the server's FIN after its answer must not be what ends the exchange; an attacker ignores it.
    const socket = net.connect({ port, host: "127.0.0.1", allowHalfOpen: true });
    const started = Date.now();
    let received = "";
    let sent = 0;
    const ticker = setInterval(() => {
      if (socket.writable) socket.write(drip, () => void (sent += drip.length));
    }, 50);
    socket.setEncoding("latin1");
    socket.on("data", (text: string) => void (received += text));
    // The server may reset a connection it cuts; what counts is that it is gone and what arrived before.
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearInterval(ticker);
      resolve({ received, closedAfter: Date.now() - started, sent });
    });
    socket.write(head + first);
  });
}

describe("a refused body releases its socket", () => {
  let server: http.Server;
  let port: number;
  /** The server's side of each connection still open. */
  const open = new Set<net.Socket>();
  const allClosed: (() => void)[] = [];

  before(async () => {
    const guard = wymcpNode({ limits: { maxBodyBytes: LIMIT, discardTimeoutMs: DEADLINE_MS } });
    // Node's own request timeout off: only wymcp's deadline can close a slow sender's socket.
    server = http.createServer(
      { requestTimeout: 0 },
      (req, res) => void guard(req, res, () => res.end(JSON.stringify({ handedOn: true }))),
    );
    server.on("connection", (socket: net.Socket) => {
      open.add(socket);
      socket.once("close", () => {
        open.delete(socket);
        if (open.size === 0) for (const wake of allClosed.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function assertAnswered413(slow: Slow): void {
    assert.match(slow.received, /^HTTP\/1\.1 413 /);
    assert.match(slow.received, /\r\nconnection: close\r\n/i);
    assert.match(slow.received, /"code":-32600,"message":"Payload Too Large: the body exceeds the limit of 1024 bytes"/);
    // Closed by wymcp (nothing else closes it here: a socket left open fails the test at the runner's limit), and not
    // before its deadline: after the answer, the drip went on being read. How soon after the deadline is no bound of a test.
    console.log(
      `slow sender: 413 received, socket closed after ${slow.closedAfter} ms (deadline ${DEADLINE_MS} ms), ${slow.sent} bytes dripped`,
    );
    assert.ok(slow.closedAfter >= DEADLINE_MS / 2, `closed after ${slow.closedAfter} ms, before the deadline of ${DEADLINE_MS} ms`);
  }

  /** Resolves once the server's side of every connection is closed too, not only the client's; then counts them. */
  async function connections(): Promise<number> {
    if (open.size > 0) await new Promise<void>((resolve) => allClosed.push(resolve));
    return new Promise<number>((resolve, reject) => server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
  }

  /** A valid POST on a connection of its own, closed after, so the connection count above stays exact. */
  async function stillServes(): Promise<void> {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const { status, text } = await new Promise<{ status: number | undefined; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          path: "/mcp",
          method: "POST",
          agent: false,
          headers: { "content-type": "application/json", connection: "close" },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => void (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode, text }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    assert.equal(status, 200);
    assert.deepEqual(JSON.parse(text), { handedOn: true });
  }

  test("a slow sender declaring a Content-Length over the limit gets the 413, then its socket is closed at the deadline", async () => {
    const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${100 * LIMIT}\r\n\r\n`;
    const slow = await slowSender(port, head, "{", "x");
    assertAnswered413(slow);
    assert.equal(await connections(), 0);
    await stillServes();
  });

  test("a slow sender streaming a chunked body past the limit gets the 413, then its socket is closed at the deadline", async () => {
    const head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    const first = `${(2 * LIMIT).toString(16)}\r\n${"x".repeat(2 * LIMIT)}\r\n`;
    const slow = await slowSender(port, head, first, "1\r\nx\r\n");
    assertAnswered413(slow);
    assert.equal(await connections(), 0);
    await stillServes();
  });

  test("a client that writes its whole refused body before reading still reads the 413, not a broken pipe", async () => {
    const size = 8 * 1024 * 1024;
    const received = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1");
      let text = "";
      socket.setEncoding("latin1");
      socket.on("data", (chunk: string) => void (text += chunk));
      socket.on("error", reject);
      socket.on("close", () => resolve(text));
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
      // Written in full, as a naive client does, before anything is read: the server must let it finish.
      socket.write(Buffer.alloc(size, 0x78), (error) => (error ? reject(error) : socket.end()));
    });
    assert.match(received, /^HTTP\/1\.1 413 /);
    assert.match(received, /\r\nconnection: close\r\n/i);
    assert.equal(await connections(), 0);
    await stillServes();
  });
});
