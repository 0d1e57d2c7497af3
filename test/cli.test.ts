/**
 * `wymcp check` run as the installed bin runs: `node dist/cli.js` as a child process, no tsx (npm test builds dist/ first).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { autoDirection, SERVER_ONLY_METHODS } from "../src/check/judge.js";
import { colourEnabled } from "../src/cli/check/options.js";
import { printable } from "../src/check/render.js";
import { classifyEra } from "wymcp";
import { wymcpFetch, wymcpOf } from "wymcp/fetch";
import { validateMcpResponse } from "wymcp/outbound";
import { eras } from "../generated/index.js";
import { assertFreshDist } from "./support/built.js";
import { CLI, FIXTURES, lineFor, locationsFor, wymcp } from "./support/cli.js";
import { CLI_EXAMPLES } from "../scripts/cli-examples.js";
import { assertGoldenText } from "./support/golden.js";
import { MODERN_META } from "./support/messages.js";
import { loadExamples, readSpecSchema, repoRoot, specDir, EXAMPLES_REVISION, type JsonObject } from "./support/spec.js";
import { transportHeaders } from "./support/transport-headers.js";

const EXAMPLES_DIR = join(specDir, "schema", EXAMPLES_REVISION, "examples");

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Definitions a client sends to a server, read from the schema's ClientRequest and ClientNotification. */
function clientToServerDefinitions(): Set<string> {
  const defs = readSpecSchema(EXAMPLES_REVISION).$defs as Record<string, JsonObject>;
  const names = new Set<string>();
  for (const union of ["ClientRequest", "ClientNotification"]) {
    const def = defs[union]!;
    const refs = (def.anyOf ?? def.oneOf) as JsonObject[] | undefined;
    // A union of one is written as the definition itself (ClientNotification is CancelledNotification's body).
    if (refs) for (const r of refs) names.add(String(r.$ref).replace("#/$defs/", ""));
    else if (isObject(def.properties) && isObject(def.properties.method)) {
      const method = def.properties.method.const;
      for (const [name, candidate] of Object.entries(defs)) {
        const p = candidate.properties;
        if (name !== union && isObject(p) && isObject(p.method) && p.method.const === method) names.add(name);
      }
    }
  }
  return names;
}

const jsonRpcExamples = loadExamples().filter((e) => isObject(e.instance) && e.instance.jsonrpc === "2.0");
const inbound = clientToServerDefinitions();
const inboundExamples = jsonRpcExamples.filter((e) => inbound.has(e.definition));
const outboundExamples = jsonRpcExamples.filter((e) => !inbound.has(e.definition));
const examplePath = (name: string) => join(EXAMPLES_DIR, name);
const modernDefs = readSpecSchema(EXAMPLES_REVISION).$defs as Record<string, JsonObject>;
/** The one official result that is valid only as an InputRequiredResult (README, "Where wymcp is stricter"). */
const UNCACHED_READ = "ReadResourceResultResponse/read-resource-result-response.json";

/** Runs an example of docs/cli.md with its own arguments: its exit code, an empty stderr, stdout as pinned. */
function runExample(golden: string): ReturnType<typeof wymcp> {
  const example = CLI_EXAMPLES.find((e) => e.golden === golden);
  assert.ok(example, `${golden} is not in scripts/cli-examples.ts`);
  const run = wymcp(example.args, { input: example.stdin === undefined ? undefined : readFileSync(join(FIXTURES, example.stdin)) });
  assert.equal(run.status, example.status, run.stdout + run.stderr);
  assert.equal(run.stderr, "");
  assertGoldenText(golden, run.stdout);
  return run;
}

