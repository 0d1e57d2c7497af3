/**
 * @module fuzz/adversarial/edge: the two families of the tools at the edge's path (core/tools-at-edge.ts, as the Node
 * and Fetch faces run it after admission: validateMcpRequest with the transport's header rules, then the tool's
 * `Mcp-Param-{Name}` headers and its arguments, compiled by `wymcp compile`'s engine).
 * - `headers`: a valid 2026-07-28 `tools/call` whose header values an attacker shapes: long, repeated, in the Base64
 *   sentinel (valid, almost valid, invalid at the end), wrapped in whitespace, many `Mcp-Param` headers; n is the
 *   value's length, the number of repeats or of headers, read by a Node face (`req.headers`, and `headersDistinct` for
 *   a value with a comma) and by a Fetch `Headers` (which joins a repeat with ", ").
 * - `schemas`: a server's `inputSchema` that costs the most per byte of the client's arguments: patterns that backtrack
 *   without a nested group (the string argument built from regex.ts's pump inputs), deep `$ref` chains, recursive
 *   `$ref` with a deep argument object, `anyOf`/`oneOf` fan-out, `uniqueItems` over objects; n grows the arguments.
 */
import { judgeBody } from "../../src/core/admission.js";
import { resolveLimits } from "../../src/options/options.js";
import { ToolsAtEdge, type ToolSchemaCompiler, type ToolsEvent } from "../../src/tools/tools-at-edge.js";
import type { RequestHeaders } from "../../src/core/header-body.js";
import { encodeHeaderValue } from "../../src/core/header-value.js";
import { backtrackingInputs } from "./regex.js";

/** Node's default `--max-http-header-size`: the whole header section of a request, in bytes. */
export const NODE_MAX_HEADER_BYTES = 16 * 1024;

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "adversarial", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

export type Face = "node" | "fetch";

/** One request: its body, its header lines (in order, repeats apart), the tools the face knows. */
export interface EdgeRequest {
  body: Record<string, unknown>;
  headers: Array<[string, string]>;
  tools: ToolsAtEdge;
}

export interface EdgeCase {
  family: "headers" | "schemas";
  label: string;
  /** The request with n (characters, repeats, headers or items). */
  request(n: number): EdgeRequest;
  /** What the path should answer: `pass`, a header refusal, an argument refusal, or passed on unjudged. */
  expect: "pass" | "header" | "arguments" | "unjudged";
  /** The largest n whose headers fit `NODE_MAX_HEADER_BYTES` (headers), or whose body fits the body limit (schemas). */
  bound: "headers" | "body";
}

export function call(name: string, args: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id: 1, method: "tools/call", params: { _meta: META, name, arguments: args } };
}

/** The header lines a 2026-07-28 client sends with a `tools/call` of `name`, plus `extra`. */
export function baseHeaders(name: string, extra: Array<[string, string]> = []): Array<[string, string]> {
  return [
    ["content-type", "application/json"],
    ["accept", "application/json, text/event-stream"],
    ["mcp-protocol-version", "2026-07-28"],
    ["mcp-method", "tools/call"],
    ["mcp-name", encodeHeaderValue(name)],
    ...extra,
  ];
}

/** Bytes of the header section: `name: value\r\n` per line. */
export function headerBytes(lines: ReadonlyArray<[string, string]>): number {
  let bytes = 0;
  for (const [name, value] of lines) bytes += name.length + 2 + Buffer.byteLength(value) + 2;
  return bytes;
}

/**
 * A face's reader of `lines`, built per request as the face builds it: Node's `req.headers` (a repeat joined with ", ")
 * and, on a value with a comma, `req.headersDistinct` made from the raw lines (core's nodeHeader); a Fetch `Headers`.
 */
export function reader(face: Face, lines: ReadonlyArray<[string, string]>): () => RequestHeaders {
  if (face === "fetch") return () => new Headers(lines as Array<[string, string]>);
  return () => {
    const joined: Record<string, string> = Object.create(null);
    for (const [name, value] of lines) joined[name] = joined[name] === undefined ? value : `${joined[name]}, ${value}`;
    let distinct: Record<string, string[]> | undefined;
    return (name: string) => {
      const value = joined[name];
      if (value === undefined || !value.includes(",")) return value;
      if (!distinct) {
        distinct = Object.create(null) as Record<string, string[]>;
        for (const [n, v] of lines) (distinct[n] ??= []).push(v);
      }
      return distinct[name];
    };
  };
}

