/**
 * The `formats` option on every face: by default a schema's `format` is an annotation, so the URIs, roots, icon
 * sources, websites and base64 that real clients and servers send verbatim (and that every official SDK accepts) pass;
 * under `formats: "strict"` (`--rule formats=enforce`) each is refused at its location, in both eras.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import { after, before, describe, test } from "node:test";
import { assertFreshDist } from "./support/built.js";
import { validateMcpRequest } from "wymcp";

type Formats = "annotation" | "strict";
const FORMATS_RULE = { annotation: "off", strict: "enforce" } as const;
import { gateFetch, type McpFetchHandler, wymcpFetch } from "wymcp/fetch";
import { gateNode, wymcpNode } from "wymcp/node";
import { validateMcpResponse } from "wymcp/outbound";
import { CLI, cleanEnv, wymcp } from "./support/cli.js";
import { INBOUND_CASES, type InboundCase, OUTBOUND_CASES, type OutboundCase } from "./support/format-cases.js";
import { listening, rawPost } from "./support/gate-fixtures.js";
import { recordingUpstream, startProxy, until, type RunningProxy, type Upstream } from "./support/proxy.js";
import { transportHeaders } from "./support/transport-headers.js";

interface ErrorAnswer {
  id: unknown;
  error: { code: number; message: string; data: { errors: Array<{ instancePath: string; messages: string[] }> } };
}

/** The HTTP status a face answers a strict refusal with: 200 for a legacy request's params (as the SDK), else 400. */
const refusedStatus = (c: InboundCase) => (c.era === "legacy" ? 200 : 400);

/** The request headers of a case, as a client of its era sends them. */
function headersOf(c: { era: string; protocolVersion: string; body?: Record<string, unknown> }): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": c.protocolVersion,
  };
  return c.era === "modern" ? { ...headers, ...transportHeaders(c.body) } : headers;
}

const post = (c: InboundCase) =>
  new Request("http://localhost/mcp", { method: "POST", headers: headersOf(c), body: JSON.stringify(c.body) });

/** The answer's locations hold the case's location, with the format's words. */
function assertRefusedAt(answer: ErrorAnswer, c: { at: string }): void {
  assert.equal(answer.error.code, -32602, answer.error.message);
  const entry = answer.error.data.errors.find((e) => e.instancePath === c.at);
  assert.ok(entry, `no entry at ${c.at}: ${JSON.stringify(answer.error.data)}`);
  assert.match(entry.messages.join("; "), /must be a valid "(uri|uri-template|byte)" string/);
}

/** A handler standing in for the SDK's: counts what reaches it and answers an empty result. */
function countingHandler(): { handler: McpFetchHandler; reached: () => number } {
  let reached = 0;
  const handler: McpFetchHandler = {
    fetch: async () => {
      reached++;
      return new Response(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }), { headers: { "content-type": "application/json" } });
    },
  };
  return { handler, reached: () => reached };
}

describe("the pure calls", () => {
  for (const c of INBOUND_CASES) {
    test(`validateMcpRequest, ${c.name}: passes by default, refused -32602 at ${c.at} under formats: "strict"`, () => {
      const options = { protocolVersion: c.protocolVersion };
      assert.equal(validateMcpRequest(c.body, c.era, options).outcome, "pass");
      assert.equal(validateMcpRequest(c.body, c.era, { ...options, rules: { formats: "off" } }).outcome, "pass");
      const strict = validateMcpRequest(c.body, c.era, { ...options, rules: { formats: "enforce" } });
      assert.equal(strict.outcome, "reject");
      if (strict.outcome !== "reject") return;
      assert.equal(strict.status, refusedStatus(c));
      assertRefusedAt(strict.response as ErrorAnswer, c);
    });
  }

  for (const c of OUTBOUND_CASES) {
    test(`validateMcpResponse, ${c.name}: passes by default, a violation at ${c.at} under formats: "strict"`, () => {
      const context = { era: c.era, method: c.method, protocolVersion: c.protocolVersion };
      assert.equal(validateMcpResponse(c.message, context).outcome, "pass");
      const strict = validateMcpResponse(c.message, { ...context, formats: "strict" });
      assert.equal(strict.outcome, "violation");
      if (strict.outcome !== "violation") return;
      assert.ok(
        strict.violations.errors.some((e) => e.instancePath === c.at),
        JSON.stringify(strict.violations.errors),
      );
    });
  }

  test("a strict call leaves nothing behind: the default call after it, in either direction, asserts no format", () => {
    const inbound = INBOUND_CASES[0]!;
    const outbound = OUTBOUND_CASES[0]!;
    const options = { protocolVersion: inbound.protocolVersion };
    for (let i = 0; i < 3; i++) {
      assert.equal(validateMcpRequest(inbound.body, inbound.era, { ...options, rules: { formats: "enforce" } }).outcome, "reject");
      assert.equal(validateMcpRequest(inbound.body, inbound.era, options).outcome, "pass");
      assert.equal(validateMcpResponse(outbound.message, { ...outbound, formats: "strict" }).outcome, "violation");
      assert.equal(validateMcpResponse(outbound.message, outbound).outcome, "pass");
      assert.equal(validateMcpRequest(inbound.body, inbound.era, options).outcome, "pass");
    }
  });

  test("a string that no reading of its format allows is still refused by default where the schema forbids its type", () => {
    const body = { jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: 42 } };
    const result = validateMcpRequest(body, "legacy", { protocolVersion: "2025-11-25" });
    assert.equal(result.outcome, "reject");
  });
});

