import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { before, describe, test } from "node:test";
import { paramDeclarations, paramProblem } from "../src/tools/param-headers.js";
import { type ToolSchemaCompiler, ToolsAtEdge, type ToolsEvent, toolsOption } from "../src/tools/tools-at-edge.js";
import { edgeCompiler } from "../src/compile/at-edge.js";
import { generate } from "../src/compile/generate.js";
import { MODERN_META } from "./support/messages.js";

const ADD = {
  name: "add",
  inputSchema: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
};
const WEATHER = {
  name: "weather",
  inputSchema: {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      days: { type: "integer", "x-mcp-header": "Days" },
      deep: { type: "object", properties: { flag: { type: "boolean", "x-mcp-header": "Flag" } } },
    },
    required: ["region"],
  },
};

const call = (name: string, args: unknown, era: "modern" | "legacy" = "modern") => ({
  jsonrpc: "2.0",
  id: 9,
  method: "tools/call",
  params: era === "modern" ? { _meta: MODERN_META, name, arguments: args } : { name, arguments: args },
});

let compile: ToolSchemaCompiler;
before(async () => {
  const compiler = await edgeCompiler();
  assert.equal(typeof compiler, "function", "ajv and ajv-formats are dev dependencies: the engine loads");
  compile = compiler as ToolSchemaCompiler;
});

describe("x-mcp-header declarations", () => {
  test("properties reached through `properties` alone are declared, nested ones with their path", () => {
    assert.deepEqual(paramDeclarations(WEATHER.inputSchema), [
      { path: ["region"], header: "Region", type: "string" },
      { path: ["days"], header: "Days", type: "integer" },
      { path: ["deep", "flag"], header: "Flag", type: "boolean" },
    ]);
  });

  const broken: Array<[string, object]> = [
    ["under items", { type: "object", properties: { list: { type: "array", items: { type: "string", "x-mcp-header": "L" } } } }],
    ["under anyOf", { type: "object", anyOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] }],
    ["on the root", { type: "object", "x-mcp-header": "Root" }],
    ["not a token", { type: "object", properties: { a: { type: "string", "x-mcp-header": "A B" } } }],
    ["on an object", { type: "object", properties: { a: { type: "object", "x-mcp-header": "A" } } }],
    [
      "twice without regard to case",
      { type: "object", properties: { a: { type: "string", "x-mcp-header": "Id" }, b: { type: "string", "x-mcp-header": "ID" } } },
    ],
  ];
  for (const [name, schema] of broken)
    test(`an annotation ${name} makes the tool's annotations invalid: none is checked, as the SDK's server checks none`, () => {
      assert.equal(paramDeclarations(schema), undefined);
    });
});

describe("Mcp-Param-{Name} against the arguments", () => {
  const declarations = paramDeclarations(WEATHER.inputSchema)!;
  const cases: Array<[string, unknown, Record<string, string | string[]>, string | undefined]> = [
    ["the header equal to the argument", { region: "Paris" }, { "mcp-param-region": "Paris" }, undefined],
    ["a header name in any case", { region: "Paris" }, { "MCP-PARAM-REGION": "Paris" }, undefined],
    ["an integer compared by value (3.0 is 3)", { region: "P", days: 3 }, { "mcp-param-region": "P", "mcp-param-days": "3.0" }, undefined],
    [
      "a nested boolean as true/false",
      { region: "P", deep: { flag: true } },
      { "mcp-param-region": "P", "mcp-param-flag": "true" },
      undefined,
    ],
    ["a Base64 sentinel decoded", { region: "Zürich" }, { "mcp-param-region": "=?base64?WsO8cmljaA==?=" }, undefined],
    ["an argument that is null needs no header", { region: "P", days: null }, { "mcp-param-region": "P" }, undefined],
    ["an absent argument needs no header", { region: "P" }, { "mcp-param-region": "P", "mcp-param-days": "4" }, undefined],
    ["a header missing for a present argument", { region: "Paris" }, {}, "missing"],
    ["a header that disagrees", { region: "Paris" }, { "mcp-param-region": "Lyon" }, "mismatch"],
    ["an integer that disagrees", { region: "P", days: 3 }, { "mcp-param-region": "P", "mcp-param-days": "4" }, "mismatch"],
    ["a bad sentinel", { region: "P" }, { "mcp-param-region": "=?base64?!!?=" }, "bad-base64"],
    ["a repeat with another value", { region: "P" }, { "mcp-param-region": ["P", "Q"] }, "repeated"],
    [
      "a sentinel repeated, as a Fetch Headers joins it",
      { region: "Zürich" },
      { "mcp-param-region": "=?base64?WsO8cmljaA==?=, =?base64?WsO8cmljaA==?=" },
      undefined,
    ],
    [
      "a sentinel repeated with a bad one, as a Fetch Headers joins it",
      { region: "Zürich" },
      { "mcp-param-region": "=?base64?WsO8cmljaA==?=, =?base64?!!?=" },
      "bad-base64",
    ],
  ];
  for (const [name, args, headers, want] of cases)
    test(`${name}: ${want ?? "passes"}`, () => {
      assert.equal(paramProblem(declarations, args, headers)?.problem, want);
    });
});

