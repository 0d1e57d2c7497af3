/**
 * @module tools-server: the SDK's own server (`McpServer` from @modelcontextprotocol/server) listing the tools of a
 * JSON file as they are written, `TOOLS_PAGE` to a page (default 2), through its own `tools/list` handler with
 * `nextCursor`. Over HTTP (`createMcpHandler` on node:http) with `--http`, over stdio (`serveStdio`) otherwise; for
 * `wymcp compile --from` and `--from-stdio`. `TOOLS_CURSOR_LOOP=1` answers the same `nextCursor` forever, as a broken
 * server might. Run: `tsx test/support/tools-server.ts <tools.json> [--http]`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const [file, transport] = process.argv.slice(2);
if (!file) throw new Error("usage: tools-server.ts <tools.json> [--http]");
const tools = (JSON.parse(readFileSync(file, "utf8")) as { tools: unknown[] }).tools;
const pageSize = Number(process.env.TOOLS_PAGE ?? 2);

function buildServer(): McpServer {
  const server = new McpServer({ name: "wymcp-tools-fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.server.setRequestHandler("tools/list", (request) => {
    const start = process.env.TOOLS_CURSOR_LOOP ? 0 : Number(request.params?.cursor ?? 0);
    const next = start + pageSize;
    return { tools: tools.slice(start, next) as never, ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
  return server;
}

if (transport === "--http") {
  const handler = createMcpHandler(buildServer);
  const server = http.createServer(toNodeHandler(handler));
  server.listen(0, "127.0.0.1", () => {
    process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`);
  });
  process.once("SIGTERM", () => {
    server.close();
    server.closeAllConnections();
    void handler.close().finally(() => process.exit(0));
  });
} else {
  await serveStdio(buildServer);
}