let tmp = "";
before(() => {
  assertFreshDist();
  tmp = mkdtempSync(join(tmpdir(), "wymcp-cli-test-"));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

describe("wymcp check on the official examples", () => {
  test("the examples split into client-to-server and server-to-client messages, both non-empty", () => {
    assert.ok(inboundExamples.length >= 10, `only ${inboundExamples.length} inbound examples`);
    assert.ok(outboundExamples.length >= 10, `only ${outboundExamples.length} outbound examples`);
    assert.ok(
      inboundExamples.some((e) => e.definition === "CancelledNotification"),
      "the client's notification is inbound",
    );
  });

  test("every client-to-server example passes (exit 0), each request judged against its own definition", () => {
    const run = wymcp(inboundExamples.map((e) => examplePath(e.name)));
    assert.equal(run.status, 0, run.stdout + run.stderr);
    for (const { name, definition, instance } of inboundExamples) {
      const line = lineFor(run.stdout, `${examplePath(name)}:1`);
      assert.match(line, /\bpass\b/);
      if ((instance as JsonObject).id !== undefined)
        assert.ok(line.includes(`(${definition})`), `${name} was not judged as ${definition}: ${line}`);
    }
    assert.match(
      run.stdout,
      new RegExp(`^${inboundExamples.length} messages: ${inboundExamples.length} pass, 0 rejected, 0 bypassed$`, "m"),
    );
  });

  test("with --era modern the client's notification is bypassed, not judged, and the run still exits 0", () => {
    const run = wymcp(["--era", "modern", ...inboundExamples.map((e) => examplePath(e.name))]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const cancelled = inboundExamples.find((e) => e.definition === "CancelledNotification")!;
    assert.match(lineFor(run.stdout, `${examplePath(cancelled.name)}:1`), /\bbypass\b.*not validated in the modern era/);
  });

  test("every server-to-client example passes --direction out against its own definition, results by their --method", () => {
    const results = outboundExamples.filter((e) => isObject(e.instance) && "result" in e.instance);
    const others = outboundExamples.filter((e) => !results.includes(e));
    assert.ok(results.length >= 8 && others.length >= 8, `${results.length} results, ${others.length} others`);
    const run = wymcp(["--direction", "out", "--era", "modern", ...others.map((e) => examplePath(e.name))]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    for (const { name, definition } of others)
      assert.match(lineFor(run.stdout, `${examplePath(name)}:1`), new RegExp(`pass .*out: .*\\(${definition}\\)$`));
    for (const { name, definition } of results) {
      // Name rule, restated from the schema: XResultResponse answers XRequest, whose method is a constant.
      const stem = definition.replace(/ResultResponse$/, "");
      const method = (modernDefs[`${stem}Request`]!.properties as { method: { const: string } }).method.const;
      const one = wymcp(["--direction", "out", "--era", "modern", "--method", method, examplePath(name)]);
      const line = lineFor(one.stdout, `${examplePath(name)}:1`);
      assert.ok(line.includes(`out: ${method} result (${stem}Result)`), line);
      if (name === UNCACHED_READ) {
        // Valid against the bare schema only as an InputRequiredResult; judged by its method it lacks two members.
        assert.equal(one.status, 1);
        assert.deepEqual(locationsFor(one.stdout, `${examplePath(name)}:1`), [
          "/result/cacheScope  is required",
          "/result/ttlMs  is required",
        ]);
      } else {
        assert.equal(one.status, 0, one.stdout);
      }
    }
  });

  test("--direction in judges a server's response as the middleware does: a modern client sends none, so it is rejected", () => {
    const response = outboundExamples.find((e) => isObject(e.instance) && "result" in e.instance)!;
    const run = wymcp(["--direction", "in", "--era", "modern", "--method", "tools/call", examplePath(response.name)]);
    assert.equal(run.status, 1);
    assert.match(lineFor(run.stdout, `${examplePath(response.name)}:1`), /reject .*response to tools\/call: modern clients send none/);
  });
});

describe("wymcp check on mutated examples", () => {
  test("each client request without params._meta is rejected (exit 1) with /params/_meta located", () => {
    const requests = inboundExamples.filter((e) => (e.instance as JsonObject).id !== undefined);
    const files = requests.map(({ definition, instance }) => {
      const copy = structuredClone(instance) as { params: JsonObject };
      delete copy.params._meta;
      const file = join(tmp, `${definition}-no-meta.json`);
      writeFileSync(file, JSON.stringify(copy, null, 2));
      return file;
    });
    // Without _meta nothing marks these as modern: the era is given.
    const run = wymcp(["--era", "modern", ...files]);
    assert.equal(run.status, 1);
    for (const [i, file] of files.entries()) {
      assert.match(lineFor(run.stdout, `${file}:1`), new RegExp(`reject .*\\(${requests[i]!.definition}\\)`));
      assert.ok(locationsFor(run.stdout, `${file}:1`).includes("/params/_meta  is required"), run.stdout);
    }
    assert.match(run.stdout, new RegExp(`^${files.length} messages: 0 pass, ${files.length} rejected, 0 bypassed$`, "m"));
  });

  test("each client message with jsonrpc 1.0 is rejected in either era with /jsonrpc located", () => {
    const files = inboundExamples.map(({ definition, instance }) => {
      const file = join(tmp, `${definition}-jsonrpc-1.json`);
      writeFileSync(file, JSON.stringify({ ...(instance as JsonObject), jsonrpc: "1.0" }));
      return file;
    });
    for (const era of ["legacy", "modern"]) {
      // A modern notification is bypassed whatever its body, so only requests are expected rejected there.
      const run = wymcp(["--era", era, ...files]);
      assert.equal(run.status, 1);
      for (const [i, file] of files.entries()) {
        if (era === "modern" && (inboundExamples[i]!.instance as JsonObject).id === undefined) continue;
        assert.ok(locationsFor(run.stdout, `${file}:1`).includes('/jsonrpc  must equal "2.0"'), `${era}: ${run.stdout}`);
      }
    }
  });
});

describe("the pinned examples", () => {
  test("every golden output under test/golden/cli/ is an example of docs/cli.md, run by a test below", () => {
    const goldens = readdirSync(join(repoRoot, "test", "golden", "cli"))
      .map((f) => `cli/${f}`)
      .sort();
    assert.deepEqual(CLI_EXAMPLES.map((e) => e.golden).sort(), goldens);
  });
});

describe("wymcp check on a JSONL capture", () => {
  test("a mix of good, bad, non-JSON, legacy and modern lines: every line judged, exit 1, output as pinned", () => {
    const run = runExample("cli/mixed.txt");
    // Written from the fixture, not read back from the golden file: each rejection's code and first location.
    assert.match(lineFor(run.stdout, "mixed.jsonl:4"), /reject +modern \(_meta\) +tools\/call request \(CallToolRequest\) +-32602$/);
    assert.deepEqual(locationsFor(run.stdout, "mixed.jsonl:4")[0], "/params/arguments  must be object");
    assert.match(lineFor(run.stdout, "mixed.jsonl:9"), /reject +modern \(_meta\) +prompts\/get request \(GetPromptRequest\) +-32602$/);
    assert.deepEqual(locationsFor(run.stdout, "mixed.jsonl:9"), ["/params/_meta/io.modelcontextprotocol~1clientCapabilities  is required"]);
    // A batch holding an element that is no JSON-RPC message: the SDK routes it modern, where batches are refused, the
    // answer naming the batch and locating the element that sent it there.
    assert.match(lineFor(run.stdout, "mixed.jsonl:10"), /reject +modern \(batch\) +batch \(JSONRPCBatchRequest\) +-32600$/);
    assert.deepEqual(locationsFor(run.stdout, "mixed.jsonl:10"), ['/1/jsonrpc  must equal "2.0"']);
    assert.match(lineFor(run.stdout, "mixed.jsonl:7"), /bypass +modern \(_meta\) +notifications\/cancelled notification/);
    assert.match(lineFor(run.stdout, "mixed.jsonl:5"), /reject +- +not JSON/);
    assert.match(lineFor(run.stdout, "mixed.jsonl:11"), /reject +- +not JSON/);
    assert.ok(!run.stdout.includes("mixed.jsonl:6 "), "the blank line is no message");
    assert.match(lineFor(run.stdout, "mixed.jsonl:2"), /pass +legacy \(initialize\)/);
    assert.match(lineFor(run.stdout, "mixed.jsonl:1"), /pass +modern \(_meta\)/);
    // The client's empty result is a response: auto judges it outbound, on framing alone without --method, by the
    // revision line 2's initialize asked for (the capture holds no answer to it).
    assert.match(
      lineFor(run.stdout, "mixed.jsonl:8"),
      /pass +legacy \(its session\) +out: result \(JSONRPCResultResponse, revision 2025-11-25, asked on line 2; framing only: give --method/,
    );
    assert.match(run.stdout, /^11 messages: 5 pass, 5 rejected, 1 bypassed$/m);
  });

  test("a single bad message file prints its locations aligned, as pinned", () => {
    const run = runExample("cli/bad-tools-call.txt");
    assert.match(
      lineFor(run.stdout, "bad-tools-call.json:1"),
      /^bad-tools-call\.json:1 +reject +modern \(_meta\) +tools\/call request \(CallToolRequest\) +-32602$/,
    );
    assert.deepEqual(locationsFor(run.stdout, "bad-tools-call.json:1"), ["/params/name  must be string"]);
    assert.match(run.stdout, /^1 message: 0 pass, 1 rejected, 0 bypassed$/m);
  });

  test("CRLF line ends, a byte-order mark and blank lines are read as a logger writes them", () => {
    const good = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } });
    const file = join(tmp, "crlf.jsonl");
    writeFileSync(file, `\ufeff${good}\r\n\r\n   \r\n${good}\r\n${good}`);
    const run = wymcp([file]);
    assert.equal(run.status, 0, run.stdout);
    assert.match(run.stdout, /^3 messages: 3 pass, 0 rejected, 0 bypassed$/m);
    assert.ok(lineFor(run.stdout, `${file}:5`));
  });

  test("a line over --max-body-bytes is reported too large with its line number, and the lines after it are still judged", () => {
    const good = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const long = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { pad: "x".repeat(5000) } });
    const file = join(tmp, "long.jsonl");
    writeFileSync(file, [good, long, good].join("\n"));
    const run = wymcp(["--max-body-bytes", "1000", file]);
    assert.equal(run.status, 1);
    assert.match(lineFor(run.stdout, `${file}:2`), /reject .*too large to judge/);
    assert.match(run.stdout, /the limit of 1000 bytes/);
    assert.match(lineFor(run.stdout, `${file}:3`), /\bpass\b/);
  });

  test("bytes that are not UTF-8 are a parse error, as the middleware answers them", () => {
    const file = join(tmp, "latin1.jsonl");
    writeFileSync(file, Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]));
    const run = wymcp(["--json", file]);
    assert.equal(run.status, 1);
    assert.equal((JSON.parse(run.stdout.split("\n")[0]!) as { reason: string }).reason, "parse-error");
  });

  test("--quiet prints only the rejected messages and the summary", () => {
    const run = wymcp(["--quiet", "mixed.jsonl"]);
    assert.equal(run.status, 1);
    const headers = run.stdout.split("\n").filter((l) => l.startsWith("mixed.jsonl:"));
    assert.equal(headers.length, 5);
    for (const l of headers) assert.match(l, / reject /);
    assert.match(run.stdout, /^11 messages: 5 pass, 5 rejected, 1 bypassed$/m);
  });
});

