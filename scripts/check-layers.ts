/**
 * @module `npm run check:layers` (and `npm run lint`): the import graph of `src/` and the rules its layers keep.
 * Fails, naming each edge, on an import circle in `src/`; on `src/` importing `scripts/` or `test/`; on `scripts/`
 * importing `test/`; on a layer importing one above it (`core/` < `wire/`, `log/` < `telemetry/` < `options/` <
 * `outbound/` < `lock/` < `tools/` < `hosts/` < `cli/`; `check/`, `compile/` and `inspect/` are libraries below `cli/`,
 * which none of them imports; and `core/` never `node:*` nor any package); on a portable folder (`core/`, `wire/`,
 * `log/`, `telemetry/`, `options/`, `tools/`, `lock/`, `outbound/`) importing `node:*` or a package or using a Node
 * global, and on a file a Worker's entry reaches doing either; on a folder of `src/` that imports neither `node:*` nor a
 * package yet is left out of the portable ones (a new room is held to the rule from its first file); on one host's folder
 * importing another's; on a `hosts/<host>/index.ts` that does more
 * than re-export; on `otel/` imported by anything but its entry, `src/otel.ts`, and the command line's `--otel` module; on
 * a file outside `core/` taking a step of the admission stage (`core/admission.ts`) rather than the gate pipeline; on a
 * function of the command line or its libraries (`cli/`, `check/`, `inspect/`) that takes more than four positional
 * parameters (it takes an object). `--graph` prints the folder-level graph of `src/` and the lines of code per folder.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Where an import leads: a file of the repository (relative, `/`-separated), or a bare or `node:` specifier. */
export interface Edge {
  from: string;
  to: string;
  /** `import type` / `export type`: no run-time edge, but still an edge of the architecture. */
  typeOnly: boolean;
  /**
   * The values it takes by name (`*` for a namespace import, `export *` or a dynamic `import()`; `default`); unset on
   * a bare `import "x"` and on a type-only edge.
   */
  names?: string[];
}

const SCANNED = ["src", "scripts", "test", "bench", "fuzz", "examples"];
const SOURCE = /\.(?:ts|mts|mjs|js)$/;

function walk(root: string, folder: string): string[] {
  const full = join(root, folder);
  if (!existsSync(full)) return [];
  const out: string[] = [];
  for (const name of readdirSync(full).sort()) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const path = join(full, name);
    if (statSync(path).isDirectory()) out.push(...walk(root, join(folder, name)));
    else if (SOURCE.test(name) && !name.endsWith(".d.ts")) out.push(join(folder, name).split("\\").join("/"));
  }
  return out;
}

/** The repository file a relative specifier names (`./x.js` is `./x.ts` in source), or the specifier as written. */
function resolveSpecifier(root: string, from: string, specifier: string): string {
  if (!specifier.startsWith(".")) return specifier;
  const base = resolve(root, dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, ".ts"), base.replace(/\.mjs$/, ".mts"), base, `${base}.ts`, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate).split("\\").join("/");
  }
  return relative(root, base).split("\\").join("/");
}

