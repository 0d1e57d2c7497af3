/**
 * @module The one portable check of the runtime matrix (npm run test:runtimes): what a user of the packed
 * package does on any host. Imports only `wymcp`, `wymcp/fetch` and `wymcp/outbound`, and Web APIs, so it also runs
 * inside a Worker.
 * `official.mjs` beside it is written by scripts/test-runtimes.ts from the spec's own tools/call example.
 */
import { classifyEra, validateMcpRequest } from "wymcp";
import { wymcpFetch, wymcpOf } from "wymcp/fetch";
import { validateMcpResponse } from "wymcp/outbound";
import { callTool } from "./official.mjs";

/** The largest body the guards under test accept; small, so the oversized case stays small too. */
export const MAX_BODY_BYTES = 16 * 1024;

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "matrix", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** 20 non-string arguments under 10-character keys: the answer is long enough to be measured in bytes. */
export const LONG_ERROR_LIST = {
  jsonrpc: "2.0",
  id: "long",
  method: "prompts/get",
  params: {
    _meta: META,
    name: "p",
    arguments: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`argument${String(i).padStart(2, "0")}`, i])),
  },
};

const LEGACY_INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "matrix", version: "1.0.0" } },
};

const badCallTool = () => ({ ...callTool, params: { ...callTool.params, name: 42 } });

function result(name, ok, detail) {
  return { name, ok: Boolean(ok), detail: ok ? undefined : detail };
}

function attempt(name, run) {
  try {
    return run();
  } catch (error) {
    return result(name, false, `threw ${error?.name}: ${error?.message}`);
  }
}

/** The pure API: validation in both eras and the era classifier. */
export function coreChecks() {
  return [
    attempt("core: official tools/call passes (modern)", () => {
      const r = validateMcpRequest(callTool, "modern");
      return result("core: official tools/call passes (modern)", r.outcome === "pass", r);
    }),
    attempt("core: tools/call with a numeric name is rejected 400 at /params/name", () => {
      const r = validateMcpRequest(badCallTool(), "modern");
      const at = r.response?.error.data.errors.map((e) => e.instancePath);
      return result(
        "core: tools/call with a numeric name is rejected 400 at /params/name",
        r.status === 400 && at?.includes("/params/name"),
        r,
      );
    }),
    attempt("core: legacy initialize passes (legacy)", () => {
      const r = validateMcpRequest(LEGACY_INITIALIZE, "legacy");
      return result("core: legacy initialize passes (legacy)", r.outcome === "pass", r);
    }),
    attempt("core: long error list is rejected with 20 entries", () => {
      const r = validateMcpRequest(LONG_ERROR_LIST, "modern");
      return result(
        "core: long error list is rejected with 20 entries",
        r.status === 400 && r.response.error.data.errors.length === 20,
        r.outcome,
      );
    }),
    attempt("core: a legacy 2025-03-26 batch passes, and a bad item is located", () => {
      const good = validateMcpRequest([LEGACY_INITIALIZE, { jsonrpc: "2.0", method: "notifications/initialized" }], "legacy");
      const bad = validateMcpRequest([LEGACY_INITIALIZE, { jsonrpc: "1.0", id: 2, method: "ping" }], "legacy");
      const at = bad.response?.error.data.errors.map((e) => e.instancePath).join();
      return result("core: a legacy 2025-03-26 batch passes, and a bad item is located", good.outcome === "pass" && at === "/1/jsonrpc", [
        good.outcome,
        at,
      ]);
    }),
    attempt("outbound: a tools/call result passes, one whose content item lacks type is located", () => {
      const good = { jsonrpc: "2.0", id: 1, result: { resultType: "complete", content: [{ type: "text", text: "hi" }] } };
      const bad = { jsonrpc: "2.0", id: 1, result: { resultType: "complete", content: [{ text: "hi" }] } };
      const ok = validateMcpResponse(good, { era: "modern", method: "tools/call" });
      const broken = validateMcpResponse(bad, { era: "modern", method: "tools/call" });
      const at = broken.violations?.errors.map((e) => e.instancePath) ?? [];
      return result(
        "outbound: a tools/call result passes, one whose content item lacks type is located",
        ok.outcome === "pass" && at.includes("/result/content/0/type"),
        [ok, at],
      );
    }),
    attempt("core: classifyEra reads body _meta, initialize and headers", () => {
      const eras = [
        classifyEra({}, callTool),
        classifyEra({}, LEGACY_INITIALIZE),
        classifyEra({ "MCP-Protocol-Version": "2026-07-28" }, { jsonrpc: "2.0", id: 1, method: "x" }),
        classifyEra(new Headers({ "mcp-session-id": "s" }), { jsonrpc: "2.0", id: 1, method: "x" }),
      ].map((c) => `${c.era}/${c.signal}`);
      const want = ["modern/body-meta", "legacy/initialize", "modern/header-protocol-version", "legacy/header-session-id"];
      return result("core: classifyEra reads body _meta, initialize and headers", eras.join() === want.join(), eras);
    }),
  ];
}

