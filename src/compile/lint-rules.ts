/**
 * @module lint-rules: what real MCP clients refuse in a tool's schemas, as data (each rule with who refuses it and
 * the public source that says so; docs/tool-schemas.md lists the same table, test/compile-lint.test.ts holds them
 * equal) and the checks that need no JSON Schema engine. The meta-schema and compile checks, which need Ajv, are in
 * lint.ts.
 */
import { escapePointer } from "../core/distill.js";
import { evaluatePointer, resolveUri, walkSchema, withoutFragment } from "./schema-walk.js";
import { OFF_CHAIN } from "../tools/param-headers.js";

/** The client profiles `--client` picks from. */
export const CLIENTS = ["vscode", "openai", "anthropic", "gemini"] as const;
export type Client = (typeof CLIENTS)[number];
/** Who refuses a finding: the MCP schema itself, the official SDK's validators, or a client. */
export type Refuser = "mcp" | "sdk" | Client;

export type RuleId =
  | "meta-schema"
  | "dialect"
  | "sdk-compile"
  | "root-object"
  | "array-items"
  | "ref"
  | "top-level-combinator"
  | "tool-name"
  | "x-mcp-header";

export interface Rule {
  id: RuleId;
  /** What it finds, in a few words. */
  summary: string;
  /** Checked whatever `--client` says (true), or only for the profiles in `refusedBy` that were picked. */
  always: boolean;
  refusedBy: readonly Refuser[];
  /** Where each refusal is written down: a specification, a client's source, or the API's own error message. */
  sources: readonly string[];
}

export const RULES: readonly Rule[] = [
  {
    id: "meta-schema",
    summary: "not valid against the meta-schema of its dialect (2020-12 when `$schema` names none)",
    always: true,
    refusedBy: ["mcp", "vscode", "anthropic"],
    sources: [
      "MCP schema, Tool.inputSchema and Tool.outputSchema (2025-11-25, 2026-07-28): JSON Schema 2020-12 when no `$schema` is given",
      "https://github.com/microsoft/vscode-copilot-chat/blob/main/src/extension/tools/common/toolSchemaNormalizer.ts (every tool's parameters validated against the draft-07 meta-schema: `tool parameters do not match JSON schema`)",
      "Anthropic Messages API error `tools.N.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12` (https://github.com/anthropics/claude-code/issues/9605)",
    ],
  },
  {
    id: "dialect",
    summary: "`$schema` names a dialect the SDK's validators do not support",
    always: true,
    refusedBy: ["sdk"],
    sources: [
      "@modelcontextprotocol/server and /client 2.4.0, AjvJsonSchemaValidator: 2020-12, 2019-09, draft-07 and draft-06 only (declaredDialect)",
    ],
  },
  {
    id: "sdk-compile",
    summary: "the SDK's own validator (Ajv, as the SDK configures it) cannot compile it",
    always: true,
    refusedBy: ["sdk"],
    sources: [
      "@modelcontextprotocol/server 2.4.0: a tool's schema is compiled when it is registered; @modelcontextprotocol/client 2.4.0: an outputSchema that does not compile makes every call of that tool fail (`has an invalid outputSchema`)",
    ],
  },
  {
    id: "root-object",
    summary: 'the root of `inputSchema` (or `outputSchema`) is not `type: "object"`',
    always: true,
    refusedBy: ["mcp", "sdk", "vscode", "openai", "anthropic", "gemini"],
    sources: [
      'MCP schema, Tool.inputSchema.type: const "object" (every revision); Tool.outputSchema.type likewise',
      "@modelcontextprotocol/client 2.4.0: listTools() refuses the whole tools/list result (`Invalid result for tools/list`) when one tool's inputSchema is not of type object",
      "https://github.com/microsoft/vscode-copilot-chat/blob/main/src/extension/tools/common/toolSchemaNormalizer.ts (replaces the schema with an empty object: the tool loses its arguments)",
      "OpenAI API error `Invalid schema for function 'NAME': schema must be a JSON Schema of 'type: \"object\"'` (https://github.com/alibaba/spring-ai-alibaba/issues/4576)",
      'Anthropic Messages API reference, Tool.input_schema.type: "object" (https://docs.claude.com/en/api/messages)',
      "Gemini API reference, FunctionDeclaration.parametersJsonSchema: the schema must describe an object (https://ai.google.dev/api/caching#FunctionDeclaration)",
    ],
  },
  {
    id: "array-items",
    summary: 'an array schema (`type: "array"`) without `items`',
    always: true,
    refusedBy: ["vscode", "openai"],
    sources: [
      "https://github.com/microsoft/vscode-copilot-chat/blob/main/src/extension/tools/common/toolSchemaNormalizer.ts (`tool parameters array type must have items`; `items: false` is refused too)",
      "OpenAI API error `Invalid schema for function 'NAME': In context=('properties', 'KEY'), array schema missing items.` (https://github.com/streamnative/streamnative-mcp-server/issues/26)",
    ],
  },
  {
    id: "ref",
    summary: "a `$ref` (or `$dynamicRef`) that resolves to nothing in the schema",
    always: true,
    refusedBy: ["sdk"],
    sources: [
      "JSON Schema 2020-12 Core, 8.2.3 (a reference must resolve); Ajv: `can't resolve reference ... from id #`",
      "MCP clients built on the TypeScript SDK fail the whole `tools/list` on one dangling `$ref` (https://github.com/anthropics/claude-code/issues/76040, https://github.com/XiaomiMiMo/MiMo-Code/pull/1733)",
    ],
  },
  {
    id: "top-level-combinator",
    summary: "`oneOf`, `anyOf` or `allOf` at the root of `inputSchema`",
    always: false,
    refusedBy: ["anthropic"],
    sources: [
      "Anthropic Messages API error `tools.N.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level` (https://github.com/anthropics/claude-code/issues/5973)",
    ],
  },
  {
    id: "tool-name",
    summary: "a tool name the client's model API refuses",
    always: false,
    refusedBy: ["openai", "anthropic", "gemini"],
    sources: [
      "OpenAI API reference, tools[].function.name: a-z, A-Z, 0-9, underscores and dashes, at most 64 (https://platform.openai.com/docs/api-reference/chat/create)",
      "Anthropic Messages API error `tools.N.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'` (https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1345)",
      "Gemini API reference, FunctionDeclaration.name: a-z, A-Z, 0-9, underscores, colons, dots and dashes, at most 64 (https://ai.google.dev/api/caching#FunctionDeclaration)",
    ],
  },
  {
    id: "x-mcp-header",
    summary:
      "an `x-mcp-header` annotation in `inputSchema` that breaks one of its constraints (a client over Streamable HTTP leaves the tool out of tools/list)",
    always: true,
    refusedBy: ["mcp", "sdk"],
    sources: [
      "MCP 2026-07-28, Streamable HTTP, Custom Headers from Tool Parameters: not empty, 1*tchar (RFC 9110 5.1), unique without regard to case, on string, integer or boolean parameters only (not number), reached from the root through `properties` alone; clients MUST exclude a tool that breaks one (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters)",
      "@modelcontextprotocol/client 2.4.0: listTools() drops such a tool in the modern era on any transport but stdio, with a console warning (scanXMcpHeaderDeclarations)",
    ],
  },
];