/** Every import, re-export and dynamic `import()` of the scanned folders. */
export function importGraph(root: string): Edge[] {
  const edges: Edge[] = [];
  for (const file of SCANNED.flatMap((folder) => walk(root, folder))) {
    const text = readFileSync(join(root, file), "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    const visit = (node: ts.Node): void => {
      let specifier: ts.Expression | undefined;
      let typeOnly = false;
      let names: string[] | undefined;
      if (ts.isImportDeclaration(node)) {
        specifier = node.moduleSpecifier;
        const clause = node.importClause;
        typeOnly = clause !== undefined && (clause.isTypeOnly || allTypeOnly(clause.namedBindings, clause.name));
        if (clause && !typeOnly) names = valueNames(clause.namedBindings, clause.name);
      } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
        specifier = node.moduleSpecifier;
        typeOnly =
          node.isTypeOnly ||
          (node.exportClause !== undefined && ts.isNamedExports(node.exportClause) && everyType(node.exportClause.elements));
        if (!typeOnly)
          names =
            node.exportClause && ts.isNamedExports(node.exportClause)
              ? node.exportClause.elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text)
              : ["*"];
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        specifier = node.arguments[0];
        names = ["*"];
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
        specifier = node.argument.literal as ts.Expression;
        typeOnly = true;
      }
      if (specifier && ts.isStringLiteralLike(specifier)) {
        const edge: Edge = { from: file, to: resolveSpecifier(root, file, specifier.text), typeOnly };
        if (names) edge.names = names;
        edges.push(edge);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

function everyType(elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>): boolean {
  return elements.length > 0 && elements.every((e) => e.isTypeOnly);
}

/** The values an import clause takes: its default, its named values (by their exported name), or `*`. */
function valueNames(bindings: ts.NamedImportBindings | undefined, name: ts.Identifier | undefined): string[] {
  const names = name ? ["default"] : [];
  if (bindings && ts.isNamespaceImport(bindings)) names.push("*");
  else if (bindings) for (const e of bindings.elements) if (!e.isTypeOnly) names.push((e.propertyName ?? e.name).text);
  return names;
}

function allTypeOnly(bindings: ts.NamedImportBindings | undefined, name: ts.Identifier | undefined): boolean {
  return name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && everyType(bindings.elements);
}

/** The layer of a file of `src/`: its first folder, or `entry` for the package's entry modules at the top. */
export function layerOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] !== "src") return parts[0]!;
  // The core entry (`wymcp`) carries no host type: Workers import it.
  if (file === "src/index.ts") return "core-entry";
  return parts.length === 2 ? "entry" : parts[1]!;
}

/** What each layer of `src/` may import besides itself and `generated/`: only layers below it. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  core: [],
  // The wire's framing (lines, Server-Sent Events, a message read) and the log's events and wording: small rooms over the core.
  wire: ["core"],
  log: ["core"],
  codegen: ["core"],
  // What an observer is told of a judged message (the facts, the traced wrapper), with no observability library; and
  // every face's options, checked (the telemetry option among them).
  telemetry: ["core", "wire"],
  options: ["core", "telemetry"],
  outbound: ["core", "wire", "options"],
  // A feature after admission: its stage, its options and its log lines, over the core's chain. The tools option holds
  // the lock (`tools.lock`): the tools' room sits over the lock's.
  lock: ["core", "wire", "log", "telemetry", "outbound"],
  tools: ["core", "wire", "log", "options", "outbound", "lock"],
  // Every face: `node/`, `fetch/`, and the command line's two gates, `proxy/` and `stdio/`, a Node host each.
  hosts: ["core", "wire", "log", "telemetry", "options", "outbound", "tools", "lock"],
  // Libraries a test imports without a process: the capture checker, the schema compiler, the inspector's page and server.
  check: ["core", "wire", "log", "outbound"],
  compile: ["core", "codegen", "log", "tools", "lock"],
  inspect: ["core", "wire", "log", "telemetry", "options", "check"],
  // Arguments, help and I/O over everything below it.
  cli: [
    "core",
    "wire",
    "log",
    "telemetry",
    "options",
    "codegen",
    "outbound",
    "tools",
    "lock",
    "hosts",
    "otel",
    "check",
    "compile",
    "inspect",
  ],
  // `wymcp/otel`'s own folder: the telemetry's interface and `@opentelemetry/api`; only its entry loads it (and
  // `--otel`'s module, whose log it writes to).
  otel: ["core", "log", "telemetry"],
  "core-entry": ["core", "telemetry", "options"],
  entry: ["core", "telemetry", "options", "outbound", "tools", "lock", "hosts", "otel", "compile"],
};

/**
 * The files of `src/` outside `otel/` that may import it: the entry `wymcp/otel`, and what `--otel` loads (lazily, with
 * the SDK) for `wymcp proxy` and `wymcp stdio`.
 */
const OTEL_IMPORTERS: ReadonlySet<string> = new Set(["src/otel.ts", "src/cli/otel/start.ts"]);

