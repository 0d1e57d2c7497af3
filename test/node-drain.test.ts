/**
 * wymcpNode after an early 413: the unread rest of the body is read and thrown away, so the client can finish
 * sending and read the answer, up to 64 MiB; past that the connection is cut.
 */
import assert from "node:assert/strict";
import "./support/built.js";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { wymcpNode } from "wymcp/node";

const MiB = 1024 * 1024;

interface Upload {
  /** The status line and the rest of what came back, as text. */
  response: string;
  /** Bytes of the body the client's socket accepted. */
  sent: number;
  /** The whole declared body went out. */
  finished: boolean;
}

/**
 * POSTs a body of `total` declared bytes over a raw socket, written as fast as the connection takes it, reading the
 * answer meanwhile, until the body is sent and the answer read, or the connection is cut (a raw socket, because
 * node:http's client stops sending once the answer has arrived).
 */
function upload(port: number, total: number): Promise<Upload> {
  return new Promise((resolve) => {
    const chunk = Buffer.alloc(MiB, 0x20);
    const result: Upload = { response: "", sent: 0, finished: false };
    const socket = net.connect(port, "127.0.0.1");
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(result);
    };
    socket.setEncoding("utf8");
    socket.on("data", (text: string) => {
      result.response += text;
      if (result.finished && result.response.endsWith("}")) settle();
    });
    socket.on("error", settle);
    socket.on("close", settle);
    socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${total}\r\n\r\n`);
    let written = 0;
    const pump = () => {
      while (written < total && !socket.destroyed) {
        const piece = written + MiB <= total ? chunk : chunk.subarray(0, total - written);
        written += piece.length;
        const ok = socket.write(piece, (error) => {
          if (error) return;
          result.sent += piece.length;
          if (result.sent === total) {
            result.finished = true;
            if (result.response.endsWith("}")) settle();
          }
        });
        if (!ok) return void socket.once("drain", pump);
      }
    };
    pump();
  });
}

describe("wymcpNode after an early 413", () => {
  let server: http.Server;
  let port = 0;
  let handedOn = 0;
  before(async () => {
    const guard = wymcpNode({ limits: { maxBodyBytes: 1024 } });
    server = http.createServer((req, res) => {
      void guard(req, res, () => {
        handedOn++;
        res.end("handed on");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test("a declared 8 MiB body is drained: the client sends all of it and reads the 413", async () => {
    const run = await upload(port, 8 * MiB);
    assert.match(run.response, /^HTTP\/1\.1 413 /);
    assert.equal(run.finished, true, `the upload stopped after ${run.sent} bytes`);
    assert.equal(run.sent, 8 * MiB);
    assert.match(run.response, /"code":-32600.*limit of 1024 bytes/);
    assert.equal(handedOn, 0);
  });

  test("past 64 MiB of discarded body the connection is cut, long before a declared 256 MiB is sent", async () => {
    const run = await upload(port, 256 * MiB);
    assert.match(run.response, /^HTTP\/1\.1 413 /);
    assert.equal(run.finished, false, "the whole 256 MiB was accepted");
    assert.ok(run.sent >= 64 * MiB, `cut after only ${run.sent} bytes`);
    assert.ok(run.sent < 128 * MiB, `cut only after ${run.sent} bytes`);
  });

  test("the server answers the next request after both", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    assert.deepEqual([res.status, await res.text()], [200, "handed on"]);
  });
});
