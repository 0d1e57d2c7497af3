/**
 * @module lint: `wymcp compile --lint`, what real clients would refuse in a server's tool schemas, each finding with
 * its tool, its JSON Pointer in the tool definition and its rule (lint-rules.ts has the rules and their sources).
 * Ajv, an optional peer of `wymcp compile`, is loaded with this module only.
 */
import { createRequire } from "node:module";
import { Ajv, type ErrorObject, type Options } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { escapeText, safePointer } from "../core/log-safe.js";
import { SDK_AJV_OPTIONS } from "./compile-schemas.js";
import { declaredMetaSchema, type MetaSchema } from "./dialect.js";
import {
  arrayItems,
  type Client,
  CLIENTS,
  danglingRefs,
  invalidPatterns,
  mcpHeaders,
  type RawFinding,
  type Refuser,
  type Role,
  type RuleId,
  rootObject,
  ruleOf,
  toolName,
  topLevelCombinator,
} from "./lint-rules.js";
import type { InputFile } from "./read-inputs.js";

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
const require = createRequire(import.meta.url);

export interface Finding {
  /** The input it came from, as named on the command line (or the server it was asked of). */
  source: string;
  /** The tool's name; absent for a plain schema. */
  tool?: string;
  role: Role;
  /** JSON Pointer into the tool definition (`/inputSchema/properties/x`, `/name`); into the schema itself for a plain one. */
  pointer: string;
  rule: RuleId;
  message: string;
  refusedBy: Refuser[];
}

export interface LintReport {
  findings: Finding[];
  /** Schemas looked at (a tool's input and output schema are two). */
  schemas: number;
  tools: number;
  clients: readonly Client[];
}

const META_IDS: Record<MetaSchema, string> = {
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "draft-07": "http://json-schema.org/draft-07/schema",
  "draft-06": "http://json-schema.org/draft-06/schema",
};

/** The engines, made once per run: Ajv instances cost a few milliseconds each. */
class Engines {
  private readonly meta = new Map<MetaSchema, Ajv>();
  private vscode: (((schema: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;

  /** Ajv's errors of `schema` against the meta-schema of `dialect`. */
  metaErrors(schema: object, dialect: MetaSchema): ErrorObject[] {
    let ajv = this.meta.get(dialect);
    if (!ajv) {
      // Ajv checks a meta-schema's structure, not its formats (a `pattern` that is no regular expression is found by
      // the compile check below, located by lint-rules.ts).
      const options: Options = { strict: false, allErrors: true, validateSchema: false };
      ajv = dialect === "2020-12" ? new Ajv2020(options) : dialect === "2019-09" ? new Ajv2019(options) : new Ajv(options);
      if (dialect === "draft-06") ajv.addMetaSchema(require("ajv/dist/refs/json-schema-draft-06.json") as object);
      this.meta.set(dialect, ajv);
    }
    return ajv.validate(META_IDS[dialect], schema) ? [] : [...(ajv.errors ?? [])];
  }

  /**
   * VS Code's check (toolSchemaNormalizer.ts in vscode-copilot-chat): the draft-07 meta-schema without the formats of
   * `$id` and `$ref`, compiled by an Ajv with its options and its two formats, whatever `$schema` the tool declares.
   */
  vscodeErrors(schema: object): ErrorObject[] {
    if (!this.vscode) {
      type Meta = Record<string, unknown> & { properties: Record<"$id" | "$ref", { format?: string }> };
      const meta = structuredClone(require("ajv/dist/refs/json-schema-draft-07.json")) as Meta;
      delete meta.$schema;
      delete meta.$id;
      delete meta.properties.$id.format;
      delete meta.properties.$ref.format;
      const ajv = new Ajv({ coerceTypes: true, strictTypes: true, allowUnionTypes: true, logger: false });
      ajv.addFormat("uri", (value: string) => URL.canParse(value));
      ajv.addFormat("regex", (value: string) => typeof value === "string");
      this.vscode = ajv.compile(meta);
    }
    // coerceTypes rewrites what it validates: the tool's own schema is not to be touched.
    return this.vscode(structuredClone(schema)) ? [] : [...(this.vscode.errors ?? [])];
  }

  private readonly sdk = new Map<string, Ajv>();

  /** Ajv's error when the schema does not compile as the SDK's provider compiles it, or undefined. */
  sdkCompileError(schema: object, dialect: "2020-12" | "2019-09" | "draft-07"): Error | undefined {
    // One instance per dialect, as the SDK keeps; a schema with an $id gets its own, so that two tools' schemas with
    // the same $id do not collide here (each would be compiled for its own tool).
    const shared = typeof (schema as { $id?: unknown }).$id !== "string";
    let ajv = shared ? this.sdk.get(dialect) : undefined;
    if (!ajv) {
      const options: Options = { ...SDK_AJV_OPTIONS, logger: false };
      ajv = dialect === "2020-12" ? new Ajv2020(options) : dialect === "2019-09" ? new Ajv2019(options) : new Ajv(options);
      addFormats(ajv);
      if (shared) this.sdk.set(dialect, ajv);
    }
    try {
      ajv.compile(schema);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }
}

/** Every tool and plain schema in the inputs, as they were written (a tool whose schema is not an object included). */
function* itemsOf(value: unknown, baseName: string, listed = false): Generator<{ tool?: string; name: string; definition: unknown }> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* itemsOf(item, `${baseName}${i}`, listed);
    return;
  }
  if (value === null || typeof value !== "object") {
    yield { name: baseName, definition: value };
    return;
  }
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.tools)) yield* itemsOf(record.tools, baseName, true);
  // In a tools list every named item is a tool, one without an inputSchema too (a finding of its own).
  else if (typeof record.name === "string" && (listed || Object.hasOwn(record, "inputSchema") || Object.hasOwn(record, "outputSchema")))
    yield { tool: record.name, name: record.name, definition: record };
  else yield { name: baseName, definition: record };
}

