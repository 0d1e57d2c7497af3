import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { MAX_EVALUATIONS_PER_VALUE, schemaRisk } from "../src/tools/schema-risk.js";
import { type ToolSchemaCompiler, ToolsAtEdge, type ToolsEvent } from "../src/tools/tools-at-edge.js";
import { edgeCompiler } from "../src/compile/at-edge.js";
import { MODERN_META } from "./support/messages.js";

const call = (name: string, args: unknown) => ({
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { _meta: MODERN_META, name, arguments: args },
});

describe("schemas judged too many times per value", () => {
  const chain = (depth: number, last: object = { type: "integer" }) => {
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < depth; i++) defs[`d${i}`] = i === depth - 1 ? last : { $ref: `#/$defs/d${i + 1}` };
    return { type: "object", $defs: defs, properties: { a: { $ref: "#/$defs/d0" } } };
  };

  test(`a $ref chain is run up to ${MAX_EVALUATIONS_PER_VALUE} schemas per value, not past it`, () => {
    assert.equal(schemaRisk(chain(MAX_EVALUATIONS_PER_VALUE / 2)), undefined);
    assert.match(schemaRisk(chain(MAX_EVALUATIONS_PER_VALUE + 1)) ?? "", /more than 24 schemas judged for one value/);
  });

  test("a $ref to itself with nothing between is unbounded", () => {
    assert.match(schemaRisk({ $defs: { a: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" }) ?? "", /more than 24/);
  });

  test("oneOf whose branches both judge the next level doubles per level: refused", () => {
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < 8; i++)
      defs[`l${i}`] =
        i === 7 ? { type: "integer" } : { oneOf: [{ $ref: `#/$defs/l${i + 1}` }, { allOf: [{ $ref: `#/$defs/l${i + 1}` }] }] };
    assert.match(schemaRisk({ $defs: defs, $ref: "#/$defs/l0" }) ?? "", /more than 24/);
  });

  test("recursion through the value's members is counted level by level: a tree is run, a doubling recursion is not", () => {
    const tree = {
      $defs: {
        node: {
          type: "object",
          properties: { v: { type: "integer" }, kids: { type: "array", items: { $ref: "#/$defs/node" } } },
          additionalProperties: false,
        },
      },
      $ref: "#/$defs/node",
    };
    assert.equal(schemaRisk(tree), undefined);
    const doubling = {
      $defs: {
        n: { oneOf: [{ properties: { x: { $ref: "#/$defs/n" } } }, { properties: { x: { $ref: "#/$defs/n" } }, required: ["y"] }] },
      },
      $ref: "#/$defs/n",
    };
    assert.match(schemaRisk(doubling) ?? "", /more than 24/);
  });

  test("a $ref with a malformed percent escape resolves to nothing: counted as unresolved, not thrown", () => {
    assert.equal(schemaRisk({ type: "object", properties: { a: { $ref: "#/%zz" } } }), undefined);
    assert.match(
      schemaRisk({ $defs: { a: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a", properties: { b: { $ref: "#/%E0%A4%A" } } }) ?? "",
      /more than 24/,
    );
  });

  test("uniqueItems is run over items of a scalar type only", () => {
    assert.match(schemaRisk({ type: "array", uniqueItems: true }) ?? "", /uniqueItems/);
    assert.match(schemaRisk({ type: "array", uniqueItems: true, items: { type: "object" } }) ?? "", /uniqueItems/);
    assert.equal(schemaRisk({ type: "array", uniqueItems: true, items: { type: ["string", "integer"] } }), undefined);
  });

  test("an enum is counted by its values; patterns are not read (the engine runs them in linear time)", () => {
    assert.match(schemaRisk({ enum: Array.from({ length: 2000 }, (_, i) => i) }) ?? "", /more than 24/);
    assert.equal(schemaRisk({ enum: Array.from({ length: 300 }, (_, i) => i) }), undefined);
    assert.equal(schemaRisk({ propertyNames: { pattern: "^\\d*\\d*x$" } }), undefined);
    assert.equal(schemaRisk({ patternProperties: { "[a-z]+x": {} } }), undefined);
  });
});

describe("the edge passes the calls of such a schema unjudged and reports it once", () => {
  let compile: ToolSchemaCompiler;
  before(async () => {
    const compiler = await edgeCompiler();
    if (typeof compiler !== "function") throw new Error(compiler.missing);
    compile = compiler;
  });

  test("a pattern the linear-time engine cannot run: not run, the call passes to the server, one schema-not-compiled event", async () => {
    const events: ToolsEvent[] = [];
    const tool = {
      name: "find",
      inputSchema: { type: "object", properties: { s: { type: "string", pattern: "^(?=\\d)\\d*\\d*\\d*x$" } } },
    };
    const tools = new ToolsAtEdge({ given: { tools: [tool] }, compile, onEvent: (event) => events.push(event) });
    tools.learnList([tool], false);
    await tools.settled();
    assert.equal(
      await tools.judge({ body: call("find", { s: `${"0".repeat(100_000)}!` }), era: "modern", protocolVersion: undefined, headers: {} }),
      undefined,
    );
    assert.deepEqual(
      events.filter((event) => event.kind === "schema-not-compiled"),
      [{ kind: "schema-not-compiled", tool: "find", reason: "a pattern the linear-time engine cannot run (a lookahead)" }],
    );
  });

  test("a linear pattern is still run: its failure is refused at the edge", async () => {
    const tool = { name: "slug", inputSchema: { type: "object", properties: { s: { type: "string", pattern: "^[a-z][a-z0-9-]*$" } } } };
    const tools = new ToolsAtEdge({ given: { tools: [tool] }, compile });
    await tools.settled();
    const refusal = await tools.judge({
      body: call("slug", { s: `${"a".repeat(10_000)}!` }),
      era: "modern",
      protocolVersion: undefined,
      headers: {},
    });
    assert.equal(refusal?.check, "arguments");
  });

  test("uniqueItems over objects and a deep $ref chain pass unjudged, each reported", async () => {
    const events: ToolsEvent[] = [];
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) defs[`d${i}`] = i === 99 ? { type: "integer" } : { $ref: `#/$defs/d${i + 1}` };
    const unique = { name: "unique", inputSchema: { type: "object", properties: { a: { type: "array", uniqueItems: true } } } };
    const deep = { name: "deep", inputSchema: { type: "object", $defs: defs, properties: { a: { $ref: "#/$defs/d0" } } } };
    const tools = new ToolsAtEdge({ given: { tools: [unique, deep] }, compile, onEvent: (event) => events.push(event) });
    await tools.settled();
    assert.equal(
      await tools.judge({ body: call("unique", { a: [{ i: 1 }, { i: 1 }] }), era: "modern", protocolVersion: undefined, headers: {} }),
      undefined,
    );
    assert.equal(
      await tools.judge({ body: call("deep", { a: "not an integer" }), era: "modern", protocolVersion: undefined, headers: {} }),
      undefined,
    );
    const reasons = events.flatMap((event) => (event.kind === "schema-not-compiled" ? [`${event.tool}: ${event.reason}`] : []));
    assert.deepEqual(reasons.sort(), [
      "deep: more than 24 schemas judged for one value (a $ref chain, anyOf/oneOf fan-out or recursion through them)",
      "unique: uniqueItems over items of no scalar type (every pair compared)",
    ]);
  });
});
