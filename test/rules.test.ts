/**
 * The switchboard on every library face: each rule in each of its three states (`enforce` refuses and tells
 * `onReject`; `report` hands the message on and tells `onReport` once, by rule; `off` hands it on and tells no one),
 * `mode: "report"` (nothing refused, each bad message reported once by its rule), a rule enforced while the others
 * report, and the bodies no rule can judge handed on as the client sent them.
 */
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import "./support/built.js";
import { type RejectInfo, type Report, RULES, type RuleName, type RuleState } from "wymcp";
import { gateFetch, type McpFetchHandler, wymcpFetch, wymcpOf } from "wymcp/fetch";
import { gateNode, serveFetch, wymcpNode } from "wymcp/node";
import { validateMcpResponse } from "wymcp/outbound";
import { lockTools } from "../src/lock/tool-lock.js";
import { MODERN_META } from "./support/messages.js";
import { transportHeaders } from "./support/transport-headers.js";

const MODERN = "2026-07-28";
const JSON_TYPE = "application/json";

/** What the server behind got: the parsed body wymcp handed on, or the client's own bytes. */
interface Served {
  parsed: unknown;
  raw: string | undefined;
}

/** A stand-in for the SDK's handler: records what it is handed and answers; `bad` answers a result the schema refuses. */
function recordingHandler(served: Served[], bad = false): McpFetchHandler {
  return {
    async fetch(request, options) {
      const raw = options?.parsedBody === undefined ? await request.text() : undefined;
      served.push({ parsed: options?.parsedBody, raw });
      const result = bad ? { content: "not an array" } : { content: [{ type: "text", text: "ok" }] };
      return Response.json({ jsonrpc: "2.0", id: 1, result });
    },
  };
}

const modernCall = (method: string, params: Record<string, unknown>, meta: Record<string, unknown> = MODERN_META) => ({
  jsonrpc: "2.0",
  id: 1,
  method,
  params: { ...params, _meta: meta },
});

/** A tool whose one argument is sent as a header too, and a tool whose arguments every check refuses. */
const WEATHER = {
  name: "weather",
  inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } }, required: ["region"] },
};
const refusing = { tools: { add: { input: () => ({ valid: false, errorMessage: "a must be a number" }) } } };

/** One message that breaks one rule alone, the options that rule needs, and how it is sent. */
interface Case {
  rule: RuleName;
  body: string;
  headers: Record<string, string>;
  options: Record<string, unknown>;
  /** The status enforcing answers with. */
  status: number;
  /** The server answers a result the outbound check refuses. */
  badAnswer?: boolean;
}

function headersFor(body: unknown, protocolVersion?: string): Record<string, string> {
  const headers: Record<string, string> = { "content-type": JSON_TYPE, accept: "application/json, text/event-stream" };
  if (protocolVersion) headers["mcp-protocol-version"] = protocolVersion;
  return { ...headers, ...(protocolVersion === MODERN ? transportHeaders(body) : {}) };
}