describe("a tools/call judged by the known tools", () => {
  test("invalid arguments: isError on 2026-07-28 and 2025-11-25, -32602 before; the server never sees the call", async () => {
    const tools = new ToolsAtEdge({ given: { tools: [ADD] }, compile });
    await tools.settled();
    const modern = await tools.judge({ body: call("add", { a: "x", b: 2 }), era: "modern", protocolVersion: undefined, headers: {} });
    assert.deepEqual(modern?.response, {
      jsonrpc: "2.0",
      id: 9,
      result: {
        content: [{ type: "text", text: "Invalid arguments for tool add: 1 invalid location: /a must be integer" }],
        isError: true,
        resultType: "complete",
      },
    });
    assert.equal(modern?.status, 200);
    const latest = await tools.judge({
      body: call("add", { a: "x", b: 2 }, "legacy"),
      era: "legacy",
      protocolVersion: "2025-11-25",
      headers: {},
    });
    assert.equal((latest!.response as { result: { isError: boolean } }).result.isError, true);
    assert.equal("resultType" in (latest!.response as { result: object }).result, false);
    for (const version of ["2025-06-18", undefined]) {
      const older = await tools.judge({
        body: call("add", { a: "x", b: 2 }, "legacy"),
        era: "legacy",
        protocolVersion: version,
        headers: {},
      });
      assert.deepEqual(older?.response, {
        jsonrpc: "2.0",
        id: 9,
        error: {
          code: -32602,
          message: "Invalid params: the arguments of tool add do not match its inputSchema: 1 invalid location: /a must be integer",
          data: { errors: [{ instancePath: "/params/arguments", messages: ["1 invalid location: /a must be integer"] }] },
        },
      });
    }
    assert.equal(
      await tools.judge({ body: call("add", { a: 1, b: 2 }), era: "modern", protocolVersion: undefined, headers: {} }),
      undefined,
    );
  });

  test("nothing of the arguments is reflected, and the answer is bounded whatever their size", async () => {
    const tools = new ToolsAtEdge({ given: { tools: [ADD] }, compile });
    await tools.settled();
    const secret = "s3cr3t-\u0007-value";
    const args: Record<string, unknown> = { a: secret, b: secret };
    for (let i = 0; i < 5000; i++) args[`extra-${i}-${"k".repeat(200)}`] = secret;
    const refusal = await tools.judge({ body: call("add", args), era: "modern", protocolVersion: undefined, headers: {} });
    const text = JSON.stringify(refusal?.response);
    assert.doesNotMatch(text, /s3cr3t/);
    assert.ok(text.length < 2048, `answer of ${text.length} characters`);
  });

  test("an unknown tool, and any other method, pass on: the server answers them", async () => {
    const tools = new ToolsAtEdge({ given: { tools: [ADD] }, compile });
    await tools.settled();
    assert.equal(await tools.judge({ body: call("nope", { a: "x" }), era: "modern", protocolVersion: undefined, headers: {} }), undefined);
    assert.equal(
      await tools.judge({
        body: { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "add" } },
        era: "modern",
        protocolVersion: undefined,
        headers: {},
      }),
      undefined,
    );
  });

  test("a schema that cannot be compiled is reported once, and its calls pass unjudged", async () => {
    const events: ToolsEvent[] = [];
    const broken = { name: "broken", inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } } };
    const risky = { name: "risky", inputSchema: { type: "object", properties: { w: { type: "string", pattern: "^(a+)\\1$" } } } };
    const tools = new ToolsAtEdge({ given: { tools: [broken, risky] }, compile, onEvent: (event) => events.push(event) });
    tools.learnList([broken, risky], false);
    await tools.settled();
    assert.equal(await tools.judge({ body: call("broken", { a: 1 }), era: "modern", protocolVersion: undefined, headers: {} }), undefined);
    assert.equal(
      await tools.judge({ body: call("risky", { w: `${"a".repeat(40)}!` }), era: "modern", protocolVersion: undefined, headers: {} }),
      undefined,
    );
    const reports = events.filter((event) => event.kind === "schema-not-compiled");
    // Once each, though both lists named them.
    assert.deepEqual(reports.map((event) => event.tool).sort(), ["broken", "risky"]);
    assert.match((reports.find((event) => event.tool === "broken") as { reason: string }).reason, /can't resolve reference/);
    assert.match(
      (reports.find((event) => event.tool === "risky") as { reason: string }).reason,
      /a pattern the linear-time engine cannot run \(a backreference\)/,
    );
  });

  test("quantified groups holding a quantifier or an alternation run at the edge, in pattern and patternProperties: a near miss is refused", async () => {
    const nested = { name: "nested", inputSchema: { type: "object", properties: { w: { type: "string", pattern: "^(a+)+$" } } } };
    const keys = { name: "keys", inputSchema: { type: "object", patternProperties: { "^(a|a)*$": {} }, additionalProperties: false } };
    const tools = new ToolsAtEdge({ given: { tools: [nested, keys] }, compile });
    await tools.settled();
    assert.equal(
      (await tools.judge({ body: call("nested", { w: `${"a".repeat(40)}!` }), era: "modern", protocolVersion: undefined, headers: {} }))
        ?.check,
      "arguments",
    );
    assert.equal(
      await tools.judge({ body: call("nested", { w: "a".repeat(40) }), era: "modern", protocolVersion: undefined, headers: {} }),
      undefined,
    );
    assert.equal(
      (await tools.judge({ body: call("keys", { [`${"a".repeat(40)}!`]: 1 }), era: "modern", protocolVersion: undefined, headers: {} }))
        ?.check,
      "arguments",
    );
    assert.equal(await tools.judge({ body: call("keys", { aaaa: 1 }), era: "modern", protocolVersion: undefined, headers: {} }), undefined);
  });

  test("Mcp-Param headers are judged on the modern lane only, before the arguments: 400/-32020", async () => {
    const tools = new ToolsAtEdge({ given: { tools: [WEATHER] }, compile });
    await tools.settled();
    const refusal = await tools.judge({
      body: call("weather", { region: "Paris" }),
      era: "modern",
      protocolVersion: undefined,
      headers: { "mcp-param-region": "Lyon" },
    });
    assert.equal(refusal?.status, 400);
    assert.deepEqual(refusal?.response, {
      jsonrpc: "2.0",
      id: 9,
      error: {
        code: -32020,
        message: "Header mismatch: the Mcp-Param-Region header does not match the argument (the argument at /params/arguments/region)",
        data: {
          errors: [
            {
              instancePath: "/params/arguments/region",
              messages: ["must match the Mcp-Param-Region header, which does not match the argument"],
            },
          ],
        },
      },
    });
    assert.equal(
      await tools.judge({
        body: call("weather", { region: "Paris" }, "legacy"),
        era: "legacy",
        protocolVersion: "2025-11-25",
        headers: {},
      }),
      undefined,
    );
  });

  test("each check turns off on its own", async () => {
    const noArgs = new ToolsAtEdge({ given: { tools: [ADD, WEATHER] }, compile }, { paramHeaders: "enforce", toolArguments: "off" });
    assert.equal(await noArgs.judge({ body: call("add", { a: "x" }), era: "modern", protocolVersion: undefined, headers: {} }), undefined);
    assert.equal(
      (await noArgs.judge({ body: call("weather", { region: "P" }), era: "modern", protocolVersion: undefined, headers: {} }))?.check,
      "param-header",
    );
    const noHeaders = new ToolsAtEdge({ given: { tools: [ADD, WEATHER] }, compile }, { paramHeaders: "off", toolArguments: "enforce" });
    await noHeaders.settled();
    assert.equal(
      await noHeaders.judge({ body: call("weather", { region: "P" }), era: "modern", protocolVersion: undefined, headers: {} }),
      undefined,
    );
    assert.equal(
      (await noHeaders.judge({ body: call("add", { a: "x", b: 1 }), era: "modern", protocolVersion: undefined, headers: {} }))?.check,
      "arguments",
    );
    const noLearning = new ToolsAtEdge({ compile, learn: false });
    assert.equal(noLearning.watch({ jsonrpc: "2.0", id: 1, method: "tools/list" }), undefined);
  });

  test("learned lists: pages after a cursor accumulate, a first page replaces", async () => {
    const tools = new ToolsAtEdge({ compile });
    const page = (id: number, cursor: string | undefined, list: object[], next?: string) => {
      const hook = tools.watch({ jsonrpc: "2.0", id, method: "tools/list", params: cursor === undefined ? {} : { cursor } });
      hook?.({ jsonrpc: "2.0", id, result: { tools: list, ...(next ? { nextCursor: next } : {}) } });
    };
    page(1, undefined, [ADD], "2");
    page(2, "2", [WEATHER]);
    await tools.settled();
    assert.equal(tools.size, 2);
    assert.ok(await tools.judge({ body: call("add", { a: "x", b: 1 }), era: "modern", protocolVersion: undefined, headers: {} }));
    page(3, undefined, [WEATHER]);
    assert.equal(tools.size, 1);
    assert.equal(
      await tools.judge({ body: call("add", { a: "x", b: 1 }), era: "modern", protocolVersion: undefined, headers: {} }),
      undefined,
    );
  });

  test("a tools/list that changes nothing the caller knew is no news: told once, told again when a tool or schema changes", async () => {
    const events: ToolsEvent[] = [];
    const tools = new ToolsAtEdge({ compile, onEvent: (event) => events.push(event) });
    const caller = () => "one caller";
    const list = (id: number, listed: object[], cursor?: string) =>
      tools.watch(
        { jsonrpc: "2.0", id, method: "tools/list", params: cursor ? { cursor } : {} },
        caller,
      )?.({
        jsonrpc: "2.0",
        id,
        result: { tools: listed },
      });
    const learned = () => events.filter((event) => event.kind === "tools-learned").length;
    list(1, [ADD, WEATHER]);
    list(2, [ADD, WEATHER]);
    list(3, [WEATHER, ADD]);
    assert.equal(learned(), 1, "the same tools asked for again (in any order) are not told again");
    list(4, [ADD], "next");
    assert.equal(learned(), 1, "a further page adding nothing new is not news either");
    list(41, [{ ...ADD, name: "add_more" }], "next");
    assert.equal(learned(), 2, "a further page adding a tool is news");
    list(42, [ADD, WEATHER]);
    assert.equal(learned(), 3, "a first page without the tool the further page added is news (the tool is dropped)");
    list(5, [ADD, { ...WEATHER, inputSchema: { ...WEATHER.inputSchema, required: ["days"] } }]);
    list(6, [ADD]);
    list(7, [ADD]);
    assert.equal(learned(), 5, "a changed schema and a dropped tool are");
    tools.watch(
      { jsonrpc: "2.0", id: 8, method: "tools/list" },
      () => "another caller",
    )?.({ jsonrpc: "2.0", id: 8, result: { tools: [ADD] } });
    assert.equal(learned(), 6, "another caller's first list is");
    await tools.settled();
    assert.equal(tools.callers, 2);
    assert.ok(await tools.judge({ body: call("add", { a: "x", b: 1 }), era: "modern", protocolVersion: undefined, headers: {}, caller }));
    assert.equal(
      await tools.judge({ body: call("weather", { region: 5 }), era: "modern", protocolVersion: undefined, headers: {}, caller }),
      undefined,
      "the tool the last list dropped judges the caller's calls no more",
    );
  });

  test("a stream face learns from the server's answer to the tools/list it saw the client send", async () => {
    const tools = new ToolsAtEdge({ compile });
    tools.received({ jsonrpc: "2.0", id: 4, result: { tools: [ADD] } });
    assert.equal(tools.size, 0, "an answer to no remembered request teaches nothing");
    tools.sent({ jsonrpc: "2.0", id: 4, method: "tools/list" });
    tools.received({ jsonrpc: "2.0", id: 4, result: { tools: [ADD] } });
    await tools.settled();
    assert.equal(tools.size, 1);
  });

  test("the tools option takes a tools/list result, a JSON-RPC response, or options; anything else throws", () => {
    assert.equal(toolsOption({ tools: [ADD] })?.size, 1);
    assert.equal(toolsOption({ jsonrpc: "2.0", id: 1, result: { tools: [ADD, WEATHER] } })?.size, 2);
    assert.equal(toolsOption({ learn: false })?.learns, false);
    assert.throws(() => toolsOption(5), /tools must be an object/);
    assert.throws(() => toolsOption({ learn: "no" }), /tools.learn must be a boolean/);
  });

  test("the module wymcp compile writes judges its tools with its own validators, no compiler needed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wymcp-tools-edge-"));
    try {
      const out = join(dir, "out");
      mkdirSync(out);
      writeFileSync(join(dir, "tools.json"), JSON.stringify({ tools: [ADD] }));
      for (const [name, text] of await generate([join(dir, "tools.json")], out)) writeFileSync(join(out, name), text);
      const compiled = (await import(pathToFileURL(join(out, "index.js")).href)) as object;
      const tools = new ToolsAtEdge({ given: compiled });
      const refusal = await tools.judge({ body: call("add", { a: 1 }), era: "modern", protocolVersion: undefined, headers: {} });
      assert.match(
        (refusal!.response as { result: { content: Array<{ text: string }> } }).result.content[0]!.text,
        /\/b is required|must have required property/,
      );
      assert.equal(
        await tools.judge({ body: call("add", { a: 1, b: 2 }), era: "modern", protocolVersion: undefined, headers: {} }),
        undefined,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
