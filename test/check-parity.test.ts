/**
 * `wymcp check` judges a body exactly as the gates do: the same bodies, headers and limits go to gateFetch, to gateNode
 * (over HTTP) and to `wymcp check --json` (the built bin), and the answers are compared byte for byte, with the status
 * and the reason. Before, the CLI copied the gate's 413 and parse-error words and left the nesting bound out: a
 * tools/call nested 100 levels deep passed `wymcp check` and was refused 400 by the gate.
 */
import assert from "node:assert/strict";
import "./support/built.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { RejectInfo } from "wymcp";
import { gateFetch } from "wymcp/fetch";
import { gateNode } from "wymcp/node";
import { wymcp } from "./support/cli.js";
import { listening } from "./support/gate-fixtures.js";
import { MODERN_META } from "./support/messages.js";

interface Case {
  name: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
  maxBodyBytes?: number;
  maxDepth?: number;
  /** What both must answer. */
  want: { status: number; code?: number; reason?: RejectInfo["reason"] };
}

const JSON_TYPE = { "Content-Type": "application/json" };
const MODERN = { ...JSON_TYPE, "MCP-Protocol-Version": "2026-07-28" };
const toolsList = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
/** The body: a tools/call whose arguments nest 100 levels deep. */
const deepCall = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t","arguments":{"d":${"[".repeat(97)}${"]".repeat(97)}}}}`;

const CASES: Case[] = [
  { name: "a valid legacy request passes both", body: toolsList, want: { status: 200 } },
  {
    name: "413: a body over maxBodyBytes",
    body: `${toolsList}${" ".repeat(200)}`,
    maxBodyBytes: 100,
    want: { status: 413, code: -32600, reason: "body-too-large" },
  },
  {
    name: "415: a Content-Type that is not JSON",
    body: toolsList,
    headers: { "Content-Type": "text/plain" },
    want: { status: 415, code: -32600, reason: "unsupported-media-type" },
  },
  {
    name: "415: two media types in one Content-Type",
    body: toolsList,
    headers: { "Content-Type": "application/json, text/plain" },
    want: { status: 415, code: -32600, reason: "unsupported-media-type" },
  },
  {
    name: "-32700: a charset label is not read, UTF-16 bytes are judged as UTF-8",
    body: new Uint8Array([...toolsList].flatMap((c) => [c.charCodeAt(0), 0])),
    headers: { "Content-Type": "application/json; charset=utf-16le" },
    want: { status: 400, code: -32700, reason: "parse-error" },
  },
  { name: "-32700: not JSON", body: '{"leak":', want: { status: 400, code: -32700, reason: "parse-error" } },
  { name: "-32700: not UTF-8", body: new Uint8Array([0x22, 0xff, 0x22]), want: { status: 400, code: -32700, reason: "parse-error" } },
  {
    name: "too deep: a tools/call nested 100 levels, the default bound",
    body: deepCall,
    want: { status: 400, code: -32600, reason: "nested-too-deeply" },
  },
  {
    name: "too deep: maxDepth 2, the id kept",
    body: '{"id":"d","a":{"b":{}}}',
    maxDepth: 2,
    want: { status: 400, code: -32600, reason: "nested-too-deeply" },
  },
  {
    name: "-32600: a legacy request with jsonrpc 1.0",
    body: JSON.stringify({ jsonrpc: "1.0", id: 2, method: "x" }),
    want: { status: 400, code: -32600, reason: "invalid-message" },
  },
  {
    name: "-32602: a modern tools/call with a numeric name",
    body: JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { _meta: MODERN_META, name: 5 } }),
    headers: MODERN,
    want: { status: 400, code: -32602, reason: "invalid-message" },
  },
  {
    name: "-32602: many bad arguments, the answer bounded",
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "p",
      method: "prompts/get",
      params: { _meta: MODERN_META, name: "p", arguments: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}\u202e`, i])) },
    }),
    headers: MODERN,
    want: { status: 400, code: -32602, reason: "invalid-message" },
  },
  {
    name: "-32600: a batch the SDK routes to the modern lane",
    body: '[{"jsonrpc":"2.0","id":73,"method":"tools/list"},{"jsonrpc":"1.0","id":74,"method":"ping"}]',
    want: { status: 400, code: -32600, reason: "invalid-message" },
  },
  {
    name: "-32600: a legacy batch under a 2025-06-18 header",
    body: `[${toolsList}]`,
    headers: { ...JSON_TYPE, "MCP-Protocol-Version": "2025-06-18" },
    want: { status: 400, code: -32600, reason: "invalid-message" },
  },
];

interface Answer {
  status: number;
  text: string;
  reason: string | undefined;
}

const handler = { fetch: async () => new Response("{}", { status: 200, headers: JSON_TYPE }) };

async function throughFetch(c: Case): Promise<Answer> {
  const seen: RejectInfo[] = [];
  const gated = gateFetch(handler, { limits: { maxBodyBytes: c.maxBodyBytes, maxDepth: c.maxDepth }, onReject: (info) => seen.push(info) });
  const response = await gated(new Request("http://127.0.0.1/mcp", { method: "POST", headers: c.headers ?? JSON_TYPE, body: c.body }));
  return { status: response.status, text: response.status === 200 ? "" : await response.text(), reason: seen[0]?.reason };
}

async function throughNode(c: Case): Promise<Answer> {
  const seen: RejectInfo[] = [];
  const server = await listening(
    http.createServer(
      gateNode(handler, { limits: { maxBodyBytes: c.maxBodyBytes, maxDepth: c.maxDepth }, onReject: (info) => seen.push(info) }),
    ),
  );
  try {
    const response = await fetch(server.url, { method: "POST", headers: c.headers ?? JSON_TYPE, body: c.body });
    const text = await response.text();
    return { status: response.status, text: response.status === 200 ? "" : text, reason: seen[0]?.reason };
  } finally {
    await server.close();
  }
}

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), "wymcp-parity-"));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function throughCli(c: Case, i: number): Answer {
  const file = join(dir, `case-${i}.json`);
  writeFileSync(file, c.body);
  const args = ["--json"];
  if (c.maxBodyBytes !== undefined) args.push("--max-body-bytes", String(c.maxBodyBytes));
  if (c.maxDepth !== undefined) args.push("--max-depth", String(c.maxDepth));
  for (const [name, value] of Object.entries(c.headers ?? JSON_TYPE)) args.push("--header", `${name}: ${value}`);
  const run = wymcp([...args, file], { cwd: dir });
  const verdict = JSON.parse(run.stdout.split("\n")[0]!) as { outcome: string; status?: number; reason?: string; response?: unknown };
  if (verdict.outcome !== "reject") return { status: 200, text: "", reason: undefined };
  return { status: verdict.status!, text: JSON.stringify(verdict.response), reason: verdict.reason };
}

describe("wymcp check --json answers every body exactly as gateFetch and gateNode do", () => {
  CASES.forEach((c, i) => {
    test(c.name, async () => {
      const [viaFetch, viaNode] = await Promise.all([throughFetch(c), throughNode(c)]);
      const viaCli = throughCli(c, i);
      assert.equal(viaFetch.status, c.want.status, viaFetch.text);
      if (c.want.code !== undefined) assert.equal((JSON.parse(viaFetch.text) as { error: { code: number } }).error.code, c.want.code);
      assert.equal(viaFetch.reason, c.want.reason);
      // Byte for byte: the same status, the same answer, the same reason, from all three faces.
      assert.deepEqual(viaNode, viaFetch, "gateNode and gateFetch");
      assert.deepEqual(viaCli, viaFetch, "wymcp check and gateFetch");
    });
  });
});
