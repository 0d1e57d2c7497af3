/**
 * @module The messages the benchmark validates: the official tools/call example and shapes a dual-era server sees.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Era } from "../src/core/era.js";

export interface BenchMessage {
  key: string;
  label: string;
  era: Era;
  /** The bytes on the wire, compact JSON. */
  text: string;
  /** `JSON.parse(text)`, parsed once; no validator under test mutates it. */
  value: unknown;
  bytes: number;
  /** Where the body comes from. */
  source: string;
}

const KIB = 1024;

function message(key: string, label: string, era: Era, body: unknown, source: string): BenchMessage {
  const text = JSON.stringify(body);
  const bytes = Buffer.byteLength(text);
  return {
    key,
    label: `${label} (${bytes >= KIB ? `${(bytes / KIB).toFixed(1)} KiB` : `${bytes} B`})`,
    era,
    text,
    value: JSON.parse(text),
    bytes,
    source,
  };
}

function example(specDir: string, revision: string, path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(specDir, "schema", revision, "examples", path), "utf8")) as Record<string, unknown>;
}

export interface BenchMessages {
  toolsCall: BenchMessage;
  /** The same call as a legacy client sends it (no _meta), under MCP-Protocol-Version 2025-11-25. */
  legacyToolsCall: BenchMessage;
  bigToolsCall: BenchMessage;
  initialize: BenchMessage;
  notification: BenchMessage;
  response: BenchMessage;
  /** The error path: the official example with `name` a number and `arguments` a string (two locations fail). */
  badToolsCall: BenchMessage;
  /** The long error path: 20 failed locations, an answer long enough that distill.ts measures its UTF-8 bytes. */
  longErrorList: BenchMessage;
}

export function benchMessages(specDir: string): BenchMessages {
  const callPath = "CallToolRequest/call-tool-request.json";
  const call = example(specDir, "2026-07-28", callPath);
  const params = call.params as Record<string, unknown>;

  // Structured tool input (rows of records), grown until the arguments alone reach 50 KiB.
  const rows: unknown[] = [];
  const args = { location: "New York", rows };
  for (let i = 0; Buffer.byteLength(JSON.stringify(args)) < 50 * KIB; i++) {
    rows.push({ id: i, name: `station-${i}`, tags: ["temperature", "humidity"], reading: 12.5 + (i % 17) / 4, ok: i % 3 !== 0 });
  }
  const big = { ...call, params: { ...params, arguments: args } };

  const bad = { ...call, params: { ...params, name: 42, arguments: "New York" } };

  const initialize = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
      clientInfo: { name: "ExampleClient", version: "1.0.0" },
    },
  };
  const cancelled = example(specDir, "2026-07-28", "CancelledNotification/user-requested-cancellation.json");
  const roots = example(specDir, "2026-07-28", "ListRootsResult/multiple-root-directories.json");
  const response = { jsonrpc: "2.0", id: 1, result: roots };

  const { _meta: _modernEnvelope, ...legacyParams } = params;
  const legacyCall = { ...call, params: legacyParams };

  const spec = (path: string) => `official example ${path}`;
  return {
    toolsCall: message("tools-call", "modern tools/call", "modern", call, spec(callPath)),
    legacyToolsCall: message(
      "legacy-tools-call",
      "legacy tools/call, MCP-Protocol-Version 2025-11-25",
      "legacy",
      legacyCall,
      `${spec(callPath)} without _meta, judged by 2025-11-25's CallToolRequest`,
    ),
    bigToolsCall: message(
      "tools-call-50k",
      "modern tools/call, 50 KiB arguments",
      "modern",
      big,
      `${spec(callPath)}, arguments replaced by ${rows.length} records`,
    ),
    initialize: message("initialize", "legacy initialize", "legacy", initialize, "an SDK client's initialize (2025-11-25)"),
    notification: message(
      "notification",
      "legacy notifications/cancelled",
      "legacy",
      cancelled,
      spec("CancelledNotification/user-requested-cancellation.json"),
    ),
    response: message(
      "client-response",
      "legacy client response (roots/list result)",
      "legacy",
      response,
      `${spec("ListRootsResult/multiple-root-directories.json")} as a JSON-RPC result`,
    ),
    longErrorList: message(
      "bad-prompts-get-20",
      "bad modern prompts/get, 20 non-string arguments",
      "modern",
      {
        jsonrpc: "2.0",
        id: 2,
        method: "prompts/get",
        params: {
          _meta: params._meta,
          name: "code_review",
          arguments: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`argument${String(i).padStart(2, "0")}`, i])),
        },
      },
      `${spec(callPath)}'s _meta; 20 numeric arguments under 10-character keys, the body that crashed workerd while distill.ts used Buffer`,
    ),
    badToolsCall: message(
      "bad-tools-call",
      "bad modern tools/call",
      "modern",
      bad,
      `${spec(callPath)} with params.name 42 and params.arguments a string`,
    ),
  };
}
