import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { type Finding, lint } from "../src/compile/lint.js";
import { type Client, CLIENTS, danglingRefs, RULES } from "../src/compile/lint-rules.js";
import { inputOf, readInput } from "../src/compile/read-inputs.js";
import { repoRoot } from "./support/spec.js";

const referenceDir = join(repoRoot, "test/fixtures/tool-schemas");
const refused = join(repoRoot, "test/fixtures/lint/refused-tools.json");

/** Lints tools given inline, as one input. */
function lintTools(tools: unknown[], clients: readonly Client[] = CLIENTS) {
  const value = { tools };
  return lint([inputOf("inline.json", Buffer.alloc(0), value, "inline")], clients);
}

const brief = (f: Finding) => [f.tool, f.pointer, f.rule, f.refusedBy.join(",")];

test("the reference servers' tools (8 servers, 198 tools, 221 schemas): no finding for any client", async () => {
  const inputs = await Promise.all(
    readdirSync(referenceDir)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => readInput(join(referenceDir, f))),
  );
  const report = lint(inputs);
  assert.deepEqual(report.findings.map(brief), []);
  assert.equal(report.tools, 198);
  assert.equal(report.schemas, 221);
});

test("tools clients refused, as their public bug reports show them: each finding located, with its rule and who refuses it", async () => {
  const report = lint([await readInput(refused)]);
  assert.deepEqual(report.findings.map(brief), [
    ["list_schedules", "/inputSchema/$defs/ScheduleQuery/properties/team_ids", "array-items", "openai"],
    ["upload_design_md", "/outputSchema/properties/screen/$ref", "ref", "sdk"],
    ["run", "/inputSchema/oneOf", "top-level-combinator", "anthropic"],
    ["ruvllm_chat_format", "/inputSchema/properties/messages", "array-items", "vscode,openai"],
    ["ruvllm_chat_format", "/inputSchema/properties/stopSequences", "array-items", "vscode,openai"],
    ["hooks_intelligence_learn", "/inputSchema/properties/trajectoryIds", "array-items", "vscode,openai"],
    ["cipher_extract_and_operate_memory", "/inputSchema/properties/interaction", "array-items", "openai"],
    ["sendEmailTool", "/inputSchema", "root-object", "mcp,sdk,vscode,openai,anthropic,gemini"],
    ["caldav-mcp.create-event", "/name", "tool-name", "openai,anthropic"],
    ["Dockerfile problems scanner", "/name", "tool-name", "openai,anthropic,gemini"],
    ["knowledge_books", "/inputSchema", "root-object", "mcp,sdk,vscode,openai,anthropic,gemini"],
  ]);
  const source = JSON.parse(readFileSync(refused, "utf8")) as { source: { tools: Record<string, string> }; tools: { name: string }[] };
  for (const { name } of source.tools)
    assert.match(source.source.tools[name] ?? "", /^https:\/\/github\.com\//, `${name} names its report`);
});

describe("--client picks the profiles; the MCP schema's and the SDK's rules always apply", () => {
  const tools = [
    { name: "dotted.name", inputSchema: { type: "object", anyOf: [{ required: ["a"] }], properties: { a: { type: "array" } } } },
  ];
  test("none: the array without items (a base rule) stays; the name and the root anyOf go", () => {
    assert.deepEqual(lintTools(tools, []).findings.map(brief), [
      ["dotted.name", "/inputSchema/properties/a", "array-items", "vscode,openai"],
    ]);
  });
  test("anthropic: its name rule and its root-combinator rule join", () => {
    assert.deepEqual(
      lintTools(tools, ["anthropic"])
        .findings.map(brief)
        .map((f) => f[2]),
      ["tool-name", "top-level-combinator", "array-items"],
    );
  });
  test("gemini allows dots in names; openai does not", () => {
    assert.deepEqual(
      lintTools(tools, ["gemini"]).findings.filter((f) => f.rule === "tool-name"),
      [],
    );
    assert.equal(lintTools(tools, ["openai"]).findings.filter((f) => f.rule === "tool-name").length, 1);
  });
});

test("a listed tool without an inputSchema is a finding, not a schema", () => {
  assert.deepEqual(lintTools([{ name: "bare", description: "no schema" }], []).findings.map(brief), [
    ["bare", "/inputSchema", "root-object", "mcp,sdk,vscode,openai,anthropic,gemini"],
  ]);
});

describe("meta-schemas: the declared dialect's, VS Code's draft-07, Anthropic's 2020-12", () => {
  test("a type that is no JSON type fails every meta-schema: one finding, every refuser", () => {
    const report = lintTools([{ name: "t", inputSchema: { type: "object", properties: { a: { type: "sting" } } } }]);
    const meta = report.findings.filter((f) => f.rule === "meta-schema");
    assert.deepEqual(meta.map(brief), [["t", "/inputSchema/properties/a/type", "meta-schema", "mcp,vscode,anthropic"]]);
    assert.match(meta[0]!.message, /2020-12, VS Code's draft-07/);
  });
  test("a draft-07 tuple (items as an array) is valid draft-07 and refused only by Anthropic's 2020-12 check", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { p: { type: "array", items: [{ type: "number" }] } },
    };
    assert.deepEqual(lintTools([{ name: "t", inputSchema: schema }]).findings.map(brief), [
      ["t", "/inputSchema/properties/p/items", "meta-schema", "anthropic"],
    ]);
  });
  test("VS Code coerces types as it checks: the tool's own schema is left as it was", () => {
    const schema = { type: "object", properties: { n: { type: "number", minimum: "5" } } };
    const before = JSON.stringify(schema);
    const report = lintTools([{ name: "t", inputSchema: schema }]);
    assert.equal(JSON.stringify(schema), before);
    // Valid for VS Code (its Ajv coerces "5"), not for 2020-12, and the SDK's Ajv cannot compile it.
    assert.deepEqual(report.findings.map(brief), [
      ["t", "/inputSchema/properties/n/minimum", "meta-schema", "mcp,anthropic"],
      ["t", "/inputSchema", "sdk-compile", "sdk"],
    ]);
  });
  test("a draft-06 schema is judged by the draft-06 meta-schema; an unknown $schema by none, named as such", () => {
    const draft06 = { $schema: "http://json-schema.org/draft-06/schema#", type: "object", properties: { a: { type: "string" } } };
    assert.deepEqual(lintTools([{ name: "t", inputSchema: draft06 }], []).findings, []);
    const draft04 = { $schema: "http://json-schema.org/draft-04/schema#", type: "object" };
    assert.deepEqual(lintTools([{ name: "t", inputSchema: draft04 }], []).findings.map(brief), [
      ["t", "/inputSchema/$schema", "dialect", "sdk"],
    ]);
  });
});