/**
 * The admission stage's sequence is the gate pipeline's (`core/pipeline.ts`): outside `core/`, a file takes of
 * `core/admission.ts` its types and these byte readers only, never a step of the stage to sequence itself.
 */
const ADMISSION = "src/core/admission.ts";
const ADMISSION_OUTSIDE_CORE: ReadonlySet<string> = new Set(["BodyBytes", "readLimited", "BODY_BLOCK_BYTES", "REFUSAL_MESSAGES"]);

/** Every rule the graph breaks, one line each; `[]` when it keeps them all. */
export function layerProblems(root: string, edges: Edge[] = importGraph(root)): string[] {
  const problems: string[] = [];
  for (const { from, to, names } of edges) {
    const top = from.split("/")[0];
    const target = to.split("/")[0];
    if (top === "src" && (target === "scripts" || target === "test")) problems.push(`${from} imports ${to}: src/ never imports ${target}/`);
    if (top === "scripts" && target === "test") problems.push(`${from} imports ${to}: scripts/ never imports test/`);
    if (top !== "src") continue;
    const layer = layerOf(from);
    if (to === ADMISSION && layer !== "core") {
      const steps = (names ?? []).filter((name) => !ADMISSION_OUTSIDE_CORE.has(name));
      if (steps.length > 0)
        problems.push(`${from} imports ${steps.join(", ")} from ${to}: outside core/, the admission stage runs through core/pipeline.ts`);
    }
    if (target === "src") {
      const other = layerOf(to);
      if (other !== layer && !(MAY_IMPORT[layer] ?? []).includes(other))
        problems.push(`${from} imports ${to}: ${layer}/ may not import ${other}/`);
      else if (other === "otel" && layer !== "otel" && !OTEL_IMPORTERS.has(from))
        problems.push(
          `${from} imports ${to}: only ${[...OTEL_IMPORTERS].join(" and ")} import otel/ (no other entry loads @opentelemetry/api)`,
        );
      const host = hostOf(from);
      const otherHost = hostOf(to);
      if (host && otherHost && host !== otherHost && otherHost !== "shared")
        problems.push(`${from} imports ${to}: one host's folder never imports another's`);
    } else if (PORTABLE.has(layer) && target !== "generated") {
      problems.push(
        layer === "core"
          ? `${from} imports ${to}: core/ imports only core/ and generated/ (no package, nothing of node:*)`
          : `${from} imports ${to}: ${layer}/ runs on every host, so it imports only src/ and generated/ (no package, nothing of node:*)`,
      );
    }
  }
  problems.push(...portableProblems(root, edges), ...unlistedPortable(root, edges));
  problems.push(
    ...circles(edges.filter((e) => e.from.startsWith("src/") && e.to.startsWith("src/"))).map((c) => `import circle: ${c.join(" → ")}`),
  );
  for (const index of walk(root, "src/hosts").filter((f) => /^src\/hosts\/[^/]+\/index\.ts$/.test(f))) {
    const source = ts.createSourceFile(index, readFileSync(join(root, index), "utf8"), ts.ScriptTarget.Latest, false);
    for (const statement of source.statements) {
      if (!ts.isExportDeclaration(statement) || !statement.moduleSpecifier)
        problems.push(
          `${index}: a host's index.ts only re-exports (line ${source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1})`,
        );
    }
  }
  return problems;
}

/**
 * The folders every face's chain runs on, Workers and Deno included: no `node:*`, no package, and no Node global
 * (`Buffer`, `process`, ...) in any of their files.
 */
const PORTABLE: ReadonlySet<string> = new Set(["core", "wire", "log", "telemetry", "options", "tools", "lock", "outbound"]);

/** The entries a Worker, Deno or Bun imports: everything they reach (type-only imports too) keeps the portable rule. */
const PORTABLE_ENTRIES = ["src/index.ts", "src/fetch.ts", "src/outbound.ts", "src/otel.ts"];

/** The layers whose portability is judged by what their entries reach, file by file, not folder-wide. */
const MIXED_LAYERS: ReadonlySet<string> = new Set(["hosts", "entry", "core-entry"]);

