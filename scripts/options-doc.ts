/**
 * @module `npm run docs:options`: the options table of docs/hosts.md, written from the option types themselves
 * (`GateNodeOptions`, `GateFetchOptions`, `NodeOptions`, `FetchOptions` as the package exports them): one row per
 * option, its default from the `@default` tag, its meaning from its doc comment, and the faces that take it. An option
 * whose value is an object of type `…Options` gets a row per key of its own (`tools.learn`). `--check` writes nothing and
 * fails when the table differs; `npm run docs:check` and test/options-doc.test.ts do the same, and the test also holds
 * the types to the keys each face's option check accepts.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { replaceSection } from "./doc-sections.js";

const root = resolve(fileURLToPath(import.meta.url), "../..");

/** The page the table is written into, and its markers' key. */
export const OPTIONS_DOC = join(root, "docs", "hosts.md");
export const OPTIONS_SECTION = "options:table";

/** The faces, each with the entry that exports it and the name of its options type there. */
export const FACES = [
  { face: "gateNode", entry: "src/node-http.ts", type: "GateNodeOptions" },
  { face: "gateFetch", entry: "src/fetch.ts", type: "GateFetchOptions" },
  { face: "wymcpNode", entry: "src/node-http.ts", type: "NodeOptions" },
  { face: "wymcpFetch", entry: "src/fetch.ts", type: "FetchOptions" },
] as const;
export type Face = (typeof FACES)[number]["face"];

/** One documented option: its name (`tools.learn` for a key of an options object), its doc, and the faces taking it. */
export interface OptionDoc {
  name: string;
  meaning: string;
  default: string | undefined;
  faces: Face[];
}

/** The options of every face, read from the types with TypeScript's checker, in the order `gateNode`'s type lists them. */
export function readOptions(dir = root): OptionDoc[] {
  const config = ts.readConfigFile(join(dir, "tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, dir);
  const entries = [...new Set(FACES.map((f) => join(dir, f.entry)))];
  const program = ts.createProgram(entries, { ...options, noEmit: true });
  const checker = program.getTypeChecker();
  const byName = new Map<string, OptionDoc>();
  for (const { face, entry, type } of FACES) {
    const source = program.getSourceFile(join(dir, entry));
    const module = source && checker.getSymbolAtLocation(source);
    const exported = module && checker.getExportsOfModule(module).find((s) => s.name === type);
    if (!exported) throw new Error(`${entry} exports no ${type}`);
    const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    for (const option of optionsOf(checker, checker.getDeclaredTypeOfSymbol(symbol), "")) {
      const known = byName.get(option.name);
      if (!known) byName.set(option.name, { ...option, faces: [face] });
      else if (known.meaning !== option.meaning || known.default !== option.default) {
        throw new Error(`${option.name}: ${type} documents it otherwise than ${known.faces[0]}'s type does; make the doc comments agree`);
      } else known.faces.push(face);
    }
  }
  return [...byName.values()];
}

/** The documented properties of an options type, and those of each `…Options` object among them, prefixed. */
function optionsOf(checker: ts.TypeChecker, type: ts.Type, prefix: string): Array<Omit<OptionDoc, "faces">> {
  const out: Array<Omit<OptionDoc, "faces">> = [];
  for (const property of basesFirst(checker, type)) {
    const name = `${prefix}${property.name}`;
    const meaning = ts.displayPartsToString(property.getDocumentationComment(checker)).replace(/\s+/g, " ").trim();
    const tag = property.getJsDocTags(checker).find((t) => t.name === "default");
    out.push({ name, meaning, default: tag?.text ? ts.displayPartsToString(tag.text).replace(/\s+/g, " ").trim() : undefined });
    const declared = property.valueDeclaration ?? property.declarations?.[0];
    if (!declared) continue;
    const value = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, declared));
    for (const member of value.isUnion() ? value.types : [value]) {
      if (/Options$/.test(member.getSymbol()?.name ?? "")) out.push(...optionsOf(checker, member, `${name}.`));
    }
  }
  return out;
}

/**
 * The properties of a type, those of the interfaces it extends first (each base's before its own), so that a table
 * reads from the options every face shares to the few one face adds.
 */
function basesFirst(checker: ts.TypeChecker, type: ts.Type): ts.Symbol[] {
  const ordered = new Map<string, ts.Symbol>();
  const visit = (t: ts.Type) => {
    const object = t as ts.ObjectType;
    const target = object.objectFlags & ts.ObjectFlags.Reference ? (t as ts.TypeReference).target : t;
    if ((target as ts.ObjectType).objectFlags & ts.ObjectFlags.ClassOrInterface) {
      for (const base of checker.getBaseTypes(target as ts.InterfaceType)) visit(base);
    }
    for (const property of checker.getPropertiesOfType(t)) if (!ordered.has(property.name)) ordered.set(property.name, property);
  };
  visit(type);
  return [...ordered.values()];
}

/** A face list as the table shows it: nothing when every face takes the option. */
function facesCell(faces: readonly Face[]): string {
  return faces.length === FACES.length ? "all" : faces.map((f) => `\`${f}\``).join(", ");
}

/** `docs/<page>.md#anchor` in a doc comment, as a link from the page the table is written into. */
function linked(text: string, page: string): string {
  return text.replace(/(?<![\w/.-]|\]\()docs\/([\w./-]*[\w-]\.md)(#[\w-]+)?/g, (_m, file: string, anchor = "") => {
    const target = relative(dirname(page), join(root, "docs", file)) || file;
    return `[${file}](${target}${anchor})`;
  });
}

/** Markdown's table cell: no line break, no bare `|`. */
const cell = (text: string) => text.replace(/\|/g, "\\|");

/** The table, as written between the markers. */
export function renderOptionsTable(options: readonly OptionDoc[], page = OPTIONS_DOC): string {
  const lines = [
    `Written by \`npm run docs:options\` from the option types' doc comments (${FACES.map((f) => `\`${f.type}\``).join(", ")}); do not edit.`,
    "",
    "| option | faces | default | meaning |",
    "|---|---|---|---|",
    ...options.map(
      (o) => `| \`${o.name}\` | ${facesCell(o.faces)} | ${cell(linked(o.default ?? "none", page))} | ${cell(linked(o.meaning, page))} |`,
    ),
  ];
  return lines.join("\n");
}

/** The page with its table rendered from the types. */
export function renderOptionsDoc(text: string, options = readOptions()): string {
  return replaceSection(text, OPTIONS_SECTION, renderOptionsTable(options));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const current = readFileSync(OPTIONS_DOC, "utf8");
  const rendered = renderOptionsDoc(current);
  if (process.argv.includes("--check")) {
    if (rendered !== current) {
      console.error("docs/hosts.md: the options table differs from the option types: run npm run docs:options");
      process.exitCode = 1;
    }
  } else if (rendered !== current) {
    writeFileSync(OPTIONS_DOC, rendered);
    console.log("docs/hosts.md: options table written from the option types");
  } else console.log("docs/hosts.md: the options table is up to date");
}