export function lint(inputs: readonly InputFile[], clients: readonly Client[] = CLIENTS): LintReport {
  const engines = new Engines();
  const findings: Finding[] = [];
  let schemas = 0;
  let tools = 0;
  for (const input of inputs) {
    const source = input.label ?? input.file;
    for (const { baseName, value } of input.values) {
      for (const item of itemsOf(value, baseName)) {
        const add = (role: Role, prefix: string, raw: RawFinding[]) => {
          for (const f of raw)
            findings.push({
              source,
              ...(item.tool === undefined ? {} : { tool: item.tool }),
              role,
              pointer: prefix + f.pointer,
              rule: f.rule,
              message: f.message,
              refusedBy: [...f.refusedBy],
            });
        };
        if (item.tool === undefined) {
          schemas++;
          add("schema", "", lintSchema(item.definition, "schema", clients, engines));
          continue;
        }
        tools++;
        const tool = item.definition as Record<string, unknown>;
        add("input", "", toolName(item.tool, clients));
        if (!Object.hasOwn(tool, "inputSchema"))
          add("input", "", [
            {
              pointer: "/inputSchema",
              rule: "root-object",
              message: "the tool has no inputSchema",
              refusedBy: [...ruleOf("root-object").refusedBy],
            },
          ]);
        for (const [role, key] of [
          ["input", "inputSchema"],
          ["output", "outputSchema"],
        ] as const) {
          if (!Object.hasOwn(tool, key) || (role === "output" && tool[key] === undefined)) continue;
          schemas++;
          add(role, `/${key}`, lintSchema(tool[key], role, clients, engines));
        }
      }
    }
  }
  return { findings: merged(findings), schemas, tools, clients };
}

/** The findings of one schema, pointers relative to it. */
function lintSchema(schema: unknown, role: Role, clients: readonly Client[], engines: Engines): RawFinding[] {
  try {
    return lintOne(schema, role, clients, engines);
  } catch (error) {
    // A schema nested deeper than the engines' recursion goes: no client could load it either; the run goes on.
    if (!(error instanceof RangeError)) throw error;
    return [{ pointer: "", rule: "sdk-compile", message: "nested too deeply to be checked or compiled", refusedBy: ["sdk"] }];
  }
}

function lintOne(schema: unknown, role: Role, clients: readonly Client[], engines: Engines): RawFinding[] {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    const refusedBy = role === "schema" ? (["mcp"] as const) : ruleOf("root-object").refusedBy;
    return [{ pointer: "", rule: "root-object", message: `the schema is ${describeValue(schema)}, not an object`, refusedBy }];
  }
  const out: RawFinding[] = [];
  if (role !== "schema") out.push(...rootObject(schema, role));
  if (role === "input" && clients.includes("anthropic")) out.push(...topLevelCombinator(schema));
  const declared = declaredMetaSchema(schema);
  if (declared === undefined) {
    const said = JSON.stringify((schema as { $schema?: unknown }).$schema).slice(0, 100);
    out.push({
      pointer: "/$schema",
      rule: "dialect",
      message: `${said} is not 2020-12, 2019-09, draft-07 or draft-06`,
      refusedBy: ["sdk"],
    });
  }
  out.push(...metaSchemaFindings(schema, declared, role, clients, engines));
  out.push(...arrayItems(schema, clients));
  // The annotation is defined for a tool's inputSchema alone.
  if (role === "input") out.push(...mcpHeaders(schema));
  const refs = danglingRefs(schema);
  const patterns = invalidPatterns(schema);
  out.push(...refs, ...patterns);
  if (declared !== undefined) {
    const error = engines.sdkCompileError(schema, declared === "draft-06" ? "draft-07" : declared);
    // What is located above is not said twice; Ajv's own words are kept for anything else it cannot compile.
    const located =
      ("missingRef" in (error ?? {}) && refs.length > 0) || (/regular expression/i.test(error?.message ?? "") && patterns.length > 0);
    if (error && !located) out.push({ pointer: "", rule: "sdk-compile", message: escapeText(error.message, 200), refusedBy: ["sdk"] });
  }
  return out;
}

