/**
 * @module examples/conformance-server: the server the official MCP conformance suite is run against
 * (`npm run conformance`). Both eras on one endpoint `/mcp`, wymcp in front of both lanes:
 * legacy (2025-era) traffic goes to sessionful SDK transports, one per `Mcp-Session-Id`, so that
 * server-to-client requests work; modern (2026-07-28) traffic goes to `createMcpHandler(..., { legacy: "reject" })`.
 * The two lanes form one `fetch`-shaped handler: gated, `gateNode(handler)`; ungated, the SDK's `toNodeHandler(handler)`.
 * `npm run start:conformance`; `PORT` (default 3000); `WYMCP_GATE=off` serves the same without the gate;
 * `WYMCP_OUTBOUND=report` (gated only) checks what it sends, violations to `WYMCP_OUTBOUND_FILE`;
 * `WYMCP_PARAMS=enforce|report|off` (gated only) sets the gate's `params` rule, `WYMCP_MODE=report` its mode (unset: the defaults).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from "@modelcontextprotocol/node";
import { gateNode, type RuleState } from "wymcp/node";
import { buildConformanceServer } from "./conformance-fixtures.js";
import { dualEraHost } from "./dual-era-host.js";
import { outboundFromEnv } from "./outbound-from-env.js";

const gated = process.env.WYMCP_GATE !== "off";

const modern = createMcpHandler(() => buildConformanceServer("modern", { notify: modern.notify }), { legacy: "reject" });

/** Both lanes as one `fetch`-shaped handler: gated, `gateNode(conformance)`; ungated, `toNodeHandler(conformance)`. */
const conformance = dualEraHost(() => buildConformanceServer("legacy"), modern);

// WYMCP_PARAMS=report (or off): the params rule's state; WYMCP_MODE=report: every enforced rule reports.
const params = process.env.WYMCP_PARAMS as RuleState | undefined;
const mode = process.env.WYMCP_MODE as "enforce" | "report" | undefined;
// WYMCP_OUTBOUND=report: every message either lane sends (POST answers and GET streams) is checked (examples/outbound-from-env.ts).
const outbound = await outboundFromEnv();
const serve = gated
  ? gateNode(conformance, {
      ...(params && { rules: { params } }),
      ...(mode && { mode }),
      ...(outbound.outbound && { outbound: outbound.outbound }),
      onReject: ({ status, reason, era }) => console.error(`wymcp rejected: ${status} ${reason} (${era ?? "before parsing"})`),
      onReport: (report) => {
        if (report.rule === "outbound") return outbound.onReport?.(report);
        console.error(`wymcp reported (${report.rule}): ${report.status ?? ""} ${report.message}`);
      },
    })
  : toNodeHandler(conformance);
// Loopback only: refuse DNS-rebinding attempts from browsers before anything else.
const hostIsLocal = localhostHostValidation();
const originIsLocal = localhostOriginValidation();

const server = http.createServer((req, res) => {
  if (new URL(req.url ?? "/", "http://localhost").pathname !== "/mcp") {
    return void res.writeHead(404, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "not found" }));
  }
  if (hostIsLocal(req, res) && originIsLocal(req, res)) void serve(req, res);
});

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  console.log(`wymcp conformance server (gate ${gated ? "on" : "off"}) listening on http://127.0.0.1:${port}/mcp`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    void conformance.close().finally(() => process.exit(0));
  });
}