/** The gates' default limits (the nesting bound among them). */
const LIMITS = resolveLimits({});

/**
 * The whole path after the body is parsed: admission (the nesting bound, validateMcpRequest with the header rules),
 * then the tools at the edge.
 */
export function judgeAtEdge(request: EdgeRequest, headers: RequestHeaders): "pass" | "header" | "arguments" | "refused" {
  const admission = judgeBody(request.body, { era: "modern", protocolVersion: "2026-07-28", headers }, LIMITS);
  if (!admission.ok)
    return admission.status === 400 && admission.reason === "invalid-message" && admission.response.error.code === -32020
      ? "header"
      : "refused";
  const version = typeof headers === "function" ? headers("mcp-protocol-version") : undefined;
  const refusal = request.tools.judge({
    body: request.body,
    era: "modern",
    protocolVersion: typeof version === "string" ? version : "2026-07-28",
    headers,
  });
  if (refusal instanceof Promise) throw new Error("the tool's schema is still compiling");
  if (refusal === undefined) return "pass";
  return refusal.check === "param-header" ? "header" : "arguments";
}

function toolsFor(tools: unknown[], compile: ToolSchemaCompiler | undefined, onEvent?: (event: ToolsEvent) => void): ToolsAtEdge {
  return new ToolsAtEdge({ given: { tools }, learn: false, ...(compile ? { compile } : {}), ...(onEvent ? { onEvent } : {}) });
}

const B64 = (text: string) => encodeHeaderValue(`\u0000${text}`);

