/**
 * @module emit-types: one TypeScript type per schema, by json-schema-to-typescript. Each schema's declarations sit
 * in a namespace of their own, so two schemas that both name a sub-shape (a `$defs` entry, a `title`) cannot clash.
 */
import { compile, type Options } from "json-schema-to-typescript";

const OPTIONS: Partial<Options> = {
  bannerComment: "",
  declareExternallyReferenced: true,
  format: true,
  strictIndexSignatures: false,
  unknownAny: true,
  // A schema is the server's own: nothing is fetched or read beside it.
  $refOptions: { resolve: { external: false } } as Options["$refOptions"],
};

/** `declare namespace <type>$ {...}` and `export type <type> = <type>$.<type>;` */
export async function emitType(typeName: string, schema: object): Promise<string> {
  const root = { ...structuredClone(schema), title: typeName } as Record<string, unknown>;
  delete root.$id;
  const body = (await compile(root as never, typeName, OPTIONS)).trim();
  const indented = body
    .split("\n")
    .map((line) => (line === "" ? line : `  ${line}`))
    .join("\n");
  return `declare namespace ${typeName}$ {\n${indented}\n}\nexport type ${typeName} = ${typeName}$.${typeName};`;
}