export function ruleOf(id: RuleId): Rule {
  return RULES.find((r) => r.id === id)!;
}

/** One finding before it is tied to its tool: where in the schema (JSON Pointer), which rule, and why. */
export interface RawFinding {
  pointer: string;
  rule: RuleId;
  message: string;
  refusedBy: readonly Refuser[];
}

export type Role = "input" | "output" | "schema";

/** The keywords VS Code's check walks through (forEachSchemaNode in toolSchemaNormalizer.ts); `$defs` is not one. */
const VSCODE_WALK = new Set([
  "properties",
  "items",
  "dependencies",
  "patternProperties",
  "additionalProperties",
  "anyOf",
  "allOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "contains",
]);

/**
 * Arrays without `items`: OpenAI refuses the tool wherever one is; VS Code where its check walks, and only for
 * `type: "array"` itself (not a list of types), and it refuses `items: false` too (reported when picked).
 */
export function arrayItems(schema: object, clients: readonly Client[]): RawFinding[] {
  const out: RawFinding[] = [];
  walkSchema(schema, ({ node, pointer, keywords }) => {
    const type = node.type;
    const isArray = type === "array" || (Array.isArray(type) && type.includes("array"));
    if (!isArray) return;
    const vscode = type === "array" && keywords.every((k) => VSCODE_WALK.has(k));
    if (!Object.hasOwn(node, "items"))
      out.push({
        pointer,
        rule: "array-items",
        message: 'an array schema with no "items"',
        refusedBy: vscode ? ["vscode", "openai"] : ["openai"],
      });
    // VS Code's check is `type === "array" && !items`: a falsy `items` fails it as well.
    else if (vscode && !node.items && clients.includes("vscode"))
      out.push({
        pointer: `${pointer}/items`,
        rule: "array-items",
        message: '"items" is false, which VS Code reads as missing',
        refusedBy: ["vscode"],
      });
  });
  return out;
}