describe("wymcp check on standard input", () => {
  const mixed = readFileSync(join(FIXTURES, "mixed.jsonl"), "utf8");

  test("piped lines with no file are read as JSONL under the name <stdin>, like the same file", () => {
    const run = wymcp([], { input: mixed });
    assert.equal(run.status, 1);
    // The position column is as wide as the name, so the comparison is made with one space after it.
    const columns = (text: string) => text.replace(/^\S+:(\d+) +/gm, "$1 ");
    assert.match(run.stdout, /^<stdin>:1 /);
    assert.equal(columns(run.stdout), columns(wymcp(["mixed.jsonl"]).stdout));
  });

  test('"-" names standard input among files, and --format json reads a pretty-printed message from it', () => {
    const pretty = readFileSync(join(FIXTURES, "bad-tools-call.json"), "utf8");
    const run = runExample("cli/stdin-format-json.txt");
    assert.match(lineFor(run.stdout, "<stdin>:1"), /reject +modern \(_meta\) +tools\/call request \(CallToolRequest\) +-32602$/);
    assert.deepEqual(locationsFor(run.stdout, "<stdin>:1"), ["/params/name  must be string"]);
    const asLines = wymcp(["-"], { input: pretty });
    assert.match(asLines.stdout, /<stdin>:1 +reject +- +not JSON/, "without --format json, stdin is one message per line");
  });
});