const legacyBadParams = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 5 } };
const legacyBadFraming = { jsonrpc: "1.0", id: 1, method: "tools/list" };
const listTools = modernCall("tools/list", {});
const newVersion = modernCall("tools/list", {}, { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" });
const readSpaced = modernCall("resources/read", { uri: "file:///srv/My Notes.txt" });
const weather = modernCall("tools/call", { name: "weather", arguments: { region: "Paris" } });
const add = modernCall("tools/call", { name: "add", arguments: { a: "x" } });
const locked = modernCall("tools/call", { name: "never-approved", arguments: {} });

const CASES: Case[] = [
  {
    rule: "origin",
    body: JSON.stringify(listTools),
    headers: { ...headersFor(listTools, MODERN), origin: "https://evil.example" },
    options: { allow: { hosts: ["localhost"] } },
    status: 403,
  },
  {
    rule: "limits",
    body: JSON.stringify(listTools),
    headers: { ...headersFor(listTools, MODERN), "content-type": "text/plain" },
    options: {},
    status: 415,
  },
  {
    rule: "framing",
    body: JSON.stringify(legacyBadFraming),
    headers: headersFor(legacyBadFraming, "2025-06-18"),
    options: {},
    status: 400,
  },
  { rule: "params", body: JSON.stringify(legacyBadParams), headers: headersFor(legacyBadParams, "2025-06-18"), options: {}, status: 200 },
  { rule: "formats", body: JSON.stringify(readSpaced), headers: headersFor(readSpaced, MODERN), options: {}, status: 400 },
  {
    rule: "headers",
    body: JSON.stringify(listTools),
    headers: { ...headersFor(listTools, MODERN), "mcp-method": "tools/call" },
    options: {},
    status: 400,
  },
  { rule: "versions", body: JSON.stringify(newVersion), headers: headersFor(newVersion, MODERN), options: {}, status: 400 },
  {
    rule: "lock",
    body: JSON.stringify(locked),
    headers: headersFor(locked, MODERN),
    options: { tools: { lock: lockTools([WEATHER]), learn: false, compile: () => ({ ok: false, reason: "none" }) } },
    status: 200,
  },
  {
    rule: "paramHeaders",
    body: JSON.stringify(weather),
    headers: { ...headersFor(weather, MODERN), "mcp-param-region": "Lyon" },
    options: { tools: { given: { tools: [WEATHER] }, learn: false, compile: () => ({ ok: false, reason: "none" }) } },
    status: 400,
  },
  {
    rule: "toolArguments",
    body: JSON.stringify(add),
    headers: headersFor(add, MODERN),
    options: { tools: { given: refusing, learn: false } },
    status: 200,
  },
  {
    rule: "outbound",
    body: JSON.stringify(listTools),
    headers: headersFor(listTools, MODERN),
    options: { outbound: validateMcpResponse },
    status: 200,
    badAnswer: true,
  },
];

/** One face, started with the options given: `send` posts the bytes and says what came back and what the server got. */
interface Running {
  send(body: string, headers: Record<string, string>): Promise<{ status: number; text: string }>;
  close(): Promise<void>;
}

type FaceName = "gateNode" | "wymcpNode" | "gateFetch" | "gateFetch (plain)" | "wymcpFetch";
const FACES: FaceName[] = ["gateNode", "wymcpNode", "gateFetch", "gateFetch (plain)", "wymcpFetch"];

async function start(face: FaceName, options: Record<string, unknown>, handler: McpFetchHandler): Promise<Running> {
  if (face === "gateFetch" || face === "gateFetch (plain)" || face === "wymcpFetch") {
    const plain = (request: Request) => handler.fetch(request);
    let serve: (request: Request) => Promise<Response>;
    if (face === "gateFetch") serve = gateFetch(handler, options);
    else if (face === "gateFetch (plain)") serve = gateFetch(plain, options);
    else {
      const guard = wymcpFetch(options);
      serve = async (request) =>
        (await guard(request)) ?? guard.report(request, await handler.fetch(request, { parsedBody: wymcpOf(request)?.body }));
    }
    return {
      async send(body, headers) {
        const response = await serve(new Request("http://localhost/mcp", { method: "POST", headers, body }));
        return { status: response.status, text: await response.text() };
      },
      close: async () => undefined,
    };
  }
  const listener =
    face === "gateNode"
      ? gateNode(handler, options)
      : (() => {
          const guard = wymcpNode(options);
          return (req: http.IncomingMessage, res: http.ServerResponse) => void guard(req, res, () => void serveFetch(handler, req, res));
        })();
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    async send(body, headers) {
      const response = await fetch(url, { method: "POST", headers, body });
      return { status: response.status, text: await response.text() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What one message did on one face under one set of options. */
async function exchange(face: FaceName, c: Case, extra: Record<string, unknown>) {
  const served: Served[] = [];
  const rejected: RejectInfo[] = [];
  const reports: Report[] = [];
  const running = await start(
    face,
    { ...c.options, ...extra, onReject: (info: RejectInfo) => rejected.push(info), onReport: (report: Report) => reports.push(report) },
    recordingHandler(served, c.badAnswer),
  );
  try {
    const answer = await running.send(c.body, c.headers);
    return { answer, served, rejected, reports };
  } finally {
    await running.close();
  }
}

/** The rules' options for one state of one rule, merged with what the case needs (rules a case sets are kept). */
function withState(c: Case, state: RuleState): Record<string, unknown> {
  return { rules: { ...(c.options.rules as object | undefined), [c.rule]: state } };
}

describe("each rule in each state, on each library face", () => {
  test("the table names every rule once", () => {
    assert.deepEqual(
      CASES.map((c) => c.rule),
      [...RULES],
    );
  });

  for (const face of FACES)
    for (const c of CASES)
      for (const state of ["enforce", "report", "off"] as const) {
        test(`${face}, ${c.rule}: ${state}`, async () => {
          const { answer, served, rejected, reports } = await exchange(face, c, withState(c, state));
          const own = reports.filter((r) => r.rule === c.rule);
          const others = reports.filter((r) => r.rule !== c.rule);
          assert.deepEqual(others, [], "no other rule reports this message");
          if (c.rule === "outbound") {
            // A server's answer is already on its way: enforcing it is reporting it.
            assert.equal(served.length, 1);
            assert.equal(rejected.length, 0);
            assert.equal(own.length, state === "off" ? 0 : 1, JSON.stringify(reports));
            if (own[0]) assert.equal(own[0].direction, "out");
            return;
          }
          if (state === "enforce") {
            assert.equal(answer.status, c.status, answer.text);
            assert.equal(served.length, 0, "the server never sees what is refused");
            assert.deepEqual(
              rejected.map((r) => r.rule),
              [c.rule],
            );
            assert.deepEqual(own, []);
            return;
          }
          assert.equal(served.length, 1, `handed on in ${state}: ${answer.status} ${answer.text}`);
          assert.deepEqual(rejected, []);
          assert.equal(own.length, state === "report" ? 1 : 0, JSON.stringify(reports));
          if (own[0]) {
            assert.equal(own[0].direction, "in");
            assert.equal(typeof own[0].message, "string");
            assert.doesNotMatch(JSON.stringify(own[0]), /Paris|Lyon|My Notes/, "nothing of the body's values");
          }
        });
      }
});

describe('mode: "report" on each library face', () => {
  for (const face of FACES) {
    test(`${face}: every bad message reaches the server and is reported once, by its rule`, async () => {
      for (const c of CASES) {
        // The mode turns each rule enforced by default to report; formats, off by default, is named in report.
        const on = c.rule === "formats" ? { rules: { formats: "report" } } : c.rule === "versions" ? { allow: { versions: [MODERN] } } : {};
        const { served, rejected, reports } = await exchange(face, c, { mode: "report", ...on });
        assert.equal(served.length, 1, `${c.rule}: handed on`);
        assert.deepEqual(rejected, [], c.rule);
        assert.deepEqual(
          reports.map((r) => r.rule),
          [c.rule],
          c.rule,
        );
      }
    });

    test(`${face}: a rule enforced while the others report`, async () => {
      const headers = CASES.find((c) => c.rule === "headers")!;
      const params = CASES.find((c) => c.rule === "params")!;
      const refused = await exchange(face, headers, { mode: "report", rules: { headers: "enforce" } });
      assert.deepEqual([refused.answer.status, refused.served.length, refused.rejected.map((r) => r.rule)], [400, 0, ["headers"]]);
      const reported = await exchange(face, params, { mode: "report", rules: { headers: "enforce" } });
      assert.deepEqual([reported.served.length, reported.reports.map((r) => r.rule)], [1, ["params"]]);
    });
  }
});

describe("report mode where the message cannot be judged: the server sees what the client sent", () => {
  const tooDeep = `${"[".repeat(100)}${"]".repeat(100)}`;
  const cases: Array<[string, string, Record<string, string>, string]> = [
    ["not JSON", "{not json", { "content-type": JSON_TYPE }, "parse-error"],
    ["not UTF-8", "\u00ff", { "content-type": JSON_TYPE }, "parse-error"],
    ["the wrong media type", JSON.stringify(listTools), { "content-type": "text/plain" }, "unsupported-media-type"],
    ["nested too deeply", tooDeep, { "content-type": JSON_TYPE }, "nested-too-deeply"],
  ];
  for (const face of FACES)
    for (const [name, body, headers] of cases) {
      test(`${face}, ${name}: handed on as sent, no parsed body, reported once (rule limits)`, async () => {
        const served: Served[] = [];
        const reports: Report[] = [];
        const running = await start(face, { mode: "report", onReport: (r: Report) => reports.push(r) }, recordingHandler(served));
        try {
          const bytes = name === "not UTF-8" ? new Uint8Array([0xff, 0xfe]) : body;
          await running.send(bytes as string, headers);
        } finally {
          await running.close();
        }
        assert.equal(served.length, 1);
        assert.equal(served[0]!.parsed, undefined, "no parsed body: the server parses the bytes itself");
        if (name === "not UTF-8") assert.equal(served[0]!.raw, new TextDecoder().decode(new Uint8Array([0xff, 0xfe])));
        else assert.equal(served[0]!.raw, body);
        assert.deepEqual(
          reports.map((r) => [r.rule, r.direction]),
          [["limits", "in"]],
        );
      });
    }

  for (const face of ["gateNode", "wymcpNode", "gateFetch (plain)", "wymcpFetch"] as const) {
    test(`${face}: a body past maxBodyBytes goes on whole (wymcp held no more than the limit of it), reported once`, async () => {
      const served: Served[] = [];
      const reports: Report[] = [];
      const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(5000) } });
      const running = await start(
        face,
        { mode: "report", limits: { maxBodyBytes: 1024 }, onReport: (r: Report) => reports.push(r) },
        recordingHandler(served),
      );
      try {
        await running.send(big, { "content-type": JSON_TYPE, "mcp-protocol-version": "2025-06-18" });
      } finally {
        await running.close();
      }
      assert.equal(served.length, 1);
      assert.equal(served[0]!.raw, big);
      assert.deepEqual(
        reports.map((r) => [r.rule, r.status]),
        [["limits", 413]],
      );
    });
  }
});

describe("the old hooks' reports arrive through onReport", () => {
  let served: Served[];
  const reports: Report[] = [];
  let running: Running;
  before(async () => {
    served = [];
    running = await start(
      "gateNode",
      {
        rules: { params: "report" },
        outbound: validateMcpResponse,
        tools: { lock: lockTools([WEATHER]), learn: false },
        onReport: (r: Report) => reports.push(r),
      },
      recordingHandler(served, true),
    );
  });
  after(() => running.close());

  test("a legacy params failure, an unknown modern version and an outbound violation each reach onReport, by rule", async () => {
    await running.send(JSON.stringify(legacyBadParams), headersFor(legacyBadParams, "2025-06-18"));
    await running.send(JSON.stringify(newVersion), headersFor(newVersion, MODERN));
    assert.deepEqual(
      reports.map((r) => [r.rule, r.direction]),
      [
        ["params", "in"],
        ["outbound", "out"],
        ["versions", "in"],
        ["outbound", "out"],
      ],
    );
  });

  test("a drift from the tools lock reaches onReport, rule lock", async () => {
    reports.length = 0;
    const drifting: McpFetchHandler = {
      fetch: async () =>
        Response.json({ jsonrpc: "2.0", id: 1, result: { tools: [WEATHER, { name: "new", inputSchema: { type: "object" } }] } }),
    };
    const lockReports: Report[] = [];
    const gated = gateFetch(drifting, { tools: { lock: lockTools([WEATHER]), learn: false }, onReport: (r) => lockReports.push(r) });
    const response = await gated(
      new Request("http://localhost/mcp", { method: "POST", headers: headersFor(listTools, MODERN), body: JSON.stringify(listTools) }),
    );
    await response.text();
    assert.deepEqual(
      lockReports.map((r) => [r.rule, r.direction, r.tool, r.method]),
      [["lock", "out", "new", "tools/list"]],
    );
  });
});