describe("gateFetch and wymcpFetch", () => {
  for (const c of INBOUND_CASES) {
    test(`${c.name}: reaches the handler by default; refused under formats: "strict", the handler never called`, async () => {
      const byDefault = countingHandler();
      const passed = await gateFetch(byDefault.handler)(post(c));
      assert.equal(passed.status, 200);
      assert.deepEqual(await passed.json(), { jsonrpc: "2.0", id: 1, result: {} });
      assert.equal(byDefault.reached(), 1);

      const strict = countingHandler();
      const refused = await gateFetch(strict.handler, { rules: { formats: "enforce" } })(post(c));
      assert.equal(refused.status, refusedStatus(c));
      assertRefusedAt((await refused.json()) as ErrorAnswer, c);
      assert.equal(strict.reached(), 0);

      assert.equal(await wymcpFetch()(post(c)), undefined, "the guard hands it on by default");
      const guarded = await wymcpFetch({ rules: { formats: "enforce" } })(post(c));
      assert.ok(guarded, "the strict guard answers it");
      assert.equal(guarded.status, refusedStatus(c));
      assertRefusedAt((await guarded.json()) as ErrorAnswer, c);
    });
  }

  for (const c of OUTBOUND_CASES.filter((o) => o.method !== "roots/list")) {
    test(`report mode, ${c.name}: reported under formats: "strict" only`, async () => {
      for (const formats of ["annotation", "strict"] as const) {
        const seen: string[][] = [];
        const server = (async () =>
          new Response(JSON.stringify(c.message), { headers: { "content-type": "application/json" } })) as unknown as (
          request: Request,
        ) => Promise<Response>;
        const gated = gateFetch(server, {
          rules: { formats: FORMATS_RULE[formats] },
          outbound: validateMcpResponse,
          onReport: ({ errors }) => seen.push((errors ?? []).map((e) => e.instancePath)),
        });
        const answer = await gated(post(requestFor(c)));
        assert.deepEqual(await answer.json(), c.message, "the answer goes out unchanged");
        if (formats === "annotation") assert.deepEqual(seen, []);
        else assert.ok(seen.length === 1 && seen[0]!.includes(c.at), JSON.stringify(seen));
      }
    });
  }
});

/** The client's request an outbound case answers, valid under either policy. */
function requestFor(c: OutboundCase): InboundCase {
  const id = (c.message as { id: number }).id;
  const params: Record<string, unknown> =
    c.method === "initialize"
      ? { protocolVersion: c.protocolVersion, capabilities: {}, clientInfo: { name: "c", version: "1" } }
      : c.method === "resources/read"
        ? { uri: "file:///srv/a.png" }
        : {};
  if (c.era === "modern")
    params._meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
  return {
    name: c.name,
    era: c.era,
    protocolVersion: c.protocolVersion,
    body: { jsonrpc: "2.0", id, method: c.method, params },
    at: "",
  };
}