describe("wymcp check --json", () => {
  const mixedLines = readFileSync(join(FIXTURES, "mixed.jsonl"), "utf8").split("\n");

  test("prints one JSON object per message, with its place, and the summary on stderr", () => {
    const run = wymcp(["--json", "mixed.jsonl"]);
    assert.equal(run.status, 1);
    const verdicts = run.stdout
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith('{"summary":'))
      .map((l) => JSON.parse(l) as { source: string; line: number; outcome: string });
    assert.deepEqual(
      verdicts.map((v) => v.line),
      [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12],
    );
    for (const v of verdicts) assert.equal(v.source, "mixed.jsonl");
    assert.equal(run.stderr, "11 messages: 5 pass, 5 rejected, 1 bypassed\n");
  });

  test("with --direction in each verdict is the middleware's: the same outcome, and for a rejection the same status and JSON-RPC answer", async () => {
    const run = wymcp(["--json", "--direction", "in", "mixed.jsonl"]);
    const verdicts = run.stdout
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith('{"summary":'))
      .map((l) => JSON.parse(l) as JsonObject);
    const guard = wymcpFetch({ era: (req, body) => classifyEra(req.headers, body).era });
    for (const verdict of verdicts) {
      const request = new Request("http://localhost/mcp", {
        method: "POST",
        // The headers a client sends with its body: the CLI judges a bare line, which has none, on its body alone.
        headers: { "content-type": "application/json", ...transportHeaders(mixedLines[(verdict.line as number) - 1]) },
        body: mixedLines[(verdict.line as number) - 1],
      });
      const answer = await guard(request);
      if (verdict.outcome === "reject") {
        assert.ok(answer, `line ${verdict.line}: the middleware admitted what the CLI rejected`);
        assert.equal(answer.status, verdict.status);
        assert.deepEqual(await answer.json(), verdict.response, `line ${verdict.line}`);
      } else {
        assert.equal(answer, undefined, `line ${verdict.line}: the middleware refused what the CLI admitted`);
        const { era, result } = wymcpOf(request)!;
        assert.equal(era, verdict.era);
        assert.equal(result.outcome, verdict.outcome);
        assert.equal(result.kind, verdict.kind);
      }
    }
  });

  test("a message over --max-body-bytes gets the middleware's 413 answer for a body over the same limit", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(200) } });
    const run = wymcp(["--json", "--max-body-bytes", "100", "-"], { input: `${body}\n` });
    const verdict = JSON.parse(run.stdout.split("\n")[0]!) as JsonObject;
    const answer = await wymcpFetch({ limits: { maxBodyBytes: 100 } })(
      new Request("http://localhost/mcp", { method: "POST", headers: { "content-type": "application/json" }, body }),
    );
    assert.equal(verdict.status, answer!.status);
    assert.deepEqual(verdict.response, await answer!.json());
  });

  test("--direction in: --method labels a response's verdict, and only a response's (a request names its own method)", () => {
    const run = wymcp(["--json", "--direction", "in", "--method", "roots/list", "-"], {
      input: '{"jsonrpc":"2.0","id":3,"result":{"roots":[]}}\n{"jsonrpc":"2.0","id":4,"method":"ping"}\n',
    });
    assert.equal(run.status, 0);
    const [response, request] = run.stdout
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith('{"summary":'))
      .map((l) => JSON.parse(l) as JsonObject);
    assert.equal(request!.method, undefined);
    assert.deepEqual(response, {
      source: "<stdin>",
      line: 1,
      direction: "in",
      method: "roots/list",
      era: "legacy",
      eraSignal: "response",
      outcome: "bypass",
      kind: "response",
      reason: "legacy-response",
    });
  });

  test("--header MCP-Protocol-Version decides the era of a message with no body signal, as classifyEra does", () => {
    const notification = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n';
    const modern = JSON.parse(
      wymcp(["--json", "--header", "MCP-Protocol-Version: 2026-07-28"], { input: notification }).stdout.split("\n")[0]!,
    ) as JsonObject;
    assert.deepEqual([modern.era, modern.eraSignal, modern.outcome], ["modern", "header-protocol-version", "bypass"]);
    const legacy = JSON.parse(
      wymcp(["--json", "--header", "mcp-protocol-version: 2025-06-18"], { input: notification }).stdout.split("\n")[0]!,
    ) as JsonObject;
    assert.deepEqual([legacy.era, legacy.eraSignal, legacy.outcome], ["legacy", "header-protocol-version", "pass"]);
  });
});

