/**
 * @module param-headers: the `Mcp-Param-{Name}` headers of a 2026-07-28 `tools/call` against the tool's `x-mcp-header`
 * annotations and the call's arguments (Streamable HTTP, custom headers from tool parameters). Which annotations count
 * is read as the official SDK's server reads them; values are compared after the Base64 sentinel, integers by value.
 * The answer names the header and the argument's location, never a value. Web APIs only.
 */
import { escapePointer } from "../core/distill.js";
import { errorResponse, type JsonRpcErrorResponse, type JsonRpcId } from "../core/envelope.js";
import { decodeSentinel, HEADER_MISMATCH, headerValues, type RequestHeaders, trimOws, wellFormed } from "../core/header-body.js";
import { cutEscaped, safePointer } from "../core/log-safe.js";

/** One mirrored parameter: where it sits in `arguments`, the header's name as the schema writes it, its type. */
export interface ParamDeclaration {
  path: readonly string[];
  header: string;
  type: "string" | "integer" | "boolean" | "number";
}

/** What is wrong with one `Mcp-Param-{Name}` header. */
export interface ParamProblem {
  declaration: ParamDeclaration;
  problem: "missing" | "malformed" | "repeated" | "bad-base64" | "mismatch";
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TYPES = new Set(["string", "integer", "boolean", "number"]);
/** Keywords whose subschemas are off the `properties` chain: an annotation under one makes the tool's annotations invalid. */
export const OFF_CHAIN = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions",
] as const;
const NAMED_SUBSCHEMAS = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"]);
/** Deepest schema walked: an annotation deeper than this is not looked for (a schema is the server's, but bounded all the same). */
const MAX_WALK_DEPTH = 64;

/**
 * The `x-mcp-header` declarations of an `inputSchema`, or `undefined` when its annotations break a constraint (a client
 * then leaves the tool out, and the SDK's server checks none of them): non-empty RFC 9110 tokens, unique without
 * regard to case, on a `string`, `integer` or `boolean` property reached from the root through `properties` alone. A
 * `number` property is refused by clients, yet its header is still checked, as the SDK's server checks it.
 */
export function paramDeclarations(inputSchema: unknown): readonly ParamDeclaration[] | undefined {
  const found: ParamDeclaration[] = [];
  const names = new Set<string>();
  let broken = false;
  const visit = (node: unknown, path: string[], reachable: boolean, depth: number): void => {
    if (broken || node === null || typeof node !== "object" || depth > MAX_WALK_DEPTH) return;
    const schema = node as Record<string, unknown>;
    if (Object.hasOwn(schema, "x-mcp-header")) {
      const name = schema["x-mcp-header"];
      const type = schema.type;
      if (!reachable || path.length === 0 || typeof name !== "string" || !TOKEN.test(name)) return void (broken = true);
      if (typeof type !== "string" || !TYPES.has(type) || names.has(name.toLowerCase())) return void (broken = true);
      names.add(name.toLowerCase());
      found.push({ path: [...path], header: name, type: type as ParamDeclaration["type"] });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === "object" && !Array.isArray(properties))
      for (const key of Object.keys(properties)) visit((properties as Record<string, unknown>)[key], [...path, key], reachable, depth + 1);
    for (const keyword of OFF_CHAIN) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : NAMED_SUBSCHEMAS.has(keyword) && sub !== null && typeof sub === "object"
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) visit(branch, path, false, depth + 1);
    }
  };
  visit(inputSchema, [], true, 0);
  return broken ? undefined : found;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * The first `Mcp-Param-{Name}` header that does not carry its argument: an argument present (not `null`, not absent)
 * needs its header, well formed, the same in every repeat, with a valid sentinel if it has one, and equal to the
 * argument (an integer or a number by value: `42.0` is 42). A header whose argument is `null` or absent is not judged.
 */
export function paramProblem(declarations: readonly ParamDeclaration[], args: unknown, headers: RequestHeaders): ParamProblem | undefined {
  for (const declaration of declarations) {
    const raw = valueAt(args, declaration.path);
    if (raw === undefined || raw === null) continue;
    const text = primitiveText(raw);
    // An argument of the wrong kind has no header form: the argument check (or the server) answers it.
    if (text === undefined) continue;
    const lower = `mcp-param-${declaration.header.toLowerCase()}`;
    const found = headerValues(headers, lower);
    const values = typeof found === "string" ? [found] : found;
    if (values === undefined || values.length === 0) return { declaration, problem: "missing" };
    let value: string | undefined;
    for (const one of values) {
      const trimmed = trimOws(one);
      if (!wellFormed(trimmed)) return { declaration, problem: "malformed" };
      if (value === undefined) value = trimmed;
      else if (trimmed !== value) return { declaration, problem: "repeated" };
    }
    const problem = compare(value!, raw, text, declaration.type);
    if (problem) return { declaration, problem };
  }
  return undefined;
}

function compare(value: string, raw: unknown, text: string, type: ParamDeclaration["type"]): "bad-base64" | "mismatch" | undefined {
  const decoded = decodeSentinel(value);
  if (decoded !== undefined && equal(decoded, raw, text, type)) return undefined;
  // A Fetch `Headers` joins a repeated header with ", ": the same value sent twice is still that value (a sentinel
  // sent twice too, which read whole is no sentinel).
  if (value.includes(",")) {
    const parts = value.split(",");
    if (parts.length > 1 && parts.every((part) => equal(decodeSentinel(trimOws(part)), raw, text, type))) return undefined;
  }
  return decoded === undefined ? "bad-base64" : "mismatch";
}

function equal(decoded: string | undefined, raw: unknown, text: string, type: ParamDeclaration["type"]): boolean {
  if (decoded === undefined) return false;
  if ((type === "integer" || type === "number") && typeof raw === "number" && DECIMAL.test(decoded)) return Number(decoded) === raw;
  return decoded === text;
}

/** A primitive as a header carries it: a string as it is, a boolean `true`/`false`, a finite number in decimal. */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isFinite(value) && !(Number.isInteger(value) && !Number.isSafeInteger(value)))
    return String(value);
  return undefined;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== "object" || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

const WORDS: Record<ParamProblem["problem"], string> = {
  missing: "is missing",
  malformed: "holds characters a header value may not (visible ASCII, spaces and tabs only)",
  repeated: "is repeated with different values",
  "bad-base64": "carries a =?base64?…?= value that is not valid Base64 of UTF-8",
  mismatch: "does not match the argument",
};

/** Longest location shown: the keys come from the server's schema, bounded all the same. */
const MAX_LOCATION = 256;

/** The `400`/-32020 answer: the header's name and the argument's location, as the other header rules answer. */
export function paramMismatchResponse(id: JsonRpcId, { declaration, problem }: ParamProblem): JsonRpcErrorResponse {
  const header = `Mcp-Param-${declaration.header}`;
  const instancePath = cutEscaped(safePointer(`/params/arguments/${declaration.path.map(escapePointer).join("/")}`), MAX_LOCATION);
  return errorResponse(id, HEADER_MISMATCH, `Header mismatch: the ${header} header ${WORDS[problem]} (the argument at ${instancePath})`, {
    errors: [{ instancePath, messages: [`must match the ${header} header, which ${WORDS[problem]}`] }],
  });
}