/** The header family: a tool mirroring two string arguments into `Mcp-Param-Q` and `Mcp-Param-Region`. */
export function headerCases(compile: ToolSchemaCompiler | undefined): EdgeCase[] {
  const schema = {
    type: "object",
    properties: {
      q: { type: "string", "x-mcp-header": "Q" },
      region: { type: "string", "x-mcp-header": "Region" },
    },
    required: ["q"],
  };
  const tools = toolsFor([{ name: "lookup", inputSchema: schema }], compile);
  const one = (
    label: string,
    expect: EdgeCase["expect"],
    build: (n: number) => { args: object; extra: Array<[string, string]>; name?: string; nameHeader?: string },
  ): EdgeCase => ({
    family: "headers",
    label,
    expect,
    bound: "headers",
    request(n) {
      const { args, extra, name, nameHeader } = build(n);
      const headers = baseHeaders(name ?? "lookup", extra);
      if (nameHeader !== undefined) headers[4] = ["mcp-name", nameHeader];
      return { body: call(name ?? "lookup", args), headers, tools };
    },
  });
  const x = (n: number) => "x".repeat(n);
  const cases: EdgeCase[] = [
    one("Mcp-Param-Q: n characters, equal to the argument", "pass", (n) => ({ args: { q: x(n) }, extra: [["mcp-param-q", x(n)]] })),
    one("Mcp-Param-Q: n characters, the last differs", "header", (n) => ({ args: { q: x(n) }, extra: [["mcp-param-q", `${x(n - 1)}y`]] })),
    one("Mcp-Name: n characters, the last differs from params.name", "header", (n) => ({
      args: { q: "a" },
      extra: [["mcp-param-q", "a"]],
      name: x(n),
      nameHeader: `${x(n - 1)}y`,
    })),
    one("Mcp-Param-Q: sentinel of n characters, valid", "pass", (n) => {
      const q = `\u0000${x(Math.floor((n * 3) / 4))}`;
      return { args: { q }, extra: [["mcp-param-q", encodeHeaderValue(q)]] };
    }),
    one("Mcp-Param-Q: sentinel of n characters, invalid at the end", "header", (n) => {
      const q = `\u0000${x(Math.floor((n * 3) / 4))}`;
      const value = encodeHeaderValue(q);
      return { args: { q }, extra: [["mcp-param-q", `${value.slice(0, -3)}!?=`]] };
    }),
    one("Mcp-Param-Q: sentinel of n characters, stray bits at the end", "header", (n) => {
      const value = B64(x(Math.floor((n * 3) / 4) + 1));
      const payload = value.slice(9, -2);
      const bad = payload.endsWith("==") ? `${payload.slice(0, -3)}B==` : `${payload.slice(0, -2)}B=`;
      return { args: { q: "\u0000" }, extra: [["mcp-param-q", `=?base64?${bad}?=`]] };
    }),
    one("Mcp-Param-Q: sentinel of n characters, invalid UTF-8 at the end", "header", (n) => {
      let binary = "x".repeat(Math.floor((n * 3) / 4));
      binary += "\u00c3";
      return { args: { q: "x" }, extra: [["mcp-param-q", `=?base64?${btoa(binary)}?=`]] };
    }),
    one("Mcp-Name: sentinel of n characters, valid", "pass", (n) => {
      const name = `\u0000${x(Math.floor((n * 3) / 4))}`;
      return { args: { q: "a" }, extra: [["mcp-param-q", "a"]], name };
    }),
    one("Mcp-Param-Q: n spaces and tabs around the value", "pass", (n) => ({
      args: { q: "v" },
      extra: [["mcp-param-q", `${" \t".repeat(n / 2)}v${"\t ".repeat(n / 2)}`]],
    })),
    one("Mcp-Param-Q repeated n times, the same value", "pass", (n) => ({
      args: { q: "v" },
      extra: new Array<[string, string]>(n).fill(["mcp-param-q", "v"]),
    })),
    one("Mcp-Param-Q repeated n times, the last differs", "header", (n) => ({
      args: { q: "v" },
      extra: [...new Array<[string, string]>(n - 1).fill(["mcp-param-q", "v"]), ["mcp-param-q", "w"]],
    })),
    one("Mcp-Param-Q repeated n times, each a sentinel", "pass", (n) => ({
      args: { q: "\u0000v" },
      extra: new Array<[string, string]>(n).fill(["mcp-param-q", encodeHeaderValue("\u0000v")]),
    })),
    one("Mcp-Name repeated n times, the same value", "pass", (n) => ({
      args: { q: "a" },
      extra: [["mcp-param-q", "a"], ...new Array<[string, string]>(n - 1).fill(["mcp-name", "lookup"])],
    })),
    one("n other headers", "pass", (n) => ({
      args: { q: "a" },
      extra: [["mcp-param-q", "a"], ...Array.from({ length: n }, (_, i): [string, string] => [`x-h${i}`, "v"])],
    })),
  ];
  // Many Mcp-Param headers: a tool declaring n of them (the server's schema, compiled outside the timing).
  const wide = new Map<number, ToolsAtEdge>();
  const wideTools = (n: number) => {
    let t = wide.get(n);
    if (!t) {
      const properties: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) properties[`p${i}`] = { type: "string", "x-mcp-header": `P${i}` };
      t = toolsFor([{ name: "wide", inputSchema: { type: "object", properties } }], compile);
      wide.set(n, t);
    }
    return t;
  };
  for (const last of [false, true]) {
    cases.push({
      family: "headers",
      label: `n Mcp-Param headers, one per declared argument${last ? ", the last differs" : ""}`,
      expect: last ? "header" : "pass",
      bound: "headers",
      request(n) {
        const args: Record<string, string> = {};
        const extra: Array<[string, string]> = [];
        for (let i = 0; i < n; i++) {
          args[`p${i}`] = "v";
          extra.push([`mcp-param-p${i}`, last && i === n - 1 ? "w" : "v"]);
        }
        return { body: call("wide", args), headers: baseHeaders("wide", extra), tools: wideTools(n) };
      },
    });
  }
  return cases;
}

/** Tools of the schema family, each compiled once (outside the timing). */
export interface SchemaCase extends EdgeCase {
  schema: object;
  /** Why the edge does not run the schema (its calls pass to the server unjudged), once its compilation settled. */
  notRun(): string | undefined;
}

