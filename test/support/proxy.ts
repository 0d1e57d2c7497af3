/**
 * `wymcp proxy` and `wymcp stdio` run as the installed bin runs them (`node dist/cli.js`), and an upstream that records
 * what reaches it, for the tests of both faces.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import assert from "node:assert/strict";
import net, { type AddressInfo } from "node:net";
import { launchProxy, type LaunchedProxy } from "../../examples/launch.js";

export type RunningProxy = LaunchedProxy;

/** Starts the built bin's `wymcp proxy --listen 127.0.0.1:0 <args>` (with `env` added) and resolves once it listens. */
export function startProxy(args: string[], env: Record<string, string> = {}): Promise<RunningProxy> {
  const at = args.indexOf("--upstream");
  const upstream = new URL(args[at + 1]!);
  return launchProxy(upstream, { args: args.filter((_, i) => i !== at && i !== at + 1), env });
}

/**
 * Waits until `condition` holds (a log line written after the answer went out), looking again every few milliseconds.
 * No deadline: a loaded machine may take minutes over what is a moment on an idle one, and the runner's limit is the
 * only bound on a test's time (docs/testing.md).
 */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * An upstream nothing listens on: the discard port, below the range the kernel hands ports out from, so that no
 * server of a test (all on port 0) can be there, where a port just let go may be taken by another test file at once.
 */
export const NO_UPSTREAM = new URL("http://127.0.0.1:9/mcp");

/** Fails, saying so, on a machine where something does listen on `NO_UPSTREAM`'s port. */
export async function assertNothingListens(url = NO_UPSTREAM): Promise<void> {
  const outcome = await new Promise<string>((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
  });
  assert.equal(outcome, "ECONNREFUSED", `these tests need nothing listening on ${url.host}`);
}

/** One request as the upstream received it. */
export interface Received {
  method: string;
  url: string;
  /** Raw header pairs, names lower-cased. */
  headers: Array<[string, string]>;
  body: Buffer;
}

export type UpstreamHandler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

export interface Upstream {
  url: URL;
  received: Received[];
  /** What answers the next requests; by default a JSON-RPC result echoing the request's id. */
  handle: (handler: UpstreamHandler) => void;
  close: () => Promise<void>;
}

/** An HTTP server on a free loopback port that records every request whole and answers as told. */
export async function recordingUpstream(): Promise<Upstream> {
  const received: Received[] = [];
  let handler: UpstreamHandler = echoResult;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers: Array<[string, string]> = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i]!.toLowerCase(), req.rawHeaders[i + 1]!]);
    received.push({ method: req.method ?? "", url: req.url ?? "", headers, body });
    handler(req, res, body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    received,
    handle: (next) => (handler = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A JSON-RPC result for a request, `{ ok: true }`, its id echoed; 202 for anything else. */
export function echoResult(_req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  let id: unknown;
  try {
    id = (JSON.parse(body.toString("utf8")) as { id?: unknown }).id;
  } catch {
    id = undefined;
  }
  if (id === undefined) return void res.writeHead(202).end();
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, result: { ok: true } }));
}

/** The value of a received header (the first, when repeated). */
export function headerOf(received: Received, name: string): string | undefined {
  return received.headers.find(([n]) => n === name)?.[1];
}