describe("gateNode and wymcpNode", () => {
  let url: string;
  let close: () => Promise<void>;
  let reached = 0;
  const reports: Record<Formats, string[][]> = { annotation: [], strict: [] };
  before(async () => {
    const handler: McpFetchHandler = {
      fetch: async () => {
        reached++;
        return new Response(JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} }), { headers: { "content-type": "application/json" } });
      },
    };
    const gates = { "/default": gateNode(handler), "/strict": gateNode(handler, { rules: { formats: "enforce" } }) };
    const guards = { "/guard-default": wymcpNode(), "/guard-strict": wymcpNode({ rules: { formats: "enforce" } }) };
    const server = http.createServer((req, res) => {
      const path = req.url ?? "";
      if (path in gates) return void gates[path as keyof typeof gates](req, res);
      guards[path as keyof typeof guards](req, res, () => {
        reached++;
        res.writeHead(200, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":1,"result":{}}');
      });
    });
    ({ url, close } = await listening(server));
  });
  after(() => close());

  for (const c of INBOUND_CASES) {
    test(`${c.name}: served by default, refused under formats: "strict"`, async () => {
      const body = JSON.stringify(c.body);
      for (const [path, strict] of [
        ["/default", false],
        ["/strict", true],
        ["/guard-default", false],
        ["/guard-strict", true],
      ] as const) {
        const before = reached;
        const answer = await rawPost(url.replace(/\/mcp$/, path), headersOf(c), body);
        if (!strict) {
          assert.equal(answer.status, 200, `${path}: ${answer.text}`);
          assert.equal(reached, before + 1, path);
          continue;
        }
        assert.equal(answer.status, refusedStatus(c), path);
        assert.equal(reached, before, `${path} handed it on`);
        assertRefusedAt(JSON.parse(answer.text) as ErrorAnswer, c);
      }
    });
  }

  test("report mode on gateNode follows the gate's formats option", async () => {
    const c = OUTBOUND_CASES[0]!;
    const server = http.createServer();
    const handler = { fetch: async () => new Response(JSON.stringify(c.message), { headers: { "content-type": "application/json" } }) };
    const gates = Object.fromEntries(
      (["annotation", "strict"] as const).map((formats) => [
        `/${formats}`,
        gateNode(handler, {
          rules: { formats: FORMATS_RULE[formats] },
          outbound: validateMcpResponse,
          onReport: ({ errors }) => reports[formats]!.push((errors ?? []).map((e) => e.instancePath)),
        }),
      ]),
    );
    server.on("request", (req, res) => gates[req.url ?? ""]!(req, res));
    const running = await listening(server);
    try {
      const request = requestFor(c);
      for (const formats of ["annotation", "strict"] as const) {
        const answer = await rawPost(running.url.replace(/\/mcp$/, `/${formats}`), headersOf(request), JSON.stringify(request.body));
        assert.deepEqual(JSON.parse(answer.text), c.message);
      }
      await until(() => reports.strict.length === 1);
      assert.deepEqual(reports.annotation, []);
      assert.ok(reports.strict[0]!.includes(c.at));
    } finally {
      await running.close();
    }
  });
});

// The command-line faces run the built bin.
before(() => assertFreshDist());

