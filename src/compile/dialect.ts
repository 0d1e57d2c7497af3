/**
 * @module dialect: which JSON Schema dialect a schema is compiled under, by the SDK's rule (declaredDialect in
 * @modelcontextprotocol/server): no `$schema`, or a non-string one, is 2020-12; draft-06 shares draft-07's engine;
 * a trailing `#` and http/https do not matter; any other `$schema` is refused, as the SDK refuses it.
 */
export type Dialect = "2020-12" | "2019-09" | "draft-07";

const DIALECTS: Record<string, Dialect> = {};
for (const scheme of ["http", "https"]) {
  DIALECTS[`${scheme}://json-schema.org/draft/2020-12/schema`] = "2020-12";
  DIALECTS[`${scheme}://json-schema.org/draft/2019-09/schema`] = "2019-09";
  DIALECTS[`${scheme}://json-schema.org/draft-07/schema`] = "draft-07";
  DIALECTS[`${scheme}://json-schema.org/draft-06/schema`] = "draft-07";
}

export class UnsupportedDialectError extends Error {
  override name = "UnsupportedDialectError";
}

export function dialectOf(schema: object): Dialect {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (typeof declared !== "string") return "2020-12";
  const dialect = Object.hasOwn(DIALECTS, declared.replace(/#$/, "")) ? DIALECTS[declared.replace(/#$/, "")] : undefined;
  if (!dialect) {
    throw new UnsupportedDialectError(
      `$schema ${JSON.stringify(declared.slice(0, 200))} is not a dialect the SDK's validators support (2020-12, 2019-09, draft-07, draft-06)`,
    );
  }
  return dialect;
}

/** The meta-schemas a schema can declare, draft-06 apart from draft-07 (its meta-schema differs; the SDK's engine does not). */
export type MetaSchema = "2020-12" | "2019-09" | "draft-07" | "draft-06";

/** The meta-schema `$schema` names (2020-12 when it names none, as the SDK and the MCP schema say), or undefined for one the SDK refuses. */
export function declaredMetaSchema(schema: object): MetaSchema | undefined {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (typeof declared !== "string") return "2020-12";
  const key = declared.replace(/#$/, "");
  if (!Object.hasOwn(DIALECTS, key)) return undefined;
  return /draft-06/.test(key) ? "draft-06" : DIALECTS[key];
}
