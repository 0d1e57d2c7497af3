/**
 * @module `npm run record:captures`: records real MCP traffic for `wymcp check`'s capture fixtures. The example server
 * (the official SDK's `createMcpHandler`, `WYMCP_GATE=off`: the SDK answers everything itself) runs behind a small
 * recording proxy; the official SDK client talks to it in both eras (a modern session, two legacy sessions whose ids
 * overlap), then a few raw POSTs a broken client would send. Each HTTP exchange is written as a HAR 1.2 entry
 * (`test/fixtures/cli/session.har`, as browsers' developer tools export one) and as JSON lines, one message per line in
 * the order they crossed the proxy (`test/fixtures/cli/session.jsonl`, as a proxy log holds them). Nothing in them is
 * typed by hand; rerunning records a new session (times, ports and ids differ).
 */
import { writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { launchExample } from "../examples/launch.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");
const out = join(root, "test/fixtures/cli");

interface Recorded {
  started: Date;
  ms: number;
  method: string;
  url: string;
  requestHeaders: Array<[string, string]>;
  requestBody: string;
  status: number;
  statusText: string;
  responseHeaders: Array<[string, string]>;
  responseBody: string;
}

const HOP_BY_HOP = new Set(["host", "connection", "keep-alive", "transfer-encoding", "content-length"]);