const PATTERNS = [
  "^\\d*\\d*\\d*x$",
  "^\\d*\\d*x$",
  "^[a-z]*[a-z0-9]*$",
  "[a-z]+x",
  "^[^@]+@[^@]+\\.[^@]+$",
  "^.+@.+$",
  "^(?:a|aa){40}$",
  "^(a|ab)*c",
  "^\\d{1,1000}\\d{1,1000}$",
  "^[a-z][a-z0-9-]*$",
  "^[\\w.+-]+@[\\w-]+\\.[\\w.-]+$",
  "^https?://[^\\s/]+(/\\S*)?$",
];

/**
 * The pattern shapes that backtrack on RegExp, each with the argument that makes it: an unanchored run before `$`
 * (quadratic: entered from every start), nested and adjacent runs (exponential, polynomial), and a patternProperties
 * key. At the edge each runs on the linear-time engine: the bound of test/edge-pattern-bound.test.ts and of the bench.
 */
export const PATTERN_SHAPES: ReadonlyArray<{ pattern: string; text: (n: number) => string; key?: true; growth: string }> = [
  { pattern: "[^/]+$", text: (n) => `${"a".repeat(n)}/`, growth: "quadratic" },
  { pattern: "\\d+$", text: (n) => `${"0".repeat(n)}!`, growth: "quadratic" },
  { pattern: "\\w+$", text: (n) => `${"a".repeat(n)}!`, growth: "quadratic" },
  { pattern: "[a-z0-9]+$", text: (n) => `${"a".repeat(n)}!`, growth: "quadratic" },
  { pattern: "\\s+$", text: (n) => `${" ".repeat(n)}!`, growth: "quadratic" },
  { pattern: "^(a+)+$", text: (n) => `${"a".repeat(n)}!`, growth: "exponential" },
  { pattern: "(a+)+b", text: (n) => "a".repeat(n), growth: "exponential" },
  { pattern: "^\\d*\\d*x$", text: (n) => `${"0".repeat(n)}!`, growth: "quadratic" },
  { pattern: "[a-z]+x", text: (n) => "a".repeat(n), growth: "quadratic" },
  { pattern: "^[^@]+@[^@]+\\.[^@]+$", text: (n) => `a@${"a".repeat(n)}`, growth: "quadratic" },
  { pattern: "[^/]+$", text: (n) => `${"a".repeat(n)}/`, key: true, growth: "quadratic" },
  // Counted repeats side by side, as large as the edge runs (linear-pattern.ts, MAX_PROGRAM_SIZE): the most per character.
  { pattern: "\\d{1,240}\\d{1,240}x", text: (n) => `x${"0".repeat(n)}`, growth: "polynomial" },
];

/** The tool of one pattern shape, known to a face, and its `tools/call` with an argument of n characters. */
export function patternCase(
  shape: (typeof PATTERN_SHAPES)[number],
  compile: ToolSchemaCompiler | undefined,
): { tools: ToolsAtEdge; body: (n: number) => Record<string, unknown> } {
  const schema = shape.key
    ? { type: "object", patternProperties: { [shape.pattern]: {} }, additionalProperties: false }
    : { type: "object", properties: { s: { type: "string", pattern: shape.pattern } }, required: ["s"] };
  return {
    tools: toolsFor([{ name: "t", inputSchema: schema }], compile),
    body: (n) => call("t", shape.key ? { [shape.text(n)]: 1 } : { s: shape.text(n) }),
  };
}