describe("wymcp check, outbound (validateMcpResponse)", () => {
  const callToolResult = outboundExamples.find((e) => e.definition === "CallToolResultResponse")!;
  const exchangeArgs = CLI_EXAMPLES.find((e) => e.golden === "cli/exchange.txt")!.args;
  const exchangeLines = readFileSync(join(FIXTURES, "exchange.jsonl"), "utf8").split("\n");

  test("a CallToolResult whose content item lacks type is rejected with the location, and passes on framing alone without --method", () => {
    const copy = structuredClone(callToolResult.instance) as { result: { content: JsonObject[] } };
    delete copy.result.content[0]!.type;
    const file = join(tmp, "no-type-result.json");
    writeFileSync(file, JSON.stringify(copy));
    const run = wymcp(["--direction", "out", "--era", "modern", "--method", "tools/call", file]);
    assert.equal(run.status, 1, run.stdout);
    assert.match(lineFor(run.stdout, `${file}:1`), /reject +modern +out: tools\/call result \(CallToolResult\)$/);
    assert.ok(locationsFor(run.stdout, `${file}:1`).includes("/result/content/0/type  is required"), run.stdout);
    // Without the answered method nothing names CallToolResult: the output says only the framing was judged.
    const bare = wymcp(["--direction", "out", "--era", "modern", file]);
    assert.equal(bare.status, 0, bare.stdout);
    assert.match(
      lineFor(bare.stdout, `${file}:1`),
      /pass +modern +out: result \(JSONRPCResultResponse; framing only: give --method to judge the result\)$/,
    );
    const unknown = wymcp(["--direction", "out", "--era", "modern", "--method", "tools/cal", file]);
    assert.match(
      lineFor(unknown.stdout, `${file}:1`),
      /out: tools\/cal result \(JSONRPCResultResponse; not a method of 2026-07-28: framing only\)$/,
    );
  });

  test("--direction auto on a captured exchange: responses and server-only methods out, the rest in, as pinned", () => {
    const run = runExample("cli/exchange.txt");
    assert.match(
      lineFor(run.stdout, "exchange.jsonl:6"),
      /reject +legacy \(header\) +out: tools\/call result \(CallToolResult, revision 2025-11-25\)$/,
    );
    assert.match(lineFor(run.stdout, "exchange.jsonl:10"), /reject +- +not JSON +-32700$/);
    assert.ok(locationsFor(run.stdout, "exchange.jsonl:6").includes("/result/content/0/type  is required"));
    assert.deepEqual(locationsFor(run.stdout, "exchange.jsonl:8"), ["/params/uri  is required"]);
    assert.match(run.stdout, /^10 messages: 7 pass, 3 rejected, 0 bypassed$/m);
  });

  test("--json: one object per message, an outbound one carrying validateMcpResponse's own answer", () => {
    const run = wymcp(["--json", ...exchangeArgs]);
    assert.equal(run.status, 1);
    assert.equal(run.stderr, "10 messages: 7 pass, 3 rejected, 0 bypassed\n");
    const verdicts = run.stdout
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith('{"summary":'))
      .map((l) => JSON.parse(l) as JsonObject);
    assert.deepEqual(
      verdicts.map((v) => v.direction),
      ["in", "in", "out", "out", "out", "out", "out", "out", "in", "in"],
    );
    for (const verdict of verdicts.filter((v) => v.direction === "out")) {
      const message: unknown = JSON.parse(exchangeLines[(verdict.line as number) - 1]!);
      const { source, line, direction, era, eraSignal, method, answers, ...answer } = verdict;
      // Line 5 answers line 1's request, whose era it takes; the others have no request in the capture.
      const paired = line === 5;
      assert.deepEqual(
        [source, direction, era, eraSignal, answers],
        [
          "exchange.jsonl",
          "out",
          "legacy",
          paired ? "request" : "header-protocol-version",
          paired ? { line: 1, from: "client" } : undefined,
        ],
      );
      // --method names what a response answers, so only responses carry it.
      assert.equal(
        method,
        "result" in (message as JsonObject) || "error" in (message as JsonObject) ? "tools/call" : undefined,
        `line ${line}`,
      );
      assert.deepEqual(answer, validateMcpResponse(message, { era: "legacy", method: "tools/call" }), `line ${line}`);
    }
    assert.deepEqual(
      verdicts.filter((v) => v.outcome === "violation").map((v) => v.line),
      [6, 8],
    );
  });

  test("--quiet keeps outbound violations, which count as rejected", () => {
    const run = wymcp(["--quiet", ...exchangeArgs]);
    assert.deepEqual(
      run.stdout
        .split("\n")
        .filter((l) => l.startsWith("exchange.jsonl:"))
        .map((l) => l.split(/ +/)[0]),
      ["exchange.jsonl:6", "exchange.jsonl:8", "exchange.jsonl:10"],
    );
  });

  test("auto judges a legacy client's answer to sampling outbound too, by the --method it answers", () => {
    const answer = { jsonrpc: "2.0", id: "s1", result: { role: "assistant", content: { type: "text", text: "Sunny" }, model: "m" } };
    const good = wymcp(["--method", "sampling/createMessage", "-"], { input: `${JSON.stringify(answer)}\n` });
    assert.equal(good.status, 0, good.stdout);
    assert.match(
      lineFor(good.stdout, "<stdin>:1"),
      /pass +legacy \(no signal\) +out: sampling\/createMessage result \(CreateMessageResult, revision 2025-03-26\)$/,
    );
    const { model: _, ...withoutModel } = answer.result;
    const bad = wymcp(["--method", "sampling/createMessage", "-"], { input: `${JSON.stringify({ ...answer, result: withoutModel })}\n` });
    assert.equal(bad.status, 1);
    assert.deepEqual(locationsFor(bad.stdout, "<stdin>:1"), ["/result/model  is required"]);
  });

  test("the outbound era comes from --era or the --headers, never from the body: a modern-only field does not pick its lane", () => {
    const noResultType = '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}\n';
    const withResultType = '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}\n';
    const judged = (input: string, ...args: string[]) =>
      JSON.parse(wymcp(["--json", "--method", "tools/list", ...args], { input }).stdout.split("\n")[0]!) as JsonObject;
    assert.deepEqual([judged(withResultType).era, judged(withResultType).eraSignal], ["legacy", "default"]);
    const modern = judged(noResultType, "--header", "MCP-Protocol-Version: 2026-07-28");
    assert.deepEqual([modern.era, modern.eraSignal, modern.outcome], ["modern", "header-protocol-version", "violation"]);
    assert.ok(
      (modern.violations as { errors: Array<{ instancePath: string }> }).errors.some((e) => e.instancePath === "/result/resultType"),
      JSON.stringify(modern),
    );
    assert.deepEqual(
      [judged(noResultType, "--header", "Mcp-Session-Id: abc").eraSignal, judged(noResultType, "--era", "modern").eraSignal],
      ["header-session-id", "flag"],
    );
  });

  test("--direction out judges every message outbound: a modern server's request is a violation, a line not JSON still a rejection", () => {
    const run = wymcp(["--json", "--direction", "out", "--era", "modern", "-"], {
      input: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n{"jsonrpc":"2.0",\n',
    });
    assert.equal(run.status, 1);
    const [request, broken] = run.stdout
      .trim()
      .split("\n")
      .filter((l) => !l.startsWith('{"summary":'))
      .map((l) => JSON.parse(l) as JsonObject);
    assert.deepEqual([request!.direction, request!.outcome, request!.kind], ["out", "violation", "request"]);
    assert.deepEqual([broken!.direction, broken!.outcome, broken!.reason], ["out", "reject", "parse-error"]);
  });

  test("the server-only methods are those a server of either era sends and a client of neither does, read from the schemas", () => {
    const methodsOf = (revision: string, union: string): string[] => {
      const defs = readSpecSchema(revision).$defs as Record<string, JsonObject>;
      const def = defs[union];
      if (!def) return []; // 2026-07-28 has no ServerRequest: MRTR replaced them
      const refs = (def.anyOf ?? def.oneOf) as JsonObject[] | undefined;
      const names = refs ? refs.map((r) => String(r.$ref).replace("#/$defs/", "")) : [union];
      return names.map((n) => (defs[n]!.properties as { method?: { const?: string } }).method?.const as string);
    };
    const revisions = [eras.legacy.revision, eras.modern.revision];
    const client = new Set(revisions.flatMap((r) => [...methodsOf(r, "ClientRequest"), ...methodsOf(r, "ClientNotification")]));
    const server = revisions.flatMap((r) => [...methodsOf(r, "ServerRequest"), ...methodsOf(r, "ServerNotification")]);
    assert.deepEqual([...SERVER_ONLY_METHODS].sort(), [...new Set(server.filter((m) => !client.has(m)))].sort());
  });

  test("autoDirection: responses out, requests and notifications in unless only a server sends them, anything else in", () => {
    const cases: Array<[unknown, "in" | "out"]> = [
      [{ jsonrpc: "2.0", id: 1, result: {} }, "out"],
      [{ jsonrpc: "2.0", id: 1, error: { code: -1, message: "x" } }, "out"],
      [{ jsonrpc: "2.0", id: 1, method: "roots/list" }, "out"],
      [{ jsonrpc: "2.0", method: "notifications/tools/list_changed" }, "out"],
      [{ jsonrpc: "2.0", id: 1, method: "ping" }, "in"],
      [{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }, "in"],
      [{ jsonrpc: "2.0", method: 5, result: {} }, "in"],
      [[{ jsonrpc: "2.0", id: 1, result: {} }], "in"],
      [{ jsonrpc: "2.0", id: 1 }, "in"],
      ["text", "in"],
    ];
    for (const [body, want] of cases) assert.equal(autoDirection(body), want, JSON.stringify(body));
  });
});