describe("what the SDK cannot compile", () => {
  test("a pattern that is no regular expression under the u flag is located", () => {
    const report = lintTools([{ name: "t", inputSchema: { type: "object", properties: { a: { type: "string", pattern: "(?<x" } } } }], []);
    assert.deepEqual(report.findings.map(brief), [["t", "/inputSchema/properties/a/pattern", "sdk-compile", "sdk"]]);
  });
  test("a schema nested 3,000 levels deep: one finding, and the run goes on to the next tool", () => {
    let schema: object = { type: "string" };
    for (let i = 0; i < 3000; i++) schema = { type: "object", properties: { a: schema } };
    const report = lintTools([
      { name: "deep", inputSchema: schema },
      { name: "next", inputSchema: { type: "string" } },
    ]);
    assert.deepEqual(
      report.findings.map((f) => [f.tool, f.rule]),
      [
        ["deep", "sdk-compile"],
        ["next", "root-object"],
      ],
    );
  });
});

describe("$ref resolution agrees with Ajv's", () => {
  const cases: Array<[string, object]> = [
    ["a $defs entry", { $defs: { a: { type: "string" } }, properties: { x: { $ref: "#/$defs/a" } } }],
    ["a missing $defs entry", { properties: { x: { $ref: "#/$defs/a" } } }],
    ["definitions (draft-07 style)", { definitions: { a: {} }, properties: { x: { $ref: "#/definitions/a" } } }],
    ["an escaped key", { $defs: { "a/b": {} }, properties: { x: { $ref: "#/$defs/a~1b" } } }],
    ["a percent-encoded key", { $defs: { "a b": {} }, properties: { x: { $ref: "#/$defs/a%20b" } } }],
    ["the root", { properties: { x: { $ref: "#" } } }],
    ["an anchor", { $defs: { a: { $anchor: "here" } }, properties: { x: { $ref: "#here" } } }],
    ["a missing anchor", { properties: { x: { $ref: "#nowhere" } } }],
    [
      "an embedded resource by $id",
      { $id: "https://e.test/root", $defs: { a: { $id: "child", type: "string" } }, properties: { x: { $ref: "child" } } },
    ],
    [
      "a pointer inside an embedded resource",
      { $id: "https://e.test/root", $defs: { a: { $id: "child", $defs: { b: {} } } }, properties: { x: { $ref: "child#/$defs/b" } } },
    ],
    ["another document", { properties: { x: { $ref: "https://elsewhere.test/s.json" } } }],
    ["an array index", { prefixItems: [{ type: "string" }], properties: { x: { $ref: "#/prefixItems/0" } } }],
    ["an index past the end", { prefixItems: [{ type: "string" }], properties: { x: { $ref: "#/prefixItems/1" } } }],
  ];
  for (const [name, schema] of cases) {
    test(name, () => {
      let ajvResolves = true;
      try {
        new Ajv2020({ strict: false }).compile(schema);
      } catch (error) {
        if (!("missingRef" in (error as object))) throw error;
        ajvResolves = false;
      }
      assert.equal(danglingRefs(schema).length === 0, ajvResolves);
    });
  }
});