/** The requests every host's guard is sent, with what must come back. */
export const SCENARIOS = [
  {
    name: "official tools/call reaches the handler, era modern",
    body: () => JSON.stringify(callTool),
    want: (s, a) => s === 200 && a.handled && a.era === "modern" && a.method === "tools/call",
  },
  {
    name: "legacy initialize reaches the handler, era legacy",
    body: () => JSON.stringify(LEGACY_INITIALIZE),
    want: (s, a) => s === 200 && a.handled && a.era === "legacy",
  },
  {
    name: "bad tools/call params get 400 / -32602",
    body: () => JSON.stringify(badCallTool()),
    want: (s, a) => s === 400 && a.error?.code === -32602,
  },
  {
    name: "a broken envelope gets 400 / -32600",
    body: () => JSON.stringify({ ...callTool, jsonrpc: "1.0" }),
    want: (s, a) => s === 400 && a.error?.code === -32600,
  },
  {
    name: "the Worker-crashing prompts/get gets 400 with 20 entries",
    body: () => JSON.stringify(LONG_ERROR_LIST),
    want: (s, a) => s === 400 && a.error?.data?.errors?.length === 20,
  },
  {
    name: "an oversized body gets 413",
    body: () => JSON.stringify({ ...callTool, params: { ...callTool.params, arguments: { pad: "x".repeat(MAX_BODY_BYTES) } } }),
    want: (s, a) => s === 413 && a.error?.code === -32600,
  },
  {
    name: "malformed JSON gets 400 / -32700",
    body: () => '{"jsonrpc":"2.0",',
    want: (s, a) => s === 400 && a.error?.code === -32700 && a.id === null,
  },
  {
    name: "text/plain gets 415",
    body: () => JSON.stringify(callTool),
    contentType: "text/plain",
    want: (s, a) => s === 415 && a.error?.code === -32600,
  },
  { name: "GET goes on untouched", method: "GET", want: (s, a) => s === 200 && a.handled && a.era === undefined },
];

/**
 * The request headers a 2026-07-28 client sends with `body`: the media type, and for a modern request its
 * `MCP-Protocol-Version`, `Mcp-Method` and, for a tool call, a prompt or a read, `Mcp-Name` (these bodies' values are
 * plain ASCII). The guards hold a modern request to them.
 */
export function requestHeaders(contentType, body) {
  const headers = { "content-type": contentType };
  let message;
  try {
    message = body === undefined ? undefined : JSON.parse(body);
  } catch {
    return headers;
  }
  const version = message?.params?._meta?.["io.modelcontextprotocol/protocolVersion"];
  if (typeof version !== "string" || typeof message.method !== "string" || message.id === undefined) return headers;
  headers["mcp-protocol-version"] = version;
  headers["mcp-method"] = message.method;
  const field =
    message.method === "tools/call" || message.method === "prompts/get" ? "name" : message.method === "resources/read" ? "uri" : undefined;
  if (field && typeof message.params[field] === "string") headers["mcp-name"] = message.params[field];
  return headers;
}

/** Sends every scenario through `send(method, contentType, body) → { status, text }` and judges the answers. */
export async function scenarioChecks(label, send) {
  const results = [];
  for (const s of SCENARIOS) {
    const name = `${label}: ${s.name}`;
    try {
      const method = s.method ?? "POST";
      const { status, text } = await send(method, s.contentType ?? "application/json", method === "POST" ? s.body() : undefined);
      let answer = {};
      try {
        answer = JSON.parse(text);
      } catch {
        // Judged below: a non-JSON answer fails every scenario.
      }
      results.push(result(name, s.want(status, answer), `${status} ${text.slice(0, 300)}`));
    } catch (error) {
      results.push(result(name, false, `threw ${error?.name}: ${error?.message}`));
    }
  }
  return results;
}

/** The Fetch guard in front of a handler that reports what it was handed, reading the original body. */
export function fetchApp() {
  const guard = wymcpFetch({ limits: { maxBodyBytes: MAX_BODY_BYTES }, era: (request, body) => classifyEra(request.headers, body).era });
  return async function app(request) {
    const refused = await guard(request);
    if (refused) return refused;
    const info = wymcpOf(request);
    // The guard read a clone: the handler can still read the request's own body.
    const method = request.method === "POST" ? (await request.json()).method : undefined;
    return Response.json({ handled: true, era: info?.era, outcome: info?.result.outcome, method });
  };
}

/** `send` over a Fetch handler called in-process. */
export function inProcess(app, url = "http://localhost/mcp") {
  return async (method, contentType, body) => {
    const response = await app(new Request(url, { method, headers: requestHeaders(contentType, body), body }));
    return { status: response.status, text: await response.text() };
  };
}

/** `send` over HTTP with the host's `fetch`. */
export function overHttp(url) {
  return async (method, contentType, body) => {
    const response = await fetch(url, { method, headers: requestHeaders(contentType, body), body });
    return { status: response.status, text: await response.text() };
  };
}
