/**
 * `wymcp proxy --report` in front of a server that checks nothing: the bad messages of the conformance suite's header
 * scenarios (`http-header-validation`: Mcp-Method and Mcp-Name against the body) and argument scenarios
 * (`http-custom-header-server-validation`: an `Mcp-Param-*` header against the tool's argument), rewritten here as
 * data, each reach the server as the client sent them and are reported once, by rule, as one JSON log line; the valid
 * ones of the same scenarios reach it and are reported by no rule.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { assertFreshDist } from "./support/built.js";
import { MODERN_META } from "./support/messages.js";
import { echoResult, type RunningProxy, recordingUpstream, startProxy, type Upstream, until } from "./support/proxy.js";

const MODERN = "2026-07-28";

/** The server's tools: one with no arguments required (the header scenarios' first tool), one with an argument sent as a header. */
const TOOLS = {
  tools: [
    { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
    {
      name: "greet",
      inputSchema: { type: "object", properties: { who: { type: "string", "x-mcp-header": "Who" } }, required: ["who"] },
    },
  ],
};

/** One message of a scenario: its headers beside the protocol version's, its body, and the rule it breaks (none: valid). */
interface Sent {
  scenario: string;
  headers: Record<string, string>;
  method: string;
  params?: Record<string, unknown>;
  rule?: "headers" | "paramHeaders";
}

const call = (name: string, args: Record<string, unknown>) => ({ name, arguments: args });
const HELLO_BASE64 = Buffer.from("Hello").toString("base64");

const SENT: Sent[] = [
  // http-header-validation
  {
    scenario: "Mcp-Method disagrees with the body's method",
    method: "tools/list",
    headers: { "Mcp-Method": "prompts/list" },
    rule: "headers",
  },
  { scenario: "Mcp-Method missing", method: "tools/list", headers: {}, rule: "headers" },
  {
    scenario: "Mcp-Name disagrees with params.name",
    method: "tools/call",
    params: call("echo", {}),
    headers: { "Mcp-Method": "tools/call", "Mcp-Name": "wrong_tool_name" },
    rule: "headers",
  },
  {
    scenario: "Mcp-Name missing while the body names a tool",
    method: "tools/call",
    params: call("echo", {}),
    headers: { "Mcp-Method": "tools/call" },
    rule: "headers",
  },
  { scenario: "Mcp-Method's value in another case", method: "tools/list", headers: { "Mcp-Method": "TOOLS/LIST" }, rule: "headers" },
  {
    scenario: "Mcp-Name with whitespace around it",
    method: "tools/call",
    params: call("echo", {}),
    headers: { "Mcp-Method": "tools/call", "Mcp-Name": "  echo  " },
  },
  { scenario: "the header's name in lower case", method: "tools/list", headers: { "mcp-method": "tools/list" } },
  { scenario: "the header's name in upper case", method: "tools/list", headers: { "MCP-METHOD": "tools/list" } },
  // http-custom-header-server-validation
  {
    scenario: "a Base64 value that decodes to the argument",
    method: "tools/call",
    params: call("greet", { who: "Hello" }),
    headers: { "Mcp-Method": "tools/call", "Mcp-Name": "greet", "Mcp-Param-Who": `=?base64?${HELLO_BASE64}?=` },
  },
  {
    scenario: "a Base64 value with its padding missing",
    method: "tools/call",
    params: call("greet", { who: "Hello" }),
    headers: { "Mcp-Method": "tools/call", "Mcp-Name": "greet", "Mcp-Param-Who": "=?base64?SGVsbG8?=" },
    rule: "paramHeaders",
  },
  {
    scenario: "a Base64 value with characters outside its alphabet",
    method: "tools/call",
    params: call("greet", { who: "Hello" }),
    headers: { "Mcp-Method": "tools/call", "Mcp-Name": "greet", "Mcp-Param-Who": "=?base64?SGVs!!!bG8=?=" },
    rule: "paramHeaders",
  },
  {
    scenario: "a value without the Base64 prefix, read as itself",
    method: "tools/call",
    params: call("greet", { who: HELLO_BASE64 }),
    headers: { "Mcp-Method": "tools/call", "Mcp-Name": "greet", "Mcp-Param-Who": HELLO_BASE64 },
  },
  {
    scenario: "a value without the Base64 suffix, read as itself",
    method: "tools/call",
    params: call("greet", { who: `=?base64?${HELLO_BASE64}` }),
    headers: { "Mcp-Method": "tools/call", "Mcp-Name": "greet", "Mcp-Param-Who": `=?base64?${HELLO_BASE64}` },
  },
  {
    scenario: "the argument's header left out",
    method: "tools/call",
    params: call("greet", { who: "test-value" }),
    headers: { "Mcp-Method": "tools/call", "Mcp-Name": "greet" },
    rule: "paramHeaders",
  },
];

describe("wymcp proxy --report in front of a server that checks nothing: the conformance suite's header and argument scenarios", () => {
  const dir = mkdtempSync(join(tmpdir(), "wymcp-report-"));
  let upstream: Upstream;
  let proxy: RunningProxy;
  before(async () => {
    assertFreshDist();
    const tools = join(dir, "tools.json");
    writeFileSync(tools, JSON.stringify(TOOLS));
    upstream = await recordingUpstream();
    upstream.handle(echoResult);
    proxy = await startProxy(["--upstream", upstream.url.href, "--report", "--log", "json", "--tools", tools, "--no-learn-tools"]);
  });
  after(async () => {
    await proxy.stop();
    await upstream.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("every message reaches the server as sent; each bad one is one JSON log line naming its rule, the valid ones none", async () => {
    const bodies = SENT.map((sent, i) =>
      JSON.stringify({ jsonrpc: "2.0", id: 100 + i, method: sent.method, params: { ...sent.params, _meta: MODERN_META } }),
    );
    for (const [i, sent] of SENT.entries()) {
      const answer = await fetch(proxy.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": MODERN,
          ...sent.headers,
        },
        body: bodies[i],
      });
      assert.equal(answer.status, 200, sent.scenario);
      assert.deepEqual(await answer.json(), { jsonrpc: "2.0", id: 100 + i, result: { ok: true } }, `${sent.scenario}: the server's answer`);
    }
    // The server saw each message, byte for byte, in order.
    assert.deepEqual(
      upstream.received.map((r) => r.body.toString("utf8")),
      bodies,
    );
    const expected = SENT.flatMap((sent, i) => (sent.rule ? [[100 + i, sent.rule]] : []));
    const reportsOf = () =>
      proxy
        .stderr()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { event?: string; rule?: string; id?: unknown; direction?: string })
        .filter((line) => line.event === "report");
    await until(() => reportsOf().length >= expected.length);
    const reports = reportsOf();
    assert.deepEqual(
      reports.map((r) => [r.id, r.rule]).sort((a, b) => Number(a[0]) - Number(b[0])),
      expected,
      proxy.stderr(),
    );
    assert.ok(reports.every((r) => r.direction === "in"));
    // Nothing refused: no refusal line among them.
    assert.doesNotMatch(proxy.stderr(), /"event":"(refused|tool-call-refused)"/);
  });
});