/**
 * Every folder of `src/` that imports nothing of `node:*` and no package but is not in {@link PORTABLE}: it runs on
 * every host today, and only the list keeps it so.
 */
function unlistedPortable(root: string, edges: Edge[]): string[] {
  const bound = new Set<string>();
  for (const { from, to } of edges)
    if (from.startsWith("src/") && !SCANNED.some((folder) => to.startsWith(`${folder}/`)) && !to.startsWith("generated/"))
      bound.add(layerOf(from));
  const layers = new Set(walk(root, "src").map(layerOf));
  return [...layers]
    .filter((layer) => !PORTABLE.has(layer) && !MIXED_LAYERS.has(layer) && !bound.has(layer))
    .sort()
    .map((layer) => `src/${layer}/ imports neither node:* nor a package: list it in PORTABLE, so that it keeps running on every host`);
}

/** Globals Node has and the Web platform does not. */
const NODE_GLOBALS: ReadonlySet<string> = new Set([
  "Buffer",
  "process",
  "require",
  "module",
  "__dirname",
  "__filename",
  "global",
  "setImmediate",
  "clearImmediate",
]);

/** What keeps a portable file from running on every host: a `node:*` import reached from a portable entry, a Node global used. */
function portableProblems(root: string, edges: Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) if (from.startsWith("src/")) next.set(from, [...(next.get(from) ?? []), to]);
  const reached = new Map<string, string>();
  const stack = PORTABLE_ENTRIES.filter((entry) => next.has(entry) || existsSync(join(root, entry))).map((entry) => [entry, entry]);
  while (stack.length > 0) {
    const [file, entry] = stack.pop()!;
    if (reached.has(file!)) continue;
    reached.set(file!, entry!);
    for (const to of next.get(file!) ?? []) if (to.startsWith("src/") || to.startsWith("node:")) stack.push([to, entry!]);
  }
  const problems: string[] = [];
  for (const { from, to } of edges)
    if (to.startsWith("node:") && reached.has(from) && !PORTABLE.has(layerOf(from)))
      problems.push(`${from} imports ${to}: ${reached.get(from)} reaches it, and a Worker has no ${to}`);
  const files = new Set([...reached.keys()].filter((file) => file.endsWith(".ts") && existsSync(join(root, file))));
  for (const folder of PORTABLE) for (const file of walk(root, `src/${folder}`)) files.add(file);
  for (const file of [...files].sort())
    for (const { name, line } of nodeGlobalsIn(root, file))
      problems.push(
        `${file}:${line} uses ${name}: ${PORTABLE.has(layerOf(file)) ? `${layerOf(file)}/` : reached.get(file)} runs on every host, and only Node has ${name}`,
      );
  return problems;
}