describe("wymcp check exit codes and usage", () => {
  test("0 when every message passes or is bypassed", () => {
    assert.equal(
      wymcp([], { input: '{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":1,"result":{}}\n' }).status,
      0,
    );
  });

  test("2 for an unreadable file, after judging the readable ones and naming the missing one", () => {
    const run = wymcp(["missing.jsonl", "bad-tools-call.json"]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /^wymcp check: cannot read "missing\.jsonl": no such file$/m);
    assert.match(run.stdout, /^1 message: 0 pass, 1 rejected, 0 bypassed$/m);
    assert.match(wymcp(["."]).stderr, /^wymcp check: cannot read "\.": it is a folder$/m);
  });

  for (const [name, args] of [
    ["an unknown option", ["--strict"]],
    ["an era that does not exist", ["--era", "2026"]],
    ["a direction that does not exist", ["--direction", "sideways"]],
    ["a header without a colon", ["--header", "MCP-Protocol-Version 2026-07-28"]],
    ["a size that is not a number", ["--max-body-bytes", "4MB"]],
    ["a size in exponent notation, refused as wymcp proxy and wymcp stdio refuse it", ["--max-body-bytes", "1e3"]],
    ["the size limit's old name", ["--max-bytes", "1000"]],
    ["a rule wymcp check does not apply", ["--rule", "toolArguments=report"]],
    ["the outbound rule off (check judges every server message)", ["--rule", "outbound=off"]],
  ] as const) {
    test(`2 for ${name}, with the reason on stderr and nothing judged`, () => {
      const run = wymcp([...args, "mixed.jsonl"]);
      assert.equal(run.status, 2, run.stdout);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /^wymcp check: .+\nRun "wymcp check --help"/);
    });
  }

  test("2 for no command or an unknown one; --help prints the options and exits 0", () => {
    const none = spawnSync(process.execPath, [CLI], { encoding: "utf8" });
    assert.equal(none.status, 2);
    assert.match(none.stdout, /^Usage: wymcp check/);
    const unknown = spawnSync(process.execPath, [CLI, "lint", "x.json"], { encoding: "utf8" });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown command "lint"/);
    const help = wymcp(["--help"]);
    assert.equal(help.status, 0);
    for (const option of [
      "--era",
      "--header",
      "--direction",
      "--method",
      "--json",
      "--format",
      "--max-body-bytes",
      "--rule",
      "--report",
      "--quiet",
      "NO_COLOR",
      "Exit codes",
    ]) {
      assert.ok(help.stdout.includes(option), `--help does not mention ${option}`);
    }
  });
});

