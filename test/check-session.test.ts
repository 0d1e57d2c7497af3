/**
 * `wymcp check` reads a capture as its session ran: a message with no MCP-Protocol-Version header is judged by the
 * revision its session's `initialize` negotiated (per Mcp-Session-Id in a HAR file), a client's answer to a server's
 * request reads as one, and `--quiet` prints the rejections and the summary alone.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, test } from "node:test";
import { validateMcpRequest } from "wymcp";
import { MAX_SESSIONS, Negotiations } from "../src/check/negotiation.js";
import { assertFreshDist } from "./support/built.js";
import { FIXTURES, lineFor, wymcp } from "./support/cli.js";

type JsonVerdict = {
  line: number;
  part?: string;
  direction: "in" | "out";
  era: string | null;
  eraSignal: string | null;
  outcome: string;
  kind: string | null;
  definition: string | null;
  method?: string;
  revision?: string;
  negotiated?: { revision: string; by: string; line: number; part?: string };
  answers?: { line: number; part?: string; from: string };
  response?: unknown;
};

const verdicts = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .filter((l) => !l.startsWith('{"summary":'))
    .map((l) => JSON.parse(l) as JsonVerdict);

const lines = (...messages: unknown[]) => `${messages.map((m) => JSON.stringify(m)).join("\n")}\n`;
const initialize = (id: number, protocolVersion: string) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "c", version: "1" } },
});
const initialized = (id: number, protocolVersion: string) => ({
  jsonrpc: "2.0",
  id,
  result: { protocolVersion, capabilities: {}, serverInfo: { name: "s", version: "1" } },
});
/** A form elicitation: a server request from 2025-06-18 on; `mode` is a field of 2025-11-25. */
const elicit = (id: number | string) => ({
  jsonrpc: "2.0",
  id,
  method: "elicitation/create",
  params: { message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
});
const listTools = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list" });

before(() => assertFreshDist());

describe("a capture without headers is judged by the revision its session negotiated", () => {
  const FIXTURE = "legacy-elicitation.jsonl";

  test("the recorded 2025-11-25 stdio session: every legacy message judged by 2025-11-25, an elicitation as ElicitRequest", () => {
    const run = wymcp(["--json", FIXTURE]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const all = verdicts(run.stdout);
    assert.equal(all.length, 11);
    for (const v of all) assert.equal(v.revision, "2025-11-25", `line ${v.line}`);
    const byLine = new Map(all.map((v) => [v.line, v]));
    // Line 7, the server's elicitation/create: a server request of 2025-11-25, judged against its definition.
    assert.deepEqual([byLine.get(7)!.direction, byLine.get(7)!.definition, byLine.get(7)!.eraSignal], ["out", "ElicitRequest", "session"]);
    assert.deepEqual(byLine.get(7)!.negotiated, { revision: "2025-11-25", by: "result", line: 2 });
    assert.equal(byLine.get(9)!.definition, "CreateMessageRequest");
    // The client's lines after the handshake, as the gates judge them with the header the client would have sent.
    assert.deepEqual(byLine.get(6)!.negotiated, { revision: "2025-11-25", by: "result", line: 2 });
    assert.equal(byLine.get(6)!.definition, "CallToolRequest");
    // A response takes its request's revision, and says nothing of the session.
    assert.equal(byLine.get(8)!.negotiated, undefined);
    assert.equal(byLine.get(8)!.definition, "ElicitResult");

    const human = wymcp([FIXTURE]).stdout;
    assert.match(
      lineFor(human, `${FIXTURE}:7`),
      / pass +legacy \(its session\) +out: elicitation\/create request \(ElicitRequest, revision 2025-11-25, negotiated on line 2\)$/,
    );
    assert.ok(!human.includes("not a server request"));
  });

  test("each client message is judged exactly as the gates judge it under the MCP-Protocol-Version header the client sends", () => {
    const text = readFileSync(join(FIXTURES, FIXTURE), "utf8");
    const headerless = verdicts(wymcp(["--json", FIXTURE]).stdout).filter((v) => v.direction === "in");
    const withHeader = verdicts(wymcp(["--json", "--header", "MCP-Protocol-Version: 2025-11-25", FIXTURE]).stdout);
    assert.ok(headerless.length >= 4);
    for (const v of headerless) {
      const twin = withHeader.find((w) => w.line === v.line)!;
      const { eraSignal, negotiated, ...judged } = v;
      const { eraSignal: _signal, ...judgedWithHeader } = twin;
      assert.deepEqual(judged, judgedWithHeader, `line ${v.line}`);
      const body: unknown = JSON.parse(text.split("\n")[v.line - 1]!);
      const core = validateMcpRequest(body, "legacy", { protocolVersion: v.line === 1 ? undefined : negotiated?.revision });
      assert.equal(core.outcome, "pass", `line ${v.line}`);
      if (core.outcome !== "pass") continue;
      assert.deepEqual([v.outcome, v.definition, v.revision], [core.outcome, core.definition, core.revision], `line ${v.line}`);
    }
  });

  test("the server's answer names the revision: an initialize that asks 2025-11-25 answered 2025-06-18 judges by 2025-06-18", () => {
    const run = wymcp(["--json", "-"], {
      input: lines(initialize(1, "2025-11-25"), initialized(1, "2025-06-18"), listTools(2), elicit(9)),
    });
    const [ask, answer, list, elicitation] = verdicts(run.stdout);
    assert.equal(ask!.revision, "2025-11-25", "the initialize by what it asks");
    assert.equal(answer!.revision, "2025-11-25", "its answer by its request's");
    assert.deepEqual([list!.revision, list!.negotiated], ["2025-06-18", { revision: "2025-06-18", by: "result", line: 2 }]);
    assert.deepEqual([elicitation!.definition, elicitation!.revision], ["ElicitRequest", "2025-06-18"]);
  });

  test("without the answer in the capture, the revision the initialize asked for, and the line says so", () => {
    const input = lines(initialize(1, "2025-06-18"), listTools(2), elicit("s1"));
    const [, list, elicitation] = verdicts(wymcp(["--json", "-"], { input }).stdout);
    assert.deepEqual(list!.negotiated, { revision: "2025-06-18", by: "request", line: 1 });
    assert.deepEqual([elicitation!.definition, elicitation!.revision], ["ElicitRequest", "2025-06-18"]);
    assert.match(
      lineFor(wymcp(["-"], { input }).stdout, "<stdin>:2"),
      / legacy \(its session\) +tools\/list request \(ListToolsRequest, revision 2025-06-18, asked on line 1\)$/,
    );
  });

  test("an answer that names no legacy revision, or an error, leaves the rule without a header: 2025-03-26", () => {
    for (const answer of [
      initialized(1, "2099-01-01"),
      { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Unsupported protocol version" } },
    ]) {
      const [, , list, elicitation] = verdicts(
        wymcp(["--json", "-"], { input: lines(initialize(1, "2025-11-25"), answer, listTools(2), elicit(3)) }).stdout,
      );
      assert.deepEqual([list!.revision, list!.negotiated, list!.eraSignal], ["2025-03-26", undefined, "default"]);
      assert.deepEqual([elicitation!.definition, elicitation!.revision], ["JSONRPCRequest", "2025-03-26"]);
    }
  });

  test("a new initialize opens a new session, judged by its own negotiation; a batch is refused once 2025-06-18 is negotiated", () => {
    const batch = [listTools(5), listTools(6)];
    const input = lines(
      initialize(1, "2025-03-26"),
      initialized(1, "2025-03-26"),
      batch,
      initialize(1, "2025-11-25"),
      initialized(1, "2025-11-25"),
      batch,
    );
    const run = wymcp(["--json", "-"], { input });
    const [, , old, second, , refused] = verdicts(run.stdout);
    assert.deepEqual([old!.outcome, old!.kind], ["pass", "batch"], "2025-03-26 has batches");
    assert.equal(second!.revision, "2025-11-25", "the second initialize by what it asks, not by the first session's revision");
    // The gates' own answer to a batch under a revision without batches (wymcp stdio judges so after the same handshake).
    assert.deepEqual([refused!.outcome, refused!.kind], ["reject", "batch"]);
    const gate = validateMcpRequest(batch, "legacy", { protocolVersion: "2025-11-25" });
    assert.equal(gate.outcome, "reject");
    assert.deepEqual(refused!.response, gate.outcome === "reject" ? gate.response : undefined);
    assert.equal(run.status, 1);
  });

  test("a modern message in the same capture is judged by its _meta, as without a session", () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const modern = { jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: meta } };
    const [, , v] = verdicts(
      wymcp(["--json", "-"], { input: lines(initialize(1, "2025-11-25"), initialized(1, "2025-11-25"), modern) }).stdout,
    );
    assert.deepEqual([v!.era, v!.eraSignal, v!.definition, v!.negotiated], ["modern", "body-meta", "ListToolsRequest", undefined]);
  });

  test("a HAR file: per Mcp-Session-Id (the initialize's answer assigns it); a request's own header wins", () => {
    const endpoint = "http://h/mcp";
    const header = (name: string, value: string) => ({ name, value });
    const post = (body: unknown, headers: Array<{ name: string; value: string }>, answer?: unknown, answerHeaders: unknown[] = []) => ({
      request: {
        method: "POST",
        url: endpoint,
        headers: [header("Content-Type", "application/json"), ...headers],
        postData: { text: JSON.stringify(body) },
      },
      response:
        answer === undefined ? {} : { headers: answerHeaders, content: { mimeType: "application/json", text: JSON.stringify(answer) } },
    });
    const entries = [
      post(initialize(1, "2025-06-18"), [], initialized(1, "2025-06-18"), [header("Mcp-Session-Id", "A")]),
      post(initialize(1, "2025-11-25"), [], initialized(1, "2025-11-25"), [header("Mcp-Session-Id", "B")]),
      post(listTools(2), [header("Mcp-Session-Id", "A")]),
      post(listTools(2), [header("Mcp-Session-Id", "B")]),
      post(listTools(3), [header("Mcp-Session-Id", "B"), header("MCP-Protocol-Version", "2025-03-26")]),
      post(listTools(4), []),
    ];
    const run = wymcp(["--json", "--format", "har", "-"], { input: JSON.stringify({ log: { entries } }) });
    const requests = verdicts(run.stdout).filter((v) => v.part === "request" && v.line >= 3);
    assert.deepEqual(
      requests.map((v) => [v.line, v.revision, v.negotiated?.line ?? null]),
      [
        [3, "2025-06-18", 1],
        [4, "2025-11-25", 2],
        [5, "2025-03-26", null],
        [6, "2025-03-26", null],
      ],
    );
    assert.deepEqual(requests[0]!.negotiated, { revision: "2025-06-18", by: "result", line: 1, part: "response" });
  });

  test("sessions remembered are bounded: the oldest is forgotten first", () => {
    const sessions = new Negotiations();
    for (let i = 0; i <= MAX_SESSIONS; i++) sessions.asked(String(i), initialize(1, "2025-06-18"), i);
    assert.equal(sessions.of("0"), undefined);
    assert.deepEqual(sessions.of(String(MAX_SESSIONS)), { revision: "2025-06-18", by: "request", line: MAX_SESSIONS });
    sessions.answered("1", initialized(1, "2025-11-25"), 7, "response");
    assert.deepEqual(sessions.of("1"), { revision: "2025-11-25", by: "result", line: 7, part: "response" });
  });
});

describe("a client's answer to a server's request reads as one", () => {
  test("the recorded session: the answers to elicitation/create and sampling/createMessage, the server's own result as out:", () => {
    const file = "legacy-elicitation.jsonl";
    const run = wymcp([file]);
    assert.match(
      lineFor(run.stdout, `${file}:8`),
      / pass +legacy \(its request\) +client answer to elicitation\/create: result \(ElicitResult, revision 2025-11-25\), answering line 7$/,
    );
    assert.match(
      lineFor(run.stdout, `${file}:10`),
      / client answer to sampling\/createMessage: result \(CreateMessageResult, revision 2025-11-25\), answering line 9$/,
    );
    assert.match(lineFor(run.stdout, `${file}:11`), / out: tools\/call result \(CallToolResult, revision 2025-11-25\), answering line 6$/);
    const json = verdicts(wymcp(["--json", file]).stdout);
    assert.deepEqual(json.find((v) => v.line === 8)!.answers, { line: 7, from: "server" });
    assert.deepEqual(json.find((v) => v.line === 11)!.answers, { line: 6, from: "client" });
  });

  test("an error answer to a server's ping and to roots/list; a client's answer seen inbound (--direction in)", () => {
    const input = lines({ jsonrpc: "2.0", id: "p", method: "ping" }, { jsonrpc: "2.0", id: "r", method: "roots/list" });
    // Who sent the ping: a HAR file says; in a JSONL log, the request a response answers does.
    const answers = lines(
      { jsonrpc: "2.0", id: "p", error: { code: -32603, message: "busy" } },
      { jsonrpc: "2.0", id: "r", result: { roots: [] } },
    );
    const run = wymcp(["--direction", "out", "-"], { input: input + answers });
    assert.match(
      lineFor(run.stdout, "<stdin>:3"),
      / client answer to ping: error response \(JSONRPCErrorResponse, revision 2025-03-26\), answering line 1$/,
    );
    assert.match(
      lineFor(run.stdout, "<stdin>:4"),
      / client answer to roots\/list: result \(ListRootsResult, revision 2025-03-26\), answering line 2$/,
    );
    const inbound = wymcp(["--direction", "in", "legacy-elicitation.jsonl"]);
    assert.match(
      lineFor(inbound.stdout, "legacy-elicitation.jsonl:8"),
      / bypass +legacy \(its request\) +client answer to elicitation\/create, not validated in the legacy era \(handed to its session\), answering line 7$/,
    );
  });
});

describe("--quiet", () => {
  test("prints the rejected messages, what each rule found and the summary, no table per method", () => {
    const run = wymcp(["--quiet", "mixed.jsonl"]);
    assert.equal(run.status, 1);
    assert.ok(!run.stdout.includes("by method"), run.stdout);
    assert.ok(!/^vendor\/search +\d/m.test(run.stdout), "no row of the table");
    const printed = run.stdout.split("\n").filter((l) => l !== "" && !l.startsWith("  "));
    const byRule = printed.indexOf("by rule  state    refused  reported");
    assert.ok(byRule > 0, run.stdout);
    assert.ok(
      printed.slice(0, byRule).every((l) => / reject /.test(l)),
      run.stdout,
    );
    assert.deepEqual(printed.slice(byRule + 1, -1), [
      "limits   enforce        2         0",
      "framing  enforce        1         0",
      "params   enforce        2         0",
    ]);
    assert.match(printed.at(-1)!, /^11 messages: 5 pass, 5 rejected, 1 bypassed$/);
    assert.match(wymcp(["mixed.jsonl"]).stdout, /^by method +pass +rejected +bypassed$/m, "the table without --quiet");
  });
});