/** The Node globals a file uses (a name it declares itself, or a member `x.process`, is not one), with their lines. */
function nodeGlobalsIn(root: string, file: string): Array<{ name: string; line: number }> {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  const declared = new Set<string>();
  const used: Array<{ name: string; line: number }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && NODE_GLOBALS.has(node.text)) {
      const parent = node.parent;
      const member =
        (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
        ((ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isMethodDeclaration(parent)) && parent.name === node) ||
        ts.isQualifiedName(parent);
      const declaration =
        (ts.isVariableDeclaration(parent) ||
          ts.isParameter(parent) ||
          ts.isFunctionDeclaration(parent) ||
          ts.isClassDeclaration(parent) ||
          ts.isImportSpecifier(parent) ||
          ts.isBindingElement(parent)) &&
        parent.name === node;
      if (declaration) declared.add(node.text);
      else if (!member) used.push({ name: node.text, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return used.filter(({ name }) => !declared.has(name));
}

/** The folders whose functions take at most this many positional parameters; past it, one object of named ones. */
const PARAMETER_FOLDERS = ["src/cli", "src/check", "src/inspect"];
export const MAX_POSITIONAL_PARAMETERS = 4;

/**
 * Every function (declared, a method, a constructor, an arrow, an expression) of `folders` with more than
 * {@link MAX_POSITIONAL_PARAMETERS} positional parameters (`this` aside), one line each: `file:line name takes N`.
 */
export function parameterProblems(root: string, folders: readonly string[] = PARAMETER_FOLDERS): string[] {
  const problems: string[] = [];
  for (const file of folders.flatMap((folder) => walk(root, folder))) {
    const source = ts.createSourceFile(file, readFileSync(join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
        const count = node.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === "this")).length;
        if (count > MAX_POSITIONAL_PARAMETERS) {
          const name = node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name)) ? node.name.text : "a function";
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          problems.push(`${file}:${line}: ${name} takes ${count} positional parameters; past ${MAX_POSITIONAL_PARAMETERS}, take an object`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return problems;
}

function hostOf(file: string): string | undefined {
  const match = /^src\/hosts\/([^/]+)\//.exec(file);
  return match?.[1];
}

/** Every import circle (a strongly connected component of more than one file, or a file importing itself), each sorted. */
export function circles(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (!next.has(from)) next.set(from, []);
    next.get(from)!.push(to);
  }
  // Tarjan's algorithm.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (next.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) connect(node);
  return found.sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
}

/** A folder of `src/` for the graph: `src/hosts/node`, `src/core`, `src` for the entries; outside src/, the top folder. */
function folderOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] !== "src") return parts[0]!;
  if (parts.length <= 2) return "src";
  if (parts[1] === "hosts" || parts[1] === "cli") return parts.length > 3 ? parts.slice(0, 3).join("/") : parts.slice(0, 2).join("/");
  return parts.slice(0, 2).join("/");
}

/** Folder → folder edges of `src/` (and out of it), with the number of imports each stands for. */
export function folderGraph(edges: Edge[]): string[] {
  const counts = new Map<string, number>();
  for (const { from, to } of edges) {
    if (!from.startsWith("src/")) continue;
    const a = folderOf(from);
    const b = to.startsWith("node:")
      ? "node:*"
      : SCANNED.some((f) => to.startsWith(`${f}/`)) || to.startsWith("generated/")
        ? folderOf(to)
        : "(packages)";
    if (a === b) continue;
    const key = `${a} → ${b}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([edge, n]) => `${edge} (${n})`);
}

/** Lines per folder of `src/` (and the other top folders): all lines, and those neither blank nor only a comment. */
export function linesPerFolder(root: string): string[] {
  const totals = new Map<string, { lines: number; code: number }>();
  for (const file of SCANNED.flatMap((folder) => walk(root, folder))) {
    const text = readFileSync(join(root, file), "utf8");
    const lines = text.split("\n");
    if (lines.at(-1) === "") lines.pop();
    const code = lines.filter((line) => {
      const t = line.trim();
      return t !== "" && !t.startsWith("//") && !t.startsWith("*") && !t.startsWith("/*");
    }).length;
    const folder = folderOf(file);
    const total = totals.get(folder) ?? { lines: 0, code: 0 };
    totals.set(folder, { lines: total.lines + lines.length, code: total.code + code });
  }
  return [...totals].sort(([a], [b]) => (a < b ? -1 : 1)).map(([folder, { lines, code }]) => `${folder}: ${lines} lines, ${code} code`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv.slice(2).find((a) => !a.startsWith("--")) ?? resolve(fileURLToPath(import.meta.url), "../.."));
  const edges = importGraph(root);
  if (process.argv.includes("--graph")) {
    console.log("import graph of src/ by folder (imports per edge):");
    for (const line of folderGraph(edges)) console.log(`  ${line}`);
    console.log("lines per folder (all, and neither blank nor comment):");
    for (const line of linesPerFolder(root)) console.log(`  ${line}`);
  }
  const problems = [...layerProblems(root, edges), ...parameterProblems(root)];
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`check-layers: ${problems.length} problem(s)`);
    process.exitCode = 1;
  } else console.log(`check-layers: ${edges.filter((e) => e.from.startsWith("src/")).length} imports of src/ keep the layers; no circle`);
}