describe("wymcp check output safety and colour", () => {
  test("no colour codes when the output is not a terminal", () => {
    assert.ok(!wymcp(["mixed.jsonl"]).stdout.includes("\u001b"));
  });

  test("FORCE_COLOR colours the verdicts; FORCE_COLOR=0 does not", () => {
    assert.ok(wymcp(["mixed.jsonl"], { env: { FORCE_COLOR: "1" } }).stdout.includes("\u001b[31mreject\u001b[0m"));
    assert.ok(!wymcp(["mixed.jsonl"], { env: { FORCE_COLOR: "0" } }).stdout.includes("\u001b"));
  });

  test("colour is on for a terminal unless NO_COLOR is set (non-empty) or TERM is dumb; FORCE_COLOR overrides both ways", () => {
    const cases: Array<[Record<string, string | undefined>, boolean, boolean]> = [
      [{}, true, true],
      [{}, false, false],
      [{ NO_COLOR: "1" }, true, false],
      [{ NO_COLOR: "" }, true, true],
      [{ TERM: "dumb" }, true, false],
      [{ FORCE_COLOR: "1" }, false, true],
      [{ FORCE_COLOR: "1", NO_COLOR: "1" }, false, true],
      [{ FORCE_COLOR: "0" }, true, false],
    ];
    for (const [env, isTTY, want] of cases) assert.equal(colourEnabled(env, isTTY), want, JSON.stringify({ env, isTTY }));
  });

  test("escape sequences in a message's keys or method are printed escaped, never sent to the terminal", () => {
    const hostileMethod = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "x\u001b]0;pwned\u0007", params: 1 });
    const hostileKey = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "prompts/get",
      params: { _meta: MODERN_META, name: "p", arguments: { "a\u001b[2Jb": 1 } },
    });
    const run = wymcp([], { input: `${hostileMethod}\n${hostileKey}\n` });
    assert.equal(run.status, 1);
    assert.ok(!run.stdout.includes("\u001b"), JSON.stringify(run.stdout));
    assert.ok(run.stdout.includes("x\\u001b]0;pwned\\u0007 request"), run.stdout);
    assert.deepEqual(locationsFor(run.stdout, "<stdin>:2"), ["/params/arguments/a\\u001b[2Jb  must be string"]);
    assert.equal(printable("a\u202eb\u0000"), "a\\u202eb\\u0000");
  });
});