test("docs/tool-schemas.md lists every rule with each of its sources", () => {
  const doc = readFileSync(join(repoRoot, "docs/tool-schemas.md"), "utf8");
  for (const rule of RULES) {
    assert.ok(doc.includes(`\`${rule.id}\``), `${rule.id} is not in docs/tool-schemas.md`);
    for (const url of rule.sources.flatMap((s) => s.match(/https:\/\/[^\s),]+/g) ?? []))
      assert.ok(doc.includes(url), `${rule.id}: ${url} is not in docs/tool-schemas.md`);
  }
});

describe("wymcp compile --lint through the built CLI", () => {
  const cli = join(repoRoot, "dist/cli.js");
  test("exit 1 with one line per finding and a summary; 0 and a summary when there is none", () => {
    const bad = spawnSync(process.execPath, [cli, "compile", refused, "--lint"], { encoding: "utf8" });
    assert.equal(bad.status, 1, bad.stderr);
    const lines = bad.stdout.trim().split("\n");
    assert.equal(lines.length, 12);
    assert.match(
      lines[0]!,
      /refused-tools\.json {2}tool list_schedules {2}\/inputSchema\/\$defs\/ScheduleQuery\/properties\/team_ids {2}\[array-items\]/,
    );
    assert.match(lines.at(-1)!, /^wymcp compile --lint: 11 findings in 10 of 11 schemas of 10 tools/);
    const good = spawnSync(process.execPath, [cli, "compile", join(referenceDir, "server-memory.json"), "--lint"], { encoding: "utf8" });
    assert.equal(good.status, 0, good.stderr);
    assert.match(good.stdout, /^wymcp compile --lint: no findings in 18 schemas of 9 tools/);
  });
  test("--json: one object per finding on stdout, the summary on stderr", () => {
    const run = spawnSync(process.execPath, [cli, "compile", refused, "--lint", "--json", "--client", "none"], { encoding: "utf8" });
    assert.equal(run.status, 1);
    const findings = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Finding);
    assert.equal(findings.length, 8);
    assert.deepEqual(Object.keys(findings[0]!), ["source", "tool", "role", "pointer", "rule", "message", "refusedBy"]);
    assert.match(run.stderr, /^wymcp compile --lint: 8 findings/);
  });
  test("usage errors exit 2: an unknown client, --client without --lint", () => {
    for (const args of [
      [refused, "--lint", "--client", "cursor"],
      [refused, "--out", "x", "--client", "vscode"],
    ]) {
      const run = spawnSync(process.execPath, [cli, "compile", ...args], { encoding: "utf8" });
      assert.equal(run.status, 2, args.join(" "));
      assert.match(run.stderr, /^wymcp compile: /);
    }
  });
});
