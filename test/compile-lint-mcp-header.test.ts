import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type Finding, lint, renderFindings } from "../src/compile/lint.js";
import { mcpHeaders } from "../src/compile/lint-rules.js";
import { inputOf } from "../src/compile/read-inputs.js";
import { repoRoot } from "./support/spec.js";

/** The x-mcp-header findings of one tool whose inputSchema has `properties`, every client profile on. */
function headerFindings(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Finding[] {
  const tools = [{ name: "execute_sql", inputSchema: { type: "object", properties, ...extra } }];
  return lint([inputOf("inline.json", Buffer.alloc(0), { tools }, "inline")]).findings.filter((f) => f.rule === "x-mcp-header");
}

const brief = (f: Finding) => [f.pointer, f.refusedBy.join(",")];
const region = (annotation: Record<string, unknown>) => ({ region: { type: "string", ...annotation } });

// Each constraint of MCP 2026-07-28 (Streamable HTTP, Custom Headers from Tool Parameters): a schema that breaks it
// and one that keeps it.
const cases: Array<
  [string, { fails: Record<string, unknown>; passes: Record<string, unknown>; extra?: Record<string, unknown>; says: RegExp }]
> = [
  [
    "the value is not empty",
    { fails: region({ "x-mcp-header": "" }), passes: region({ "x-mcp-header": "R" }), says: /its value is empty/ },
  ],
  [
    "the value is a string",
    { fails: region({ "x-mcp-header": 7 }), passes: region({ "x-mcp-header": "7" }), says: /its value 7 is not a string/ },
  ],
  [
    "the value is an RFC 9110 token: a space",
    {
      fails: region({ "x-mcp-header": "Cloud Region" }),
      passes: region({ "x-mcp-header": "Cloud-Region" }),
      says: /"Cloud Region" is not an HTTP field-name token/,
    },
  ],
  [
    "the value is an RFC 9110 token: a delimiter",
    {
      fails: region({ "x-mcp-header": "region:eu" }),
      passes: region({ "x-mcp-header": "!#$%&'*+-.^_`|~09azAZ" }),
      says: /not an HTTP field-name token/,
    },
  ],
  [
    "the value is an RFC 9110 token: CR and LF",
    {
      fails: region({ "x-mcp-header": "Region\r\nX-Admin: 1" }),
      passes: region({ "x-mcp-header": "Region" }),
      says: /not an HTTP field-name token/,
    },
  ],
  [
    "the value is an RFC 9110 token: a letter outside ASCII",
    { fails: region({ "x-mcp-header": "Région" }), passes: region({ "x-mcp-header": "Region" }), says: /not an HTTP field-name token/ },
  ],
  [
    "unique without regard to case",
    {
      fails: { region: { type: "string", "x-mcp-header": "Region" }, zone: { type: "string", "x-mcp-header": "REGION" } },
      passes: { region: { type: "string", "x-mcp-header": "Region" }, zone: { type: "string", "x-mcp-header": "Zone" } },
      says: /"REGION" names the same header as \/properties\/region\/x-mcp-header \(names are compared without case\)/,
    },
  ],
  [
    "a string, integer or boolean parameter: not number",
    {
      fails: { n: { type: "number", "x-mcp-header": "N" } },
      passes: { n: { type: "integer", "x-mcp-header": "N" } },
      says: /the parameter's type is "number"/,
    },
  ],
  [
    "a string, integer or boolean parameter: not object",
    {
      fails: { o: { type: "object", "x-mcp-header": "O" } },
      passes: { o: { type: "boolean", "x-mcp-header": "O" } },
      says: /type is "object"/,
    },
  ],
  [
    "a string, integer or boolean parameter: not array",
    {
      fails: { a: { type: "array", items: { type: "string" }, "x-mcp-header": "A" } },
      passes: { a: { type: "string", "x-mcp-header": "A" } },
      says: /type is "array"/,
    },
  ],
  [
    "a string, integer or boolean parameter: a type is declared",
    { fails: { r: { "x-mcp-header": "R" } }, passes: { r: { type: "string", "x-mcp-header": "R" } }, says: /the parameter has no type/ },
  ],
  [
    "a string, integer or boolean parameter: one type, not a list",
    {
      fails: { r: { type: ["string", "null"], "x-mcp-header": "R" } },
      passes: { r: { type: "string", "x-mcp-header": "R" } },
      says: /type is \["string","null"\]/,
    },
  ],
  [
    "reached through properties alone: nested objects are fine",
    {
      fails: { rows: { type: "array", items: { type: "object", properties: { id: { type: "string", "x-mcp-header": "Id" } } } } },
      passes: { row: { type: "object", properties: { id: { type: "string", "x-mcp-header": "Id" } } } },
      says: /it is under "items"; only a chain of "properties" from the root reaches a parameter/,
    },
  ],
];
for (const keyword of ["anyOf", "oneOf", "allOf"])
  cases.push([
    `reached through properties alone: not under ${keyword}`,
    {
      fails: { target: { [keyword]: [{ type: "string", "x-mcp-header": "Target" }] } },
      passes: { target: { type: "string", "x-mcp-header": "Target", [keyword]: [{ minLength: 1 }] } },
      says: new RegExp(`it is under "${keyword}"`),
    },
  ]);
for (const keyword of ["not", "if", "then", "else", "additionalProperties", "propertyNames", "contains"])
  cases.push([
    `reached through properties alone: not under ${keyword}`,
    {
      fails: { target: { type: "string", [keyword]: { type: "string", "x-mcp-header": "Target" } } },
      passes: { target: { type: "string", "x-mcp-header": "Target", [keyword]: { type: "string" } } },
      says: new RegExp(`it is under "${keyword}"`),
    },
  ]);
cases.push([
  "reached through properties alone: not through a $ref (the annotation sits under $defs)",
  {
    fails: { region: { $ref: "#/$defs/region" } },
    extra: { $defs: { region: { type: "string", "x-mcp-header": "Region" } } },
    passes: { region: { $ref: "#/$defs/region", "x-mcp-header": "Region", type: "string" } },
    says: /it is under "\$defs"/,
  },
]);
cases.push([
  "reached through properties alone: not under patternProperties",
  {
    fails: {},
    extra: { patternProperties: { "^r": { type: "string", "x-mcp-header": "R" } } },
    passes: { r: { type: "string", "x-mcp-header": "R" } },
    says: /it is under "patternProperties"/,
  },
]);

describe("--lint checks x-mcp-header by the constraints of MCP 2026-07-28", () => {
  for (const [constraint, { fails, passes, extra, says }] of cases)
    test(`${constraint}: broken, one finding that says so and that the tool is dropped; kept, none`, () => {
      const found = headerFindings(fails, extra);
      assert.equal(found.length, 1, JSON.stringify(found));
      assert.match(found[0]!.message, says);
      assert.match(found[0]!.message, /a client over Streamable HTTP leaves the tool out of tools\/list$/);
      assert.equal(found[0]!.role, "input");
      assert.ok(found[0]!.pointer.startsWith("/inputSchema/") && found[0]!.pointer.endsWith("/x-mcp-header"), found[0]!.pointer);
      assert.deepEqual(headerFindings(passes, extra === undefined ? {} : { $defs: {} }), []);
    });

  test("the spec's own example (execute_sql, Region on a string) has no finding", () => {
    assert.deepEqual(
      headerFindings({ region: { type: "string", description: "The region", "x-mcp-header": "Region" }, query: { type: "string" } }),
      [],
    );
  });

  test("located where it is; refused by the MCP schema and the SDK's client, by the MCP schema alone where the SDK does not look", () => {
    assert.deepEqual(headerFindings({ a: { type: "object", properties: { b: { type: "number", "x-mcp-header": "B" } } } }).map(brief), [
      ["/inputSchema/properties/a/properties/b/x-mcp-header", "mcp,sdk"],
    ]);
    // draft-07 `dependencies`: off the properties chain for the specification; the SDK's client does not walk it.
    const draft07 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      dependencies: { a: { properties: { b: { type: "string", "x-mcp-header": "B" } } } },
    };
    assert.deepEqual(headerFindings({}, draft07).map(brief), [["/inputSchema/dependencies/a/properties/b/x-mcp-header", "mcp"]]);
  });

  test("every broken constraint of one annotation in one finding; one finding per annotation", () => {
    const found = headerFindings({ a: { anyOf: [{ "x-mcp-header": "" }] }, b: { type: "number", "x-mcp-header": "B B" } });
    assert.deepEqual(
      found.map((f) => f.pointer),
      ["/inputSchema/properties/a/anyOf/0/x-mcp-header", "/inputSchema/properties/b/x-mcp-header"],
    );
    assert.match(found[0]!.message, /under "anyOf".*its value is empty.*no type/);
    assert.match(found[1]!.message, /"B B" is not an HTTP field-name token.*type is "number"/);
  });

  test("the root of inputSchema is no parameter", () => {
    const found = mcpHeaders({ type: "object", "x-mcp-header": "Root" });
    assert.equal(found.length, 1);
    assert.match(found[0]!.message, /on the root of inputSchema, which is no parameter/);
  });

  test("outputSchema and plain schemas: the annotation means nothing there and is not checked", () => {
    const bad = { type: "object", properties: { n: { type: "number", "x-mcp-header": "" } } };
    const input = inputOf(
      "inline.json",
      Buffer.alloc(0),
      [{ name: "t", inputSchema: { type: "object" }, outputSchema: bad }, bad],
      "inline",
    );
    assert.deepEqual(
      lint([input]).findings.filter((f) => f.rule === "x-mcp-header"),
      [],
    );
  });

  test("the server's text is quoted bounded and escaped: a 100,000-character value with CR, LF and ESC", () => {
    const value = `Region\r\n\u001b[31m${"x".repeat(100_000)}`;
    const report = lint([
      inputOf(
        "inline.json",
        Buffer.alloc(0),
        { tools: [{ name: "t", inputSchema: { type: "object", properties: { r: { type: "string", "x-mcp-header": value } } } }] },
        "inline",
      ),
    ]);
    const found = report.findings.filter((f) => f.rule === "x-mcp-header");
    assert.equal(found.length, 1);
    assert.ok(found[0]!.message.length < 400, `${found[0]!.message.length} characters`);
    const line = renderFindings(report)
      .split("\n")
      .find((l) => l.includes("[x-mcp-header]"))!;
    assert.ok(line.length < 600, `${line.length} characters`);
    assert.doesNotMatch(line, /[\r\u001b]/);
    assert.match(line, /refused by mcp, sdk$/);
    // --json: the message is JSON text, its control characters escaped by JSON itself.
    assert.doesNotMatch(JSON.stringify(found[0]), /[\r\n\u001b]/);
  });
});