/** The schema family's cases; `tools` compiles each schema once and returns the face's tools. */
export function schemaCases(compile: ToolSchemaCompiler | undefined): SchemaCase[] {
  const cases: SchemaCase[] = [];
  const make = (label: string, schema: object, args: (n: number) => unknown, expect: EdgeCase["expect"]): void => {
    let reason: string | undefined;
    const tools = toolsFor([{ name: "t", inputSchema: schema }], compile, (event) => {
      if (event.kind === "schema-not-compiled") reason = event.reason;
    });
    cases.push({
      family: "schemas",
      label,
      schema,
      expect,
      bound: "body",
      notRun: () => reason,
      request: (n) => ({ body: call("t", args(n)), headers: baseHeaders("t"), tools }),
    });
  };
  for (const pattern of PATTERNS) {
    const inputs = backtrackingInputs(pattern);
    // The pump input of the first repeat whose failure costs the most: all are measured by the bench, the worst kept.
    for (const input of inputs.slice(0, 3))
      make(
        `pattern /${pattern}/, ${input.name}`,
        { type: "object", properties: { s: { type: "string", pattern } }, required: ["s"] },
        (n) => ({ s: input.text(n) }),
        "arguments",
      );
  }
  make(
    "patternProperties key /^[a-z]*[a-z0-9]*$/, a key of n characters",
    { type: "object", patternProperties: { "^[a-z]*[a-z0-9]*$": { type: "string" } }, additionalProperties: false },
    (n) => ({ [`${"a".repeat(n)}!`]: "v" }),
    "arguments",
  );
  for (const depth of [8, 23, 500]) {
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < depth; i++) defs[`d${i}`] = i === depth - 1 ? { type: "integer" } : { $ref: `#/$defs/d${i + 1}` };
    make(
      `$ref chain ${depth} deep, n valid items each through it`,
      { type: "object", $defs: defs, properties: { a: { type: "array", items: { $ref: "#/$defs/d0" } } } },
      (n) => ({ a: new Array(n).fill(1) }),
      "pass",
    );
  }
  const recursive = {
    type: "object",
    $defs: { node: { type: "object", properties: { v: { type: "integer" }, kids: { type: "array", items: { $ref: "#/$defs/node" } } } } },
    properties: { root: { $ref: "#/$defs/node" } },
  };
  const tree = (n: number, valid: boolean) => {
    // A chain 28 deep (56 levels of nesting, within the bound of 64) whose last node holds n kids, each invalid (or valid).
    let node: Record<string, unknown> = { v: 1, kids: new Array(n).fill({ v: valid ? 1 : "x" }) };
    for (let i = 0; i < 28; i++) node = { v: 1, kids: [node] };
    return { root: node };
  };
  make("recursive $ref, 28 deep, n invalid kids at the bottom", recursive, (n) => tree(n, false), "arguments");
  make("recursive $ref, 28 deep, n valid kids at the bottom", recursive, (n) => tree(n, true), "pass");
  // 23 branches: the most the edge runs (the union's node and its branches, 24 schemas per value); 64: not run.
  for (const count of [23, 64]) {
    const branches = Array.from({ length: count }, (_, i) => ({
      type: "object",
      properties: { k: { const: i } },
      required: ["k", `r${i}`],
    }));
    make(
      `anyOf of ${count} object branches, n items matching none`,
      { type: "object", properties: { a: { type: "array", items: { anyOf: branches } } } },
      (n) => ({ a: new Array(n).fill({ k: 99 }) }),
      "arguments",
    );
    make(
      `oneOf of ${count} object branches, n items matching the last`,
      { type: "object", properties: { a: { type: "array", items: { oneOf: branches } } } },
      (n) => ({ a: new Array(n).fill({ k: count - 1, [`r${count - 1}`]: 1 }) }),
      "pass",
    );
  }
  // oneOf whose two branches both judge the next level: 2^20 judgements per item through 20 $defs.
  const levels: Record<string, unknown> = {};
  for (let i = 0; i < 20; i++)
    levels[`l${i}`] =
      i === 19
        ? { type: "integer" }
        : { oneOf: [{ $ref: `#/$defs/l${i + 1}` }, { allOf: [{ $ref: `#/$defs/l${i + 1}` }, { type: "string" }] }] };
  make(
    "oneOf doubling through 20 $defs, n items",
    { type: "object", $defs: levels, properties: { a: { type: "array", items: { $ref: "#/$defs/l0" } } } },
    (n) => ({ a: new Array(n).fill(1) }),
    "pass",
  );
  make(
    "uniqueItems over objects, n distinct items",
    { type: "object", properties: { a: { type: "array", uniqueItems: true } } },
    (n) => ({ a: Array.from({ length: n }, (_, i) => ({ i })) }),
    "pass",
  );
  make(
    "enum of 2,000 values, n items in none",
    { type: "object", properties: { a: { type: "array", items: { enum: Array.from({ length: 2000 }, (_, i) => `v${i}`) } } } },
    (n) => ({ a: new Array(n).fill("w") }),
    "arguments",
  );
  return cases;
}