// util-linux `script` runs a command on a pseudo-terminal: the one way to give the bin a real TTY without a dependency.
const hasScript = spawnSync("script", ["-qec", "true", "/dev/null"], { encoding: "utf8" }).status === 0;

describe("wymcp check on a terminal", { skip: hasScript ? false : "needs util-linux script(1) for a pseudo-terminal" }, () => {
  const onTerminal = (command: string, env: Record<string, string> = {}) => {
    const base = { ...process.env };
    for (const name of ["FORCE_COLOR", "NO_COLOR", "NODE_OPTIONS"]) delete base[name];
    return spawnSync("script", ["-qec", command, "/dev/null"], {
      cwd: FIXTURES,
      env: { ...base, TERM: "xterm", ...env },
      encoding: "utf8",
    });
  };

  test("colours the verdicts on a terminal, and not when NO_COLOR is set", () => {
    const coloured = onTerminal(`"${process.execPath}" "${CLI}" check mixed.jsonl`);
    assert.equal(coloured.status, 1);
    assert.ok(coloured.stdout.includes("\u001b[32mpass  \u001b[0m"), JSON.stringify(coloured.stdout.slice(0, 200)));
    const plain = onTerminal(`"${process.execPath}" "${CLI}" check mixed.jsonl`, { NO_COLOR: "1" });
    assert.equal(plain.status, 1);
    assert.ok(plain.stdout.includes("mixed.jsonl:1"));
    assert.ok(!plain.stdout.includes("\u001b"), JSON.stringify(plain.stdout.slice(0, 200)));
  });

  test("with no file and a terminal for input, it asks for input instead of waiting: exit 2", () => {
    const run = onTerminal(`"${process.execPath}" "${CLI}" check`);
    assert.equal(run.status, 2);
    assert.match(run.stdout, /no input: name files to check, or pipe messages/);
  });
});

describe("the installed bin", () => {
  test("the packed package installs offline and `npx wymcp check` runs its bin with plain node", () => {
    const dir = join(tmp, "installed");
    const npm = (args: string[], cwd: string) => {
      const run = spawnSync("npm", args, { cwd, encoding: "utf8", env: { ...process.env, npm_config_update_notifier: "false" } });
      assert.equal(run.status, 0, `npm ${args.join(" ")}: ${run.stderr}`);
      return run.stdout;
    };
    // dist/ is built already (npm test's pretest); packing must not rebuild it.
    const tarball = npm(["pack", "--ignore-scripts", "--silent", "--pack-destination", tmp], repoRoot).trim().split("\n").pop()!;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", version: "1.0.0", private: true }));
    npm(["install", "--offline", "--no-audit", "--no-fund", "--silent", join(tmp, tarball)], dir);
    const run = spawnSync("npx", ["--offline", "wymcp", "check", join(FIXTURES, "bad-tools-call.json")], { cwd: dir, encoding: "utf8" });
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stdout, /bad-tools-call\.json:1 +reject .*\(CallToolRequest\)/);
    assert.match(run.stdout, /^ {2}\/params\/name {2}must be string$/m);
  });
});