describe("wymcp check --rule formats=enforce", () => {
  const groups = new Map<string, InboundCase[]>();
  for (const c of INBOUND_CASES) groups.set(c.protocolVersion, [...(groups.get(c.protocolVersion) ?? []), c]);
  for (const [protocolVersion, cases] of groups) {
    test(`${protocolVersion}: all ${cases.length} messages pass by default and are each rejected with --rule formats=enforce`, () => {
      const input = `${cases.map((c) => JSON.stringify(c.body)).join("\n")}\n`;
      const header = ["--header", `MCP-Protocol-Version: ${protocolVersion}`, "--direction", "in", "-"];
      const byDefault = wymcp(["--json", ...header], { input });
      assert.equal(byDefault.status, 0, byDefault.stdout + byDefault.stderr);
      const strict = wymcp(["--json", "--rule", "formats=enforce", ...header], { input });
      assert.equal(strict.status, 1, strict.stderr);
      const answers = strict.stdout
        .trim()
        .split("\n")
        .filter((l) => !l.startsWith('{"summary":'))
        .map((line) => (JSON.parse(line) as { response: ErrorAnswer }).response);
      assert.equal(answers.length, cases.length);
      cases.forEach((c, i) => assertRefusedAt(answers[i]!, c));
    });
  }

  test("--direction out: a server's results with such strings pass by default and are violations with --rule formats=enforce", () => {
    for (const c of OUTBOUND_CASES) {
      const args = ["--direction", "out", "--method", c.method, "--header", `MCP-Protocol-Version: ${c.protocolVersion}`];
      args.push("--era", c.era, "-");
      const input = `${JSON.stringify(c.message)}\n`;
      assert.equal(wymcp(args, { input }).status, 0, c.name);
      const strict = wymcp(["--rule", "formats=enforce", ...args], { input });
      assert.equal(strict.status, 1, c.name);
      assert.ok(strict.stdout.includes(c.at), `${c.name}: ${strict.stdout}`);
    }
  });

  test("--rule formats takes a rule's three states; anything else is a usage error naming the flag, and the old flag is gone", () => {
    const run = wymcp(["--rule", "formats=loose", "-"], { input: "{}\n" });
    assert.equal(run.status, 2);
    assert.match(run.stderr, /--rule formats=loose: a rule's state is enforce, report or off/);
    assert.match(wymcp(["--formats", "strict", "-"], { input: "{}\n" }).stderr, /unknown flag --formats \(did you mean "--format"\?\)/);
  });
});

describe("wymcp proxy --rule formats=enforce", () => {
  let upstream: Upstream;
  let proxies: Record<Formats, RunningProxy>;
  before(async () => {
    upstream = await recordingUpstream();
    const [annotation, strict] = await Promise.all([
      startProxy(["--upstream", upstream.url.href]),
      startProxy(["--upstream", upstream.url.href, "--rule", "formats=enforce"]),
    ]);
    proxies = { annotation: annotation!, strict: strict! };
  });
  after(async () => {
    await Promise.all([proxies.annotation.stop(), proxies.strict.stop()]);
    await upstream.close();
  });

  test("each case is forwarded by default and refused with --rule formats=enforce, never reaching the upstream", async () => {
    for (const c of INBOUND_CASES) {
      const body = JSON.stringify(c.body);
      const before = upstream.received.length;
      const passed = await rawPost(proxies.annotation.url.href, headersOf(c), body);
      assert.equal(passed.status, 200, `${c.name}: ${passed.text}`);
      assert.equal(upstream.received.length, before + 1, c.name);
      const refused = await rawPost(proxies.strict.url.href, headersOf(c), body);
      assert.equal(refused.status, refusedStatus(c), c.name);
      assertRefusedAt(JSON.parse(refused.text) as ErrorAnswer, c);
      assert.equal(upstream.received.length, before + 1, `${c.name} reached the upstream`);
    }
  });
});

describe("wymcp stdio --rule formats=enforce", () => {
  /** `wymcp stdio <flags> -- node -e <an echo server>`: every line the server reads, it answers with a result. */
  function gate(flags: string[]): { child: ChildProcess; lines: () => Array<Record<string, unknown>> } {
    const echo =
      "require('readline').createInterface({input:process.stdin}).on('line',(l)=>{const m=JSON.parse(l);" +
      "if(m.id!==undefined)process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{served:true}})+'\\n')})";
    const child = spawn(process.execPath, [CLI, "stdio", ...flags, "--", process.execPath, "-e", echo], {
      env: cleanEnv(),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    return {
      child,
      lines: () =>
        stdout
          .split("\n")
          .slice(0, -1)
          .map((line) => JSON.parse(line) as Record<string, unknown>),
    };
  }

  // A stdio client sends no header: legacy requests are judged by the revision assumed without one (2025-03-26).
  const cases = INBOUND_CASES.filter(
    (c) => c.body.method === "resources/read" && (c.era === "modern" || c.protocolVersion === "2025-11-25"),
  );

  for (const formats of ["annotation", "strict"] as const) {
    test(`${formats}: ${cases.length} resources/read lines of both eras are ${formats === "strict" ? "each answered -32602 by the gate" : "each served"}`, async () => {
      const g = gate(formats === "strict" ? ["--rule", "formats=enforce"] : []);
      const ids = cases.map((c, i) => ({ ...c.body, id: `c${i}` }));
      g.child.stdin!.write(ids.map((body) => `${JSON.stringify(body)}\n`).join(""));
      await until(() => g.lines().length === cases.length);
      g.child.stdin!.end();
      await new Promise((resolve) => g.child.once("close", resolve));
      const byId = new Map(g.lines().map((line) => [line.id, line]));
      cases.forEach((c, i) => {
        const answer = byId.get(`c${i}`)!;
        if (formats === "annotation") assert.deepEqual(answer.result, { served: true }, c.name);
        else assertRefusedAt(answer as unknown as ErrorAnswer, c);
      });
    });
  }
});