/**
 * One finding per location that fails a meta-schema: the declared dialect's (the MCP schema's rule), VS Code's draft-07
 * check and Anthropic's 2020-12 check when those profiles are picked, each location saying which of them refuse it.
 */
function metaSchemaFindings(
  schema: object,
  declared: MetaSchema | undefined,
  role: Role,
  clients: readonly Client[],
  engines: Engines,
): RawFinding[] {
  const byPointer = new Map<string, { messages: Set<string>; against: Set<string>; refusedBy: Set<Refuser> }>();
  const note = (errors: ErrorObject[], against: string, refuser: Refuser) => {
    for (const error of errors) {
      let found = byPointer.get(error.instancePath);
      if (!found) byPointer.set(error.instancePath, (found = { messages: new Set(), against: new Set(), refusedBy: new Set() }));
      if (found.messages.size < 3 && error.message) found.messages.add(error.message);
      found.against.add(against);
      found.refusedBy.add(refuser);
    }
  };
  if (declared !== undefined) note(engines.metaErrors(schema, declared), declared, "mcp");
  // The clients see only what a tool lists as its input (VS Code replaces a root that is not an object before checking).
  if (role === "input" && clients.includes("vscode") && (schema as { type?: unknown }).type === "object")
    note(engines.vscodeErrors(schema), "VS Code's draft-07", "vscode");
  if (role === "input" && clients.includes("anthropic")) note(engines.metaErrors(schema, "2020-12"), "2020-12", "anthropic");
  return [...byPointer].map(([pointer, { messages, against, refusedBy }]) => ({
    pointer,
    rule: "meta-schema" as const,
    message: `${[...messages].join("; ")} (meta-schema: ${[...against].join(", ")})`,
    refusedBy: [...refusedBy],
  }));
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? "a string" : typeof value === "undefined" ? "missing" : `a ${typeof value}`;
}

/** Findings of one rule at one place merged (a tool name several APIs refuse is one finding), in input order. */
function merged(findings: Finding[]): Finding[] {
  const out: Finding[] = [];
  const at = new Map<string, Finding>();
  for (const finding of findings) {
    const key = `${finding.source}\u0000${finding.tool ?? ""}\u0000${finding.role}\u0000${finding.pointer}\u0000${finding.rule}`;
    const earlier = at.get(key);
    if (!earlier) {
      at.set(key, finding);
      out.push(finding);
      continue;
    }
    if (!earlier.message.includes(finding.message)) earlier.message += `; ${finding.message}`;
    for (const refuser of finding.refusedBy) if (!earlier.refusedBy.includes(refuser)) earlier.refusedBy.push(refuser);
  }
  return out;
}

/** One line per finding: where (input, tool, pointer), the rule, what, and who refuses it. */
export function renderFindings(report: LintReport): string {
  let text = "";
  for (const f of report.findings) {
    const where = f.tool === undefined ? "" : `  tool ${escapeText(f.tool, 80)}`;
    text += `${escapeText(f.source, 200)}${where}  ${safePointer(f.pointer) || "(root)"}  [${f.rule}]  ${escapeText(f.message, 300)}; refused by ${f.refusedBy.join(", ")}\n`;
  }
  return text;
}

/** The last line: how many findings in how many of the schemas, and which client profiles applied. */
export function lintSummary(report: LintReport): string {
  const n = report.findings.length;
  const affected = new Set(report.findings.map((f) => `${f.source}\u0000${f.tool ?? ""}\u0000${f.role}`)).size;
  const of = `${report.schemas} schema${report.schemas === 1 ? "" : "s"}${report.tools > 0 ? ` of ${report.tools} tool${report.tools === 1 ? "" : "s"}` : ""}`;
  const profiles = `clients: ${report.clients.length > 0 ? report.clients.join(", ") : "none"}`;
  return n === 0
    ? `wymcp compile --lint: no findings in ${of} (${profiles})\n`
    : `wymcp compile --lint: ${n} finding${n === 1 ? "" : "s"} in ${affected} of ${of} (${profiles})\n`;
}
