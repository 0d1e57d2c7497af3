import assert from "node:assert/strict";
import { describe, test } from "node:test";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gateFetch, type McpFetchHandler, type Report } from "wymcp/fetch";
import { gateNode } from "wymcp/node";
import { validateMcpResponse } from "wymcp/outbound";
import { createTap, type OutboundCheck } from "../src/outbound/tap.js";

// structuredContent came with 2025-06-18: a string there breaks no earlier revision's CallToolResult.
const RESULT = { jsonrpc: "2.0", id: 1, result: { content: [], structuredContent: "x" } };

describe("validateMcpResponse judges a legacy message by the revision the exchange negotiated", () => {
  test("each revision by its own result definition, and the result names the revision", () => {
    const outcomes = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"].map((protocolVersion) => {
      const result = validateMcpResponse(RESULT, { era: "legacy", method: "tools/call", protocolVersion });
      return [result.revision, result.outcome];
    });
    assert.deepEqual(outcomes, [
      ["2024-11-05", "pass"],
      ["2025-03-26", "pass"],
      ["2025-06-18", "violation"],
      ["2025-11-25", "violation"],
    ]);
    const violation = validateMcpResponse(RESULT, { era: "legacy", method: "tools/call", protocolVersion: "2025-06-18" });
    assert.equal(violation.outcome, "violation");
    assert.match(violation.violations.message, /^Invalid tools\/call result \(CallToolResult, revision 2025-06-18\): 1 invalid location/);
  });

  test("no revision, or one that is not legacy: the newest, 2025-11-25, as before revisions were told apart", () => {
    for (const protocolVersion of [undefined, null, "2026-07-28", "junk"]) {
      const result = validateMcpResponse(RESULT, { era: "legacy", method: "tools/call", protocolVersion });
      assert.deepEqual([result.revision, result.outcome], ["2025-11-25", "violation"], String(protocolVersion));
    }
  });

  test("a method the revision does not have is judged on its framing, as any unknown method", () => {
    const tasks = { jsonrpc: "2.0", id: 1, result: { taskId: 5 } };
    assert.equal(
      validateMcpResponse(tasks, { era: "legacy", method: "tasks/get", protocolVersion: "2025-06-18" }).definition,
      "JSONRPCResultResponse",
    );
    assert.equal(validateMcpResponse(tasks, { era: "legacy", method: "tasks/get", protocolVersion: "2025-11-25" }).outcome, "violation");
  });

  test("the server's requests and notifications too: elicitation/create is a 2025-06-18 request", () => {
    const elicit = {
      jsonrpc: "2.0",
      id: 3,
      method: "elicitation/create",
      params: { message: "m", requestedSchema: { type: "object", properties: {} } },
    };
    assert.equal(validateMcpResponse(elicit, { era: "legacy", protocolVersion: "2025-03-26" }).definition, "JSONRPCRequest");
    assert.equal(validateMcpResponse(elicit, { era: "legacy", protocolVersion: "2025-06-18" }).definition, "ElicitRequest");
  });

  test("the modern era has one revision; its summaries do not name it", () => {
    const result = validateMcpResponse({ jsonrpc: "2.0", id: 1, result: { tools: [] } }, { era: "modern", method: "tools/list" });
    assert.equal(result.revision, "2026-07-28");
    assert.equal(result.outcome, "violation");
    assert.doesNotMatch(result.violations.message, /revision/);
  });
});

describe("report mode judges a legacy exchange by the revision its request was judged by", () => {
  function tapped(era: "legacy" | "modern", requestBody: unknown, protocolVersion?: string) {
    const contexts: unknown[] = [];
    const infos: Report[] = [];
    const check: OutboundCheck = (message, context) => {
      contexts.push(context);
      return validateMcpResponse(message, context);
    };
    const tap = createTap({
      era,
      requestBody,
      header: (name) => (name === "content-type" ? "application/json" : null),
      hooks: { outboundCheck: check, onReport: (i) => infos.push(i) },
      protocolVersion,
    });
    tap.push(JSON.stringify(RESULT));
    tap.end();
    return { contexts, infos };
  }
  const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t" } };

  test("the request's MCP-Protocol-Version header", () => {
    assert.deepEqual(tapped("legacy", call, "2024-11-05"), {
      contexts: [{ era: "legacy", method: "tools/call", protocolVersion: "2024-11-05" }],
      infos: [],
    });
    const later = tapped("legacy", call, "2025-06-18");
    assert.deepEqual(
      later.infos.map((i) => [i.era, i.method, i.id, i.revision]),
      [["legacy", "tools/call", 1, "2025-06-18"]],
    );
  });

  test("no header: an initialize's own protocolVersion, else 2025-03-26", () => {
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18" } };
    assert.deepEqual(tapped("legacy", initialize).contexts, [{ era: "legacy", method: "initialize", protocolVersion: "2025-06-18" }]);
    assert.deepEqual(tapped("legacy", call).contexts, [{ era: "legacy", method: "tools/call", protocolVersion: "2025-03-26" }]);
  });

  test("the modern era passes no revision and reports none", () => {
    const { contexts, infos } = tapped("modern", call, "2026-07-28");
    assert.deepEqual(contexts, [{ era: "modern", method: "tools/call" }]);
    assert.equal(infos[0]?.revision, undefined);
  });

  test("through gateFetch: the same result is no violation under 2024-11-05 and one under 2025-06-18", async () => {
    const handler: McpFetchHandler = {
      fetch: async () => new Response(JSON.stringify(RESULT), { headers: { "content-type": "application/json" } }),
    };
    const infos: Report[] = [];
    const gated = gateFetch(handler, { outbound: validateMcpResponse, onReport: (i) => infos.push(i) });
    for (const revision of ["2024-11-05", "2025-06-18"]) {
      const request = new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", "mcp-protocol-version": revision },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: {} } }),
      });
      await (await gated(request)).text();
    }
    assert.deepEqual(
      infos.map((i) => i.revision),
      ["2025-06-18"],
    );
  });

  test("through gateNode: the same, by the request's header", async () => {
    const handler: McpFetchHandler = {
      fetch: async () => new Response(JSON.stringify(RESULT), { headers: { "content-type": "application/json" } }),
    };
    const infos: Report[] = [];
    const gated = gateNode(handler, { outbound: validateMcpResponse, onReport: (i) => infos.push(i) });
    const server = http.createServer(gated);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      for (const revision of ["2024-11-05", "2025-06-18"]) {
        const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", arguments: {} } });
        await (
          await fetch(url, { method: "POST", headers: { "content-type": "application/json", "mcp-protocol-version": revision }, body })
        ).text();
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    assert.deepEqual(
      infos.map((i) => i.revision),
      ["2025-06-18"],
    );
  });
});