const META_SCHEMAS = /^https?:\/\/json-schema\.org\/(?:draft-0[4-7]\/schema|draft\/20(?:19-09|20-12)\/(?:schema|meta\/[a-z-]+))$/;

/**
 * `$ref`s and `$dynamicRef`s that resolve to nothing: a JSON Pointer into the schema (or a resource inside it, by
 * `$id`) that names no value, an anchor nobody declared, or another document (nothing fetches one at run time).
 */
export function danglingRefs(schema: object): RawFinding[] {
  const resources = new Map<string, unknown>();
  const anchors = new Set<string>();
  walkSchema(schema, ({ node, base }) => {
    if (!resources.has(base)) resources.set(base, node);
    // `$id: "#name"` (draft-06/07) and `$anchor`/`$dynamicAnchor` (2019-09, 2020-12) declare plain-name fragments.
    if (typeof node.$id === "string" && node.$id.startsWith("#")) anchors.add(`${base}${node.$id}`);
    for (const key of ["$anchor", "$dynamicAnchor"] as const) if (typeof node[key] === "string") anchors.add(`${base}#${node[key]}`);
  });
  const out: RawFinding[] = [];
  walkSchema(schema, ({ node, pointer, base }) => {
    for (const key of ["$ref", "$dynamicRef"] as const) {
      const reference = node[key];
      if (typeof reference !== "string") continue;
      const problem = whyUnresolved(reference, base, resources, anchors);
      if (problem)
        out.push({
          pointer: `${pointer}/${key}`,
          rule: "ref",
          message: `${key} ${JSON.stringify(reference)} ${problem}`,
          refusedBy: ruleOf("ref").refusedBy,
        });
    }
  });
  return out;
}

function whyUnresolved(reference: string, base: string, resources: Map<string, unknown>, anchors: Set<string>): string | undefined {
  const target = resolveUri(reference, base);
  if (target === undefined) return "is not a URI reference";
  const document = withoutFragment(target);
  const hash = target.indexOf("#");
  const fragment = hash < 0 ? "" : target.slice(hash + 1);
  if (!resources.has(document)) return META_SCHEMAS.test(document) ? undefined : "names another document, which nothing here fetches";
  if (fragment === "") return undefined;
  if (fragment.startsWith("/")) {
    let pointer: string;
    try {
      pointer = decodeURIComponent(fragment);
    } catch {
      return "has a fragment that is not valid percent-encoding";
    }
    return evaluatePointer(resources.get(document), pointer).found ? undefined : "points to nothing in the schema";
  }
  return anchors.has(`${document}#${fragment}`) ? undefined : "names an anchor no subschema declares";
}

/**
 * `pattern`s and `patternProperties` keys that are no regular expression with the `u` flag, which is how the SDK's Ajv
 * compiles them (`unicodeRegExp`): the SDK cannot compile the schema.
 */
export function invalidPatterns(schema: object): RawFinding[] {
  const out: RawFinding[] = [];
  const check = (pattern: string, pointer: string) => {
    try {
      new RegExp(pattern, "u");
    } catch {
      out.push({
        pointer,
        rule: "sdk-compile",
        message: "not a regular expression under the u flag, as the SDK's Ajv compiles it",
        refusedBy: ["sdk"],
      });
    }
  };
  walkSchema(schema, ({ node, pointer }) => {
    if (typeof node.pattern === "string") check(node.pattern, `${pointer}/pattern`);
    const map = node.patternProperties;
    if (map !== null && typeof map === "object" && !Array.isArray(map))
      for (const key of Object.keys(map)) check(key, `${pointer}/patternProperties/${escapePointer(key)}`);
  });
  return out;
}

/** The root's type, as the MCP schema and every client require it. */
export function rootObject(schema: object, role: Role): RawFinding[] {
  const type = (schema as { type?: unknown }).type;
  if (type === "object") return [];
  const refusedBy: readonly Refuser[] = role === "output" ? ["mcp"] : ruleOf("root-object").refusedBy;
  const said = type === undefined ? "has no type" : `has type ${JSON.stringify(type).slice(0, 60)}`;
  return [{ pointer: "", rule: "root-object", message: `the root ${said}; it must be "object"`, refusedBy }];
}