async function main(): Promise<void> {
  const server = await launchExample({ env: { WYMCP_GATE: "off" } });
  const recorded: Recorded[] = [];
  const proxy = http.createServer((req, res) => {
    void forward(req, res, server.url, recorded).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((done) => proxy.listen(0, "127.0.0.1", done));
  const endpoint = new URL(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`);
  try {
    await modernSession(endpoint);
    await legacySession(endpoint, "first");
    await legacySession(endpoint, "second");
    await brokenClient(endpoint);
  } finally {
    proxy.closeAllConnections();
    proxy.close();
    await server.stop();
  }
  recorded.sort((a, b) => a.started.getTime() - b.started.getTime());
  writeFileSync(join(out, "session.har"), `${JSON.stringify(har(recorded), null, 2)}\n`);
  writeFileSync(join(out, "session.jsonl"), jsonLines(recorded));
  console.log(`record-captures: ${recorded.length} HTTP exchanges into test/fixtures/cli/session.har and session.jsonl`);
}

/** Forwards one request to the server, streaming the answer back, and records both once the answer has ended. */
async function forward(req: http.IncomingMessage, res: http.ServerResponse, upstream: URL, recorded: Recorded[]): Promise<void> {
  const started = new Date();
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const requestBody = Buffer.concat(chunks).toString("utf8");
  const requestHeaders: Array<[string, string]> = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) requestHeaders.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
  const headers = new Headers();
  for (const [name, value] of requestHeaders) if (!HOP_BY_HOP.has(name.toLowerCase())) headers.append(name, value);
  const answer = await fetch(new URL(req.url ?? "/", upstream), {
    method: req.method,
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : requestBody,
  });
  const responseHeaders: Array<[string, string]> = [...answer.headers];
  res.writeHead(answer.status, Object.fromEntries(responseHeaders.filter(([name]) => !HOP_BY_HOP.has(name))));
  const parts: Buffer[] = [];
  if (answer.body) {
    const reader = answer.body.getReader();
    res.once("close", () => void reader.cancel().catch(() => {}));
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done || !value) break;
      parts.push(Buffer.from(value));
      res.write(value);
    }
  }
  res.end();
  recorded.push({
    started,
    ms: Date.now() - started.getTime(),
    method: req.method ?? "GET",
    url: new URL(req.url ?? "/", `http://${req.headers.host}`).href,
    requestHeaders,
    requestBody,
    status: answer.status,
    statusText: answer.statusText,
    responseHeaders,
    responseBody: Buffer.concat(parts).toString("utf8"),
  });
}

async function modernSession(endpoint: URL): Promise<void> {
  const client = new Client({ name: "wymcp-recorder", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(endpoint), { timeout: 10_000 });
  try {
    await client.listTools();
    await client.callTool({ name: "echo", arguments: { text: "hello from the modern era" } });
    await client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
    await client.readResource({ uri: "file:///readme.txt" });
    // The tool's own input check refuses this: the server answers a tool error result.
    await client.callTool({ name: "echo", arguments: { text: 42 } }).catch(() => undefined);
  } finally {
    await client.close();
  }
}

async function legacySession(endpoint: URL, text: string): Promise<void> {
  const client = new Client({ name: "wymcp-recorder", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(endpoint), { timeout: 10_000 });
  try {
    await client.listTools();
    await client.callTool({ name: "echo", arguments: { text } });
    await client.listPrompts();
  } finally {
    await client.close();
  }
}

/** What a broken client sends: each answered by the SDK itself, and recorded as it answered. */
async function brokenClient(endpoint: URL): Promise<void> {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "broken-client", version: "0.0.1" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const modernHeaders = { ...headers, "mcp-protocol-version": "2026-07-28" };
  const bodies: Array<[Record<string, string>, string]> = [
    // A tool name that is a number.
    [
      modernHeaders,
      JSON.stringify({ jsonrpc: "2.0", id: "b1", method: "tools/call", params: { _meta: meta, name: 42, arguments: { text: "x" } } }),
    ],
    // The modern envelope without its client capabilities.
    [
      modernHeaders,
      JSON.stringify({
        jsonrpc: "2.0",
        id: "b2",
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
      }),
    ],
    // Not JSON-RPC 2.0.
    [headers, JSON.stringify({ jsonrpc: "1.0", id: 3, method: "ping" })],
    // Cut off by the client.
    [headers, '{"jsonrpc":"2.0","id":4,"method":"tools/li'],
  ];
  for (const [h, body] of bodies) await (await fetch(endpoint, { method: "POST", headers: h, body })).text();
}

function har(recorded: Recorded[]) {
  const list = (pairs: Array<[string, string]>) => pairs.map(([name, value]) => ({ name, value }));
  return {
    log: {
      version: "1.2",
      creator: { name: "wymcp scripts/record-captures.ts", version: "1" },
      entries: recorded.map((r) => {
        const type = r.responseHeaders.find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? "";
        const requestType = r.requestHeaders.find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? "";
        const url = new URL(r.url);
        return {
          startedDateTime: r.started.toISOString(),
          time: r.ms,
          request: {
            method: r.method,
            url: r.url,
            httpVersion: "HTTP/1.1",
            cookies: [],
            headers: list(r.requestHeaders),
            queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
            ...(r.method === "POST" ? { postData: { mimeType: requestType, text: r.requestBody } } : {}),
            headersSize: -1,
            bodySize: Buffer.byteLength(r.requestBody),
          },
          response: {
            status: r.status,
            statusText: r.statusText,
            httpVersion: "HTTP/1.1",
            cookies: [],
            headers: list(r.responseHeaders),
            content: { size: Buffer.byteLength(r.responseBody), mimeType: type, text: r.responseBody },
            redirectURL: "",
            headersSize: -1,
            bodySize: Buffer.byteLength(r.responseBody),
          },
          cache: {},
          timings: { send: 0, wait: r.ms, receive: 0 },
        };
      }),
    },
  };
}

/** The messages in the order they crossed the proxy: each request body, then what answered it. */
function jsonLines(recorded: Recorded[]): string {
  const lines: string[] = [];
  const oneLine = (text: string) => {
    try {
      return JSON.stringify(JSON.parse(text));
    } catch {
      return text.replace(/\r?\n/g, " ");
    }
  };
  for (const r of recorded) {
    if (r.method !== "POST") continue;
    lines.push(oneLine(r.requestBody));
    const type = r.responseHeaders.find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? "";
    if (type.startsWith("text/event-stream")) {
      for (const event of r.responseBody.split(/\r?\n\r?\n/)) {
        const data = event
          .split(/\r?\n/)
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).replace(/^ /, ""))
          .join("\n");
        if (data.trim() !== "") lines.push(oneLine(data));
      }
    } else if (r.responseBody.trim() !== "") lines.push(oneLine(r.responseBody));
  }
  return `${lines.join("\n")}\n`;
}

await main();
