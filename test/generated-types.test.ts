import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import ts from "typescript";
import { readEraConfigs } from "../scripts/codegen/generate.js";
import { repoRoot, specDefinitions } from "./support/spec.js";

const generatedDir = join(repoRoot, "generated");
const configs = readEraConfigs(join(repoRoot, "schemas"));

const declarationFiles = [
  join(generatedDir, "index.d.ts"),
  join(generatedDir, "validator.d.ts"),
  ...configs.flatMap(({ era, batch }) => [
    join(generatedDir, era, "types.d.ts"),
    join(generatedDir, era, "validators.d.ts"),
    ...(batch ? [join(generatedDir, era, "batch.d.ts")] : []),
  ]),
];

test("every generated declaration file type-checks in one strict TypeScript program, lib files included", (t) => {
  const program = ts.createProgram(declarationFiles, {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    skipLibCheck: false,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2023.d.ts"],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  });
  const checked = program.getSourceFiles().filter((file) => file.fileName.startsWith(generatedDir.split("\\").join("/")));
  t.diagnostic(`${checked.length} generated files in the program`);
  assert.equal(checked.length, declarationFiles.length);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  const report = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => repoRoot,
    getNewLine: () => "\n",
  });
  assert.equal(diagnostics.length, 0, report);
});

/** The names a declaration file exports, in file order (a name exported twice appears twice). */
function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, false);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause && ts.isNamedExports(clause)) names.push(...clause.elements.map((element) => element.name.text));
      else names.push(`* from ${statement.moduleSpecifier?.getText(source) ?? "?"}`);
      continue;
    }
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isVariableStatement(statement)) {
      names.push(...statement.declarationList.declarations.map((d) => d.name.getText(source)));
    } else if (
      ts.isInterfaceDeclaration(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      ts.isEnumDeclaration(statement) ||
      ts.isClassDeclaration(statement) ||
      ts.isFunctionDeclaration(statement) ||
      ts.isModuleDeclaration(statement)
    ) {
      names.push(statement.name?.getText(source) ?? "(anonymous)");
    }
  }
  return names;
}

describe("each era's types.d.ts exports one type per definition of its revision", () => {
  for (const { era, revision } of configs) {
    const file = join(generatedDir, era, "types.d.ts");
    const definitions = Object.keys(specDefinitions(revision)).sort();
    const names = exportedNames(file);

    test(`${era}/types.d.ts exports exactly the ${revision} $defs names, once each`, () => {
      assert.ok(definitions.length > 100);
      assert.deepEqual([...names].sort(), definitions);
    });

    test(`${era}/types.d.ts has no numbered duplicate of a definition`, () => {
      const known = new Set(definitions);
      assert.deepEqual(
        names.filter((name) => /[A-Za-z]\d+$/.test(name) && !known.has(name)),
        [],
      );
    });
  }
});