/** Anthropic's API refuses `oneOf`/`anyOf`/`allOf` beside the root `type`. */
export function topLevelCombinator(schema: object): RawFinding[] {
  const out: RawFinding[] = [];
  for (const key of ["oneOf", "anyOf", "allOf"])
    if (Object.hasOwn(schema, key))
      out.push({
        pointer: `/${key}`,
        rule: "top-level-combinator",
        message: `${key} at the root of inputSchema`,
        refusedBy: ["anthropic"],
      });
  return out;
}

/** Tool names as each model API takes them (a client that prefixes the server's name leaves fewer characters). */
export const NAME_RULES: Readonly<Record<"openai" | "anthropic" | "gemini", { pattern: RegExp; words: string }>> = {
  openai: { pattern: /^[a-zA-Z0-9_-]{1,64}$/, words: "letters, digits, _ and -, at most 64" },
  anthropic: { pattern: /^[a-zA-Z0-9_-]{1,128}$/, words: "letters, digits, _ and -, at most 128" },
  gemini: { pattern: /^[a-zA-Z0-9_.:-]{1,64}$/, words: "letters, digits, _ . : and -, at most 64" },
};

export function toolName(name: string, clients: readonly Client[]): RawFinding[] {
  const out: RawFinding[] = [];
  for (const client of clients) {
    if (client === "vscode") continue;
    const rule = NAME_RULES[client];
    if (!rule.pattern.test(name))
      out.push({ pointer: "/name", rule: "tool-name", message: `${client} takes ${rule.words}`, refusedBy: [client] });
  }
  return out;
}

/** RFC 9110 5.1: `token = 1*tchar`, the syntax of a field name; no space, control character or delimiter. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The types a mirrored parameter may have: a header carries one primitive value, and `number` is excluded. */
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);
/** Keywords under which the SDK's client looks for a misplaced annotation (besides `properties`). */
const SDK_HEADER_WALK: ReadonlySet<string> = new Set(["properties", ...OFF_CHAIN]);
const DROPPED = "a client over Streamable HTTP leaves the tool out of tools/list";

/** A value as JSON, at most about 60 characters of it: a finding quotes the server's text, never all of it. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/**
 * `x-mcp-header` annotations in an `inputSchema` that break the constraints MCP 2026-07-28 sets on them, one finding
 * per annotation naming every constraint it breaks. A `$ref` is not followed: an annotation reached through one lives
 * under `$defs` (or elsewhere off the `properties` chain), which is where it is reported.
 */
export function mcpHeaders(schema: object): RawFinding[] {
  const out: RawFinding[] = [];
  const names = new Map<string, string>();
  walkSchema(schema, ({ node, pointer, keywords }) => {
    if (!Object.hasOwn(node, "x-mcp-header")) return;
    const value = node["x-mcp-header"];
    const problems: string[] = [];
    const offChain = keywords.find((k) => k !== "properties");
    if (keywords.length === 0) problems.push("it is on the root of inputSchema, which is no parameter");
    else if (offChain !== undefined)
      problems.push(`it is under ${JSON.stringify(offChain)}; only a chain of "properties" from the root reaches a parameter`);
    if (typeof value !== "string") problems.push(`its value ${shown(value)} is not a string`);
    else if (value === "") problems.push("its value is empty");
    else if (!TOKEN.test(value))
      problems.push(`${shown(value)} is not an HTTP field-name token (letters, digits and !#$%&'*+-.^_\`|~ only)`);
    const type = node.type;
    if (typeof type !== "string" || !HEADER_TYPES.has(type))
      problems.push(
        `${type === undefined ? "the parameter has no type" : `the parameter's type is ${shown(type)}`}; only "string", "integer" and "boolean" may be mirrored`,
      );
    if (typeof value === "string" && value !== "") {
      const earlier = names.get(value.toLowerCase());
      if (earlier !== undefined) problems.push(`${shown(value)} names the same header as ${earlier} (names are compared without case)`);
      else names.set(value.toLowerCase(), `${pointer}/x-mcp-header`);
    }
    if (problems.length === 0) return;
    // The SDK's client looks only under the keywords it lists; the specification refuses an annotation anywhere else too.
    const sdkSees = keywords.every((k) => SDK_HEADER_WALK.has(k));
    out.push({
      pointer: `${pointer}/x-mcp-header`,
      rule: "x-mcp-header",
      message: `${problems.join("; ")}; ${DROPPED}`,
      refusedBy: sdkSees ? ["mcp", "sdk"] : ["mcp"],
    });
  });
  return out;
}
