/**
 * @module read-inputs: the schemas named on `wymcp compile`'s command line. A file holds a JSON Schema, a tool
 * definition `{ name, inputSchema, outputSchema? }`, a `tools/list` result `{ tools: [...] }`, or an array of
 * tools; a JavaScript module (.js, .mjs) exports any of these (its default export, or else every named one).
 */
import { readFileSync } from "node:fs";
import { basename, extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { cannotRead } from "../log/file-problem.js";

export type Role = "input" | "output" | "schema";

export interface SchemaEntry {
  /** The JavaScript name of its validator (camelCase); its type is the PascalCase form. */
  name: string;
  role: Role;
  /** The tool's name, for a tool's input or output schema. */
  tool?: string;
  schema: object;
  /** The input file it came from, as given. */
  file: string;
}

export class InputError extends Error {
  override name = "InputError";
}

export interface InputFile {
  file: string;
  /** How the manifest and the banner name it when it is no file (`--from`, `--from-stdio`); a path otherwise. */
  label?: string;
  /** The file's bytes, for the manifest's digest. */
  bytes: Buffer;
  /** What the file holds, parsed (a module: each export read), named for schemas that have no name of their own. */
  values: Array<{ baseName: string; value: unknown }>;
}

export type Entry = Omit<SchemaEntry, "name"> & { baseName: string };

/** The schemas of an input, for compiling: throws `InputError` on anything that is not a schema, tool or tool list. */
export function entriesOf(input: InputFile): Entry[] {
  return input.values.flatMap(({ baseName, value }) => classify(value, input.file, baseName));
}

export async function readInput(file: string): Promise<InputFile> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new InputError(cannotRead(file, error), { cause: error });
  }
  const extension = extname(file).toLowerCase();
  if (extension === ".js" || extension === ".mjs" || extension === ".cjs" || extension === ".ts" || extension === ".mts") {
    const module = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
    const named =
      "default" in module ? [["default", module.default] as const] : Object.entries(module).sort(([a], [b]) => (a < b ? -1 : 1));
    const fallback = basename(file, extname(file));
    const values = named.map(([exportName, value]) => ({ baseName: exportName === "default" ? fallback : exportName, value }));
    return { file, bytes, values };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8").replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new InputError(`${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  return inputOf(file, bytes, parsed, basename(file, extname(file)));
}

/** An input already parsed: a file's JSON, or a `tools/list` result a running server answered. */
export function inputOf(file: string, bytes: Buffer, value: unknown, baseName: string, label?: string): InputFile {
  return { file, ...(label === undefined ? {} : { label }), bytes, values: [{ baseName, value }] };
}

function classify(value: unknown, file: string, fallbackName: string): Entry[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => classify(item, file, `${fallbackName}${i}`));
  if (value === null || typeof value !== "object") {
    throw new InputError(`${file}: ${fallbackName} is not a JSON Schema, a tool or a tools/list result (a JSON Schema is an object)`);
  }
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.tools)) return classify(record.tools, file, fallbackName);
  if (typeof record.name === "string" && Object.hasOwn(record, "inputSchema")) {
    const tool = record.name;
    if (!isObject(record.inputSchema))
      throw new InputError(`${file}: tool ${JSON.stringify(tool)} has an inputSchema that is not an object`);
    const entries: Entry[] = [{ baseName: `${tool} input`, role: "input", tool, schema: record.inputSchema, file }];
    if (record.outputSchema !== undefined) {
      if (!isObject(record.outputSchema))
        throw new InputError(`${file}: tool ${JSON.stringify(tool)} has an outputSchema that is not an object`);
      entries.push({ baseName: `${tool} output`, role: "output", tool, schema: record.outputSchema, file });
    }
    return entries;
  }
  const title = typeof record.title === "string" && record.title.trim() !== "" ? record.title : fallbackName;
  return [{ baseName: title, role: "schema", schema: record, file }];
}

function isObject(value: unknown): value is object {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Names this module's own exports take; a schema named like one is renamed. */
const RESERVED = new Set(["jsonSchemaValidator", "createJsonSchemaValidator", "validators", "tools", "default"]);

// Words JavaScript does not allow as a `const` name.
const KEYWORDS = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if " +
    "implements import in instanceof interface let new null package private protected public return static super switch this " +
    "throw true try typeof var void while with yield await arguments eval undefined NaN Infinity"
  ).split(" "),
);

/**
 * A JavaScript identifier from a tool or title: words joined in camelCase, ASCII letters and digits only.
 * @example identifierOf("read_file input") === "readFileInput"
 */
export function identifierOf(text: string): string {
  const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
  let name = words.map((w, i) => (i === 0 ? w[0]!.toLowerCase() + w.slice(1) : w[0]!.toUpperCase() + w.slice(1))).join("");
  if (name === "") name = "schema";
  if (/^[0-9]/.test(name)) name = `_${name}`;
  if (KEYWORDS.has(name) || RESERVED.has(name)) name = `${name}Schema`;
  return name;
}

/** PascalCase of a validator's name: the name of its type. */
export function typeNameOf(name: string): string {
  const bare = name.replace(/^_/, "");
  return /^[0-9]/.test(bare) ? `T${bare}` : bare[0]!.toUpperCase() + bare.slice(1);
}