test("the tools the lint reports as refused by the sdk are exactly those the official client's listTools() drops (modern era, Streamable HTTP)", async () => {
  const tools = cases.flatMap(([, { fails, passes, extra }], i) => [
    { name: `case${i}_fails`, inputSchema: { type: "object", properties: fails, ...extra } },
    { name: `case${i}_passes`, inputSchema: { type: "object", properties: passes, ...(extra === undefined ? {} : { $defs: {} }) } },
  ]);
  tools.push({ name: "root_annotation", inputSchema: { type: "object", properties: {}, "x-mcp-header": "Root" } as never });
  tools.push({
    name: "draft07_dependencies",
    inputSchema: {
      type: "object",
      properties: {},
      dependencies: { a: { properties: { b: { type: "string", "x-mcp-header": "B" } } } },
    } as never,
  });
  const report = lint([inputOf("cases.json", Buffer.alloc(0), { tools }, "cases")]);
  const sdkRefuses = new Set(report.findings.filter((f) => f.rule === "x-mcp-header" && f.refusedBy.includes("sdk")).map((f) => f.tool));
  assert.equal(sdkRefuses.size, cases.length + 1);

  const dir = mkdtempSync(join(tmpdir(), "wymcp-mcp-header-"));
  const file = join(dir, "tools.json");
  writeFileSync(file, JSON.stringify({ tools }));
  const child = spawn(process.execPath, ["--import", "tsx", join(repoRoot, "test/support/tools-server.ts"), file, "--http"], {
    cwd: repoRoot,
    env: { ...process.env, TOOLS_PAGE: "10" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  // Pinned to 2026-07-28: the client drops tools over x-mcp-header only in the modern era.
  const client = new Client({ name: "wymcp-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const warned: string[] = [];
  const warn = console.warn;
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        if (out.includes("\n")) resolve(out.trim());
      });
      child.once("exit", (code) => reject(new Error(`the server exited (${code}) before it listened`)));
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    // The client warns once per tool it drops; the warnings are kept, not printed.
    console.warn = (...args: unknown[]) => void warned.push(args.map(String).join(" "));
    const { tools: kept } = await client.listTools();
    console.warn = warn;
    const keptNames = new Set(kept.map((t) => t.name));
    const dropped = new Set(tools.map((t) => t.name).filter((name) => !keptNames.has(name)));
    assert.deepEqual([...dropped].sort(), [...sdkRefuses].sort());
    assert.equal(warned.length, dropped.size);
  } finally {
    console.warn = warn;
    await client.close().catch(() => {});
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
    rmSync(dir, { recursive: true, force: true });
  }
});
